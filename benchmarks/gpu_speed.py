"""encoderlib against Hugging Face on a GPU: inference, a training step, parity.

MiniLM-L6-, BERT-base- and ModernBERT-base-shaped encoders with random weights,
built in Hugging Face's `BertModel` / `ModernBertModel` (sdpa attention) and
copied into `encoderlib.Encoder` (`host_syncs.hugging_face_pair`, no download).
Token ids are drawn with a fixed seed at realistic lengths: short texts of 6-40
tokens and long ones of 30-128, sorted by length and cut into batches of 1
(20 texts one by one), 32 and 256; one row sends batches of 32 unsorted, as a
plain `pipeline` does. Each row times the encode path (forward, mean pooling,
normalised vectors copied to the host) of both sides in fp32, fp16 and bf16
(ModernBERT: fp32 and bf16): encoderlib eager (its padding-free path) and
replayed from CUDA graphs (`GraphedEncoder`, chapter 19, captured anew for each
row), Hugging Face, and Hugging Face under `torch.compile` where that compiles;
then one training step per model (forward, backward, AdamW, fused on CUDA, bf16
autocast on CUDA). Ratios are encoderlib's time / Hugging Face's,
medians of alternating runs after a warm-up, with `torch.cuda.synchronize`
around every run; below 1 means encoderlib is faster. Beside them: tokens per
second, achieved TFLOP/s against this machine's measured matrix-product rate,
host syncs per forward (`host_syncs.count`), the graphs captured and the largest
difference of either encoderlib path's vectors to Hugging Face's. The run ends
with a count of the rows inside the goals of issue 24: at most 0.8 of Hugging
Face's time at batches 32 and 256, 1.0 at batch 1 and 0.9 for a training step,
and fp32 vectors within 1e-5.

Run from the repository root after `make setup`, on an idle machine:

    .venv/bin/python benchmarks/gpu_speed.py            # on a CUDA machine
    .venv/bin/python benchmarks/gpu_speed.py --quick    # tiny shapes, CPU, seconds
    .venv/bin/python benchmarks/gpu_speed.py --models ModernBERT-base --no-compile

`--quick` uses 3-layer d=32 models, batches 1 and 4, fp32 only and one repeat,
and skips the CUDA-only parts (half precision, `torch.compile`) with a note;
there `GraphedEncoder` calls the encoder, so its column repeats the eager one.
Without CUDA and without `--quick` the script says so and stops (`make bench`
runs every script), unless `--cpu` asks for the full table on the CPU.
"""

from __future__ import annotations

import argparse
import copy
import os
import platform
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import torch
import torch.nn.functional as F
import transformers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_syncs import count, encode_path, hugging_face_pair  # noqa: E402
from minilm_speed import time_alternating, useful_flops  # noqa: E402

from encoderlib import Encoder, GraphedEncoder, mean_pool  # noqa: E402

MODELS = ("MiniLM-L6", "BERT-base", "ModernBERT-base")
LENGTHS = {"short": (6, 40), "long": (30, 128)}
VOCAB = 1000  # the vocabulary of `hugging_face_pair`'s models


@dataclass(frozen=True)
class Row:
    """One table row: which texts, how many, in which batches, sorted or not."""

    texts: str
    batch: int
    n_texts: int
    sort: bool = True

    @property
    def label(self) -> str:
        return self.texts + ("" if self.sort else " unsorted")


def rows_for(quick: bool) -> list[Row]:
    """The rows of the table: batch 1, middle and large batches, one unsorted row."""
    if quick:
        return [
            Row("short", 1, 3),
            Row("short", 4, 8),
            Row("long", 4, 8),
            Row("short", 4, 8, sort=False),
        ]
    return [
        Row("short", 1, 20),
        Row("short", 32, 2048),
        Row("short", 256, 2048),
        Row("long", 32, 2048),
        Row("long", 256, 2048),
        Row("short", 32, 2048, sort=False),
    ]


def text_lengths(kind: str, n: int, seed: int = 0) -> list[int]:
    """`n` token counts between the kind's bounds, most of them short (log-normal).

    Real sentence and paragraph lengths are skewed: many short, a long tail.
    A log-normal draw clipped to the bounds gives that shape; the seed fixes it.
    """
    low, high = LENGTHS[kind]
    generator = torch.Generator().manual_seed(seed)
    middle = torch.tensor((low * high) ** 0.5).log()
    drawn = (middle + 0.45 * torch.randn(n, generator=generator)).exp()
    return drawn.round().clamp(low, high).long().tolist()


def make_batches(row: Row, device: torch.device) -> list[tuple[torch.Tensor, ...]]:
    """The row's texts as padded (ids, mask, host mask) batches, sorted unless not.

    Every text starts with id 1 and ends with id 2 (CLS and SEP); the ids in
    between are drawn with a fixed seed. Each batch is padded to its longest text.
    ids and mask are on `device`; the host mask is the mask as a tokenizer makes
    it, on the CPU, which `encode` hands encoderlib's model (`encode_path`).
    """
    lengths = text_lengths(row.texts, row.n_texts)
    if row.sort:
        lengths = sorted(lengths, reverse=True)
    generator = torch.Generator().manual_seed(1)
    batches = []
    for start in range(0, len(lengths), row.batch):
        part = lengths[start : start + row.batch]
        ids = torch.randint(5, VOCAB, (len(part), max(part)), generator=generator)
        mask = (torch.arange(max(part)) < torch.tensor(part)[:, None]).long()
        ids[:, 0] = 1
        ids[torch.arange(len(part)), torch.tensor(part) - 1] = 2
        ids = ids * mask  # padding id 0
        batches.append((ids.to(device), mask.to(device), mask))
    return batches


def hf_encode(
    theirs: torch.nn.Module,
    ids: torch.Tensor,
    mask: torch.Tensor,
    host_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Hugging Face's side of `host_syncs.encode_path`: forward, mean pool, to host.

    `host_mask` is unused: Hugging Face's model takes the mask on its device.
    """
    hidden = theirs(input_ids=ids, attention_mask=mask).last_hidden_state
    return F.normalize(mean_pool(hidden, mask), dim=-1).cpu()


def synced(run: Callable[[], object], on_cuda: bool) -> Callable[[], None]:
    """`run` with `torch.cuda.synchronize()` before and after, on CUDA."""

    def call() -> None:
        if on_cuda:
            torch.cuda.synchronize()
        run()
        if on_cuda:
            torch.cuda.synchronize()

    return call


def over_batches(encode: Callable, model: torch.nn.Module, batches: list) -> Callable:
    """A run that encodes every batch of a row in inference mode."""

    def run() -> list[torch.Tensor]:
        with torch.inference_mode():
            return [encode(model, *batch) for batch in batches]

    return run


def compiled(sides: dict, batches: list, on_cuda: bool) -> Callable | None:
    """A run of Hugging Face's model under `torch.compile`; None where it fails.


    The model is compiled once per side (`sides["compiled"]`, dynamic shapes)
    and warmed up on the row's batches, so that compiling is not timed.
    """
    if "compiled" in sides and sides["compiled"] is None:
        return None  # it failed on an earlier row
    try:
        if "compiled" not in sides:
            sides["compiled"] = torch.compile(sides["theirs"], dynamic=True)
        run = synced(over_batches(hf_encode, sides["compiled"], batches), on_cuda)
        run()
        return run
    except Exception as error:  # noqa: BLE001 - any failure means "n/a"
        print(f"note: torch.compile failed ({type(error).__name__}); n/a")
        sides["compiled"] = None
        return None


def model_flops(ours: Encoder, lengths: list[int]) -> int:
    """Useful FLOPs of the real tokens (`minilm_speed.useful_flops`), GLU included.

    A gated feed-forward (ModernBERT's GeGLU) projects to 2 · d_ff, not d_ff:
    its second half adds 2 · d · d_ff per token and layer.
    """
    config = ours.config
    flops = useful_flops(config, lengths)
    if "glu" in str(getattr(config, "activation", "")):
        flops += config.n_layers * 2 * config.d_model * config.d_ff * sum(lengths)
    return flops


def matmul_rate(dtype: torch.dtype, device: torch.device, quick: bool) -> float:
    """This machine's FLOP/s on one large square matrix product in `dtype`."""
    n = 256 if quick else 8192
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    calls = 1 if quick else 10
    run = synced(lambda: [a @ b for _ in range(calls)], device.type == "cuda")
    seconds = time_alternating({"mm": run}, 1 if quick else 5)["mm"]
    return calls * 2 * n**3 / seconds


def time_row(
    sides: dict[str, torch.nn.Module | None],
    row: Row,
    device: torch.device,
    args: argparse.Namespace,
) -> dict[str, object]:
    """Time and compare both sides on one row's batches; the row's numbers."""
    on_cuda = device.type == "cuda"
    ours, theirs = sides["ours"], sides["theirs"]
    graphed = GraphedEncoder(ours)  # this row's buckets, captured on first use
    batches = make_batches(row, device)
    runs = {
        "ours": synced(over_batches(encode_path, ours, batches), on_cuda),
        "graphed": synced(over_batches(encode_path, graphed, batches), on_cuda),
        "theirs": synced(over_batches(hf_encode, theirs, batches), on_cuda),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.compile:
            runs_compiled = compiled(sides, batches, on_cuda)
            if runs_compiled is not None:
                runs["compiled"] = runs_compiled
        seconds = time_alternating(runs, args.repeats)
        with torch.inference_mode():
            syncs = (
                count(partial(encode_path, ours, *batches[0]), on_cuda),
                count(partial(hf_encode, theirs, *batches[0]), on_cuda),
            )
            diff = max(
                (encode_path(path, *b).float() - hf_encode(theirs, *b).float())
                .abs()
                .max()
                .item()
                for b in batches
                for path in (ours, graphed)
            )
    lengths = [int(n) for _, _, m in batches for n in m.sum(1).tolist()]
    return dict(
        seconds=seconds,
        tokens=sum(lengths),
        flops=model_flops(ours, lengths),
        syncs=syncs,
        graphs=len(graphed.graphs),
        diff=diff,
    )


def train_step(
    model: torch.nn.Module, hf: bool, device: torch.device
) -> Callable[[list], None]:
    """One training step on a batch: forward, mean pool, backward, AdamW.

    The loss is a plain function of the pooled vectors (their mean square), so
    both sides do the same work. AdamW is fused on CUDA (a single kernel for all
    parameters) and the forward runs under bf16 autocast there; on the CPU the
    step is fp32.
    """
    model.train()
    on_cuda = device.type == "cuda"
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=on_cuda)

    def step(batch: list) -> None:
        ids, mask, host_mask = batch  # encoderlib packs with the host mask
        with torch.autocast(device.type, torch.bfloat16, enabled=on_cuda):
            hidden = model(input_ids=ids, attention_mask=mask if hf else host_mask)
            hidden = hidden.last_hidden_state if hf else hidden
            loss = mean_pool(hidden, mask).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return step


def time_training(
    sides: dict[str, torch.nn.Module], device: torch.device, args: argparse.Namespace
) -> dict[str, float]:
    """Median seconds of one training step on long texts, each side on its own copy."""
    on_cuda = device.type == "cuda"
    batch = make_batches(Row("long", 4 if args.quick else 32, 64), device)[0]
    runs = {}
    for name, hf in (("ours", False), ("theirs", True)):
        model = copy.deepcopy(sides[name]).to(device, torch.float32)
        step = train_step(model, hf, device)
        runs[name] = synced(partial(step, batch), on_cuda)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return time_alternating(runs, args.repeats)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def header(device: torch.device, args: argparse.Namespace) -> None:
    """Print what ran: device, versions, CPU, threads, repeats, what is skipped."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(
        f"device: {name}; torch {torch.__version__}; transformers "
        f"{transformers.__version__}; CPU {cpu_model()}, {os.cpu_count()} cores, "
        f"{torch.get_num_threads()} threads; median of {args.repeats} runs"
    )
    if device.type != "cuda":
        print("note: no CUDA: fp16/bf16, fused AdamW and bf16 autocast skipped")
    if not args.compile:
        print("note: torch.compile skipped (--quick or --no-compile); column n/a")
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")


def dtypes_for(name: str, on_cuda: bool) -> list[torch.dtype]:
    """fp32 everywhere; fp16 and bf16 on CUDA (ModernBERT: bf16 only)."""
    if not on_cuda:
        return [torch.float32]
    if name == "ModernBERT-base":
        return [torch.float32, torch.bfloat16]
    return [torch.float32, torch.float16, torch.bfloat16]


SHORT = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}


def goal_lines(results: list[tuple], training: list[float]) -> list[str]:
    """The rows inside the goals, counted: eager, graphed, and either path.

    `results` holds (batch, dtype, eager ratio, graphed ratio, max diff) per
    inference row, `training` the training steps' ratios.
    """
    lines = ["Inside the goals (rows that meet it / rows):"]
    for label, goal, single in (
        ("batches above 1 (32, 256)", 0.8, False),
        ("batch 1", 1.0, True),
    ):
        rows = [r for r in results if (r[0] == 1) == single]
        eager = sum(r[2] <= goal for r in rows)
        graphed = sum(r[3] <= goal for r in rows)
        either = sum(min(r[2], r[3]) <= goal for r in rows)
        lines.append(
            f"- {label}, ratio <= {goal}: eager {eager}/{len(rows)}, graphed "
            f"{graphed}/{len(rows)}, either {either}/{len(rows)}"
        )
    steps = sum(ratio <= 0.9 for ratio in training)
    lines.append(f"- training step, ratio <= 0.9: {steps}/{len(training)}")
    fp32 = [r[4] for r in results if r[1] == torch.float32]
    close = sum(diff <= 1e-5 for diff in fp32)
    lines.append(f"- fp32 vectors within 1e-5 of Hugging Face's: {close}/{len(fp32)}")
    return lines


def main() -> None:
    """Print the header, the matmul rates, the inference and training tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny shapes, CPU, fp32")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-compile", dest="compile", action="store_false")
    parser.add_argument("--cpu", action="store_true", help="full run without CUDA")
    parser.add_argument(
        "--models",
        default=",".join(MODELS),
        help="a comma-separated subset of " + ", ".join(MODELS),
    )
    args = parser.parse_args()
    models = args.models.split(",")
    if not set(models) <= set(MODELS):
        parser.error(f"--models: expected names from {', '.join(MODELS)}, got {models}")
    if args.quick:
        args.repeats, args.compile = 1, False
    elif not torch.cuda.is_available() and not args.cpu:
        print("gpu_speed.py: no CUDA device; the full run is for a GPU (hours on a")
        print("CPU). Use --quick for the CPU smoke run, or --cpu to run it anyway.")
        return
    on_cuda = torch.cuda.is_available() and not args.quick
    device = torch.device("cuda" if on_cuda else "cpu")
    header(device, args)
    dtypes = [torch.float32] + ([torch.float16, torch.bfloat16] if on_cuda else [])
    peak = {dtype: matmul_rate(dtype, device, args.quick) for dtype in dtypes}
    rates = ", ".join(f"{SHORT[d]} {peak[d] / 1e12:.2f}" for d in dtypes)
    print(f"matrix product (square, measured): {rates} TFLOP/s")
    print()
    print(
        "| model | texts | batch | dtype | tokens | encoderlib ms | graphed ms "
        "| HF ms | ratio | graphed / HF | ratio vs HF compiled | tokens/s "
        "| TFLOP/s (of peak) | syncs ours/HF | graphs | max diff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    results, training = [], []
    for name in models:
        theirs32, ours32 = hugging_face_pair(name, args.quick)
        for dtype in dtypes_for(name, on_cuda):
            sides = {
                "ours": copy.deepcopy(ours32).to(device, dtype).eval(),
                "theirs": copy.deepcopy(theirs32).to(device, dtype).eval(),
            }
            for row in rows_for(args.quick):
                r = time_row(sides, row, device, args)
                s = r["seconds"]
                ratio = s["ours"] / s["theirs"]
                graphed = s["graphed"] / s["theirs"]
                vs_compiled = (
                    f"{s['ours'] / s['compiled']:.2f}" if "compiled" in s else "n/a"
                )
                achieved = r["flops"] / s["ours"]
                ms = " | ".join(
                    f"{s[k] * 1e3:.1f}" for k in ("ours", "graphed", "theirs")
                )
                print(
                    f"| {name} | {row.label} | {row.batch} | {SHORT[dtype]} "
                    f"| {r['tokens']} | {ms} | {ratio:.2f} | {graphed:.2f} "
                    f"| {vs_compiled} | {r['tokens'] / s['ours']:.0f} "
                    f"| {achieved / 1e12:.3f} ({achieved / peak[dtype]:.0%}) "
                    f"| {r['syncs'][0]}/{r['syncs'][1]} | {r['graphs']} "
                    f"| {r['diff']:.1e} |"
                )
                results.append((row.batch, dtype, ratio, graphed, r["diff"]))
        try:
            seconds = time_training({"ours": ours32, "theirs": theirs32}, device, args)
        except RuntimeError as error:  # report it and go on to the next model
            print(f"note: {name} training step failed: {str(error)[:300]}")
            continue
        training.append((name, seconds))
        ratio = seconds["ours"] / seconds["theirs"]
        print(f"note: {name} training step ratio {ratio:.2f} (table at the end)")
    print()
    autocast = "bf16 autocast, fused AdamW" if on_cuda else "fp32, AdamW (CPU)"
    print(f"One training step, long texts ({autocast}):")
    print("| model | encoderlib ms | HF ms | ratio |")
    print("|---|---|---|---|")
    for name, s in training:
        ours_ms, hf_ms = s["ours"] * 1e3, s["theirs"] * 1e3
        print(f"| {name} | {ours_ms:.1f} | {hf_ms:.1f} | {ours_ms / hf_ms:.2f} |")
    print()
    for line in goal_lines(results, [s["ours"] / s["theirs"] for _, s in training]):
        print(line)


if __name__ == "__main__":
    sys.exit(main())
