"""Bad input to chapter 4's export, `scaled_dot_product_attention`, gets a clear error.

Each case feeds one class of bad input a reader meets (wrong Python types, integer
and mixed dtypes, a mask that is not boolean, uint8 included, wrong ranks and
sizes, d_k = 0, dropout_p out of range or of the wrong type) and expects a
TypeError or ValueError whose message names what was expected and what was
received, never an error from deep inside torch or einops, a wrong shape or NaN.
Empty inputs (n = 0, b = 0) and queries with no key give zeros of the right shape,
as the docstring promises.
"""

import pytest
import torch

from encoderlib.attention import scaled_dot_product_attention

Q, K, V = torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6)
MASK = torch.ones(2, 4, 5, dtype=torch.bool)


def attend(q=Q, k=K, v=V, mask=None, dropout_p=0.0, score_bias=None):
    return scaled_dot_product_attention(q, k, v, mask, dropout_p, score_bias)


CASES = {
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
        "expected q as a torch.Tensor, got NoneType",
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
        r"expected dropout_p as a float in \[0, 1\), got str '0.1'",
    ),
    "dropout_p None": (
        lambda: attend(dropout_p=None),
        TypeError,
        r"expected dropout_p as a float in \[0, 1\), got NoneType None",
    ),
    "dropout_p a tensor": (
        lambda: attend(dropout_p=torch.tensor(0.1)),
        TypeError,
        r"expected dropout_p as a float in \[0, 1\), got Tensor",
    ),
    # dtypes
    "integer q": (
        lambda: attend(q=Q.long()),
        TypeError,
        "expected q with a floating-point dtype, got torch.int64",
    ),
    "small integer v": (
        lambda: attend(v=V.to(torch.int16)),
        TypeError,
        "expected v with a floating-point dtype, got torch.int16",
    ),
    "complex k": (
        lambda: attend(k=K.to(torch.complex64)),
        TypeError,
        "expected k with a floating-point dtype, got torch.complex64",
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
        r"expected dropout_p as a float in \[0, 1\), got bool True",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


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
