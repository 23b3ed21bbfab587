"""Chapter 11's seed study: MLM pretraining, and what it is worth, over 10 seeds.

For every seed s: `pretrain(s)` (BERT's 80/10/10) and `pretrain(s, mask_fraction=1.0,
random_fraction=0.0)` (every chosen token `[MASK]`), each scored by
`held_out_metrics` and `visible_token_accuracy`; each pretrained encoder fine-tuned
on the word-order task by `fine_tune(model.encoder, f)` for f in 3s, 3s+1, 3s+2, and
`fine_tune(None, f)` from scratch with the same f (also on the active voice alone,
`make_word_order_dataset(passive=0.0)`); for the 80/10/10 model also the ranks of the
five PROBES, how many of their top-3 guesses are among the 5 most frequent training
tokens, and exercise 11.3's loss by frequency. For seeds 0 to 4 also
`pretrain(s, steps=1500)`, scored alike. Values rounded to 3 decimals. One CPU
thread. Run `make study CH=11`.
"""

import sys
import types

import torch

from studies.common import Study, chapter_namespace, main

CHAPTER = "11_masked_language_model_pretraining"
LONG_SEEDS = range(5)  # the seeds that also pretrain for 1,500 steps
_chapter = {}


def chapter() -> dict:
    """The chapter's study cells, run once, and the active-voice data."""
    if not _chapter:
        # The export cells define classes that look up their module by name.
        sys.modules.setdefault(f"study_{CHAPTER}", types.ModuleType(f"study_{CHAPTER}"))
        names = chapter_namespace(CHAPTER)
        names["active_data"] = names["prepare"](
            names["make_word_order_dataset"](passive=0.0)
        )
        _chapter.update(names)
    return _chapter


def _scores(names: dict, model, history, probes: bool) -> dict:
    metrics = history.evaluations[-1]
    row = {
        "held-out loss": round(metrics["loss"], 3),
        "held-out accuracy": round(metrics["accuracy"], 3),
        "visible-token accuracy": round(names["visible_token_accuracy"](model), 3),
    }
    if probes:
        five = names["counts"].topk(5).indices
        row["probe ranks"] = [
            names["answer_rank"](model, sentence, word)
            for sentence, word in names["PROBES"].items()
        ]
        row["probe guesses among the 5 most frequent tokens"] = sum(
            int(torch.isin(names["probe"](model, s).topk(3).indices, five).sum())
            for s in names["PROBES"]
        )
    return row


def _fine_tuned(names: dict, encoder, seed: int, data=None) -> list[float]:
    extra = {} if data is None else {"data": data}
    return [
        round(names["fine_tune"](encoder, f, **extra), 3)
        for f in range(3 * seed, 3 * seed + 3)
    ]


def run_seed(seed: int, device: str) -> dict:
    """One seed's row: a dict shaped like one column of the chapter's table."""
    names = chapter()
    active = names["active_data"]
    bert, history = names["pretrain"](seed, progress=False, device=device)
    bert = bert.cpu()
    scores = _scores(names, bert, history, probes=True)
    first_evaluation = history.evaluations[0]["accuracy"]
    row = {
        "bert": {
            "first training loss": round(history.losses[0], 3),
            "training loss, last 10 % of steps": round(history.final_loss, 3),
            **{key: scores[key] for key in list(scores)[:3]},
            "held-out accuracy after 50 steps": round(first_evaluation, 3),
            **{key: scores[key] for key in list(scores)[3:]},
        }
    }
    row["bert"]["fine-tuned"] = _fine_tuned(names, bert.encoder, seed)
    row["bert"]["fine-tuned, active voice"] = _fine_tuned(
        names, bert.encoder, seed, active
    )
    table = names["_loss_by_frequency_reference"](bert)
    row["bert"]["loss by frequency"] = {
        group: [round(model, 3), round(unigram, 3)]
        for group, (_, model, unigram) in table.items()
    }
    all_mask, history = names["pretrain"](
        seed, mask_fraction=1.0, random_fraction=0.0, progress=False, device=device
    )
    all_mask = all_mask.cpu()
    row["all [MASK]"] = _scores(names, all_mask, history, probes=False)
    row["all [MASK]"]["fine-tuned"] = _fine_tuned(names, all_mask.encoder, seed)
    if seed in LONG_SEEDS:
        long, history = names["pretrain"](
            seed, steps=1500, progress=False, device=device
        )
        long = long.cpu()
        row["bert, 1,500 steps"] = _scores(names, long, history, probes=True)
        row["bert, 1,500 steps"]["fine-tuned"] = _fine_tuned(names, long.encoder, seed)
        row["bert, 1,500 steps"]["fine-tuned, active voice"] = _fine_tuned(
            names, long.encoder, seed, active
        )
    row["from scratch"] = _fine_tuned(names, None, seed)
    row["from scratch, active voice"] = _fine_tuned(names, None, seed, active)
    return row


def _columns(rows: dict) -> dict:
    """Rows {seed: row} as the chapter lays them out: one list per measure."""
    seeds = sorted(rows)

    def gather(path: tuple) -> list:
        values = []
        for seed in seeds:
            value = rows[seed]
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                values.append(value)
        return values

    def build(template, path: tuple):
        if isinstance(template, dict):
            return {key: build(value, (*path, key)) for key, value in template.items()}
        return gather(path)

    template = {}
    for seed in seeds:  # the union of every seed's keys, in first-seen order
        _merge(template, rows[seed])
    return {"seeds": seeds, **build(template, ())}


def _merge(into: dict, row: dict) -> None:
    for key, value in row.items():
        if isinstance(value, dict):
            _merge(into.setdefault(key, {}), value)
        else:
            into.setdefault(key, None)


def _format(value, indent: int, prefix: str, suffix: str, width: int = 88) -> list:
    """Black's layout: one line if it fits, else one item per line, trailing commas."""
    flat = prefix + repr(value) + suffix
    if len(" " * indent + flat) <= width or not isinstance(value, (dict, list)):
        return [" " * indent + flat]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    lines = [" " * indent + prefix + opening]
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    for key, item in items:
        head = "" if key is None else f"{key!r}: "
        lines += _format(item, indent + 4, head, ",", width)
    return lines + [" " * indent + closing + suffix]


def render(rows: dict) -> str:
    """The table as the chapter writes it (`RECORDED_STUDY = ` and this)."""
    text = "\n".join(_format(_columns(rows), 0, "", ""))
    return text.replace("'", '"')  # no key holds a quote


def parse(table: dict) -> dict:
    """The chapter's table (one list per measure) into rows {seed: row}."""

    def pick(node, i: int):
        if isinstance(node, dict):
            picked = {key: pick(value, i) for key, value in node.items()}
            return {
                key: value for key, value in picked.items() if value not in (None, {})
            }
        return node[i] if i < len(node) else None

    measures = {key: value for key, value in table.items() if key != "seeds"}
    return {seed: pick(measures, i) for i, seed in enumerate(table["seeds"])}


def agree(recorded: dict, computed: dict) -> bool:
    """The chapter's tolerance: losses within 0.05 nats, accuracies within 0.02,
    fine-tuned accuracies within 0.05, ranks within a factor of 2, counts within 2."""

    def close(key: str, a, b) -> bool:
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(close(k, a[k], b[k]) for k in a)
        if isinstance(a, list):
            return len(a) == len(b) and all(
                close(key, x, y) for x, y in zip(a, b, strict=True)
            )
        if key == "probe ranks":
            return b / 2 <= a <= 2 * b
        if key.startswith("probe guesses"):
            return abs(a - b) <= 2
        if "fine-tuned" in key or key.startswith("from scratch"):
            return abs(a - b) <= 0.05
        if "accuracy" in key:
            return abs(a - b) <= 0.02
        return abs(a - b) <= 0.05

    return recorded.keys() == computed.keys() and all(
        close(key, recorded[key], computed[key]) for key in recorded
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
        test_seed=5,
        description="MLM pretraining and fine-tuning, seeds 0 to 9",
    )
]

if __name__ == "__main__":
    main(STUDIES)
