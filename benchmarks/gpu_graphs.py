"""encoderlib's encode path replayed from CUDA graphs, against eager and Hugging Face.

On a GPU, a batch of 32 short sentences is launch-bound: the H200's kernels for
a MiniLM forward take less time than the host needs to launch its ~100 of them
(benchmarks/recorded/operator_count_h200.txt). A CUDA graph records the kernels
of one call and replays them with a single launch, if nothing in the call waits
for the GPU and the shapes repeat. `encoderlib.GraphedEncoder` (chapter 19)
pads each batch to a bucket, (batch up to a power of two, length up to a
multiple of `--step` tokens), and replays one graph per bucket. This script
times its encode path (the replayed forward, mean pooling, normalised vectors
to the host) against encoderlib's eager encode path and Hugging Face's, on
`gpu_speed.py`'s rows, batches and timing, and prints the largest difference of
the replayed vectors to Hugging Face's. `gpu_speed.py` has the same graphed
column beside its others; this script adds `--step`, the size of the length buckets.

Run from the repository root on a CUDA machine:

    python benchmarks/gpu_graphs.py --repeats 3      # all three models
    python benchmarks/gpu_graphs.py --models BERT-base
    .venv/bin/python benchmarks/gpu_graphs.py --quick  # CPU smoke run, seconds

Without CUDA (`--quick`), `GraphedEncoder` calls the encoder: the run checks
that the script works and compares like with like; its times mean nothing.
"""

from __future__ import annotations

import argparse
import copy
import sys
import warnings
from pathlib import Path

import torch

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

from encoderlib import GraphedEncoder  # noqa: E402


def main() -> None:
    """Print one row per model, precision and batch row: eager, replayed, HF."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny shapes, CPU")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--step", type=int, default=16, help="length bucket size")
    parser.add_argument("--models", default=",".join(MODELS))
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
    print(f"buckets: (batch up to a power of two, a multiple of {args.step} tokens)")
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
                graphed = GraphedEncoder(ours, args.step)
                replay = over_batches(encode_path, graphed, batches)
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
