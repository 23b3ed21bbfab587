"""Bad input to encoderlib.evaluation (chapter 10): `predict`, `evaluate`, metrics.

Each case feeds one class of bad input a reader meets (one str instead of a list,
texts without a tokenizer, batches without input_ids, labels of the wrong kind or
number, an unknown output, sizes out of range, a model that returns token
vectors) and expects a TypeError or ValueError whose message names what was
expected and what was received.
"""

import torch
from bad_input import flag_cases, positive_int_cases, sweep
from torch import nn

from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.evaluation import classification_metrics, evaluate, predict
from encoderlib.heads import EncoderClassifier
from encoderlib.tokenization import WordPieceTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "dog", "bit", "man"]
TOKENIZER = WordPieceTokenizer(VOCAB)
torch.manual_seed(0)
MODEL = EncoderClassifier(
    Encoder(EncoderConfig(vocab_size=9, d_model=16, n_heads=2, n_layers=1, d_ff=32)),
    2,
    "mean",
    copy=False,
)
ONE_OUTPUT = EncoderClassifier(
    MODEL.encoder, 1, "mean", copy=False
)  # a score: regression
TEXTS = ["a dog bit a man", "a man bit a dog"]
BATCH = {**TOKENIZER(TEXTS), "labels": torch.tensor([0, 1])}


class TokenVectors(nn.Module):
    """A model that forgot its pooling and head: (b, n, d) instead of logits."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(9, 4)

    def forward(self, input_ids, attention_mask=None):
        return self.embed(input_ids)


PREDICT = {
    "ch10 predict: model None": (
        lambda: predict(None, BATCH),
        TypeError,
        r"expected model as an nn\.Module, got None",
    ),
    "ch10 predict: the meta device": (
        lambda: predict(MODEL, BATCH, device="meta"),
        ValueError,
        "expected device as a device that holds data, got 'meta'",
    ),
    "ch10 predict: labels from one output": (
        lambda: predict(ONE_OUTPUT, BATCH, output="labels"),
        ValueError,
        r"expected output='logits' for a model with one output \(a score\), got "
        r"output='labels'",
    ),
    "ch10 predict: one str": (
        lambda: predict(MODEL, "a dog bit a man", tokenizer=TOKENIZER),
        TypeError,
        "expected data as a list of texts, not one str: wrap it in a list",
    ),
    "ch10 predict: texts without a tokenizer": (
        lambda: predict(MODEL, TEXTS),
        TypeError,
        "expected a tokenizer with texts, got tokenizer=None",
    ),
    "ch10 predict: a tokenizer without the interface": (
        lambda: predict(MODEL, TEXTS, tokenizer={"a": 5}),
        TypeError,
        r"expected tokenizer as a tokenizer \(with encode, .*\), got dict",
    ),
    "ch10 predict: a text that is not a str": (
        lambda: predict(MODEL, ["a dog", 7], tokenizer=TOKENIZER),
        TypeError,
        "expected data as a list of str or of .* pairs, got int 7 at index 1",
    ),
    "ch10 predict: a pair list of three texts": (
        lambda: predict(
            MODEL, [["a dog", "a man"], ["a", "b", "c"]], tokenizer=TOKENIZER
        ),
        TypeError,
        r"expected data as a list of str or of .* pairs, got list \['a', 'b', 'c'\] "
        "at index 1",
    ),
    "ch10 predict: data an int": (
        lambda: predict(MODEL, 7),
        TypeError,
        "expected data as texts, a batch .* or an iterable of batches, got int 7",
    ),
    "ch10 predict: a batch without input_ids": (
        lambda: predict(MODEL, {"ids": BATCH["input_ids"]}),
        TypeError,
        r"expected a batch with an input_ids tensor, got keys \['ids'\]",
    ),
    "ch10 predict: batches of lists": (
        lambda: predict(MODEL, [[1, 2, 3]]),
        TypeError,
        "expected every batch as a dict with an input_ids tensor, got list at batch 0",
    ),
    "ch10 predict: rows of text, as a datasets.Dataset gives them": (
        lambda: predict(MODEL, [{"text": "a dog", "label": 1}]),
        TypeError,
        r"got a dict with keys \['text', 'label'\] at batch 0: pass texts as a "
        r"list with tokenizer=\.\.\., or batches from tokenize_dataset",
    ),
    "ch10 predict: no data": (
        lambda: predict(MODEL, []),
        ValueError,
        "expected data with at least one example, got none",
    ),
    "ch10 predict: an unknown output": (
        lambda: predict(MODEL, BATCH, output="classes"),
        ValueError,
        r"expected output as one of 'logits', 'probabilities', 'labels', "
        r"got 'classes'",
    ),
    "ch10 predict: max_length 1": (
        lambda: predict(MODEL, TEXTS, tokenizer=TOKENIZER, max_length=1),
        ValueError,
        "expected max_length as an int >= 2, got 1",
    ),
    "ch10 predict: a model that returns token vectors": (
        lambda: predict(TokenVectors(), BATCH),
        ValueError,
        r"expected the model to return logits of shape \(b, n_classes\), "
        r"got \(2, 7, 4\)",
    ),
    **positive_int_cases(
        "ch10 predict",
        "batch_size",
        lambda value: predict(MODEL, BATCH, batch_size=value),
    ),
    **flag_cases(
        "ch10 predict",
        "show_progress_bar",
        lambda value: predict(MODEL, BATCH, show_progress_bar=value),
    ),
}

EVALUATE = {
    "ch10 evaluate: texts without labels": (
        lambda: evaluate(MODEL, TEXTS, tokenizer=TOKENIZER),
        ValueError,
        "expected labels: pass labels=.* or batches with a labels tensor, got none",
    ),
    "ch10 evaluate: labels a str": (
        lambda: evaluate(MODEL, TEXTS, tokenizer=TOKENIZER, labels="01"),
        TypeError,
        "expected labels as a list or 1-D tensor of ints, got str '01'",
    ),
    "ch10 evaluate: a label that is a float": (
        lambda: evaluate(MODEL, TEXTS, tokenizer=TOKENIZER, labels=[0, 1.0]),
        TypeError,
        "expected labels as ints, got 1.0 at index 1",
    ),
    "ch10 evaluate: one label too few": (
        lambda: evaluate(MODEL, TEXTS, tokenizer=TOKENIZER, labels=[0]),
        ValueError,
        r"expected one label per example \(2\), got shape \(1,\)",
    ),
    "ch10 evaluate: a label beyond the classes": (
        lambda: evaluate(MODEL, TEXTS, tokenizer=TOKENIZER, labels=[0, 2]),
        ValueError,
        r"expected labels in \[0, 2\), got values from 0 to 2",
    ),
}

METRICS = {
    "ch10 classification_metrics: integer logits": (
        lambda: classification_metrics(torch.tensor([[1, 0]]), torch.tensor([0])),
        TypeError,
        r"expected logits as a floating-point tensor \(N, n_classes\), got a Tensor",
    ),
    "ch10 classification_metrics: float labels": (
        lambda: classification_metrics(torch.zeros(1, 2), torch.tensor([0.0])),
        TypeError,
        r"expected labels as an integer tensor \(N,\), got a Tensor",
    ),
    "ch10 classification_metrics: shapes that differ": (
        lambda: classification_metrics(torch.zeros(3, 2), torch.tensor([0, 1])),
        ValueError,
        r"expected logits \(N, n_classes\) and labels \(N,\) with N >= 1, "
        r"got \(3, 2\) and \(2,\)",
    ),
    "ch10 classification_metrics: no rows": (
        lambda: classification_metrics(torch.zeros(0, 2), torch.zeros(0).long()),
        ValueError,
        r"with N >= 1, got \(0, 2\) and \(0,\)",
    ),
    "ch10 classification_metrics: a negative label": (
        lambda: classification_metrics(torch.zeros(2, 2), torch.tensor([0, -1])),
        ValueError,
        r"expected labels in \[0, 2\), got values from -1 to 0",
    ),
}

CASES = {**PREDICT, **EVALUATE, **METRICS}

test_bad_input_raises_a_clear_error = sweep(CASES)
