"""Bad input to encoderlib.heads (chapter 9): clear errors, and the edge cases.

`ClassificationHead`, `EncoderClassifier` and `MaskedLMHead` are fed each class
of bad input (wrong Python types, dtypes that do not match a module's
parameters, wrong ranks and sizes, out-of-range settings, a missing or unknown
pooling) and must raise a TypeError or ValueError from encoderlib's checks whose
message names what was expected and what was received. Empty batches and small
integer ids work, and the heads follow the dtype of what they are built on.
"""

import pytest
import torch
from bad_input import flag_cases, positive_int_cases, rate_cases, sweep
from torch import nn

from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.heads import (
    ClassificationHead,
    EncoderClassifier,
    MaskedLMHead,
    register_holder,
)

# The cases share one encoder on purpose: its sharing warning is not under test here.
pytestmark = pytest.mark.filterwarnings("ignore:this Encoder is also held:UserWarning")

H = torch.randn(2, 5, 8)  # (b, n, d)
CHOICES = r"'cls', 'mean', 'max', 'attention'"


# One small encoder for the table (the tests below use conftest's tiny_encoder):
# every case raises before it changes anything.
torch.manual_seed(0)
ENCODER = Encoder(
    EncoderConfig(vocab_size=50, d_model=16, n_heads=2, n_layers=1, d_ff=32)
)


CLASSIFICATION_HEAD = {
    **positive_int_cases(
        "ch09 ClassificationHead", "d_model", lambda value: ClassificationHead(value, 2)
    ),
    **positive_int_cases(
        "ch09 ClassificationHead",
        "n_classes",
        lambda value: ClassificationHead(8, value),
    ),
    **rate_cases(
        "ch09 ClassificationHead",
        "dropout",
        lambda value: ClassificationHead(8, 2, dropout=value),
    ),
    **flag_cases(
        "ch09 ClassificationHead",
        "hidden_layer",
        lambda value: ClassificationHead(8, 2, hidden_layer=value),
    ),
    "ch09 ClassificationHead: an unknown style": (
        lambda: ClassificationHead(8, 2, style="gpt2"),
        ValueError,
        r"expected style as one of 'bert', 'electra', 'modernbert', got 'gpt2'",
    ),
    "ch09 EncoderClassifier: an unknown head_style": (
        lambda: EncoderClassifier(
            Encoder(EncoderConfig.tiny()), 2, "cls", head_style="x"
        ),
        ValueError,
        r"expected style as one of 'bert', 'electra', 'modernbert', got 'x'",
    ),
    "ch09 ClassificationHead.forward: None": (
        lambda: ClassificationHead(8, 2)(None),
        TypeError,
        r"pooled as a torch.Tensor, got None",
    ),
    "ch09 ClassificationHead.forward: token vectors": (
        lambda: ClassificationHead(8, 2)(H),
        ValueError,
        r"pooled of shape \(b, d\) = \(\*, 8\), got \(2, 5, 8\): "
        r"pool the token vectors first",
    ),
    "ch09 ClassificationHead.forward: one vector without its batch axis": (
        lambda: ClassificationHead(64, 2)(torch.randn(64)),
        ValueError,
        r"pooled of shape \(b, d\) = \(\*, 64\), got \(64,\)",
    ),
    "ch09 ClassificationHead.forward: too narrow": (
        lambda: ClassificationHead(64, 2)(torch.randn(3, 32)),
        ValueError,
        r"pooled of shape \(b, d\) = \(\*, 64\), got \(3, 32\)",
    ),
    "ch09 ClassificationHead.forward: float64": (
        lambda: ClassificationHead(8, 2)(torch.randn(2, 8, dtype=torch.float64)),
        TypeError,
        r"pooled of dtype torch.float32 .*got torch.float64",
    ),
    "ch09 ClassificationHead.forward: integers": (
        lambda: ClassificationHead(8, 2)(torch.ones(2, 8, dtype=torch.long)),
        TypeError,
        r"pooled with a floating dtype, got torch.int64",
    ),
}

ENCODER_CLASSIFIER = {
    "ch09 EncoderClassifier: no pooling": (
        lambda: EncoderClassifier(ENCODER, 2),
        TypeError,
        rf"expected pooling as one of {CHOICES}, got none",
    ),
    "ch09 EncoderClassifier: pooling None": (
        lambda: EncoderClassifier(ENCODER, 2, None),
        TypeError,
        rf"expected pooling as one of {CHOICES}, got None",
    ),
    "ch09 EncoderClassifier: pooling 'sum'": (
        lambda: EncoderClassifier(ENCODER, 2, "sum"),
        ValueError,
        rf"expected pooling as one of {CHOICES}, got 'sum'",
    ),
    "ch09 EncoderClassifier: pooling as list": (
        lambda: EncoderClassifier(ENCODER, 2, ["mean"]),
        TypeError,
        r"pooling as one of .*got list",
    ),
    "ch09 EncoderClassifier: encoder as Linear": (
        lambda: EncoderClassifier(nn.Linear(4, 4), 2, "mean"),
        TypeError,
        r"encoder as an encoderlib Encoder, got Linear",
    ),
    "ch09 EncoderClassifier: a wrapper of an Encoder, such as a SentenceEncoder": (
        lambda: EncoderClassifier(nn.ModuleDict({"model": ENCODER}), 2, "mean"),
        TypeError,
        r"encoder as an encoderlib Encoder, got ModuleDict: pass its \.model",
    ),
    "ch09 EncoderClassifier: n_classes 0": (
        lambda: EncoderClassifier(ENCODER, 0, "mean"),
        ValueError,
        r"n_classes as a positive int, got 0",
    ),
    "ch09 EncoderClassifier: dropout 1.5": (
        lambda: EncoderClassifier(ENCODER, 2, "cls", dropout=1.5),
        ValueError,
        r"dropout in \[0, 1\), got 1.5",
    ),
    "ch09 EncoderClassifier.forward: ids of floats": (
        lambda: EncoderClassifier(ENCODER, 2, "mean")(torch.ones(2, 3)),
        TypeError,
        r"input_ids with an integer dtype, got torch.float32",
    ),
    "ch09 EncoderClassifier.forward: mask of another shape": (
        lambda: EncoderClassifier(ENCODER, 2, "mean")(
            torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long)
        ),
        ValueError,
        r"attention_mask of shape \(b, n\) = \(2, 3\).*got \(2, 4\)",
    ),
    "ch09 EncoderClassifier.embed: ids None": (
        lambda: EncoderClassifier(ENCODER, 2, "max").embed(None),
        TypeError,
        r"input_ids as a torch.Tensor, got None",
    ),
}

MASKED_LM_HEAD = {
    "ch09 MaskedLMHead: None": (
        lambda: MaskedLMHead(None),
        TypeError,
        r"token_embeddings as an nn.Embedding, got None",
    ),
    "ch09 MaskedLMHead: d_model 0": (
        lambda: MaskedLMHead(nn.Embedding(10, 4), d_model=0),
        ValueError,
        "expected d_model as a positive int, got 0",
    ),
    "ch09 MaskedLMHead: a Linear": (
        lambda: MaskedLMHead(nn.Linear(8, 8)),
        TypeError,
        r"token_embeddings as an nn.Embedding, got Linear",
    ),
    "ch09 MaskedLMHead: eps 0": (
        lambda: MaskedLMHead(nn.Embedding(10, 8), eps=0.0),
        ValueError,
        r"eps > 0, got 0.0",
    ),
    "ch09 MaskedLMHead: eps -1": (
        lambda: MaskedLMHead(nn.Embedding(10, 8), eps=-1.0),
        ValueError,
        r"eps > 0, got -1.0",
    ),
    "ch09 MaskedLMHead.from_encoder: None": (
        lambda: MaskedLMHead.from_encoder(None),
        TypeError,
        r"encoder as an encoderlib Encoder, got None",
    ),
    "ch09 MaskedLMHead.from_encoder: an Embedding": (
        lambda: MaskedLMHead.from_encoder(nn.Embedding(4, 4)),
        TypeError,
        r"encoder as an encoderlib Encoder, got Embedding",
    ),
    "ch09 MaskedLMHead.forward: list": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(H.tolist()),
        TypeError,
        r"h as a torch.Tensor, got list",
    ),
    "ch09 MaskedLMHead.forward: too wide": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.randn(2, 5, 9)),
        ValueError,
        r"h of shape \(\.\.\., d\) = \(\.\.\., 8\), got \(2, 5, 9\)",
    ),
    "ch09 MaskedLMHead.forward: a scalar": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.tensor(1.0)),
        ValueError,
        r"h of shape \(\.\.\., d\) = \(\.\.\., 8\), got \(\)",
    ),
    "ch09 MaskedLMHead.forward: float64": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(H.double()),
        TypeError,
        r"h of dtype torch.float32 .*got torch.float64",
    ),
    "ch09 MaskedLMHead.forward: integers": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.ones(2, 8, dtype=torch.long)),
        TypeError,
        r"h with a floating dtype, got torch.int64",
    ),
}

SHARING = {
    "ch09 EncoderClassifier: copy as int": (
        lambda: EncoderClassifier(ENCODER, 2, "mean", copy=1),
        TypeError,
        "expected copy as a bool, got int 1",
    ),
    "ch09 EncoderClassifier: copy as str": (
        lambda: EncoderClassifier(ENCODER, 2, "mean", copy="yes"),
        TypeError,
        "expected copy as a bool, got str 'yes'",
    ),
    "ch09 register_holder: encoder an nn.Linear": (
        lambda: register_holder(nn.Linear(2, 2), nn.Sequential()),
        TypeError,
        "expected encoder as an encoderlib Encoder, got Linear",
    ),
    "ch09 register_holder: holder a str": (
        lambda: register_holder(ENCODER, "a SentenceEncoder"),
        TypeError,
        "expected holder as an nn.Module, got str 'a SentenceEncoder'",
    ),
}

CASES = {**CLASSIFICATION_HEAD, **ENCODER_CLASSIFIER, **MASKED_LM_HEAD, **SHARING}

test_bad_input_raises_a_clear_error = sweep(CASES)


@pytest.mark.parametrize("pooling", ["cls", "mean", "max", "attention"])
def test_classifier_on_empty_and_small_integer_input(pooling, tiny_encoder):
    model = EncoderClassifier(tiny_encoder(), 3, pooling).eval()
    with torch.no_grad():
        assert model(torch.zeros(0, 4, dtype=torch.long)).shape == (0, 3)
        assert model(torch.zeros(2, 0, dtype=torch.long)).shape == (2, 3)
        ids = torch.tensor([[2, 7, 9, 0]])
        mask = torch.tensor([[1, 1, 1, 0]])
        expected = model(ids, mask)
        small = model(ids.to(torch.uint8), mask.to(torch.uint8))
    assert torch.equal(small, expected)


def test_heads_follow_the_dtype_of_what_they_are_built_on(tiny_encoder):
    table = nn.Embedding(10, 8).double()
    head = MaskedLMHead(table)
    assert all(p.dtype == torch.float64 for p in head.parameters())
    assert head(H.double()).dtype == torch.float64
    encoder = tiny_encoder().double()
    model = EncoderClassifier(encoder, 2, "attention")
    assert all(p.dtype == torch.float64 for p in model.parameters())
    assert model(torch.tensor([[2, 7, 9]])).dtype == torch.float64
