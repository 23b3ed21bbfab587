"""Bad input to chapter 9's exports: the poolings and the heads.

`cls_pool`, `mean_pool`, `max_pool`, `AttentionPool`, `ClassificationHead`,
`EncoderClassifier` and `MaskedLMHead` are fed each class of bad input (wrong
Python types, dtypes that do not match a module's parameters, masks that are
not bool or 0/1, wrong ranks and sizes, out-of-range settings, a missing or
unknown pooling) and must raise a TypeError or ValueError whose message names
what was expected and what was received. Empty inputs (n = 0, b = 0) and
all-padding rows give zeros of the right shape, as the docstrings promise.
"""

import pytest
import torch
from torch import nn

from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.heads import ClassificationHead, EncoderClassifier, MaskedLMHead
from encoderlib.pooling import AttentionPool, cls_pool, max_pool, mean_pool

POOLINGS = {"cls_pool": cls_pool, "mean_pool": mean_pool, "max_pool": max_pool}
H = torch.randn(2, 5, 8)  # (b, n, d)
MASK = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])


def tiny_encoder() -> Encoder:
    torch.manual_seed(0)
    sizes = dict(vocab_size=50, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    return Encoder(EncoderConfig.tiny(**sizes)).eval()


def pool_cases(name: str, pool) -> dict:
    return {
        f"{name}(h None)": (
            lambda: pool(None),
            TypeError,
            r"h as a torch.Tensor, got NoneType",
        ),
        f"{name}(h as list)": (
            lambda: pool(H.tolist()),
            TypeError,
            r"h as a torch.Tensor, got list",
        ),
        f"{name}(h of integers)": (
            lambda: pool(torch.ones(2, 5, 8, dtype=torch.long)),
            TypeError,
            r"h with a floating-point dtype, got torch.int64",
        ),
        f"{name}(h of rank 2)": (
            lambda: pool(H[0]),
            ValueError,
            r"h of shape \(b, n, d\), got \(5, 8\)",
        ),
        f"{name}(mask as list)": (
            lambda: pool(H, MASK.tolist()),
            TypeError,
            r"mask as a torch.Tensor, got list",
        ),
        f"{name}(mask of floats)": (
            lambda: pool(H, MASK.float()),
            TypeError,
            r"mask as bool or 0/1 integers, got dtype torch.float32",
        ),
        f"{name}(mask with a 2)": (
            lambda: pool(H, MASK * 2),
            ValueError,
            r"mask values 0 or 1 \(1 = real token\), got \[0, 2\]",
        ),
        f"{name}(mask of another shape)": (
            lambda: pool(H, MASK[:, :4]),
            ValueError,
            r"mask of shape \(b, n\) = \(2, 5\).*got \(2, 4\)",
        ),
    }


ATTENTION_POOL = {
    "AttentionPool(d_model as str)": (
        lambda: AttentionPool("8"),
        TypeError,
        r"d_model as a positive int, got '8'",
    ),
    "AttentionPool(d_model 0)": (
        lambda: AttentionPool(0),
        ValueError,
        r"d_model as a positive int, got 0",
    ),
    "AttentionPool(d_model -1)": (
        lambda: AttentionPool(-1),
        ValueError,
        r"positive int, got -1",
    ),
    "AttentionPool.forward(h too wide)": (
        lambda: AttentionPool(8)(torch.randn(2, 5, 9)),
        ValueError,
        r"h of shape \(b, n, 8\), got \(2, 5, 9\)",
    ),
    "AttentionPool.forward(h float64)": (
        lambda: AttentionPool(8)(H.double()),
        TypeError,
        r"h of dtype torch.float32 .*got torch.float64",
    ),
    "AttentionPool.forward(h float16)": (
        lambda: AttentionPool(8)(H.half(), MASK),
        TypeError,
        r"h of dtype torch.float32 .*got torch.float16",
    ),
    "AttentionPool.forward(return_weights as str)": (
        lambda: AttentionPool(8)(H, MASK, return_weights="no"),
        TypeError,
        r"return_weights as a bool, got str 'no'",
    ),
    **pool_cases("AttentionPool(8)", AttentionPool(8)),
}

CLASSIFICATION_HEAD = {
    "ClassificationHead(n_classes 0)": (
        lambda: ClassificationHead(8, 0),
        ValueError,
        r"n_classes as a positive int, got 0",
    ),
    "ClassificationHead(d_model as float)": (
        lambda: ClassificationHead(8.0, 2),
        TypeError,
        r"d_model as a positive int, got 8.0",
    ),
    "ClassificationHead(dropout 1)": (
        lambda: ClassificationHead(8, 2, dropout=1.0),
        ValueError,
        r"dropout in \[0, 1\), got 1.0",
    ),
    "ClassificationHead(dropout as str)": (
        lambda: ClassificationHead(8, 2, dropout="0.1"),
        TypeError,
        r"dropout as a float, got '0.1'",
    ),
    "ClassificationHead(hidden_layer as str)": (
        lambda: ClassificationHead(8, 2, hidden_layer="no"),
        TypeError,
        r"hidden_layer as a bool, got str 'no'",
    ),
    "ClassificationHead.forward(None)": (
        lambda: ClassificationHead(8, 2)(None),
        TypeError,
        r"pooled as a torch.Tensor, got NoneType",
    ),
    "ClassificationHead.forward(token vectors)": (
        lambda: ClassificationHead(8, 2)(H),
        ValueError,
        r"pooled of shape \(b, 8\), got \(2, 5, 8\); pool the token vectors first",
    ),
    "ClassificationHead.forward(float64)": (
        lambda: ClassificationHead(8, 2)(torch.randn(2, 8, dtype=torch.float64)),
        TypeError,
        r"pooled of dtype torch.float32 .*got torch.float64",
    ),
    "ClassificationHead.forward(integers)": (
        lambda: ClassificationHead(8, 2)(torch.ones(2, 8, dtype=torch.long)),
        TypeError,
        r"pooled with a floating-point dtype, got torch.int64",
    ),
}

ENCODER_CLASSIFIER = {
    "EncoderClassifier(no pooling)": (
        lambda: EncoderClassifier(tiny_encoder(), 2),
        TypeError,
        r"expected pooling, one of \('cls', 'mean', 'max', 'attention'\), got none",
    ),
    "EncoderClassifier(pooling None)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, None),
        TypeError,
        r"pooling in \('cls', 'mean', 'max', 'attention'\), got None",
    ),
    "EncoderClassifier(pooling 'sum')": (
        lambda: EncoderClassifier(tiny_encoder(), 2, "sum"),
        ValueError,
        r"pooling in \('cls', 'mean', 'max', 'attention'\), got 'sum'",
    ),
    "EncoderClassifier(pooling as list)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, ["mean"]),
        TypeError,
        r"pooling in .*got \['mean'\]",
    ),
    "EncoderClassifier(encoder as Linear)": (
        lambda: EncoderClassifier(nn.Linear(4, 4), 2, "mean"),
        TypeError,
        r"encoder as an encoderlib Encoder, got Linear",
    ),
    "EncoderClassifier(n_classes 0)": (
        lambda: EncoderClassifier(tiny_encoder(), 0, "mean"),
        ValueError,
        r"n_classes as a positive int, got 0",
    ),
    "EncoderClassifier(dropout 1.5)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, "cls", dropout=1.5),
        ValueError,
        r"dropout in \[0, 1\), got 1.5",
    ),
    "EncoderClassifier.forward(ids of floats)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, "mean")(torch.ones(2, 3)),
        TypeError,
        r"input_ids with an integer dtype, got torch.float32",
    ),
    "EncoderClassifier.forward(mask of another shape)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, "mean")(
            torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long)
        ),
        ValueError,
        r"attention_mask of shape \(b, n\) = \(2, 3\).*got \(2, 4\)",
    ),
    "EncoderClassifier.embed(ids None)": (
        lambda: EncoderClassifier(tiny_encoder(), 2, "max").embed(None),
        TypeError,
        r"input_ids as a torch.Tensor, got NoneType",
    ),
}

MASKED_LM_HEAD = {
    "MaskedLMHead(None)": (
        lambda: MaskedLMHead(None),
        TypeError,
        r"token_embeddings as an nn.Embedding, got NoneType",
    ),
    "MaskedLMHead(a Linear)": (
        lambda: MaskedLMHead(nn.Linear(8, 8)),
        TypeError,
        r"nn.Embedding, got Linear",
    ),
    "MaskedLMHead(eps 0)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8), eps=0.0),
        ValueError,
        r"eps > 0, got 0.0",
    ),
    "MaskedLMHead(eps -1)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8), eps=-1.0),
        ValueError,
        r"eps > 0, got -1.0",
    ),
    "MaskedLMHead.from_encoder(None)": (
        lambda: MaskedLMHead.from_encoder(None),
        TypeError,
        r"encoderlib Encoder, got NoneType",
    ),
    "MaskedLMHead.forward(list)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(H.tolist()),
        TypeError,
        r"h as a torch.Tensor, got list",
    ),
    "MaskedLMHead.forward(too wide)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.randn(2, 5, 9)),
        ValueError,
        r"h of shape \(\.\.\., 8\), got \(2, 5, 9\)",
    ),
    "MaskedLMHead.forward(a scalar)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.tensor(1.0)),
        ValueError,
        r"h of shape \(\.\.\., 8\), got \(\)",
    ),
    "MaskedLMHead.forward(float64)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(H.double()),
        TypeError,
        r"h of dtype torch.float32 .*got torch.float64",
    ),
    "MaskedLMHead.forward(integers)": (
        lambda: MaskedLMHead(nn.Embedding(10, 8))(torch.ones(2, 8, dtype=torch.long)),
        TypeError,
        r"h with a floating-point dtype, got torch.int64",
    ),
}

CASES = {
    **{
        k: v
        for name, pool in POOLINGS.items()
        for k, v in pool_cases(name, pool).items()
    },
    **ATTENTION_POOL,
    **CLASSIFICATION_HEAD,
    **ENCODER_CLASSIFIER,
    **MASKED_LM_HEAD,
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    # The error comes from encoderlib's own checks, not from inside torch.
    assert "encoderlib" in info.traceback[-1].path.as_posix()


ALL_POOLS = {**POOLINGS, "AttentionPool": AttentionPool(8)}


@pytest.mark.parametrize("pool", ALL_POOLS.values(), ids=ALL_POOLS)
@pytest.mark.parametrize("with_mask", [False, True], ids=["no mask", "mask"])
def test_no_tokens_at_all_gives_zeros(pool, with_mask):
    h = torch.randn(3, 0, 8)  # n = 0: the docstrings promise zeros, not IndexError
    mask = torch.zeros(3, 0, dtype=torch.bool) if with_mask else None
    assert torch.equal(pool(h, mask), torch.zeros(3, 8))


@pytest.mark.parametrize("pool", ALL_POOLS.values(), ids=ALL_POOLS)
def test_an_empty_batch_and_all_padding_rows(pool):
    assert pool(torch.randn(0, 5, 8)).shape == (0, 8)
    mask = torch.tensor([[0, 0, 0, 0, 0], [1, 1, 0, 0, 0]])
    h = H.masked_fill(~mask.bool()[..., None], float("nan"))  # NaN at padding
    pooled = pool(h, mask)
    assert torch.equal(pooled[0], torch.zeros(8)) and pooled.isfinite().all()


@pytest.mark.parametrize("pooling", ["cls", "mean", "max", "attention"])
def test_classifier_on_empty_and_small_integer_input(pooling):
    model = EncoderClassifier(tiny_encoder(), 3, pooling).eval()
    with torch.no_grad():
        assert model(torch.zeros(0, 4, dtype=torch.long)).shape == (0, 3)
        assert model(torch.zeros(2, 0, dtype=torch.long)).shape == (2, 3)
        ids = torch.tensor([[2, 7, 9, 0]])
        mask = torch.tensor([[1, 1, 1, 0]])
        expected = model(ids, mask)
        small = model(ids.to(torch.uint8), mask.to(torch.uint8))
    assert torch.equal(small, expected)


def test_heads_follow_the_dtype_of_what_they_are_built_on():
    table = nn.Embedding(10, 8).double()
    head = MaskedLMHead(table)
    assert all(p.dtype == torch.float64 for p in head.parameters())
    assert head(H.double()).dtype == torch.float64
    encoder = tiny_encoder().double()
    model = EncoderClassifier(encoder, 2, "attention")
    assert all(p.dtype == torch.float64 for p in model.parameters())
    assert model(torch.tensor([[2, 7, 9]])).dtype == torch.float64
