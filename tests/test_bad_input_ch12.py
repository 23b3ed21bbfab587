"""Bad input to chapter 12's public names (encoderlib.contrastive, .data): clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, float64
mixed with float32, ids of small integer dtypes, wrong shapes, empty batches,
out-of-range temperatures, exponents and dropout, NaN scores) and expects a
TypeError or ValueError whose message names what was expected and what was
received, never an error from deep inside torch, a wrong shape or NaN.
"""

import math

import pytest
import torch

from encoderlib import Encoder, EncoderConfig
from encoderlib.contrastive import (
    PairCollator,
    alignment,
    info_nce_loss,
    sentence_embeddings,
    set_dropout,
    spearman_correlation,
    sts_spearman,
    supervised_simcse_loss,
    uniformity,
    unsupervised_simcse_loss,
)
from encoderlib.data import STSPairs, load_sts_benchmark

X = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))


def encoder() -> Encoder:
    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=40, d_model=16, n_heads=2, n_layers=1, d_ff=32)
    return Encoder(config).eval()


ENCODER = encoder()
IDS = torch.tensor([[2, 11, 12, 3], [2, 13, 3, 0]])
MASK = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
BATCH = {"input_ids": IDS, "attention_mask": MASK}
PAIRS = {"anchor": BATCH, "positive": BATCH}


def encode(sentences: list[str]) -> torch.Tensor:
    return torch.stack([torch.tensor([len(s), s.count("a") + 1.0]) for s in sentences])


CASES = {
    # --- info_nce_loss
    "info_nce: queries None": (
        lambda: info_nce_loss(None, X),
        TypeError,
        "expected queries as a torch.Tensor, got NoneType",
    ),
    "info_nce: keys as a list": (
        lambda: info_nce_loss(X, X.tolist()),
        TypeError,
        "expected keys as a torch.Tensor, got list",
    ),
    "info_nce: integer vectors": (
        lambda: info_nce_loss(X.long(), X),
        TypeError,
        "expected queries with a floating-point dtype, got torch.int64",
    ),
    "info_nce: float64 keys for float32 queries": (
        lambda: info_nce_loss(X, X.double()),
        TypeError,
        "expected keys of dtype torch.float32, like the first argument, got "
        "torch.float64",
    ),
    "info_nce: float64 negatives": (
        lambda: info_nce_loss(X, X, 0.05, X.double()),
        TypeError,
        "expected negatives of dtype torch.float32, like the first argument, got "
        "torch.float64",
    ),
    "info_nce: b = 0": (
        lambda: info_nce_loss(X[:0], X[:0]),
        ValueError,
        r"expected at least one query, got queries of shape \(0, 8\)",
    ),
    "info_nce: 3-D queries": (
        lambda: info_nce_loss(X[None], X[None]),
        ValueError,
        r"expected queries of shape \(b, d\), got \(1, 4, 8\)",
    ),
    "info_nce: one key too few": (
        lambda: info_nce_loss(X, X[:3]),
        ValueError,
        r"expected keys of shape \(4, 8\), one per query, got \(3, 8\)",
    ),
    "info_nce: temperature 0": (
        lambda: info_nce_loss(X, X, 0.0),
        ValueError,
        "expected temperature > 0, got 0.0",
    ),
    "info_nce: infinite temperature": (
        lambda: info_nce_loss(X, X, math.inf),
        ValueError,
        "expected temperature > 0, got inf",
    ),
    "info_nce: temperature as a str": (
        lambda: info_nce_loss(X, X, "0.05"),
        TypeError,
        "expected temperature as a float, got '0.05'",
    ),
    # --- alignment and uniformity
    "alignment: float64 mixed in": (
        lambda: alignment(X.double(), X),
        TypeError,
        "expected y of dtype torch.float64, like the first argument, got torch.float32",
    ),
    "alignment: pairs of different sizes": (
        lambda: alignment(X, X[:3]),
        ValueError,
        r"expected y of shape \(4, 8\) like x, got \(3, 8\)",
    ),
    "alignment: b = 0": (
        lambda: alignment(X[:0], X[:0]),
        ValueError,
        r"expected at least one pair, got x of shape \(0, 8\)",
    ),
    "alignment: alpha as a str": (
        lambda: alignment(X, X, "2"),
        TypeError,
        "expected alpha as a float, got '2'",
    ),
    "alignment: negative alpha": (
        lambda: alignment(X, X, -1),
        ValueError,
        "expected alpha > 0, got -1",
    ),
    "uniformity: None": (
        lambda: uniformity(None),
        TypeError,
        "expected x as a torch.Tensor, got NoneType",
    ),
    "uniformity: one vector": (
        lambda: uniformity(X[:1]),
        ValueError,
        r"expected x of shape \(n, d\) with n >= 2, got \(1, 8\)",
    ),
    "uniformity: t as a str": (
        lambda: uniformity(X, "2"),
        TypeError,
        "expected t as a float, got '2'",
    ),
    "uniformity: NaN t": (
        lambda: uniformity(X, math.nan),
        ValueError,
        "expected t > 0, got nan",
    ),
    # --- set_dropout
    "set_dropout: model None": (
        lambda: set_dropout(None, 0.1),
        TypeError,
        "expected an nn.Module, got NoneType",
    ),
    "set_dropout: p as a str": (
        lambda: set_dropout(ENCODER, "0.1"),
        TypeError,
        r"expected p as a float in \[0, 1\), got '0.1'",
    ),
    "set_dropout: p of 1": (
        lambda: set_dropout(ENCODER, 1.0),
        ValueError,
        r"expected p in \[0, 1\), got 1.0",
    ),
    "set_dropout: negative p": (
        lambda: set_dropout(ENCODER, -0.1),
        ValueError,
        r"expected p in \[0, 1\), got -0.1",
    ),
    # --- sentence_embeddings and the two losses
    "sentence_embeddings: encoder None": (
        lambda: sentence_embeddings(None, BATCH),
        TypeError,
        "expected encoder as an nn.Module, got NoneType",
    ),
    "sentence_embeddings: a tensor for the batch": (
        lambda: sentence_embeddings(ENCODER, IDS),
        TypeError,
        "expected batch as a mapping with 'input_ids' and 'attention_mask'.*got Tensor",
    ),
    "sentence_embeddings: float ids": (
        lambda: sentence_embeddings(ENCODER, {"input_ids": IDS.float()}),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
    "unsupervised: batch None": (
        lambda: unsupervised_simcse_loss(ENCODER, None),
        TypeError,
        "expected batch as a mapping with 'input_ids' and 'attention_mask'.*got "
        "NoneType",
    ),
    "unsupervised: no attention mask": (
        lambda: unsupervised_simcse_loss(ENCODER, {"input_ids": IDS}),
        TypeError,
        r"expected batch with 'attention_mask' too, got keys \['input_ids'\]",
    ),
    "unsupervised: temperature 0": (
        lambda: unsupervised_simcse_loss(ENCODER, BATCH, 0.0),
        ValueError,
        "expected temperature > 0, got 0.0",
    ),
    "supervised: batch None": (
        lambda: supervised_simcse_loss(ENCODER, None),
        TypeError,
        r"expected batch as a mapping of columns \(as PairCollator makes it\), got "
        "NoneType",
    ),
    "supervised: no positives": (
        lambda: supervised_simcse_loss(ENCODER, {"anchor": BATCH}),
        ValueError,
        r"expected a batch with 'anchor' and 'positive' .*got keys \['anchor'\]",
    ),
    "supervised: a column that is not a batch": (
        lambda: supervised_simcse_loss(ENCODER, {"anchor": BATCH, "positive": IDS}),
        TypeError,
        r"expected batch\['positive'\] as a mapping with 'input_ids'",
    ),
    "supervised: fewer positives than anchors": (
        lambda: supervised_simcse_loss(
            ENCODER,
            {"anchor": BATCH, "positive": {k: v[:1] for k, v in BATCH.items()}},
        ),
        ValueError,
        r"expected keys of shape \(2, 16\), one per query, got \(1, 16\)",
    ),
    # --- PairCollator
    "pairs: pad id as a str": (
        lambda: PairCollator("0"),
        TypeError,
        "expected pad_token_id as an int, got '0'",
    ),
    "pairs: negative pad id": (
        lambda: PairCollator(-1),
        ValueError,
        "expected pad_token_id >= 0, got -1",
    ),
    "pairs: examples None": (
        lambda: PairCollator(0)(None),
        TypeError,
        "expected a list of examples, got NoneType",
    ),
    "pairs: b = 0": (
        lambda: PairCollator(0)([]),
        ValueError,
        "expected at least one example, got an empty batch",
    ),
    "pairs: a str for an example": (
        lambda: PairCollator(0)(["the cat"]),
        TypeError,
        "expected examples as mappings of columns to ids, got str at index 0",
    ),
    "pairs: no positive": (
        lambda: PairCollator(0)([{"anchor": [2, 3]}]),
        ValueError,
        r"expected examples with 'anchor' and 'positive' .*got keys \['anchor'\]",
    ),
    "pairs: float ids": (
        lambda: PairCollator(0)([{"anchor": [2.0, 3.0], "positive": [2, 3]}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got float 2.0 in it",
    ),
    # --- spearman_correlation and sts_spearman
    "spearman: None": (
        lambda: spearman_correlation(None, [1, 2]),
        TypeError,
        "expected x as a sequence of numbers or a tensor, got NoneType",
    ),
    "spearman: a str": (
        lambda: spearman_correlation("abc", [1, 2, 3]),
        TypeError,
        "expected x as a sequence of numbers or a tensor, got str",
    ),
    "spearman: words in the list": (
        lambda: spearman_correlation([1, "two", 3], [1, 2, 3]),
        TypeError,
        "expected x as numbers, got",
    ),
    "spearman: 2-D": (
        lambda: spearman_correlation(torch.zeros(3, 2), torch.zeros(3)),
        ValueError,
        r"expected x of shape \(n,\), got \(3, 2\)",
    ),
    "spearman: NaN": (
        lambda: spearman_correlation([1.0, math.nan, 3.0], [1, 2, 3]),
        ValueError,
        "expected finite numbers in x, got NaN or infinity",
    ),
    "spearman: different lengths": (
        lambda: spearman_correlation([1, 2, 3], [1, 2]),
        ValueError,
        "expected two sequences of the same length >= 2, got 3 and 2",
    ),
    "spearman: n = 0": (
        lambda: spearman_correlation([], []),
        ValueError,
        "expected two sequences of the same length >= 2, got 0 and 0",
    ),
    "spearman: all values equal": (
        lambda: spearman_correlation([2.0, 2.0, 2.0], [1, 2, 3]),
        ValueError,
        "expected x with at least two different values, got all equal",
    ),
    "sts_spearman: encode None": (
        lambda: sts_spearman(None, ["a", "b"], ["c", "d"], [1.0, 2.0]),
        TypeError,
        "expected encode as a callable, got None",
    ),
    "sts_spearman: a str of sentences": (
        lambda: sts_spearman(encode, "ab", "cd", [1.0, 2.0]),
        TypeError,
        "expected first as a list of str, got 'ab'",
    ),
    "sts_spearman: a sentence that is not a str": (
        lambda: sts_spearman(encode, ["a", None], ["c", "d"], [1.0, 2.0]),
        TypeError,
        "expected first as a list of str, got NoneType at index 1",
    ),
    "sts_spearman: lengths differ": (
        lambda: sts_spearman(encode, ["a", "b"], ["c", "d"], [1.0]),
        ValueError,
        "expected first, second and scores of one length, got 2, 2 and 1",
    ),
    "sts_spearman: encode gives the wrong shape": (
        lambda: sts_spearman(lambda s: torch.zeros(3), ["a", "b"], ["c", "d"], [1, 2]),
        ValueError,
        r"expected encode to return \(4, d\) for 4 sentences, got \(3,\)",
    ),
    # --- STSPairs and load_sts_benchmark
    "STSPairs: a str for the first sentences": (
        lambda: STSPairs("a cat", ["a dog"], [1.0], "here"),
        TypeError,
        "expected first as a list of str, got 'a cat'",
    ),
    "STSPairs: scores as str": (
        lambda: STSPairs(["a"], ["b"], ["4.5"], "here"),
        TypeError,
        r"expected scores as a list of numbers, got \['4.5'\]",
    ),
    "STSPairs: source None": (
        lambda: STSPairs(["a"], ["b"], [4.5], None),
        TypeError,
        "expected source as a str, got None",
    ),
    "STSPairs: lengths differ": (
        lambda: STSPairs(["a", "b"], ["c"], [1.0], "here"),
        ValueError,
        "expected first, second and scores of one length, got 2, 1 and 1",
    ),
    "STSPairs: a score above 5": (
        lambda: STSPairs(["a"], ["b"], [6.0], "here"),
        ValueError,
        r"expected scores in \[0, 5\], got 6.0 to 6.0",
    ),
    "load_sts: path as an int": (
        lambda: load_sts_benchmark(path=5),
        TypeError,
        "expected path as a str or Path, got int",
    ),
    "load_sts: hub as a str": (
        lambda: load_sts_benchmark(hub="no"),
        TypeError,
        "expected hub as a bool, got 'no'",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_missing_or_malformed_sts_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="expected an STS Benchmark file"):
        load_sts_benchmark(path=tmp_path / "absent.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("main\tfile\t2012\t1\tfive\ta cat\ta dog\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.csv:1: expected a score in the fifth"):
        load_sts_benchmark(path=bad)


def test_the_environment_variable_names_the_sts_copy(tmp_path, monkeypatch):
    folder = tmp_path / "stsbenchmark"
    folder.mkdir()
    line = "main-captions\tMSRvid\t2012test\t0001\t2.5\tA girl.\tA boy.\n"
    (folder / "sts-test.csv").write_text(line, encoding="utf-8")
    for named in (folder, folder / "sts-test.csv"):  # the folder or the file
        monkeypatch.setenv("ENCODER_BOOK_STS", str(named))
        pairs = load_sts_benchmark(hub=False)
        assert pairs.first == ["A girl."] and pairs.scores == [2.5]
        assert pairs.source == str(folder / "sts-test.csv")
    monkeypatch.setenv("ENCODER_BOOK_STS", str(tmp_path / "nowhere"))
    assert load_sts_benchmark(hub=False) is None


def test_small_integer_ids_give_the_same_vectors():
    with torch.no_grad():
        expected = sentence_embeddings(ENCODER, BATCH)
        for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
            batch = {"input_ids": IDS.to(dtype), "attention_mask": MASK.to(dtype)}
            assert torch.allclose(sentence_embeddings(ENCODER, batch), expected)


def test_empty_and_all_padding_batches_give_no_nan():
    with torch.no_grad():
        empty = sentence_embeddings(ENCODER, {k: v[:0] for k, v in BATCH.items()})
        assert empty.shape == (0, 16)
        padded = {"input_ids": IDS, "attention_mask": torch.zeros_like(MASK)}
        vectors = sentence_embeddings(ENCODER, padded)
    assert vectors.shape == (2, 16) and not vectors.isnan().any()
    assert not info_nce_loss(torch.zeros(3, 8), X[:3]).isnan()  # zero vectors


def test_float64_vectors_give_float64_losses():
    x = X.double()
    assert info_nce_loss(x, x).dtype == torch.float64
    assert alignment(x, x).dtype == uniformity(x).dtype == torch.float64
    assert supervised_simcse_loss(ENCODER, PAIRS).dim() == 0
