"""all-MiniLM-L6-v2 in encoderlib on the STS Benchmark test set: Spearman × 100.

The STS Benchmark (Cer et al., 2017, arXiv:1708.00055) pairs sentences with gold
similarity scores from 0 to 5. A sentence encoder is scored by the Spearman rank
correlation between the cosine similarity of each pair's two vectors and the
gold score, times 100. The published figure for all-MiniLM-L6-v2 is about 82.0
(as the data's README in ../shared/data/stsbenchmark/ records); this script
reproduces it with `encoderlib.load_minilm()`, and with `--compare-hf` also with
Hugging Face `transformers` (`BertModel` + mean pooling) on the same weights.

The test split ships with the project's shared data (../shared/data/stsbenchmark/,
or `--data PATH`), tab-separated: genre, file, year, id, score, sentence 1,
sentence 2, sometimes more fields. Without the file the script loads the hub's
copy through `datasets` when online, and otherwise says it skipped. Sentences hold
quote characters, so lines are split on tabs with no CSV quoting.

Run from the repository root after `make setup`:

    .venv/bin/python benchmarks/sts_eval.py
    .venv/bin/python benchmarks/sts_eval.py --compare-hf
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import sys
import time
from pathlib import Path

import torch
from scipy.stats import spearmanr

from encoderlib import load_minilm
from encoderlib.data import STSPairs, load_sts_benchmark

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "stsbenchmark" / "sts-test.csv"
PUBLISHED = 82.0  # Spearman × 100 on the STS-B test split, published for this model
N_PAIRS = 1379
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


def read_sts(path: Path) -> STSPairs:
    """Read an STS Benchmark file: score in column 5, sentences in columns 6 and 7.

    Chapter 12's `encoderlib.data.load_sts_benchmark(path)` reads it: columns are
    counted from 1 and split on tabs only (quote characters are part of the
    sentences); a line with fewer than 7 fields is a ValueError naming it.
    """
    return load_sts_benchmark(path)


def hub_sts() -> STSPairs | None:
    """The STS-B test split from the Hugging Face hub, or None when offline.

    Gives up at once when `HF_HUB_OFFLINE` or `HF_DATASETS_OFFLINE` is set, and
    after a 2-second connection attempt otherwise, so it never hangs. The hub's
    copy scores pairs from 0 to 1; they are scaled to the original 0 to 5.
    """
    if any(os.environ.get(v, "") not in ("", "0") for v in OFFLINE_VARIABLES):
        return None
    try:
        socket.create_connection(("huggingface.co", 443), timeout=2.0).close()
        import datasets

        test = datasets.load_dataset("sentence-transformers/stsb", split="test")
    except Exception:  # no network, no package, or the hub refused: no data
        return None
    return STSPairs(
        list(test["sentence1"]),
        list(test["sentence2"]),
        [5 * score for score in test["score"]],
        "the Hugging Face hub (sentence-transformers/stsb, test split)",
    )


def spearman_x100(a: torch.Tensor, b: torch.Tensor, scores: list[float]) -> float:
    """Spearman correlation × 100 between the rows' cosine similarities and scores."""
    cosine = torch.nn.functional.cosine_similarity(a, b, dim=-1)
    return 100 * float(spearmanr(cosine.tolist(), scores).statistic)


def hf_sentence_vectors(sentences: list[str]) -> torch.Tensor:
    """Hugging Face `BertModel` + mean pooling + normalisation (minilm_speed.py's)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:  # benchmarks/ is a folder of scripts, not a package
        sys.path.insert(0, here)
    from minilm_speed import HuggingFaceMiniLM

    return HuggingFaceMiniLM().encode(sentences, sort=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, help=f"the STS-B test file (default: {DEFAULT_DATA})"
    )
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--compare-hf", action="store_true", help="also score Hugging Face's model"
    )
    args = parser.parse_args()
    if args.data is not None and not args.data.is_file():
        sys.exit(f"sts_eval: no STS Benchmark file at {args.data}")
    data = args.data or DEFAULT_DATA
    if data.is_file():
        pairs, source = read_sts(data), str(data)
    else:
        pairs, source = hub_sts(), "the Hugging Face hub (sentence-transformers/stsb)"
        if pairs is None:
            # `make bench` on a machine without the data: say so, do not fail.
            print(
                f"sts_eval: skipped: no STS Benchmark file at {DEFAULT_DATA} and no "
                "hub; pass --data PATH to a tab-separated STS-B test file"
            )
            return
    torch.set_num_threads(args.threads)
    print(
        f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {args.threads} threads, fp32, CPU"
    )
    print(f"STS Benchmark test: {len(pairs.scores)} pairs from {source}")
    model = load_minilm()
    start = time.perf_counter()
    vectors = model.encode(pairs.first + pairs.second)
    seconds = time.perf_counter() - start
    n = len(pairs.scores)
    ours = spearman_x100(vectors[:n], vectors[n:], pairs.scores)
    print("| model | Spearman × 100 | published | encode s |")
    print("|---|---|---|---|")
    print(
        f"| encoderlib load_minilm() | {ours:.2f} | {PUBLISHED:.1f} | {seconds:.1f} |"
    )
    if args.compare_hf:
        start = time.perf_counter()
        theirs = hf_sentence_vectors(pairs.first + pairs.second)
        seconds = time.perf_counter() - start
        score = spearman_x100(theirs[:n], theirs[n:], pairs.scores)
        print(
            f"| transformers BertModel + mean | {score:.2f} | {PUBLISHED:.1f} "
            f"| {seconds:.1f} |"
        )
        print(f"max |difference| of the vectors: {(vectors - theirs).abs().max():.1e}")


if __name__ == "__main__":
    main()
