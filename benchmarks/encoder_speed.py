"""encoderlib.Encoder against torch.nn.TransformerEncoder: time and peak memory.

Both sides run the same weights: one `EncoderEmbeddings` module feeds both, and
every `nn.TransformerEncoderLayer` is copied into an `encoderlib.EncoderLayer`
with `EncoderLayer.from_torch`. For each size the script times inference
(eval mode, `torch.inference_mode`) and a training step (train mode, dropout on,
forward and backward) on full-length batches and on padded ones, alternating
the two implementations run by run, and reports the ratio of medians:
encoderlib / PyTorch, below 1 means encoderlib is faster. PyTorch runs with its
defaults, so its inference uses the fused "fast path" and, with padding, nested
tensors (post-norm only); full batches go to both sides without a mask. Peak
memory is the growth of the resident set during one step (Linux only), each
measured in a fresh child process after a warm-up step on a tiny batch.

Run from the repository root after `make setup`:

    .venv/bin/python benchmarks/encoder_speed.py            # the full table
    .venv/bin/python benchmarks/encoder_speed.py --quick    # a smoke run only

Run it on an idle machine: other busy processes make the threads wait for each other.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import torch
from torch import Tensor, nn

from encoderlib import Encoder, EncoderConfig, EncoderLayer


@dataclass(frozen=True)
class Size:
    """One benchmark setting: the model's shape and the batch it encodes."""

    name: str
    d_model: int
    n_heads: int
    n_layers: int
    batch: int
    length: int
    norm_first: bool = False

    def config(self) -> EncoderConfig:
        return EncoderConfig(
            vocab_size=30522,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            d_ff=4 * self.d_model,
            max_len=max(512, self.length),
            norm_first=self.norm_first,
            eps=1e-5,
        )


SIZES = [
    Size("d=256 h=4 L=4 n=128 b=16", 256, 4, 4, 16, 128),
    Size("d=384 h=12 L=6 n=128 b=32 (MiniLM shape)", 384, 12, 6, 32, 128),
    Size("d=384 h=12 L=6 n=128 b=32 pre-norm", 384, 12, 6, 32, 128, norm_first=True),
]
QUICK_SIZES = [Size("d=64 h=4 L=2 n=32 b=4", 64, 4, 2, 4, 32)]


class TorchEncoder(nn.Module):
    """PyTorch's encoder behind the same embeddings as an `encoderlib.Encoder`."""

    def __init__(self, ours: Encoder) -> None:
        super().__init__()
        c = ours.config
        layer = nn.TransformerEncoderLayer(
            c.d_model,
            c.n_heads,
            c.d_ff,
            c.dropout,
            activation="gelu",
            layer_norm_eps=c.eps,
            batch_first=True,
            norm_first=c.norm_first,
        )
        final = nn.LayerNorm(c.d_model, eps=c.eps) if c.norm_first else None
        self.embeddings = ours.embeddings  # shared, so both see the same inputs
        # Nested tensors (PyTorch's way to skip padding) work for post-norm only.
        self.encoder = nn.TransformerEncoder(
            layer, c.n_layers, norm=final, enable_nested_tensor=not c.norm_first
        )

    def forward(self, input_ids: Tensor, attention_mask: Tensor | None) -> Tensor:
        x = self.embeddings(input_ids)
        padding = None if attention_mask is None else ~attention_mask
        return self.encoder(x, src_key_padding_mask=padding)


def build(size: Size, seed: int = 0) -> tuple[Encoder, TorchEncoder]:
    """Our encoder and PyTorch's, with the same weights."""
    torch.manual_seed(seed)
    ours = Encoder(size.config())
    theirs = TorchEncoder(ours)
    ours.layers = nn.ModuleList(
        EncoderLayer.from_torch(layer) for layer in theirs.encoder.layers
    )
    if ours.final_norm is not None:
        ours.final_norm.load_state_dict(theirs.encoder.norm.state_dict())
    return ours, theirs


def batch(size: Size, padded: bool, seed: int = 1) -> tuple[Tensor, Tensor | None]:
    """Token ids and a bool mask; padded batches have lengths from n/4 to n.

    A full batch has no mask at all, so both sides take their no-padding path.
    """
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1000, 30000, (size.batch, size.length), generator=g)
    lengths = torch.full((size.batch,), size.length)
    if padded:
        lengths = torch.randint(
            size.length // 4, size.length + 1, lengths.shape, generator=g
        )
        lengths[0] = size.length  # the longest row sets n, as in a real batch
    mask = torch.arange(size.length) < lengths[:, None]
    return ids * mask, mask if padded else None


def step(model: nn.Module, ids: Tensor, mask: Tensor | None, mode: str) -> None:
    """One inference call, or one forward and backward pass."""
    if mode == "inference":
        with torch.inference_mode():
            model(ids, mask)
    else:
        out = model(ids, mask)
        (out if mask is None else out[mask]).square().mean().backward()
        model.zero_grad(set_to_none=True)


def time_pair(
    run_ours: Callable[[], None], run_theirs: Callable[[], None], repeats: int
) -> tuple[float, float]:
    """Median seconds of each, run alternately (order swapped every round)."""
    for run in (run_ours, run_theirs):
        run()  # warm-up
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for r in range(repeats):
        pair = [("ours", run_ours), ("theirs", run_theirs)]
        for name, run in pair if r % 2 == 0 else pair[::-1]:
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return statistics.median(times["ours"]), statistics.median(times["theirs"])


def memory_status(field: str) -> int:
    """A memory figure of this process from /proc/self/status (Linux), in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024  # reported in kB
    raise RuntimeError(f"/proc/self/status has no {field}")


def peak_memory_child(size: Size, padded: bool, mode: str, impl: str) -> int:
    """Run in a fresh process: growth of the resident set during one step, bytes.

    Writing 5 to /proc/self/clear_refs resets the kernel's peak resident set
    (VmHWM) to the current one, so the peak read afterwards belongs to the step.
    """
    ours, theirs = build(size)
    model = ours if impl == "ours" else theirs
    model.train(mode == "training")
    ids, mask = batch(size, padded)
    small_mask = None if mask is None else mask[:1, :8]
    step(model, ids[:1, :8], small_mask, mode)  # one-time setup, on a tiny batch
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")
    before = memory_status("VmRSS")
    step(model, ids, mask, mode)
    return memory_status("VmHWM") - before


def peak_memory(size: Size, padded: bool, mode: str, impl: str, threads: int) -> int:
    """`peak_memory_child` in a new Python process, so earlier runs cannot hide it."""
    spec = json.dumps([size.__dict__, padded, mode, impl, threads])
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", spec],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: one tiny size, 3 repeats, no memory; the times mean nothing",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip peak memory")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    # PyTorch's fast path warns that nested tensors are a prototype; we know.
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
    if args.memory_child:
        fields, padded, mode, impl, threads = json.loads(args.memory_child)
        torch.set_num_threads(threads)
        print(peak_memory_child(Size(**fields), padded, mode, impl))
        return
    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")
    sizes = QUICK_SIZES if args.quick else SIZES
    repeats = 3 if args.quick else args.repeats
    print(
        f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {args.threads} threads, fp32, CPU, "
        f"median of {repeats} alternating runs"
    )
    header = (
        f"| {'size':<42} | {'batch':<6} | {'mode':<9} | encoderlib ms | torch ms "
        "| ratio | peak MB ours / torch |"
    )
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    for size in sizes:
        ours, theirs = build(size)
        for padded in (False, True):
            ids, mask = batch(size, padded)
            for mode in ("inference", "training"):
                for model in (ours, theirs):
                    model.train(mode == "training")
                t_ours, t_theirs = time_pair(
                    partial(step, ours, ids, mask, mode),
                    partial(step, theirs, ids, mask, mode),
                    repeats,
                )
                memory = ""
                if not (args.no_memory or args.quick):
                    mb = [
                        peak_memory(size, padded, mode, impl, args.threads) / 2**20
                        for impl in ("ours", "theirs")
                    ]
                    memory = f"{mb[0]:.0f} / {mb[1]:.0f}"
                print(
                    f"| {size.name:<42} | {'padded' if padded else 'full':<6} "
                    f"| {mode:<9} | {t_ours * 1e3:13.1f} | {t_theirs * 1e3:8.1f} "
                    f"| {t_ours / t_theirs:5.2f} | {memory:>20} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
