"""Which kernel multiplies faster, by size: `F.linear` against oneDNN's product.

`encoderlib.kernels.linear` sends a float32 product on the CPU, outside autograd,
to oneDNN where `cpu_linear_kernel()` says "onednn" (a CPU with AVX-512 that is
not Intel's, where MKL, behind `F.linear`, runs its generic code) and the
product has at least `ONEDNN_MIN_WORK` multiply-adds (rows · in · out). This
script measures the two kernels on the linear maps of MiniLM and BERT-base at 1
to 512 rows (a batch's real tokens), in turn, one thread by default: the
fastest of `--repeats` timings of a few milliseconds of calls each. It prints
oneDNN's time over `F.linear`'s for every shape and row count (below 1: oneDNN
is faster), and the smallest work from which oneDNN is at least as fast at
every larger row count of every shape: the size `ONEDNN_MIN_WORK` should have
on this machine. The header names the CPU and the kernel "auto" chose.

    .venv/bin/python benchmarks/linear_kernels.py [--threads 1] [--repeats 7]
    .venv/bin/python benchmarks/linear_kernels.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minilm_speed import cpu_description  # noqa: E402

from encoderlib import kernels  # noqa: E402

# (model, in, out) of the linear maps: q, k, v joined; out; the feed-forward pair.
SHAPES = [
    ("MiniLM", 384, 1152),
    ("MiniLM", 384, 384),
    ("MiniLM", 384, 1536),
    ("MiniLM", 1536, 384),
    ("BERT-base", 768, 2304),
    ("BERT-base", 768, 768),
    ("BERT-base", 768, 3072),
    ("BERT-base", 3072, 768),
]
ROWS = [1, 4, 16, 32, 64, 128, 256, 512]


def per_call_us(call: Callable[[], object], calls: int) -> float:
    """Microseconds per call of `call`, over `calls` calls in a row."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls * 1e6


def measure(
    shapes: list[tuple[str, int, int]], rows: list[int], repeats: int, budget_s: float
) -> dict[tuple[str, int, int], dict[int, tuple[float, float]]]:
    """{shape: {rows: (F.linear µs, oneDNN µs)}}: the fastest of `repeats`
    timings of each, taken in turn, each over about `budget_s` of calls."""
    onednn = torch.ops.mkldnn._linear_pointwise
    results = {}
    with torch.inference_mode():
        for shape in shapes:
            _, d_in, d_out = shape
            weight, bias = torch.randn(d_out, d_in), torch.randn(d_out)
            results[shape] = {}
            for n in rows:
                x = torch.randn(n, d_in)
                args = (x, weight, bias)
                sides = [
                    lambda args=args: F.linear(*args),
                    lambda args=args: onednn(*args, "none", [], ""),
                ]
                once = max(per_call_us(side, 2) for side in sides)  # warm, then one
                calls = max(1, int(budget_s * 1e6 / once))
                best = [float("inf")] * 2
                for _ in range(repeats):  # in turn: a slow moment hits both
                    for i, side in enumerate(sides):
                        best[i] = min(best[i], per_call_us(side, calls))
                results[shape][n] = (best[0], best[1])
    return results


def crossover(results: dict) -> int:
    """The smallest work (rows · in · out) from which oneDNN is at least as fast
    at every larger row count of every shape measured."""
    losing = [
        n * d_in * d_out
        for (_, d_in, d_out), by_rows in results.items()
        for n, (plain, ours) in by_rows.items()
        if ours > plain
    ]
    winning = sorted(
        n * d_in * d_out
        for (_, d_in, d_out), by_rows in results.items()
        for n in by_rows
        if n * d_in * d_out > max(losing, default=0)
    )
    return winning[0] if winning else max(losing) + 1


def main() -> None:
    """Measure, print the table of ratios and the crossover."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="2 shapes, 3 sizes")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    shapes, rows, budget = SHAPES, ROWS, 2e-3
    if args.quick:
        shapes, rows, budget = SHAPES[:2], [1, 16, 64], 1e-4
        args.repeats = 1
    print(
        f"torch {torch.__version__}, {cpu_description()}, {args.threads} thread(s), "
        f"fastest of {args.repeats} timings in turn; ONEDNN_MIN_WORK now "
        f"{kernels.ONEDNN_MIN_WORK:,}"
    )
    results = measure(shapes, rows, args.repeats, budget)
    print("\noneDNN's time / F.linear's, by rows (below 1: oneDNN is faster)")
    print("| model | in → out | " + " | ".join(f"{n} rows" for n in rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for (model, d_in, d_out), by_rows in results.items():
        ratios = [f"{ours / plain:.2f}" for plain, ours in by_rows.values()]
        print(f"| {model} | {d_in} → {d_out} | " + " | ".join(ratios) + " |")
    print(
        f"\noneDNN is at least as fast from {crossover(results):,} multiply-adds "
        "(rows · in · out) on, at every larger size measured"
    )


if __name__ == "__main__":
    main()
