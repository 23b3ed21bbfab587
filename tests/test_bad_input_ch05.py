"""Bad input to chapter 5's export, `MultiHeadAttention`, gets a clear error.

Each case feeds one class of bad input a reader meets (wrong Python types for the
sizes, flags and tensors; a float64 batch into a float32 module; integer inputs;
masks that are not boolean, uint8 included; wrong ranks and sizes; out-of-range
settings) and expects a TypeError or ValueError whose message names what was
expected and what was received, never torch's "mat1 and mat2 must have the same
dtype" from inside a projection, a wrong shape or NaN. Empty inputs (n = 0,
b = 0) give outputs of the right shape, and all-padding sequences no NaN.
"""

import pytest
import torch

from encoderlib.attention import MultiHeadAttention

MHA = MultiHeadAttention(16, 4).eval()


class _Truncate(torch.nn.Module):
    """A wrong transform: it drops half of every head's features."""

    def forward(self, q, k):
        return q[..., :2], k[..., :2]


X = torch.randn(2, 5, 16)
PADDING = torch.tensor([[True] * 5, [True, True, False, False, False]])

CASES = {
    # the constructor: sizes, dropout, bias
    "d_model None": (
        lambda: MultiHeadAttention(None, 4),
        ValueError,
        "expected d_model as a positive int, got None",
    ),
    "d_model a str": (
        lambda: MultiHeadAttention("16", 4),
        ValueError,
        "expected d_model as a positive int, got '16'",
    ),
    "d_model a float": (
        lambda: MultiHeadAttention(16.0, 4),
        ValueError,
        "expected d_model as a positive int, got 16.0",
    ),
    "negative n_heads": (
        lambda: MultiHeadAttention(16, -4),
        ValueError,
        "expected n_heads as a positive int, got -4",
    ),
    "n_heads True": (
        lambda: MultiHeadAttention(16, True),
        ValueError,
        "expected n_heads as a positive int, got True",
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
        r"expected dropout as a float in \[0, 1\), got str '0.1'",
    ),
    "dropout None": (
        lambda: MultiHeadAttention(16, 4, dropout=None),
        TypeError,
        r"expected dropout as a float in \[0, 1\), got NoneType None",
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
        "expected x as a torch.Tensor, got NoneType",
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
        "expected x with a floating-point dtype, got torch.int64",
    ),
    "uint8 x": (
        lambda: MHA(X.to(torch.uint8)),
        TypeError,
        "expected x with a floating-point dtype, got torch.uint8",
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
    "qk_transform positional": (
        lambda: MultiHeadAttention(16, 4, 0.0, True, torch.nn.Identity()),
        TypeError,
        "positional argument",
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


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


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
