"""Where the time of a batch of short sentences goes, and how close to the floor it is.

`minilm_speed.py` compares whole `encode` calls. This script takes one of them
apart, for MiniLM on the same standard-library sentences (batch 32, sorted by
length): tokenization, padding and pooling around the model, the model's
forward, and inside it the four linear products of each layer run alone on the
same numbers of tokens. The products alone are the floor that no cut of
overhead can go below; the same products with prepacked weights
(`encoderlib.prepacked`, oneDNN's blocked layout made once) are the floor of
`prepack_for_cpu`'s copy, timed whole beside it, and so are `encode` and the
products on `F.linear`'s own kernel, where `encoderlib.kernels` chose oneDNN's
for this CPU. How close the products themselves come to what the CPU can do is
the last line: their FLOP/s beside those of one large product of the same
width, prepacked, on the same threads. Beside them, ONNX Runtime on
Hugging Face's export (fp32 and its dynamic int8 quantization) and
encoderlib's int8, as `minilm_speed.py` builds them.

Times are CPU time of this process (`time.process_time`), one thread by default,
medians of alternating runs: a load on the machine's other core changes them
less than it changes wall time. With `--threads 2 --clock wall` they are wall
time, as `minilm_speed.py` measures: the setting where a part that does not
share its work between threads shows. The header names the CPU and its instruction
sets, since the ratio depends on which matrix-product kernels the CPU gets.

    python benchmarks/short_text_cost.py [--texts 512] [--repeats 5] [--threads 1]
        [--clock cpu|wall]
"""

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import minilm_speed  # noqa: E402  (benchmarks/ is no package)

from encoderlib.kernels import linear  # noqa: E402
from encoderlib.prepacked import PrepackedWeight, prepack_for_cpu  # noqa: E402
from encoderlib.tokenization import pad_batch  # noqa: E402


def cpu_ms(run: Callable[[], object]) -> float:
    """CPU time of one call of `run`, in milliseconds."""
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1000


def wall_ms(run: Callable[[], object]) -> float:
    """Wall time of one call of `run`, in milliseconds."""
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def attention_calls(forward: Callable[[], object]) -> list[tuple[int, ...]]:
    """The query shape (b, h, n, e) of every fused-attention call `forward` makes.

    Recorded from the library's own calls of `F.scaled_dot_product_attention`, so
    that the attention core timed alone is the one the forward runs: on the CPU's
    packed path, one call per block of equal-length sentences and layer (chapter 8).
    """
    shapes: list[tuple[int, ...]] = []
    fused = F.scaled_dot_product_attention

    def record(query, *args, **kwargs):
        shapes.append(tuple(query.shape))
        return fused(query, *args, **kwargs)

    with mock.patch.object(F, "scaled_dot_product_attention", record):
        forward()
    return shapes


def parts(model, texts: list[str], batch_size: int = 32) -> dict[str, Callable]:
    """The pieces of `model.encode(texts)`, each as a call to time.

    "tokenize": the tokenizer on every text; "model": the encoder's forward on
    the padded, length-sorted batches `encode` makes; "products": the four
    linear products per layer (q, k, v fused; out; the two feed-forward ones) on
    as many rows as each batch has real tokens, with random weights of the same
    shapes: the arithmetic that any implementation has to do, on the kernel
    encoderlib's `linear` chooses here ("products, torch kernel": on `F.linear`);
    "attention core": fused attention on random q, k and v of the shapes the
    forward's own calls have (`attention_calls`);
    "attention core, unfused": the same blocks as softmax(q kᵀ / √e) v, two
    batched matrix products and a softmax, the route torch's fused CPU kernel
    replaces.
    """
    config = model.model.config
    ids = [model.tokenizer.encode(text, max_length=model.max_length) for text in texts]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    batches = [
        pad_batch([ids[i] for i in order[s : s + batch_size]], 0, True, 0)
        for s in range(0, len(order), batch_size)
    ]
    rows = [
        torch.randn(int(b["attention_mask"].sum()), config.d_model) for b in batches
    ]
    d, d_ff = config.d_model, config.d_ff
    weights = [
        torch.randn(3 * d, d),
        torch.randn(d, d),
        torch.randn(d_ff, d),
        torch.randn(d, d_ff),
    ]

    def forward() -> None:
        with torch.inference_mode():
            for batch in batches:
                model.model(batch["input_ids"], batch["attention_mask"])

    def products(product: Callable = linear, layer_weights: list = weights) -> None:
        qkv, out, up, down = layer_weights
        with torch.inference_mode():
            for x in rows:
                for _ in range(config.n_layers):
                    product(x, qkv)
                    product(x, out)
                    product(product(x, up), down)

    prepacked = [PrepackedWeight(w) for w in weights]
    blocks = [torch.randn(3, *shape) for shape in attention_calls(forward)]

    def attention_core(fused: bool = True) -> None:
        with torch.inference_mode():
            for q, k, v in blocks:
                if fused:
                    F.scaled_dot_product_attention(q, k, v)
                else:
                    scores = (q * q.shape[-1] ** -0.5) @ k.transpose(-1, -2)
                    scores.softmax(dim=-1) @ v

    def tokenize() -> None:
        for text in texts:
            model.tokenizer.encode(text, max_length=model.max_length)

    return {
        "tokenize": tokenize,
        "model": forward,
        "products": products,
        "products, torch kernel": lambda: products(F.linear),
        "products prepacked": lambda: products(F.linear, prepacked),
        "attention core": attention_core,
        "attention core, unfused": lambda: attention_core(fused=False),
    }


def product_flops(config, tokens: int) -> int:
    """FLOPs of the four linear products of every layer on `tokens` real tokens:
    2 · d · (3d + d + d_ff + d_ff) per token and layer."""
    d, d_ff = config.d_model, config.d_ff
    return config.n_layers * 2 * tokens * d * (4 * d + 2 * d_ff)


def large_product_rate(
    d: int, d_ff: int, repeats: int, clock: Callable[[Callable], float] = cpu_ms
) -> float:
    """FLOP/s of one large product, (4096, d) @ (d_ff, d)ᵀ, prepacked: the rate
    the CPU reaches on MiniLM's widest map when the work is big enough to hide
    every per-call cost; the fastest of `repeats` + 2 calls, timed by `clock`."""
    x, weight = torch.randn(4096, d), PrepackedWeight(torch.randn(d_ff, d))
    with torch.inference_mode():
        best = min(clock(lambda: F.linear(x, weight)) for _ in range(repeats + 2))
    return 2 * 4096 * d * d_ff / (best / 1000)


def main() -> None:
    """Time the parts and the whole calls; print one table per kind of text."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kinds", default="sentences,paragraphs")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--quick", action="store_true", help="8 texts, 1 repeat")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    n_texts, repeats = (8, 1) if args.quick else (args.texts, args.repeats)
    clock = cpu_ms if args.clock == "cpu" else wall_ms
    ours = minilm_speed.load_minilm()
    sides = minilm_speed.build_sides(ours, args.threads)
    sides["encoderlib prepacked"] = prepack_for_cpu(ours).encode
    whole = [
        "encoderlib",
        "encoderlib, torch kernel",
        "encoderlib prepacked",
        "ORT",
        "encoderlib int8",
        "ORT int8",
    ]
    print(
        f"torch {torch.__version__}, {minilm_speed.cpu_description()}, "
        f"{args.threads} thread(s), {'CPU' if args.clock == 'cpu' else 'wall'} time, "
        f"batch 32, median of {repeats} runs"
    )
    for kind in args.kinds.split(","):
        texts = minilm_speed.docstring_texts(kind, n_texts)
        calls = parts(ours, texts)
        for name in whole:  # warm-up: first calls allocate and build caches
            sides[name](texts[:32])
            calls[name] = lambda encode=sides[name], texts=texts: encode(texts)
        times = {name: [] for name in calls}
        for _ in range(repeats):  # alternating: a slow moment hits every part
            for name, call in calls.items():
                times[name].append(clock(call))
        ms = {name: statistics.median(values) for name, values in times.items()}
        tokens = sum(len(ours.tokenizer.encode(t, max_length=256)) for t in texts)
        print(f"\n{kind}: {len(texts)} texts, {tokens / len(texts):.1f} tokens each")
        print("| part | ms | share of encode | ratio to ORT fp32 |")
        print("|---|---|---|---|")
        around = ms["encoderlib"] - ms["model"] - ms["tokenize"]
        rows = [
            ("encode, whole", ms["encoderlib"]),
            ("  tokenize", ms["tokenize"]),
            ("  model forward", ms["model"]),
            ("    of which the linear products", ms["products"]),
            ("    of which the attention core", ms["attention core"]),
            ("      the same, unfused", ms["attention core, unfused"]),
            (
                "    of which the rest",
                ms["model"] - ms["products"] - ms["attention core"],
            ),
            ("  padding, pooling, order (the rest of encode)", around),
            ("encode on the torch kernel (F.linear)", ms["encoderlib, torch kernel"]),
            ("  the linear products, torch kernel", ms["products, torch kernel"]),
            ("encode with prepacked weights", ms["encoderlib prepacked"]),
            ("  the linear products, prepacked", ms["products prepacked"]),
        ]
        for label, value in rows:
            share = value / ms["encoderlib"]
            print(f"| {label} | {value:.0f} | {share:.0%} | {value / ms['ORT']:.2f} |")
        print(f"| ORT fp32 (Hugging Face's export) | {ms['ORT']:.0f} | | 1.00 |")
        print(
            f"| encoderlib int8 / ORT int8 | {ms['encoderlib int8']:.0f} / "
            f"{ms['ORT int8']:.0f} | | {ms['encoderlib int8'] / ms['ORT int8']:.2f} "
            "(int8 to int8) |"
        )
        config = ours.model.config
        flops = product_flops(config, tokens)
        plain, packed = (
            flops / (ms[k] / 1000) for k in ("products", "products prepacked")
        )
        d, d_ff = config.d_model, config.d_ff
        large = large_product_rate(d, d_ff, repeats, clock)
        print(
            f"the linear products: {plain / 1e9:.1f} GFLOP/s ({plain / large:.0%}), "
            f"prepacked {packed / 1e9:.1f} GFLOP/s ({packed / large:.0%}) of one "
            f"large product's {large / 1e9:.1f} (4096 x {d} -> {d_ff}, prepacked)"
        )


if __name__ == "__main__":
    main()
