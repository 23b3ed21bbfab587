"""Operators per forward: encoderlib against Hugging Face, counted on the CPU.

On a GPU, a small batch spends its time launching kernels, not in them: each
operator Python dispatches is at least one launch of a few microseconds. The
count of operators per forward is therefore the GPU's cost at batch 1 and a
share of it at batch 32, and unlike a time it is the same on every machine.
This script counts, with a `TorchDispatchMode`, the ATen operators that one
inference forward dispatches, for BERT-, MiniLM- and ModernBERT-shaped encoders
(random weights, copied into Hugging Face's `BertModel` and `ModernBertModel`):
one sentence of 15 tokens, and a padded batch of 8 sentences of 6 to 15 tokens.
Views (reshape, transpose, slices) and casts to the dtype a tensor already has
launch no kernel and are not counted.

The CPU runs chapter 8's CPU paths (no padding at batch 1; blocks of equal
length on a padded batch), so the counts describe those paths. A GPU's packed
path dispatches a different set: `--device cuda` counts that one (encoderlib
gets the mask on the host, as `encode` hands it over; Hugging Face on the GPU).
`--mask-on-device` hands encoderlib the mask where Hugging Face gets it, on the
model's device, as a user's own GPU batch has it: the padded path, which reads
no mask value. On the CPU, encoderlib's host reads are switched off for it
(`checks.count_host_reads(as_on_a_gpu=True)`, as `host_syncs.py` does), so the
CPU counts the operators a GPU dispatches there. `--top N` adds, per row, the N
operators each side dispatches most. `--host-time` adds what the count costs
Python: the time of one forward of the same models narrowed to width 32 (every
layer kept), where an operator costs its dispatch and almost no arithmetic,
on one CPU thread, as medians of alternating runs; a GPU's host pays about
that per forward before its kernels, however wide the model. Run from the
repository root after `make setup`:

    .venv/bin/python benchmarks/operator_count.py           # the table
    .venv/bin/python benchmarks/operator_count.py --mask-on-device
    .venv/bin/python benchmarks/operator_count.py --quick   # small shapes, seconds
    .venv/bin/python benchmarks/operator_count.py --mask-on-device --host-time
    python benchmarks/operator_count.py --device cuda --dtype bfloat16 --top 8
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, str(Path(__file__).parent))
from host_syncs import hugging_face_pair  # noqa: E402

from encoderlib.checks import count_host_reads  # noqa: E402

MODELS = ("MiniLM-L6", "BERT-base", "ModernBERT-base")
DTYPES = ("float32", "float16", "bfloat16")
# Operators that only relabel memory: no kernel runs.
VIEWS = {
    "view", "_unsafe_view", "reshape", "as_strided", "transpose", "permute", "t",
    "expand", "unsqueeze", "squeeze", "slice", "select", "split", "chunk", "unbind",
    "narrow", "alias", "detach", "split_with_sizes", "unflatten",
}  # fmt: skip


class OperatorCount(TorchDispatchMode):
    """Counts the operators dispatched inside `with OperatorCount() as c:` (c.n)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_name: collections.Counter[str] = collections.Counter()

    @property
    def n(self) -> int:
        """All operators counted, views and no-op casts aside."""
        return self.by_name.total()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        no_op_cast = name in ("to", "_to_copy") and out is args[0]
        if name not in VIEWS and not no_op_cast:
            self.by_name[name] += 1
        return out


def batches(quick: bool) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """The two inputs, as (ids, mask): one unpadded sentence, a padded batch of 8."""
    generator = torch.Generator().manual_seed(0)
    shapes = {"1 × 15 tokens": [15], "8 × 6–15 tokens": [15, 15, 12, 12, 9, 9, 7, 6]}
    if quick:
        shapes = {"1 × 6 tokens": [6], "3 × 3–6 tokens": [6, 4, 3]}
    out = {}
    for label, lengths in shapes.items():
        n = max(lengths)
        mask = (torch.arange(n) < torch.tensor(lengths)[:, None]).long()
        ids = torch.randint(5, 1000, (len(lengths), n), generator=generator) * mask
        ids[:, 0] = 1
        out[label] = ids, mask
    return out


def count(forward: Callable[[], object]) -> OperatorCount:
    """The operators one call of `forward` dispatches, after a first call to warm up."""
    with torch.inference_mode():
        forward()
        with OperatorCount() as counted:
            forward()
    return counted


def host_ms(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median milliseconds per call of each run, the runs alternating round by round."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    with torch.inference_mode():
        for _ in range(3):  # warm-up: lazy caches fill, allocations settle
            for run in runs.values():
                run()
        for _ in range(rounds):
            for name, run in runs.items():
                start = time.perf_counter()
                for _ in range(10):
                    run()
                times[name].append((time.perf_counter() - start) * 100)
    return {name: statistics.median(t) for name, t in times.items()}


def most(counted: OperatorCount, top: int) -> str:
    """The `top` operators dispatched most, as "name×count, ..."."""
    return ", ".join(f"{name}×{n}" for name, n in counted.by_name.most_common(top))


def main() -> None:
    """Print one row per model and input: operators per forward, both sides."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small shapes")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--dtype", default="float32", choices=DTYPES)
    parser.add_argument("--top", type=int, default=0, help="most dispatched ops")
    parser.add_argument(
        "--mask-on-device", action="store_true", help="encoderlib's padded path"
    )
    parser.add_argument(
        "--host-time", action="store_true", help="ms per forward at width 32, CPU"
    )
    args = parser.parse_args()
    if args.host_time and args.device != "cpu":
        parser.error(
            "--host-time measures the CPU's dispatch: use it with --device cpu"
        )
    device, dtype = torch.device(args.device), getattr(torch, args.dtype)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    path = "; the mask on the device" if args.mask_on_device else ""
    print(
        f"torch {torch.__version__}, {where}, {args.dtype}{path}; operators per forward"
    )
    as_on_a_gpu = args.mask_on_device and device.type != "cuda"
    reads = partial(count_host_reads, as_on_a_gpu=True)
    on_the_path = reads if as_on_a_gpu else contextlib.nullcontext
    if args.host_time:
        torch.set_num_threads(1)
        rounds = 3 if args.quick else 15
        print(
            "host ms: one forward of the same models at width 32 (every layer kept), "
            f"float32, 1 thread, median of {rounds} alternating rounds of 10 calls"
        )
    header = "| model | batch | encoderlib | Hugging Face | ratio |"
    if args.host_time:
        header += " host ms, encoderlib | Hugging Face | ratio |"
    print(header)
    print("|---" * header.count(" |") + "|")
    for name in MODELS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs, ours = hugging_face_pair(name, args.quick)
            narrow = (
                hugging_face_pair(name, args.quick, True) if args.host_time else None
            )
        theirs, ours = (m.to(device, dtype) for m in (theirs, ours))
        for label, (ids, mask) in batches(args.quick).items():
            ids, on_device = ids.to(device), mask.to(device)
            ours_mask = on_device if args.mask_on_device else mask
            with on_the_path():
                n_ours = count(partial(ours, ids, ours_mask))
            n_theirs = count(partial(theirs, input_ids=ids, attention_mask=on_device))
            ratio = n_ours.n / n_theirs.n
            row = f"| {name} | {label} | {n_ours.n} | {n_theirs.n} | {ratio:.2f} |"
            if narrow is not None:
                with on_the_path():
                    ms = host_ms(
                        {
                            "ours": partial(narrow[1], ids, ours_mask),
                            "theirs": partial(
                                narrow[0], input_ids=ids, attention_mask=on_device
                            ),
                        },
                        rounds=rounds,
                    )
                row += f" {ms['ours']:.2f} | {ms['theirs']:.2f} |"
                row += f" {ms['ours'] / ms['theirs']:.2f} |"
            print(row)
            if args.top:
                print(f"  encoderlib: {most(n_ours, args.top)}")
                print(f"  Hugging Face: {most(n_theirs, args.top)}")


if __name__ == "__main__":
    main()
