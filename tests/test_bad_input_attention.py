"""Bad input to encoderlib.attention (chapters 4 and 5): clear errors, never torch's.

Chapter 4's `scaled_dot_product_attention` and chapter 5's `MultiHeadAttention`:
each case feeds one class of bad input (wrong Python types, integer or mixed
dtypes, wrong ranks and sizes, d_k = 0, out-of-range settings) and expects a
TypeError or ValueError that names what was expected and what was received.
Empty inputs and queries with no key give zeros of the right shape, never NaN.
"""

import pytest
import torch
from bad_input import sweep

from encoderlib.attention import (
    MultiHeadAttention,
    autocast_enabled,
    check_attention_inputs,
    check_tokens,
    fused_attention,
    join_linears,
    joined_view,
    scaled_dot_product_attention,
)

Q, K, V = torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6)
MASK = torch.ones(2, 4, 5, dtype=torch.bool)


def attend(q=Q, k=K, v=V, mask=None, dropout_p=0.0, score_bias=None):
    return scaled_dot_product_attention(q, k, v, mask, dropout_p, score_bias)


CH04_CASES = {
    # score_bias: a float tensor of q's dtype, broadcastable to the scores
    "score_bias a list": (
        lambda: attend(score_bias=[[0.0] * 5] * 4),
        TypeError,
        "expected score_bias as a torch.Tensor, got list",
    ),
    "score_bias boolean": (
        lambda: attend(score_bias=MASK),
        TypeError,
        "expected a floating-point score_bias.*got dtype torch.bool; a boolean",
    ),
    "score_bias float64 for float32 q": (
        lambda: attend(score_bias=torch.zeros(4, 5, dtype=torch.float64)),
        TypeError,
        "expected score_bias of q's dtype torch.float32, got torch.float64",
    ),
    "score_bias of the wrong key count": (
        lambda: attend(score_bias=torch.zeros(4, 6)),
        ValueError,
        r"expected a score_bias broadcastable to the scores' shape "
        r"\(\.\.\., n_q, n_k\) = \(2, 4, 5\), got \(4, 6\)",
    ),
    "score_bias with an extra axis": (
        lambda: attend(score_bias=torch.zeros(3, 2, 4, 5)),
        ValueError,
        r"= \(2, 4, 5\), got \(3, 2, 4, 5\)",
    ),
    # wrong Python types
    "q None": (
        lambda: attend(q=None),
        TypeError,
        r"expected q as a torch\.Tensor, got None",
    ),
    "k a str": (
        lambda: attend(k="keys"),
        TypeError,
        "expected k as a torch.Tensor, got str",
    ),
    "v a list": (
        lambda: attend(v=V.tolist()),
        TypeError,
        "expected v as a torch.Tensor, got list",
    ),
    "mask a list": (
        lambda: attend(mask=MASK.tolist()),
        TypeError,
        "expected mask as a torch.Tensor, got list",
    ),
    "dropout_p a str": (
        lambda: attend(dropout_p="0.1"),
        TypeError,
        r"expected dropout_p as a float, got str '0\.1'",
    ),
    "dropout_p None": (
        lambda: attend(dropout_p=None),
        TypeError,
        r"expected dropout_p as a float, got None",
    ),
    "dropout_p a tensor": (
        lambda: attend(dropout_p=torch.tensor(0.1)),
        TypeError,
        r"expected dropout_p as a float, got a Tensor of shape \(\) ",
    ),
    # dtypes
    "integer q": (
        lambda: attend(q=Q.long()),
        TypeError,
        "expected q with a floating dtype, got torch.int64",
    ),
    "small integer v": (
        lambda: attend(v=V.to(torch.int16)),
        TypeError,
        "expected v with a floating dtype, got torch.int16",
    ),
    "complex k": (
        lambda: attend(k=K.to(torch.complex64)),
        TypeError,
        "expected k with a floating dtype, got torch.complex64",
    ),
    "float64 q with float32 k and v": (
        lambda: attend(q=Q.double()),
        TypeError,
        "expected q, k and v of one dtype, got q torch.float64, k torch.float32 "
        "and v torch.float32",
    ),
    "float16 v with float32 q and k": (
        lambda: attend(v=V.half()),
        TypeError,
        "expected q, k and v of one dtype, .* v torch.float16",
    ),
    "float mask": (
        lambda: attend(mask=MASK.float()),
        TypeError,
        r"expected a boolean mask \(True = may attend\), got dtype torch.float32",
    ),
    "uint8 mask is not read as boolean": (
        lambda: attend(mask=MASK.to(torch.uint8)),
        TypeError,
        r"expected a boolean mask \(True = may attend\), got dtype torch.uint8",
    ),
    "int8 mask": (
        lambda: attend(mask=MASK.to(torch.int8)),
        TypeError,
        "got dtype torch.int8; convert a 0/1 mask with mask.bool()",
    ),
    # ranks and sizes
    "q of one dim": (
        lambda: attend(q=Q[0, 0]),
        ValueError,
        r"expected q of shape \(\.\.\., n, d\) with at least 2 dims, got \(8,\)",
    ),
    "0-d v": (
        lambda: attend(v=torch.tensor(1.0)),
        ValueError,
        r"expected v of shape \(\.\.\., n, d\) with at least 2 dims, got \(\)",
    ),
    "d_k of q and k differ": (
        lambda: attend(k=K[..., :3]),
        ValueError,
        r"same d_k, got q \(2, 4, 8\) and k \(2, 5, 3\)",
    ),
    "n_k of k and v differ": (
        lambda: attend(v=V[:, :2]),
        ValueError,
        r"same n_k, got k \(2, 5, 8\) and v \(2, 2, 6\)",
    ),
    "d_k = 0 would divide by √0": (
        lambda: attend(q=Q[..., :0], k=K[..., :0]),
        ValueError,
        r"at least 1 feature \(d_k >= 1\), got q \(2, 4, 0\) and k \(2, 5, 0\)",
    ),
    "batch axes do not broadcast": (
        lambda: attend(k=torch.randn(3, 5, 8)),
        ValueError,
        r"leading \(batch\) dims broadcast, got q \(2, 4, 8\), k \(3, 5, 8\)",
    ),
    "mask of the wrong length": (
        lambda: attend(mask=torch.ones(2, 4, 6, dtype=torch.bool)),
        ValueError,
        r"\(\.\.\., n_q, n_k\) = \(2, 4, 5\), got \(2, 4, 6\)",
    ),
    "mask with an extra axis": (
        lambda: attend(mask=torch.ones(3, 2, 4, 5, dtype=torch.bool)),
        ValueError,
        r"\(\.\.\., n_q, n_k\) = \(2, 4, 5\), got \(3, 2, 4, 5\)",
    ),
    "mask (b, n) of a key-padding mask, not broadcastable": (
        lambda: attend(mask=torch.ones(2, 5, dtype=torch.bool)),
        ValueError,
        r"= \(2, 4, 5\), got \(2, 5\)",
    ),
    # settings out of range
    "dropout_p = 1": (
        lambda: attend(dropout_p=1.0),
        ValueError,
        r"expected dropout_p in \[0, 1\), got 1.0",
    ),
    "negative dropout_p": (
        lambda: attend(dropout_p=-0.1),
        ValueError,
        r"expected dropout_p in \[0, 1\), got -0.1",
    ),
    "NaN dropout_p": (
        lambda: attend(dropout_p=float("nan")),
        ValueError,
        r"expected dropout_p in \[0, 1\), got nan",
    ),
    "dropout_p True": (
        lambda: attend(dropout_p=True),
        TypeError,
        r"expected dropout_p as a float, got bool True",
    ),
}


@pytest.mark.parametrize(
    ("q_shape", "k_shape", "v_shape", "out_shape", "weights_shape"),
    [
        ((2, 0, 8), (2, 5, 8), (2, 5, 6), (2, 0, 6), (2, 0, 5)),  # no queries
        ((2, 4, 8), (2, 0, 8), (2, 0, 6), (2, 4, 6), (2, 4, 0)),  # no keys
        ((0, 4, 8), (0, 5, 8), (0, 5, 6), (0, 4, 6), (0, 4, 5)),  # b = 0
        ((2, 4, 8), (2, 5, 8), (2, 5, 0), (2, 4, 0), (2, 4, 5)),  # d_v = 0
    ],
    ids=["n_q = 0", "n_k = 0", "b = 0", "d_v = 0"],
)
def test_empty_inputs_give_zeros_of_the_right_shape(
    q_shape, k_shape, v_shape, out_shape, weights_shape
):
    q, k, v = torch.randn(q_shape), torch.randn(k_shape), torch.randn(v_shape)
    for mask in (None, torch.ones(*q_shape[:-1], k_shape[-2], dtype=torch.bool)):
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        assert out.shape == out_shape and weights.shape == weights_shape
        assert not out.isnan().any() and not weights.isnan().any()
        if k_shape[-2] == 0:  # no key at all: zeros, as for a query with no visible key
            assert torch.equal(out, torch.zeros(out_shape))


def test_all_masked_rows_give_zeros_and_finite_gradients():
    q, k, v = (torch.randn(2, 3, 4, 8, requires_grad=True) for _ in range(3))
    mask = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    mask[1] = False  # the second sequence is all padding
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(out[1], torch.zeros(3, 4, 8))
    assert torch.equal(weights[1], torch.zeros(3, 4, 4))
    out.sum().backward()
    for tensor in (q, k, v):
        assert torch.isfinite(tensor.grad).all()


def test_one_dtype_other_than_float32_is_fine():
    q, k, v = Q.double(), K.double(), V.double()
    out, weights = scaled_dot_product_attention(q, k, v, MASK)
    assert out.dtype == weights.dtype == torch.float64
    out16, _ = scaled_dot_product_attention(Q.bfloat16(), K.bfloat16(), V.bfloat16())
    assert out16.dtype == torch.bfloat16


def test_mixed_dtypes_are_allowed_under_autocast():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out, _ = scaled_dot_product_attention(Q, K.bfloat16(), V)
    assert out.shape == (2, 4, 6)


def test_integer_dropout_p_zero_is_accepted():
    out, _ = scaled_dot_product_attention(Q, K, V, dropout_p=0)
    assert out.shape == (2, 4, 6)


def test_a_score_bias_that_hides_every_key_gives_zeros_and_finite_gradients():
    bias = torch.full((2, 4, 5), float("-inf"))
    bias[0, :2] = 0.0  # sequence 0: queries 0 and 1 see every key
    q = Q.clone().requires_grad_()
    out, weights = attend(q=q, score_bias=bias)
    assert torch.equal(out[1], torch.zeros(4, 6)) and torch.equal(
        out[0, 2:], torch.zeros(2, 6)
    )
    assert torch.allclose(weights[0, :2].sum(-1), torch.ones(2))
    out.square().sum().backward()
    assert torch.isfinite(q.grad).all()


def test_score_bias_under_autocast_may_differ_in_dtype():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out, _ = attend(
            q=Q.bfloat16(), k=K.bfloat16(), v=V.bfloat16(), score_bias=torch.zeros(4, 5)
        )
    assert out.shape == (2, 4, 6)


MHA = MultiHeadAttention(16, 4).eval()


class _Truncate(torch.nn.Module):
    """A wrong transform: it drops half of every head's features."""

    def forward(self, q, k):
        return q[..., :2], k[..., :2]


X = torch.randn(2, 5, 16)
PADDING = torch.tensor([[True] * 5, [True, True, False, False, False]])

CH05_CASES = {
    # join_linears and joined_view: nn.Linear maps of one input width
    "join_linears of a tensor": (
        lambda: join_linears(torch.nn.Linear(4, 2), torch.ones(2, 4)),
        TypeError,
        r"expected linears\[1\] as an nn.Linear, got a Tensor of shape \(2, 4\)",
    ),
    "joined_view of nothing": (
        lambda: joined_view(),
        ValueError,
        r"expected at least one nn.Linear, got none",
    ),
    "joined_view of two input widths": (
        lambda: joined_view(torch.nn.Linear(4, 2), torch.nn.Linear(8, 2)),
        ValueError,
        r"expected linear maps of one input width, got \[4, 8\]",
    ),
    # the constructor: sizes, dropout, bias
    "d_model None": (
        lambda: MultiHeadAttention(None, 4),
        TypeError,
        r"expected d_model as a positive int, got None",
    ),
    "d_model a str": (
        lambda: MultiHeadAttention("16", 4),
        TypeError,
        r"expected d_model as a positive int, got str '16'",
    ),
    "d_model a float": (
        lambda: MultiHeadAttention(16.0, 4),
        TypeError,
        r"expected d_model as a positive int, got float 16\.0",
    ),
    "negative n_heads": (
        lambda: MultiHeadAttention(16, -4),
        ValueError,
        "expected n_heads as a positive int, got -4",
    ),
    "n_heads True": (
        lambda: MultiHeadAttention(16, True),
        TypeError,
        r"expected n_heads as a positive int, got bool True",
    ),
    "heads that do not divide": (
        lambda: MultiHeadAttention(16, 3),
        ValueError,
        "d_model=16 is not divisible by n_heads=3",
    ),
    "dropout = 1": (
        lambda: MultiHeadAttention(16, 4, dropout=1.0),
        ValueError,
        r"expected dropout in \[0, 1\), got 1.0",
    ),
    "negative dropout": (
        lambda: MultiHeadAttention(16, 4, dropout=-0.5),
        ValueError,
        r"expected dropout in \[0, 1\), got -0.5",
    ),
    "dropout a str": (
        lambda: MultiHeadAttention(16, 4, dropout="0.1"),
        TypeError,
        r"expected dropout as a float, got str '0\.1'",
    ),
    "dropout None": (
        lambda: MultiHeadAttention(16, 4, dropout=None),
        TypeError,
        r"expected dropout as a float, got None",
    ),
    "bias a str": (
        lambda: MultiHeadAttention(16, 4, bias="no"),
        TypeError,
        "expected bias as a bool, got str",
    ),
    # forward: x
    "x None": (
        lambda: MHA(None),
        TypeError,
        r"expected x as a torch\.Tensor, got None",
    ),
    "x a list": (
        lambda: MHA(X.tolist()),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "x a str": (
        lambda: MHA("tokens"),
        TypeError,
        "expected x as a torch.Tensor, got str",
    ),
    "x without a batch axis": (
        lambda: MHA(X[0]),
        ValueError,
        r"expected x of shape \(b, n, 16\), got \(5, 16\)",
    ),
    "x of 4 dims": (
        lambda: MHA(X[None]),
        ValueError,
        r"expected x of shape \(b, n, 16\), got \(1, 2, 5, 16\)",
    ),
    "x of the wrong width": (
        lambda: MHA(torch.randn(2, 5, 12)),
        ValueError,
        r"expected x of shape \(b, n, 16\), got \(2, 5, 12\)",
    ),
    "integer x (token ids by mistake)": (
        lambda: MHA(torch.randint(0, 9, (2, 5, 16))),
        TypeError,
        "expected x with a floating dtype, got torch.int64",
    ),
    "uint8 x": (
        lambda: MHA(X.to(torch.uint8)),
        TypeError,
        "expected x with a floating dtype, got torch.uint8",
    ),
    "float64 x into a float32 module": (
        lambda: MHA(X.double()),
        TypeError,
        r"expected x of dtype torch.float32, the dtype of the module's parameters, "
        r"got torch.float64; convert x with x.to\(torch.float32\)",
    ),
    "float16 x into a float32 module": (
        lambda: MHA(X.half()),
        TypeError,
        "expected x of dtype torch.float32.* got torch.float16",
    ),
    "float32 x into a float64 module": (
        lambda: MultiHeadAttention(16, 4).double()(X),
        TypeError,
        "expected x of dtype torch.float64.* got torch.float32",
    ),
    # forward: mask
    "mask a list": (
        lambda: MHA(X, PADDING.tolist()),
        TypeError,
        "expected mask as a torch.Tensor, got list",
    ),
    "float mask": (
        lambda: MHA(X, PADDING.float()),
        TypeError,
        r"expected a boolean mask \(True = may attend / real token\), "
        "got dtype torch.float32",
    ),
    "uint8 mask is not read as boolean": (
        lambda: MHA(X, PADDING.to(torch.uint8)),
        TypeError,
        "boolean mask .* got dtype torch.uint8",
    ),
    "int64 mask (a tokenizer's attention_mask)": (
        lambda: MHA(X, PADDING.long()),
        TypeError,
        "got dtype torch.int64; convert a 0/1 mask with mask.bool()",
    ),
    "mask of the wrong length": (
        lambda: MHA(X, torch.ones(2, 7, dtype=torch.bool)),
        ValueError,
        r"expected a mask of shape \(b, n\) = \(2, 5\) for key padding.*got \(2, 7\)",
    ),
    "mask of one dim": (
        lambda: MHA(X, torch.ones(5, dtype=torch.bool)),
        ValueError,
        r"got \(5,\)",
    ),
    "mask of 5 dims": (
        lambda: MHA(X, torch.ones(2, 1, 1, 5, 5, dtype=torch.bool)),
        ValueError,
        r"\(b, h, n, n\) = \(2, 4, 5, 5\); got \(2, 1, 1, 5, 5\)",
    ),
    "mask with the wrong head count": (
        lambda: MHA(X, torch.ones(2, 3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"\(b, h, n, n\) = \(2, 4, 5, 5\); got \(2, 3, 5, 5\)",
    ),
    # forward: score_bias, a float tensor of x's dtype broadcastable to (b, h, n, n)
    "score_bias a float": (
        lambda: MHA(X, score_bias=0.5),
        TypeError,
        "expected score_bias as a torch.Tensor, got float",
    ),
    "score_bias boolean": (
        lambda: MHA(X, score_bias=torch.ones(5, 5, dtype=torch.bool)),
        TypeError,
        "expected a floating-point score_bias.*got dtype torch.bool",
    ),
    "score_bias float64 for float32 x": (
        lambda: MHA(X, score_bias=torch.zeros(4, 5, 5, dtype=torch.float64)),
        TypeError,
        "expected score_bias of x's dtype torch.float32, got torch.float64",
    ),
    "score_bias with the wrong head count": (
        lambda: MHA(X, score_bias=torch.zeros(3, 5, 5)),
        ValueError,
        r"broadcastable to \(b, h, n, n\) = \(2, 4, 5, 5\).*got \(3, 5, 5\)",
    ),
    "score_bias of 5 dims": (
        lambda: MHA(X, score_bias=torch.zeros(1, 2, 4, 5, 5)),
        ValueError,
        r"got \(1, 2, 4, 5, 5\)",
    ),
    # the constructor and the hook: qk_transform
    "qk_transform a function": (
        lambda: MultiHeadAttention(16, 4, qk_transform=lambda q, k: (q, k)),
        TypeError,
        "expected qk_transform as an nn.Module or None, got function",
    ),
    "qk_transform that changes a shape": (
        lambda: MultiHeadAttention(16, 4, qk_transform=_Truncate())(X),
        ValueError,
        r"expected qk_transform to keep q \(2, 4, 5, 4\) and k \(2, 4, 5, 4\), "
        r"got \(2, 4, 5, 2\) and \(2, 4, 5, 2\)",
    ),
    # forward: the flag
    "return_weights a str": (
        lambda: MHA(X, return_weights="yes"),
        TypeError,
        "expected return_weights as a bool, got str",
    ),
}


@pytest.mark.parametrize("return_weights", [False, True])
@pytest.mark.parametrize("shape", [(2, 0, 16), (0, 5, 16)], ids=["n = 0", "b = 0"])
def test_empty_inputs_give_outputs_of_the_right_shape(shape, return_weights):
    b, n, _ = shape
    x = torch.randn(shape)
    for mask in (None, torch.ones(b, n, dtype=torch.bool)):
        with torch.no_grad():
            result = MHA(x, mask, return_weights=return_weights)
        out = result[0] if return_weights else result
        assert out.shape == shape and not out.isnan().any()
        if return_weights:
            assert result[1].shape == (b, 4, n, n)


@pytest.mark.parametrize("return_weights", [False, True])
def test_all_padding_sequence_gives_the_bias_not_nan(return_weights):
    mask = torch.zeros(2, 5, dtype=torch.bool)
    x = torch.randn(2, 5, 16, requires_grad=True)
    result = MHA(x, mask, return_weights=return_weights)
    out = result[0] if return_weights else result
    assert torch.allclose(out, MHA.out_proj.bias.expand(2, 5, 16))
    out.sum().backward()
    assert torch.isfinite(x.grad).all()


def test_a_module_and_input_of_one_dtype_work():
    module = MultiHeadAttention(16, 4).double().eval()
    with torch.no_grad():
        assert module(X.double(), PADDING).dtype == torch.float64


def test_autocast_mixes_dtypes_on_purpose():
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.no_grad():
        out = MHA(X.bfloat16(), PADDING)
    assert out.shape == (2, 5, 16) and out.dtype == torch.bfloat16


@pytest.mark.parametrize("return_weights", [False, True])
def test_a_score_bias_that_hides_every_key_gives_the_bias_not_nan(return_weights):
    bias = torch.full((4, 5, 5), float("-inf"))
    x = torch.randn(2, 5, 16, requires_grad=True)
    result = MHA(x, PADDING, return_weights=return_weights, score_bias=bias)
    out = result[0] if return_weights else result
    assert torch.allclose(out, MHA.out_proj.bias.expand(2, 5, 16))
    out.sum().backward()
    assert torch.isfinite(x.grad).all()


# The checks chapter 16's attention patterns share with chapters 4 and 5.
HELPERS = {
    "check_tokens: x None": (
        lambda: check_tokens(None, 8),
        TypeError,
        r"x as a torch.Tensor",
    ),
    "check_tokens: x too wide": (
        lambda: check_tokens(torch.randn(2, 3, 9), 8),
        ValueError,
        r"x of shape \(b, n, 8\), got \(2, 3, 9\)",
    ),
    "check_tokens: x of another dtype": (
        lambda: check_tokens(torch.randn(2, 3, 8), 8, torch.float64),
        TypeError,
        r"x of dtype torch.float64.*got torch.float32",
    ),
    "check_attention_inputs: dropout_p 1": (
        lambda: check_attention_inputs(Q, K, V, None, 1.0),
        ValueError,
        r"dropout_p in \[0, 1\), got 1.0",
    ),
}


def test_qk_transform_is_keyword_only():
    # Python's own signature check, not encoderlib's: outside the case table.
    with pytest.raises(TypeError, match="positional argument"):
        MultiHeadAttention(16, 4, 0.0, True, torch.nn.Identity())


def test_fused_attention_gives_zeros_to_a_query_with_no_key():
    q = k = v = torch.randn(1, 2, 3, 4)
    mask = torch.tensor([True, True, False]).expand(1, 1, 3, 3).clone()
    mask[..., 2, :] = False
    out = fused_attention(q, k, v, mask, 0.0)
    assert out.isfinite().all() and (out[..., 2, :] == 0).all()


def test_autocast_enabled_is_false_outside_autocast_and_on_meta():
    assert autocast_enabled("cpu") is False and autocast_enabled("meta") is False
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert autocast_enabled("cpu") is True


CASES = {
    **{f"ch04 scaled_dot_product_attention: {k}": v for k, v in CH04_CASES.items()},
    **{f"ch05 MultiHeadAttention: {k}": v for k, v in CH05_CASES.items()},
    **{f"ch05 {k}": v for k, v in HELPERS.items()},
}

test_bad_input_raises_a_clear_error = sweep(CASES)
