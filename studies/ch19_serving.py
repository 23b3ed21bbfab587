"""Chapter 19's studies: STS-B scores of the served versions, and their speed.

RECORDED_STS, rows 0 to 3: Spearman × 100 on all 1,379 pairs of the STS-B test
split for encoderlib, encoderlib int8, ONNX Runtime and ONNX Runtime int8 (the
chapter's `sts_scores`), about 20 to 60 s per row. RECORDED_SPEED, rows 0
(sentences) and 1 (paragraphs): the chapter's `time_versions` over its five
versions, the fastest of 5 runs taking turns, about 30 s per row. The versions
come from the chapter's `serving_versions`: a fresh export of MiniLM into a
temporary folder. One CPU thread. Run `make study CH=19`.
"""

import tempfile
from pathlib import Path

from studies.common import Study, chapter_namespace, main

CHAPTER = "19_serving"
STS_NAMES = ["encoderlib", "encoderlib int8", "ONNX Runtime", "ONNX Runtime int8"]
SPEED_SETS = ["sentences", "paragraphs"]


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def versions() -> dict:
    """The chapter's five versions, from a fresh export, built once."""
    names = chapter()
    if "versions" not in names:  # the sessions read their files when they are made
        with tempfile.TemporaryDirectory(prefix="ch19-study-") as folder:
            versions = names["serving_versions"](names["minilm"], Path(folder))
        names["versions"] = versions
    return names["versions"]


def run_sts(seed: int, device: str) -> float:
    """Spearman × 100 of version `seed` (in STS_NAMES' order) on the whole split."""
    names = chapter()
    version = STS_NAMES[seed]  # encoderlib itself needs no export
    model = names["minilm"] if version == "encoderlib" else versions()[version]
    scores = names["sts_scores"]({version: model})
    if scores is None:
        raise RuntimeError("no STS Benchmark data on this machine")
    return round(scores[version], 2)


def render_sts(rows: dict[int, float]) -> str:
    lines = [
        f'    "{STS_NAMES[seed]}": {score:.2f},' for seed, score in sorted(rows.items())
    ]
    return "{\n" + "\n".join(lines) + "\n}"


def parse_sts(value: dict) -> dict[int, float]:
    return {STS_NAMES.index(name): score for name, score in value.items()}


def agree_sts(recorded: float, computed: float) -> bool:
    """The chapter's tolerance: within 0.05 points."""
    return abs(recorded - computed) <= 0.05


def run_speed(seed: int, device: str) -> dict:
    """ms of each version on text set `seed` (sentences, paragraphs); the share."""
    names = chapter()
    set_name = SPEED_SETS[seed]
    return names["time_versions"](
        versions(),
        names["text_sets"][set_name],
        names["lengths"][set_name],
        repeats=5,
    )


def render_speed(rows: dict[int, dict]) -> str:
    lines = ["{"]
    for seed, row in sorted(rows.items()):
        lines.append(f'    "{SPEED_SETS[seed]}": {{')
        for name, value in row.items():
            text = f"{value:.2f}" if name == "share" else str(value)
            lines.append(f'        "{name}": {text},')
        lines.append("    },")
    return "\n".join(lines) + "\n}"


def parse_speed(value: dict) -> dict[int, dict]:
    return {SPEED_SETS.index(name): row for name, row in value.items()}


def agree_speed(recorded: dict, computed: dict) -> bool:
    """Times are measurements of a machine and its load, never asserted: a rerun
    agrees when every recorded version completes with a positive, finite time."""
    return all(
        0 < computed[name] < float("inf") for name in recorded if name != "share"
    )


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_STS",
        seeds=range(4),
        run_seed=run_sts,
        render=render_sts,
        parse=parse_sts,
        agree=agree_sts,
        test_seed=0,
        description="STS-B test, all 1,379 pairs, Spearman x 100, the four versions",
        seeded=False,
    ),
    Study(
        chapter=CHAPTER,
        name="RECORDED_SPEED",
        seeds=range(2),
        run_seed=run_speed,
        render=render_speed,
        parse=parse_speed,
        agree=agree_speed,
        test_seed=0,
        description="ms per encode, one thread, fastest of 5; share of its products",
        live_seeds=[0, 1],
        seeded=False,
    ),
]

if __name__ == "__main__":
    main(STUDIES)
