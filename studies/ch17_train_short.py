"""Chapter 17's train-short-test-long study: six position schemes, 10 seeds each.

For every seed and scheme (no positions, learned table, sinusoidal table with the
token embeddings scaled by √d_model, T5 bias, ALiBi, RoPE): `train_tagger` on the
neighbour-of-a-marker task (300 steps of 16 sentences of 8 to 16 tokens), then the
per-token accuracy at n = 16, 32, 64, the accuracy at positions >= 16 for n = 32
and 64, and the share of attention on keys >= 16 away at n = 64, rounded to 3
digits. One CPU thread. Run `make study CH=17`.
"""

from studies.common import Study, chapter_namespace, main

CHAPTER = "17_relative_positions_and_the_modern_encoder"
SCHEMES = ("none", "learned", "sinusoidal", "t5", "alibi", "rope")


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> dict[str, list[float]]:
    """{scheme: the six numbers of the chapter's table} for one seed."""
    names = chapter()
    row = {}
    for scheme in SCHEMES:
        model, _ = names["train_tagger"](scheme, seed)
        results = [names["accuracy"](model, n) for n in names["TEST_LENGTHS"]]
        values = [every for every, _ in results]
        values += [beyond for _, beyond in results[1:]]
        values.append(names["far_attention"](model))
        row[scheme] = [round(value, 3) for value in values]
    return row


def render(rows: dict[int, dict[str, list[float]]]) -> str:
    """The chapter's dict literal: for each scheme, one row per seed, in seed order."""
    lines = ["{"]
    for scheme in SCHEMES:
        lines.append(f'    "{scheme}": [')
        lines += [f"        {rows[seed][scheme]!r}," for seed in sorted(rows)]
        lines.append("    ],")
    lines.append("}")
    return "\n".join(lines)


def parse(value: dict[str, list[list[float]]]) -> dict[int, dict[str, list[float]]]:
    """The chapter's dict back into {seed: {scheme: row}} (rows are seeds 0, 1, ...)."""
    n_seeds = len(value[SCHEMES[0]])
    return {
        seed: {scheme: value[scheme][seed] for scheme in SCHEMES}
        for seed in range(n_seeds)
    }


def agree(recorded: dict, computed: dict) -> bool:
    """The chapter's tolerance: every number of every scheme within 0.05."""
    return all(
        abs(a - b) <= 0.05
        for scheme in SCHEMES
        for a, b in zip(recorded[scheme], computed[scheme], strict=True)
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
        description="six position schemes, trained on n <= 16, tested on 16, 32, 64",
    )
]

if __name__ == "__main__":
    main(STUDIES)
