"""Chapter 16's studies: full, local and Linformer attention; FlashAttention on a GPU.

`RECORDED_STUDY`: for every seed, the six models of the chapter's quality
experiment (`train_and_test`: one pre-norm layer, 120 steps of AdamW), near and
far task, full, local and Linformer attention; each row holds the test sequences
(of 2,000) answered right. One CPU thread, about 25 s per seed. Run
`make study CH=16`.

With `--device cuda` (`make study CH=16 DEVICE=cuda`) the script instead prints
the chapter's GPU table: time and peak memory of SDPA's MATH backend against its
fused FlashAttention and memory-efficient kernels (`flash_speedup_table`). The
quality study is CPU-only: its models are too small to gain from a GPU.
"""

import sys

from studies.common import Study, chapter_namespace, main

CHAPTER = "16_efficient_attention"


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> list[int]:
    """Test sequences answered right: near (full, local, Linformer), then far."""
    names = chapter()
    return [
        round(2000 * names["train_and_test"](kind, task, seed))
        for task in names["TASKS"]
        for kind in names["KINDS"]
    ]


def render(rows: dict[int, list[int]]) -> str:
    """The table as the chapter writes it: the seed, then six counts."""
    lines = [
        f"{seed:2d}" + "".join(f" {count:4d}" for count in row)
        for seed, row in sorted(rows.items())
    ]
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, list[int]]:
    """The chapter's table back into rows."""
    rows = {}
    for line in text.strip().splitlines():
        seed, *counts = line.split()
        rows[int(seed)] = [int(count) for count in counts]
    return rows


def agree(recorded: list[int], computed: list[int]) -> bool:
    """The chapter's tolerance: every accuracy within 0.02 (40 of 2,000 sequences)."""
    return all(abs(a - b) <= 40 for a, b in zip(recorded, computed, strict=True))


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
        description="full, local and Linformer attention, near and far task",
        live_seeds=[0],
    )
]


def print_gpu_table() -> None:
    """The chapter's FlashAttention table, measured on this machine's CUDA GPU."""
    import contextlib

    import torch

    from studies.common import header

    names = chapter()
    with contextlib.redirect_stdout(sys.stderr):
        table = names["flash_speedup_table"](torch.device("cuda"))
    gpu = Study(CHAPTER, "FlashAttention on a GPU", [0], run_seed, render, parse, agree)
    print(header(gpu, "cuda", torch.get_num_threads(), [0]).replace(" SEEDS=0:1", ""))
    print(table)


if __name__ == "__main__":
    if any("cuda" in argument for argument in sys.argv[1:]):
        print_gpu_table()
    else:
        main(STUDIES)
