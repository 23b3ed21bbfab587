"""Chapter 12's seed studies: SimCSE, its variants, neighbours and centring, 12 seeds.

For every seed: chapter 11's MLM pretraining (`pretrain_mlm`), then seven SimCSE runs
from that encoder (`train_simcse`): the chapter's unsupervised and supervised runs,
dropout 0 and 0.3, temperatures 0.01, 0.2 and 1. Three tables come from the same
models. RECORDED_STUDY: per model, Spearman × 100 on the STS-B test split; held-out
top-10, alignment, uniformity and mean cosine (`geometry`); alignment of STS pairs
with gold score >= 4 and uniformity of all 2,758 STS sentences; first and final
training loss. RECORDED_NEIGHBOURS: the four queries' top-3 neighbours
(`neighbours`). RECORDED_CENTRING: the MLM encoder's vectors centred with the mean
of the training sentences (`centre`). One CPU thread, about 95 CPU-seconds per seed (the
models are trained once per seed for all three tables). The STS
columns need the STS-B test split (`load_sts_benchmark`). Run `make study CH=12`.
"""

import math
import sys
import types

from studies.common import Study, chapter_namespace, main

CHAPTER = "12_contrastive_sentence_embeddings"
# The study's models: name → (kind, changes to train_simcse's settings).
MODELS = {
    "unsup": ("unsupervised", {}),
    "sup": ("supervised", {}),
    "unsup_p0": ("unsupervised", {"dropout": 0.0}),
    "unsup_p0.3": ("unsupervised", {"dropout": 0.3}),
    "unsup_t0.01": ("unsupervised", {"temperature": 0.01}),
    "unsup_t0.2": ("unsupervised", {"temperature": 0.2}),
    "unsup_t1": ("unsupervised", {"temperature": 1.0}),
}
# For each query of the chapter, the modules a programmer would look in.
EXPECTED_MODULES = [
    {"statistics"},
    {"collections"},
    {"logging"},
    {"http.client", "socket"},
]
COLUMNS = [
    "sts",
    "top10",
    "alignment",
    "uniformity",
    "mean_cosine",
    "sts_alignment",
    "sts_uniformity",
    "loss0",
    "loss",
]
CENTRING_COLUMNS = ["uniformity", "mean_cosine", "top10", "sts", "alignment"]
_chapter: dict = {}
_rows: dict = {}


def chapter() -> dict:
    """The chapter's study cells, run once."""
    if not _chapter:
        sys.modules.setdefault(f"study_{CHAPTER}", types.ModuleType(f"study_{CHAPTER}"))
        _chapter.update(chapter_namespace(CHAPTER))
    return _chapter


def trained(seed: int) -> dict:
    """The MLM encoder of `seed` and the seven SimCSE models from it, with histories."""
    names = chapter()
    mlm, history = names["pretrain_mlm"](seed)
    names["train_simcse"].__globals__["base"] = mlm.encoder  # it starts from `base`
    models = {"mlm": (mlm.encoder, history)}
    for name, (kind, changes) in MODELS.items():
        models[name] = names["train_simcse"](kind, seed, progress=False, **changes)
    return models


def rows_of(seed: int) -> dict:
    """The three tables' rows of `seed`, from one training of its eight models."""
    if seed not in _rows:
        models = trained(seed)
        _rows[seed] = {
            "RECORDED_STUDY": study_row(models),
            "RECORDED_NEIGHBOURS": neighbours_row(models),
            "RECORDED_CENTRING": centring_row(models),
        }
    return _rows[seed]


def sts_measures(encode) -> tuple[float, float, float]:
    """Spearman × 100 on STS-B test; alignment of pairs with gold >= 4; uniformity."""
    names = chapter()
    sts = names["sts"]
    if sts is None:
        raise RuntimeError(
            "the STS columns need the STS-B test split: see load_sts_benchmark"
        )
    score = names["sts_spearman"](encode, sts.first, sts.second, sts.scores)
    close = [i for i, gold in enumerate(sts.scores) if gold >= 4]
    first = encode([sts.first[i] for i in close], batch_size=256)
    second = encode([sts.second[i] for i in close], batch_size=256)
    everything = encode(sts.first + sts.second, batch_size=256)
    return (
        score,
        names["alignment"](first, second).item(),
        names["uniformity"](everything).item(),
    )


def study_row(models: dict) -> dict[str, list[float]]:
    """Each model's nine columns, in the chapter's order of models."""
    names = chapter()
    row = {}
    for name, (model, history) in models.items():
        measures = names["geometry"](model)
        sts, sts_alignment, sts_uniformity = sts_measures(
            names["sentence_encoder"](model).encode
        )
        first_loss = math.nan if name == "mlm" else history.losses[0]
        row[name] = [
            sts,
            measures["top10"],
            measures["alignment"],
            measures["uniformity"],
            measures["mean_cosine"],
            sts_alignment,
            sts_uniformity,
            first_loss,
            history.final_loss,
        ]
    return row


def neighbours_row(models: dict) -> list[float]:
    """Smallest MLM top-3 cosine, largest unsup and sup ones, expected-module hits."""
    names = chapter()
    found = {
        name: names["neighbours"](models[name][0]) for name in ("mlm", "unsup", "sup")
    }
    hits = [
        sum(
            any(names["module_of"][s] in expected for _, s in lists[q])
            for q, expected in enumerate(EXPECTED_MODULES)
        )
        for lists in found.values()
    ]
    mlm_low = min(s for lists in found["mlm"] for s, _ in lists)
    unsup_high = max(s for lists in found["unsup"] for s, _ in lists)
    sup_high = max(s for lists in found["sup"] for s, _ in lists)
    return [mlm_low, unsup_high, sup_high, *hits]


def centring_row(models: dict) -> list[float]:
    """The centred MLM vectors' uniformity, mean cosine, top-10, STS-B and alignment."""
    names = chapter()
    mlm_encode = names["sentence_encoder"](models["mlm"][0]).encode
    reference = mlm_encode(names["train_part"]["sentences"], batch_size=256)

    def centred_encode(sentences: list[str], batch_size: int = 256):
        return names["centre"](mlm_encode(sentences, batch_size=batch_size), reference)

    measures = names["measure"](centred_encode)
    sts = names["sts"]
    score = names["sts_spearman"](centred_encode, sts.first, sts.second, sts.scores)
    return [
        measures["uniformity"],
        measures["mean_cosine"],
        measures["top10"],
        score,
        measures["alignment"],
    ]


def render_study(rows: dict[int, dict[str, list[float]]]) -> str:
    lines = []
    for seed, models in sorted(rows.items()):
        for name, v in models.items():
            loss0 = "   nan" if math.isnan(v[7]) else f"{v[7]:6.3f}"
            numbers = [f"{v[0]:5.2f}", *(f"{x:.3f}" for x in v[1:3]), f"{v[3]:7.3f}"]
            numbers += [
                f"{v[4]:6.3f}",
                f"{v[5]:.3f}",
                f"{v[6]:7.3f}",
                loss0,
                f"{v[8]:6.3f}",
            ]
            lines.append(f"{seed:2d} {name:<12} " + " ".join(numbers))
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse_study(text: str) -> dict[int, dict[str, list[float]]]:
    rows: dict[int, dict[str, list[float]]] = {}
    for line in text.strip().splitlines():
        seed, name, *values = line.split()
        rows.setdefault(int(seed), {})[name] = [float(v) for v in values]
    return rows


def agree_study(recorded: dict, computed: dict) -> bool:
    """Half a point of STS, 0.02 of top-10 and the geometry, 0.05 of the losses."""
    tolerances = [0.5, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.05, 0.05]
    return recorded.keys() == computed.keys() and all(
        (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol
        for name in recorded
        for a, b, tol in zip(recorded[name], computed[name], tolerances, strict=True)
    )


def render_neighbours(rows: dict[int, list[float]]) -> str:
    lines = [
        f"{seed:2d} {r[0]:.4f} {r[1]:.4f} {r[2]:.4f} {r[3]:d} {r[4]:d} {r[5]:d}"
        for seed, r in sorted(rows.items())
    ]
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse_neighbours(text: str) -> dict[int, list[float]]:
    rows = {}
    for line in text.strip().splitlines():
        seed, *values = line.split()
        rows[int(seed)] = [float(v) for v in values[:3]] + [int(v) for v in values[3:]]
    return rows


def agree_neighbours(recorded: list, computed: list) -> bool:
    """Cosines within 0.01; the counts of expected modules within one query."""
    return all(
        abs(a - b) <= 0.01 for a, b in zip(recorded[:3], computed[:3], strict=True)
    ) and all(abs(a - b) <= 1 for a, b in zip(recorded[3:], computed[3:], strict=True))


def render_centring(rows: dict[int, list[float]]) -> str:
    lines = [
        f"{seed:2d}  {r[0]:.3f} {r[1]:.3f} {r[2]:.3f}  {r[3]:.2f} {r[4]:.3f}"
        for seed, r in sorted(rows.items())
    ]
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse_centring(text: str) -> dict[int, list[float]]:
    rows = {}
    for line in text.strip().splitlines():
        seed, *values = line.split()
        rows[int(seed)] = [float(v) for v in values]
    return rows


def agree_centring(recorded: list, computed: list) -> bool:
    """Within 0.02 on the geometry measures and top-10, half a point on STS."""
    tolerances = [0.02, 0.02, 0.02, 0.5, 0.02]
    return all(
        abs(a - b) <= tol
        for a, b, tol in zip(recorded, computed, tolerances, strict=True)
    )


def run_for(name: str):
    """`run_seed` of the table `name`: its row of `rows_of(seed)`."""

    def run_seed(seed: int, device: str):
        if device != "cpu":
            raise ValueError(
                "chapter 12's models are too small for a GPU to help: run on the CPU"
            )
        return rows_of(seed)[name]

    return run_seed


STUDIES = [
    Study(
        CHAPTER,
        "RECORDED_STUDY",
        range(12),
        run_for("RECORDED_STUDY"),
        render_study,
        parse_study,
        agree_study,
        test_seed=0,
        description="eight models per seed, seeds 0 to 11",
    ),
    Study(
        CHAPTER,
        "RECORDED_NEIGHBOURS",
        range(12),
        run_for("RECORDED_NEIGHBOURS"),
        render_neighbours,
        parse_neighbours,
        agree_neighbours,
        test_seed=0,
        description="top-3 neighbours of the four queries, seeds 0 to 11",
    ),
    Study(
        CHAPTER,
        "RECORDED_CENTRING",
        range(12),
        run_for("RECORDED_CENTRING"),
        render_centring,
        parse_centring,
        agree_centring,
        test_seed=0,
        description="the MLM vectors centred, seeds 0 to 11",
    ),
]

if __name__ == "__main__":
    main(STUDIES)
