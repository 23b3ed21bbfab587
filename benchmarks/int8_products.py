"""How `quantize_int8`'s integer products run on this CPU: `torch._int_mm` or float32.

`encoderlib.quantization.Int8Weight` multiplies int8 values exactly, in one of two
ways: `torch._int_mm` (int8 × int8, summed in int32), or float32 products of the
same integers over slices of at most 1,024 inputs, where every sum is exact too.
The first Int8Weight of a process times both on one shape and keeps the faster.
This script times both on MiniLM's four linear maps for a batch's real tokens
(about 32 short sentences, 512 rows), beside `F.linear` in float32 on the same
shapes, in turn, the fastest of `--repeats` timings; checks that the two integer
products give the same sums; and prints which way the process chose.

    .venv/bin/python benchmarks/int8_products.py [--threads 2] [--repeats 7]
    .venv/bin/python benchmarks/int8_products.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minilm_speed import cpu_description, markdown_table  # noqa: E402

from encoderlib import quantization  # noqa: E402

# (in, out) of MiniLM's linear maps: q, k, v joined; out; the feed-forward pair.
SHAPES = [(384, 1152), (384, 384), (384, 1536), (1536, 384)]


def fastest_ms(
    product: Callable, x: torch.Tensor, right: torch.Tensor, repeats: int
) -> float:
    """Milliseconds, the fastest of `repeats` calls of product(x, right), warmed up."""
    product(x, right)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        product(x, right)
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def measure(rows: int, repeats: int) -> list[list[str]]:
    """A row per shape: the three times, two ratios, and whether the sums agree."""
    generator = torch.Generator().manual_seed(0)
    table = []
    for inputs, outputs in SHAPES:
        x = torch.randint(
            -127, 128, (rows, inputs), dtype=torch.int8, generator=generator
        )
        w = torch.randint(
            -127, 128, (outputs, inputs), dtype=torch.int8, generator=generator
        )
        right, right_float = w.t(), w.t().float()
        x_float, w_float = x.float(), w.float()
        same = torch.equal(
            quantization._integer_product(x, right).long(),
            quantization._integer_product(x, right_float).long(),
        )
        ms = {  # taken in turn, shape by shape, so that all see the same load
            "int_mm": fastest_ms(torch._int_mm, x, right, repeats),
            "float": fastest_ms(quantization._integer_product, x, right_float, repeats),
            "fp32": fastest_ms(F.linear, x_float, w_float, repeats),
        }
        table.append(
            [f"{inputs} → {outputs}", f"{ms['fp32']:.2f}", f"{ms['int_mm']:.2f}",
             f"{ms['int_mm'] / ms['fp32']:.2f}", f"{ms['float']:.2f}",
             f"{ms['float'] / ms['fp32']:.2f}", "yes" if same else "NO"]
        )  # fmt: skip
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--quick", action="store_true", help="16 rows, 1 repeat")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows, repeats = (16, 1) if args.quick else (args.rows, args.repeats)
    chosen = "torch._int_mm" if quantization._int_mm_is_fast() else "float32 slices"
    print(
        f"torch {torch.__version__}, {cpu_description()}, {args.threads} threads, "
        f"{rows} rows, fastest of {repeats}; Int8Weight's choice here: {chosen}"
    )
    print("\nms per product; ratio = the integer product / F.linear in float32")
    markdown_table(
        ["in → out", "F.linear fp32 ms", "torch._int_mm ms", "ratio",
         "float32 slices ms", "ratio", "same sums"],
        measure(rows, repeats),
    )  # fmt: skip


if __name__ == "__main__":
    main()
