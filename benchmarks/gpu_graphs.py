"""What CUDA graphs would give encoderlib on a GPU: the encode path replayed.

On a GPU, a batch of 32 short sentences is launch-bound: the H200's kernels for
a MiniLM forward take less time than the host needs to launch its ~100 of them
(benchmarks/recorded/operator_count_h200.txt), so encoderlib and Hugging Face
spend their time in Python and the driver, not in arithmetic. A CUDA graph
records the kernels of one call and replays them with a single launch, but it
has two conditions: nothing in the call may wait for the GPU (encoderlib's
forward with the mask on the device waits 0 times, `host_syncs.py`), and the
shapes must repeat. This script meets the second by padding each batch to a
bucket, (the row's batch size, a multiple of `--step` tokens), and capturing
one graph per bucket: forward on the padded path, mean pooling, normalised
vectors. It times that against encoderlib's eager encode path and Hugging
Face's (`gpu_speed.py`'s rows, batches and timing), and prints the largest
difference of the replayed vectors to Hugging Face's.

Run from the repository root on a CUDA machine:

    python benchmarks/gpu_graphs.py                  # MiniLM-L6 and BERT-base
    python benchmarks/gpu_graphs.py --models ModernBERT-base --repeats 3
    .venv/bin/python benchmarks/gpu_graphs.py --quick  # CPU: padding only, seconds

Without CUDA (`--quick`), nothing is captured: the padded buckets run eagerly,
which checks that padding to a bucket leaves the vectors as they were.
"""

from __future__ import annotations

import argparse
import copy
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_speed import (  # noqa: E402
    MODELS,
    SHORT,
    dtypes_for,
    header,
    hf_encode,
    make_batches,
    over_batches,
    rows_for,
    synced,
)
from host_syncs import encode_path, hugging_face_pair  # noqa: E402
from minilm_speed import time_alternating  # noqa: E402

from encoderlib import mean_pool  # noqa: E402

Encode = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def round_up(n: int, step: int) -> int:
    """The smallest multiple of `step` that is at least `n` (and at least `step`)."""
    return max(step, -(-n // step) * step)


class GraphedEncode:
    """`encode(ids, mask)` replayed from one CUDA graph per padded shape.

    Each call pads its (b, n) batch to (`batch`, n rounded up to `step`) in
    static buffers on the device, replays that shape's graph (capturing it on
    first use) and returns the first b rows of the static output. All graphs
    share one memory pool. Without CUDA it runs `encode` on the padded batch
    instead, so that the padding itself can be checked on a CPU. `encode`
    must not wait for the GPU, or the capture fails.
    """

    def __init__(self, encode: Encode, batch: int, step: int) -> None:
        self.encode, self.batch, self.step = encode, batch, step
        self.graphs: dict[tuple[int, int], tuple] = {}
        self.pool = None

    def __call__(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, n = ids.shape
        key = (max(b, self.batch), round_up(n, self.step))
        if key not in self.graphs:
            self.graphs[key] = self.capture(key, ids.device, mask.dtype)
        graph, static_ids, static_mask, out = self.graphs[key]
        static_ids.zero_()  # stale ids of a longer batch must not stay real
        static_mask.zero_()
        static_ids[:b, :n].copy_(ids)
        static_mask[:b, :n].copy_(mask)
        if graph is None:  # no CUDA: the padded batch, eagerly
            return self.encode(static_ids, static_mask)[:b]
        graph.replay()
        return out[:b]

    def capture(self, shape: tuple[int, int], device: torch.device, dtype) -> tuple:
        """A graph of `encode` on zeroed (ids, mask) buffers of `shape`, or None."""
        ids = torch.zeros(shape, dtype=torch.long, device=device)
        mask = torch.zeros(shape, dtype=dtype, device=device)
        if device.type != "cuda":
            return None, ids, mask, None
        mask[:, 0] = 1  # warm-up and capture on one real token per row
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):  # lazy initialisation happens here, not in the graph
                self.encode(ids, mask)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            out = self.encode(ids, mask)
        self.pool = graph.pool()
        return graph, ids, mask, out


def padded_encode(model: torch.nn.Module) -> Encode:
    """encoderlib's encode path with the mask on the device: no host read at all."""

    def encode(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return F.normalize(mean_pool(model(ids, mask), mask), dim=-1)

    return encode


def graphed_run(graphed: GraphedEncode, batches: list) -> Callable[[], list]:
    """A run that encodes every batch of a row by replay, vectors to the host."""

    def run() -> list[torch.Tensor]:
        with torch.inference_mode():
            return [graphed(ids, mask).cpu() for ids, mask, _ in batches]

    return run


def main() -> None:
    """Print one row per model, precision and batch row: eager, replayed, HF."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny shapes, CPU")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--step", type=int, default=16, help="length bucket size")
    parser.add_argument("--models", default="MiniLM-L6,BERT-base")
    args = parser.parse_args()
    args.compile = False  # for gpu_speed.header
    models = args.models.split(",")
    if not set(models) <= set(MODELS):
        parser.error(f"--models: expected names from {', '.join(MODELS)}, got {models}")
    on_cuda = torch.cuda.is_available() and not args.quick
    if not on_cuda and not args.quick:
        print("gpu_graphs.py: no CUDA device; use --quick for the CPU check.")
        return
    if args.quick:
        args.repeats = 1
    device = torch.device("cuda" if on_cuda else "cpu")
    header(device, args)
    print(f"buckets: (the row's batch, a multiple of {args.step} tokens)")
    print()
    print(
        "| model | texts | batch | dtype | encoderlib ms | graphed ms | HF ms "
        "| eager / HF | graphed / HF | graphs | max diff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs32, ours32 = hugging_face_pair(name, args.quick)
        for dtype in dtypes_for(name, on_cuda):
            ours = copy.deepcopy(ours32).to(device, dtype).eval()
            theirs = copy.deepcopy(theirs32).to(device, dtype).eval()
            for row in rows_for(args.quick):
                batches = make_batches(row, device)
                graphed = GraphedEncode(padded_encode(ours), row.batch, args.step)
                replay = graphed_run(graphed, batches)
                runs = {
                    "ours": synced(over_batches(encode_path, ours, batches), on_cuda),
                    "graphed": synced(replay, on_cuda),
                    "theirs": synced(over_batches(hf_encode, theirs, batches), on_cuda),
                }
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        s = time_alternating(runs, args.repeats)
                    except RuntimeError as error:  # a capture that failed
                        print(f"| {name} | {row.label} | {row.batch} | {SHORT[dtype]} "
                              f"| failed: {str(error)[:200]} |")  # fmt: skip
                        continue
                    with torch.inference_mode():
                        mine = replay()
                        hf = [hf_encode(theirs, *batch) for batch in batches]
                diff = max(
                    (a.float() - b.float()).abs().max().item()
                    for a, b in zip(mine, hf, strict=True)
                )
                ms = {key: value * 1e3 for key, value in s.items()}
                print(
                    f"| {name} | {row.label} | {row.batch} | {SHORT[dtype]} "
                    f"| {ms['ours']:.1f} | {ms['graphed']:.1f} | {ms['theirs']:.1f} "
                    f"| {ms['ours'] / ms['theirs']:.2f} "
                    f"| {ms['graphed'] / ms['theirs']:.2f} "
                    f"| {len(graphed.graphs)} | {diff:.1e} |"
                )


if __name__ == "__main__":
    sys.exit(main())
