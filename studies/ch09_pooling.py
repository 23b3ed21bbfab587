"""Chapter 9's pooling study: four poolings on three tasks, frozen and fine-tuned.

For every seed, the chapter's `train_classifier` trains the 24 models of its
experiment (frozen encoder and fine-tuned; first word, majority and contains; the
four poolings) and `accuracy` tests each on the same 2,000 sentences. The "f" line
of a seed holds the frozen models' counts of sentences classified right (each task
in the order cls, mean, max, attention), then the trained AttentionPool's weight on
the deciding token (`weight_on_target`: first word, contains). The "t" line holds
the fine-tuned counts, then the fine-tuned majority mean-pooling model run without
its mask (`width_test`): sentences right at width 16, at width 48, and predictions
that change. One CPU thread, about 15 s per seed on an idle machine.
Run `make study CH=09`.
"""

from studies.common import Study, chapter_namespace, main

CHAPTER = "09_pooling_and_heads"
_chapter = {}
N_TEST = 2000  # test sentences per model


def chapter() -> dict:
    """The chapter's study cells, run once."""
    if not _chapter:
        _chapter.update(chapter_namespace(CHAPTER))
    return _chapter


def run_seed(seed: int, device: str) -> dict[str, list]:
    """The seed's "f" and "t" lines: {"f": counts + weights, "t": counts + unmasked}.

    The models are too small to gain from a GPU: they run on the CPU whatever
    `device` says, as in the chapter.
    """
    names = chapter()
    tasks, poolings = names["TASKS"], names["POOLING_NAMES"]
    row = {}
    for setting, kind in zip(names["SETTINGS"], "ft", strict=True):
        models = {
            (task, pooling): names["train_classifier"](setting, task, pooling, seed)
            for task in tasks
            for pooling in poolings
        }
        counts = [
            round(N_TEST * names["accuracy"](models[task, pooling], task))
            for task in tasks
            for pooling in poolings
        ]
        if kind == "f":
            weights = [
                names["weight_on_target"](models[task, "attention"], task)[0]
                for task in ("first word", "contains")
            ]
            row["f"] = counts + [round(w, 3) for w in weights]
        else:
            _, at_16, at_48, changed = names["width_test"](models["majority", "mean"])
            row["t"] = counts + [round(N_TEST * x) for x in (at_16, at_48, changed)]
    return row


def render(rows: dict[int, dict[str, list]]) -> str:
    """The table as the chapter writes it: an "f" and a "t" line per seed."""
    lines = []
    for seed, row in sorted(rows.items()):
        counts = "".join(f" {c:4d}" for c in row["f"][:12])
        weights = "".join(f" {w:.3f}" for w in row["f"][12:])
        lines.append(f"{seed:2d} f{counts}{weights}")
        lines.append(f"{seed:2d} t" + "".join(f" {c:4d}" for c in row["t"]))
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, dict[str, list]]:
    """The chapter's table back into rows."""
    rows: dict[int, dict[str, list]] = {}
    for line in text.strip().splitlines():
        seed, kind, *fields = line.split()
        values = [float(v) if "." in v else int(v) for v in fields]
        rows.setdefault(int(seed), {})[kind] = values
    return rows


def agree(recorded: dict[str, list], computed: dict[str, list]) -> bool:
    """The chapter's tolerance: counts within 40 of 2,000, weights within 0.03."""
    pairs = [
        (a, b)
        for kind in ("f", "t")
        for a, b in zip(recorded[kind], computed[kind], strict=True)
    ]
    return all(abs(a - b) <= (0.03 if isinstance(a, float) else 40) for a, b in pairs)


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_STUDY",
        seeds=range(45),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=33,
        description="four poolings, three tasks, frozen and fine-tuned, seeds 0 to 44",
        live_seeds=[0, 1],
    )
]

if __name__ == "__main__":
    main(STUDIES)
