"""Chapter 8's tagger study: what each layer of a small trained stack makes readable.

For every seed, the chapter's `train_tagger` trains the tiny encoder with a linear
layer on every token for 300 steps on the repeated-id task (the seed draws the
weights and the batches), and `tagger_row` measures it on the chapter's 256 test
sentences: the tagger's accuracy, the nearest-centroid accuracy of the embeddings,
layer 1 and layer 2, and the share of variance in the top two principal directions
after layer 2. One CPU thread, about 15 s per seed on an idle machine.
Run `make study CH=08`.
"""

from studies.common import Study, chapter_namespace, main

CHAPTER = "08_the_stack"


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> list[float]:
    """The five numbers of one seed, in the chapter's column order."""
    names = chapter()
    tagger, _, _ = names["train_tagger"](seed, device)
    return names["tagger_row"](tagger, names["test_ids"], names["test_labels"])


def render(rows: dict[int, list[float]]) -> str:
    """The table as the chapter writes it: one line per seed."""
    lines = []
    for seed, (tagger, embeddings, layer1, layer2, share) in sorted(rows.items()):
        centroids = f"{embeddings:.4f} {layer1:.4f} {layer2:.4f}"
        lines.append(f"{seed:2d}  {tagger:.4f}  {centroids}  {share:.4f}")
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, list[float]]:
    """The chapter's table back into rows."""
    rows = {}
    for line in text.strip().splitlines():
        seed, *values = line.split()
        rows[int(seed)] = [float(v) for v in values]
    return rows


def agree(recorded: list[float], computed: list[float]) -> bool:
    """The chapter's tolerance: within 0.02, layer 1's centroid accuracy within 0.05."""
    limits = [0.02, 0.02, 0.05, 0.02, 0.02]
    pairs = zip(recorded, computed, limits, strict=True)
    return all(abs(a - b) <= limit for a, b, limit in pairs)


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_TAGGER_STUDY",
        seeds=range(20),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=1,
        description="tagger accuracy and layer-by-layer readability, seeds 0 to 19",
        live_seeds=[0],
    )
]

if __name__ == "__main__":
    main(STUDIES)
