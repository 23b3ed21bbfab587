"""Chapter 3's extrapolation study: three position schemes on the order task, 10 seeds.

For every seed, the chapter's `train_order_classifier` (400 steps on sentences of
2 to 16 tokens) for each position scheme, then `accuracy` at the lengths 8, 16, 24,
32, 48 and 64: on all 2000 sentences, on those with both markers before position
16, and (from n = 24) on those with a marker at position 16 or later. The model
without positions runs for seeds 0 to 4 only: it stays at chance whatever the seed.
One CPU thread, about 12 s per seed on an idle CPU. Run `make study CH=03`.
"""

from studies.common import Study, chapter_namespace, main

CHAPTER = "03_positional_encoding"
NONE_SEEDS = 5  # the model without positions: seeds 0 to 4
# all sentences; both markers < 16; a marker >= 16 (from n = 24)
MEASURES = ("overall", "inside", "beyond")


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> dict[str, list[list[float]]]:
    """Per position scheme: [overall (6 lengths), inside (6), beyond (4: n >= 24)]."""
    import torch

    names = chapter()
    names["device"] = torch.device(device)
    row = {}
    for name in names["position_choices"]:
        if name == "none" and seed >= NONE_SEEDS:
            continue
        model = names["train_order_classifier"](name, seed)
        results = [names["accuracy"](model, n) for n in names["lengths"]]
        row[name] = [
            [round(r[0], 3) for r in results],
            [round(r[1], 3) for r in results],
            [round(r[2], 3) for r in results[2:]],
        ]
    return row


def render(rows: dict[int, dict[str, list[list[float]]]]) -> str:
    """The table as the chapter writes it: one line per seed, scheme and measure."""
    lines = []
    for seed, row in sorted(rows.items()):
        for name, measures in row.items():
            for measure, values in zip(MEASURES, measures, strict=True):
                lines.append(
                    f"{seed:2d} {name:<10} {measure:<7} "
                    + " ".join(f"{x:.3f}" for x in values)
                )
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, dict[str, list[list[float]]]]:
    """The chapter's table back into rows."""
    rows: dict[int, dict[str, list[list[float]]]] = {}
    for line in text.strip().splitlines():
        seed, name, measure, *values = line.split()
        measures = rows.setdefault(int(seed), {}).setdefault(name, [])
        assert measure == MEASURES[len(measures)], (
            f"expected {MEASURES[len(measures)]}, got {measure}"
        )
        measures.append([float(x) for x in values])
    return rows


def agree(recorded: dict, computed: dict) -> bool:
    """The chapter's tolerance: the same schemes, every accuracy within 0.1.

    Another CPU's rounding, amplified by training, moved seed 0's accuracies
    beyond the trained lengths by up to 0.077 (an AVX2-only AMD EPYC against the
    machine that recorded the table).
    """
    return recorded.keys() == computed.keys() and all(
        abs(a - b) <= 0.1
        for name in recorded
        for rec, com in zip(recorded[name], computed[name], strict=True)
        for a, b in zip(rec, com, strict=True)
    )


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_STUDY",
        seeds=range(10),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=0,
        description="order-task accuracy, three position schemes, seeds 0 to 9",
        live_seeds=[0, 1],
    )
]

if __name__ == "__main__":
    main(STUDIES)
