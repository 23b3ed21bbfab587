"""Chapter 7's warm-up study: post-norm and pre-norm, with and without warm-up.

For every seed, the four runs of the chapter's counting task (`train_counting`,
300 steps of Adam): the step at which each leaves the 1.621-nat plateau ("-" when
it does not within 300 steps) and its final loss (nats per token, mean of the last
50 steps). One CPU thread, about 20 s per seed. Run `make study CH=07`.
"""

from studies.common import Study, chapter_namespace, main

CHAPTER = "07_encoder_layer"


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> list[tuple[int | None, float]]:
    """(step it leaves the plateau, final loss) of the four runs, in order."""
    names = chapter()
    row = []
    for key in names["RUNS"]:
        _, losses = names["train_counting"](*key, seed=seed)
        row.append((names["leaves_plateau"](losses), sum(losses[-50:]) / 50))
    return row


def render(rows: dict[int, list[tuple[int | None, float]]]) -> str:
    """The table as the chapter writes it: one line per seed."""
    lines = []
    for seed, row in sorted(rows.items()):
        fields = "".join(
            f" {'-' if step is None else step:>5} {loss:.3f}" for step, loss in row
        )
        lines.append(f"{seed:2d}{fields}")
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, list[tuple[int | None, float]]]:
    """The chapter's table back into rows."""
    rows = {}
    for line in text.strip().splitlines():
        seed, *fields = line.split()
        rows[int(seed)] = [
            (None if step == "-" else int(step), float(loss))
            for step, loss in zip(fields[::2], fields[1::2], strict=True)
        ]
    return rows


def agree(recorded: list, computed: list) -> bool:
    """The chapter's tolerance: same runs leave, within 10 steps; loss within 0.05."""
    return all(
        (a is None) == (b is None)
        and (a is None or abs(a - b) <= 10)
        and abs(x - y) <= 0.05
        for (a, x), (b, y) in zip(recorded, computed, strict=True)
    )


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_STUDY",
        seeds=range(20),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=0,
        description="warm-up and norm placement, seeds 0 to 19",
        live_seeds=[0],
    )
]

if __name__ == "__main__":
    main(STUDIES)
