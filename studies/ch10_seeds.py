"""Chapter 10's seed study: the tiny classifiers and MiniLM fine-tuning over 20 seeds.

Two tables. RECORDED_TINY: for every seed, eight runs of the chapter's word-order
task (`tiny_classifier` and `fit`, 87 steps): `[CLS]` and mean pooling with learned
positions (test sentences right of 500, and the first step at which validation
accuracy reached 0.95), both poolings without positions, three sinusoidal variants
(exercise 10.3) and the bag of embeddings (test, and training sentences right of
1,800). RECORDED_MINILM: for every seed and 32, 64, 128 and 256 labelled sentences,
test sentences right for the fine-tuned MiniLM and for the best of five probes on
its frozen vectors. All seeds share the data set of seed 0. One CPU thread. Run
`make study CH=10`.
"""

import torch

from studies.common import Study, chapter_namespace, main

CHAPTER = "10_training_a_classifier"
LABELLED_SIZES = (32, 64, 128, 256)  # the chapter's sizes of the labelled set


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def _right(names: dict, model, split: str) -> int:
    batch = names["whole"][split]
    return round(names["accuracy"](model, batch) * len(batch["labels"]))


def run_tiny(seed: int, device: str) -> tuple[int, ...]:
    """One row of RECORDED_TINY, in the order of the chapter's TINY_COLUMNS."""
    names = chapter()
    tiny, fit = names["tiny_classifier"], names["fit"]
    row = []
    for pooling in ("cls", "mean"):
        model = tiny(seed, pooling=pooling)
        history = fit(model, seed, progress=False)
        row += [_right(names, model, "test"), names["first_step_at"](history)]
    scaled_positions = tiny(seed, positions="sinusoidal")
    embeddings = scaled_positions.encoder.embeddings
    embeddings.position_embeddings = names["Scaled"](
        embeddings.position_embeddings, 0.02
    )
    for model in (
        tiny(seed, positions="none"),
        tiny(seed, pooling="mean", positions="none"),
        tiny(seed, positions="sinusoidal"),
        scaled_positions,
        names["sinusoidal_scaled_tokens"](seed),
    ):
        fit(model, seed, progress=False)
        row.append(_right(names, model, "test"))
    names["encoderlib"].set_seed(seed)
    bag = names["BagOfEmbeddings"](names["tokenizer"].vocab_size)
    fit(bag, seed, progress=False)
    row += [_right(names, bag, "test"), _right(names, bag, "train")]
    return tuple(row)


def run_minilm(seed: int, device: str) -> tuple[tuple[int, int], ...]:
    """One row of RECORDED_MINILM: test sentences right (fine-tuned, probe) per size."""
    names = chapter()
    names["device"] = torch.device(device)
    row = []
    for n in LABELLED_SIZES:
        subset = names["labelled_subset"](seed, n)
        tuned, _ = names["fine_tune"](seed, subset, progress=False)
        row.append((round(tuned * 500), round(names["probe_accuracy"](subset) * 500)))
    return tuple(row)


def render_as(name: str):
    def render(rows: dict) -> str:
        lines = [f"    {seed}: {tuple(row)}," for seed, row in sorted(rows.items())]
        return "{\n" + "\n".join(lines) + "\n}"

    render.__name__ = f"render_{name}"
    return render


def parse(table: dict) -> dict:
    """The chapter's table (a dict literal) as rows."""
    return dict(table)


def agree_tiny(recorded: tuple, computed: tuple) -> bool:
    """The chapter's tolerance: every count and every step within 16."""
    return all(
        (a is None) == (b is None) and (a is None or abs(a - b) <= 16)
        for a, b in zip(recorded, computed, strict=True)
    )


def agree_minilm(recorded: tuple, computed: tuple) -> bool:
    """The chapter's tolerance: fine-tuning beats the probe at every size; probes, and
    fine-tuning from 64 labels on, within 15 of 500. Fine-tuning on 32 labels is
    chaotic (a rerun on the same machine moved seed 0 from 413 to 358), so there it
    only has to beat the probe."""
    return all(
        tuned > probe
        and abs(probe - probe_then) <= 15
        and (n == 32 or abs(tuned - tuned_then) <= 15)
        for n, (tuned_then, probe_then), (tuned, probe) in zip(
            LABELLED_SIZES, recorded, computed, strict=True
        )
    )


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_TINY",
        seeds=range(20),
        run_seed=run_tiny,
        render=render_as("tiny"),
        parse=parse,
        agree=agree_tiny,
        test_seed=0,
        description="tiny classifiers, seeds 0 to 19",
    ),
    Study(
        chapter=CHAPTER,
        name="RECORDED_MINILM",
        seeds=range(20),
        run_seed=run_minilm,
        render=render_as("minilm"),
        parse=parse,
        agree=agree_minilm,
        test_seed=0,
        description="fine-tuned MiniLM against probes, seeds 0 to 19",
    ),
]

if __name__ == "__main__":
    main(STUDIES)
