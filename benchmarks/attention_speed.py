"""Attention, implemented five ways, side by side: time and peak memory vs n.

Chapter 16's gallery: one `encoderlib.MultiHeadAttention` provides the weights,
and every implementation computes self-attention of x (b, n, d_model) with them:

- explicit: chapter 4's `scaled_dot_product_attention` (the weights in memory);
- SDPA: `F.scaled_dot_product_attention` with PyTorch's choice of backend;
- SDPA, MATH backend: the same call restricted to `SDPBackend.MATH`;
- FlexAttention: `torch.nn.attention.flex_attention`, called without
  torch.compile (PyTorch's unfused reference path), where it exists;
- nn.MultiheadAttention: PyTorch's module with the weights copied in;
- MultiHeadAttention: chapter 5's module (SDPA inside).

The first four are functions of q, k and v: the module's projections make them
and its output projection finishes, so all six do the same work around the
attention. Two more rows compute local attention (a window of w keys on each
side), which is another function: chapter 16's `LocalSelfAttention` (blocks)
and the same module given the band as a mask (SDPA). For each n the script
checks that the implementations agree (the gallery with chapter 4's function,
the two local rows with each other), then times them alternately, run by run,
and reports medians, the ratio to `nn.MultiheadAttention`, and the peak memory
of one call measured with `encoderlib.efficient.peak_memory` (torch.profiler's
allocation events; deterministic, so no fresh process is needed).

Run from the repository root after `make setup`:

    .venv/bin/python benchmarks/attention_speed.py            # the full table
    .venv/bin/python benchmarks/attention_speed.py --quick    # a smoke run only

Run it on an idle machine: other busy processes make the times swing.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import Tensor, nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from encoderlib import MultiHeadAttention, scaled_dot_product_attention
from encoderlib.efficient import LocalSelfAttention, peak_memory, sliding_window_mask

try:
    from torch.nn.attention.flex_attention import flex_attention
except ImportError:  # PyTorch before 2.5
    flex_attention = None

# name -> (x, key-padding mask or None) -> (b, n, d_model)
Implementation = Callable[[Tensor, "Tensor | None"], Tensor]
REFERENCE = "nn.MultiheadAttention"  # the ratio's denominator
GALLERY = [
    "explicit (chapter 4)",
    "SDPA",
    "SDPA, MATH backend",
    "FlexAttention (eager)",
    "nn.MultiheadAttention",
    "MultiHeadAttention (chapter 5)",
]
LOCAL = ["local, blocks (chapter 16)", "local, band mask on SDPA"]
QUADRATIC = {"explicit (chapter 4)", "SDPA, MATH backend", "FlexAttention (eager)"}


def build(d_model: int, n_heads: int, seed: int = 0):
    """Our module and nn.MultiheadAttention with the same weights, in eval mode."""
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d_model, n_heads).eval()
    theirs = nn.MultiheadAttention(d_model, n_heads, batch_first=True).eval()
    with torch.no_grad():
        projections = (ours.q_proj, ours.k_proj, ours.v_proj)
        theirs.in_proj_weight.copy_(torch.cat([p.weight for p in projections]))
        theirs.in_proj_bias.copy_(torch.cat([p.bias for p in projections]))
        theirs.out_proj.load_state_dict(ours.out_proj.state_dict())
    return ours, theirs


def implementations(
    ours: MultiHeadAttention, theirs: nn.MultiheadAttention, window: int
) -> dict[str, Implementation]:
    """Every implementation by name; the local ones use `window`."""
    h = ours.n_heads

    def heads(x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return tuple(
            rearrange(p(x), "b n (h d) -> b h n d", h=h)
            for p in (ours.q_proj, ours.k_proj, ours.v_proj)
        )

    def merge(context: Tensor) -> Tensor:
        return ours.out_proj(rearrange(context, "b h n d -> b n (h d)"))

    def key_mask(mask: Tensor | None) -> Tensor | None:
        return None if mask is None else rearrange(mask, "b j -> b 1 1 j")

    def explicit(x, mask):
        return merge(scaled_dot_product_attention(*heads(x), key_mask(mask))[0])

    def sdpa(x, mask):
        return merge(
            F.scaled_dot_product_attention(*heads(x), attn_mask=key_mask(mask))
        )

    def sdpa_math(x, mask):
        with sdpa_kernel(SDPBackend.MATH):
            return sdpa(x, mask)

    def flex(x, mask):
        if mask is None:
            return merge(flex_attention(*heads(x)))

        def hide_padding(score, batch, head, q_index, kv_index):
            return torch.where(mask[batch, kv_index], score, float("-inf"))

        return merge(flex_attention(*heads(x), score_mod=hide_padding))

    def torch_module(x, mask):
        padding = None if mask is None else ~mask
        return theirs(x, x, x, key_padding_mask=padding, need_weights=False)[0]

    local = LocalSelfAttention(ours, window)

    def band_mask(x, mask):
        band = rearrange(sliding_window_mask(x.shape[1], window), "i j -> 1 1 i j")
        return ours(x, band if mask is None else band & key_mask(mask))

    found = {
        "explicit (chapter 4)": explicit,
        "SDPA": sdpa,
        "SDPA, MATH backend": sdpa_math,
        "FlexAttention (eager)": flex,
        "nn.MultiheadAttention": torch_module,
        "MultiHeadAttention (chapter 5)": lambda x, mask: ours(x, mask),
        "local, blocks (chapter 16)": lambda x, mask: local(x, mask),
        "local, band mask on SDPA": band_mask,
    }
    if flex_attention is None:
        del found["FlexAttention (eager)"]
    return found


@torch.no_grad()
def largest_differences(
    impls: dict[str, Implementation], x: Tensor, mask: Tensor | None
) -> dict[str, float]:
    """Each gallery implementation against chapter 4's, the local blocks vs mask."""
    outputs = {name: impl(x, mask) for name, impl in impls.items()}
    gaps = {}
    for name, out in outputs.items():
        reference = "local, band mask on SDPA" if name in LOCAL else GALLERY[0]
        gaps[name] = (out - outputs[reference]).abs().max().item()
    return gaps


@torch.no_grad()
def time_all(
    impls: dict[str, Implementation], x: Tensor, repeats: int
) -> dict[str, float]:
    """Median seconds per call of each, run in turn (order rotated every round)."""
    names = list(impls)
    for name in names:
        impls[name](x, None)  # warm-up
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            impls[name](x, None)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


@torch.no_grad()
def peak_bytes(impls: dict[str, Implementation], x: Tensor) -> dict[str, int]:
    """Peak memory of one call of each (bytes), from torch.profiler's events."""
    return {
        name: peak_memory(lambda impl=impl: impl(x, None))
        for name, impl in impls.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048]
    )
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument(
        "--quadratic-max-n",
        type=int,
        default=2048,
        help="skip the paths that store n × n scores (explicit, MATH, Flex) above this",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: tiny sizes, 2 repeats; the times mean nothing",
    )
    args = parser.parse_args()
    warnings.filterwarnings(
        "ignore", message="flex_attention called without torch.compile"
    )
    if args.quick:
        args.lengths, args.repeats, args.batch = [16, 32], 2, 2
        args.d_model, args.heads, args.window = 32, 4, 4
    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")
    print(
        f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {args.threads} threads, fp32, CPU; "
        f"b={args.batch}, d_model={args.d_model}, h={args.heads}, local window "
        f"{args.window}; median of {args.repeats} alternating runs; "
        f"ratio = time / {REFERENCE}'s"
    )
    ours, theirs = build(args.d_model, args.heads)
    impls = implementations(ours, theirs, args.window)
    header = (
        f"| {'n':>5} | {'implementation':<30} | {'ms':>8} | {'ratio':>5} "
        f"| {'peak MB':>8} | {'max diff':>8} |"
    )
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|")
    for n in args.lengths:
        generator = torch.Generator().manual_seed(n)
        x = torch.randn(args.batch, n, args.d_model, generator=generator)
        mask = torch.ones(args.batch, n, dtype=torch.bool)
        mask[1:, n - n // 4 :] = False  # padding in every row but the first
        running = {
            name: impl
            for name, impl in impls.items()
            if name not in QUADRATIC or n <= args.quadratic_max_n
        }
        gaps = largest_differences(running, x, mask)
        seconds = time_all(running, x, args.repeats)
        peaks = peak_bytes(running, x)
        for name in running:
            print(
                f"| {n:>5} | {name:<30} | {seconds[name] * 1e3:8.2f} "
                f"| {seconds[name] / seconds[REFERENCE]:5.2f} "
                f"| {peaks[name] / 1e6:8.2f} | {gaps[name]:8.1e} |",
                flush=True,
            )
        if max(gaps.values()) > 1e-4:
            print(f"n={n}: implementations DIFFER by {max(gaps.values()):.1e}")


if __name__ == "__main__":
    main()
