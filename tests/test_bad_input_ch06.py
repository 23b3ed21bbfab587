"""Bad input to chapter 6's exports: `LayerNorm`, `FeedForward`, `count_parameters`.

Each case feeds one class of bad input a reader meets (wrong Python types for the
sizes, settings and tensors; a float64 batch into a float32 module; integer
inputs, small integer dtypes included; wrong ranks and sizes; out-of-range
settings such as eps <= 0, an infinite eps, dropout outside [0, 1), negative
sizes, an unknown activation) and expects a TypeError or ValueError whose message
names what was expected and what was received, never an error from deep inside
torch ("mixed dtype (CPU)", "mat1 and mat2 must have the same dtype"), a wrong
shape or NaN. Empty inputs (n = 0, b = 0) give outputs of the right shape.
"""

import pytest
import torch
from torch import nn

from encoderlib.layers import FeedForward, LayerNorm
from encoderlib.utils import count_parameters

NORM = LayerNorm(8)
FFN = FeedForward(8, 32).eval()
X = torch.randn(2, 5, 8)

CASES = {
    # LayerNorm: the constructor
    "LayerNorm d None": (
        lambda: LayerNorm(None),
        ValueError,
        "expected d as a positive int, got None",
    ),
    "LayerNorm d a str": (
        lambda: LayerNorm("8"),
        ValueError,
        "expected d as a positive int, got '8'",
    ),
    "LayerNorm negative d": (
        lambda: LayerNorm(-8),
        ValueError,
        "expected d as a positive int, got -8",
    ),
    "LayerNorm d = 0": (
        lambda: LayerNorm(0),
        ValueError,
        "expected d as a positive int, got 0",
    ),
    "LayerNorm eps = 0": (
        lambda: LayerNorm(8, eps=0.0),
        ValueError,
        "expected eps > 0, got 0.0",
    ),
    "LayerNorm negative eps": (
        lambda: LayerNorm(8, eps=-1.0),
        ValueError,
        "expected eps > 0, got -1.0",
    ),
    "LayerNorm NaN eps": (
        lambda: LayerNorm(8, eps=float("nan")),
        ValueError,
        "expected eps > 0, got nan",
    ),
    "LayerNorm infinite eps": (
        lambda: LayerNorm(8, eps=float("inf")),
        ValueError,
        "expected a finite eps, got inf",
    ),
    "LayerNorm eps a str": (
        lambda: LayerNorm(8, eps="1e-5"),
        TypeError,
        "expected eps as a float, got str",
    ),
    "LayerNorm eps None": (
        lambda: LayerNorm(8, eps=None),
        TypeError,
        "expected eps as a float, got NoneType",
    ),
    # LayerNorm: x
    "LayerNorm x None": (
        lambda: NORM(None),
        TypeError,
        "expected x as a torch.Tensor, got NoneType",
    ),
    "LayerNorm x a list": (
        lambda: NORM(X.tolist()),
        TypeError,
        "expected x as a torch.Tensor, got list",
    ),
    "LayerNorm x of the wrong width": (
        lambda: NORM(torch.randn(2, 5, 6)),
        ValueError,
        r"expected last dimension 8, got 6 \(x of shape \(2, 5, 6\)\)",
    ),
    "LayerNorm 0-d x": (
        lambda: NORM(torch.tensor(1.0)),
        ValueError,
        r"expected last dimension 8, got a 0-d tensor \(x of shape \(\)\)",
    ),
    "LayerNorm integer x": (
        lambda: NORM(X.long()),
        TypeError,
        "expected x with a floating-point dtype, got torch.int64",
    ),
    "LayerNorm int8 x": (
        lambda: NORM(X.to(torch.int8)),
        TypeError,
        "expected x with a floating-point dtype, got torch.int8",
    ),
    "LayerNorm float64 x into a float32 module": (
        lambda: NORM(X.double()),
        TypeError,
        r"expected x of dtype torch.float32, the dtype of the module's parameters, "
        r"got torch.float64; convert x with x.to\(torch.float32\)",
    ),
    "LayerNorm float32 x into a float64 module": (
        lambda: LayerNorm(8).double()(X),
        TypeError,
        "expected x of dtype torch.float64.* got torch.float32",
    ),
    # FeedForward: the constructor
    "FeedForward d_model None": (
        lambda: FeedForward(None, 32),
        ValueError,
        "expected d_model as a positive int, got None",
    ),
    "FeedForward negative d_ff": (
        lambda: FeedForward(8, -32),
        ValueError,
        "expected d_ff as a positive int, got -32",
    ),
    "FeedForward d_ff a float": (
        lambda: FeedForward(8, 32.0),
        ValueError,
        "expected d_ff as a positive int, got 32.0",
    ),
    "FeedForward unknown activation": (
        lambda: FeedForward(8, 32, activation="tanh"),
        ValueError,
        "unknown activation 'tanh'; expected one of 'gelu', 'gelu_tanh', 'relu', "
        "'swiglu'",
    ),
    "FeedForward activation None": (
        lambda: FeedForward(8, 32, activation=None),
        TypeError,
        "expected activation as a str, got NoneType",
    ),
    "FeedForward activation a module": (
        lambda: FeedForward(8, 32, activation=nn.GELU()),
        TypeError,
        "expected activation as a str, got GELU",
    ),
    "FeedForward dropout = 1": (
        lambda: FeedForward(8, 32, dropout=1.0),
        ValueError,
        r"expected dropout in \[0, 1\), got 1.0",
    ),
    "FeedForward negative dropout": (
        lambda: FeedForward(8, 32, dropout=-0.1),
        ValueError,
        r"expected dropout in \[0, 1\), got -0.1",
    ),
    "FeedForward dropout a str": (
        lambda: FeedForward(8, 32, dropout="0.1"),
        TypeError,
        r"expected dropout as a float in \[0, 1\), got str '0.1'",
    ),
    # FeedForward: x
    "FeedForward x None": (
        lambda: FFN(None),
        TypeError,
        "expected x as a torch.Tensor, got NoneType",
    ),
    "FeedForward x a str": (
        lambda: FFN("x"),
        TypeError,
        "expected x as a torch.Tensor, got str",
    ),
    "FeedForward x of the wrong width": (
        lambda: FFN(torch.randn(2, 5, 32)),
        ValueError,
        r"expected last dimension 8, got 32 \(x of shape \(2, 5, 32\)\)",
    ),
    "FeedForward integer x": (
        lambda: FFN(X.long()),
        TypeError,
        "expected x with a floating-point dtype, got torch.int64",
    ),
    "FeedForward uint8 x": (
        lambda: FFN(X.to(torch.uint8)),
        TypeError,
        "expected x with a floating-point dtype, got torch.uint8",
    ),
    "FeedForward float64 x into a float32 module": (
        lambda: FFN(X.double()),
        TypeError,
        r"expected x of dtype torch.float32, the dtype of the module's parameters, "
        "got torch.float64",
    ),
    "FeedForward bfloat16 x into a float32 module": (
        lambda: FeedForward(8, 32, activation="swiglu")(X.bfloat16()),
        TypeError,
        "expected x of dtype torch.float32.* got torch.bfloat16",
    ),
    # count_parameters
    "count_parameters of None": (
        lambda: count_parameters(None),
        TypeError,
        "expected an nn.Module, got NoneType",
    ),
    "count_parameters of a tensor": (
        lambda: count_parameters(torch.ones(3)),
        TypeError,
        "expected an nn.Module, got Tensor",
    ),
    "count_parameters of a list of modules": (
        lambda: count_parameters([nn.Linear(2, 2)]),
        TypeError,
        "expected an nn.Module, got list",
    ),
    "count_parameters of a state dict": (
        lambda: count_parameters(nn.Linear(2, 2).state_dict()),
        TypeError,
        "expected an nn.Module, got OrderedDict",
    ),
    "count_parameters trainable_only a str": (
        lambda: count_parameters(nn.Linear(2, 2), trainable_only="no"),
        TypeError,
        "expected trainable_only as a bool, got str",
    ),
    "LayerNorm bias as int": (
        lambda: LayerNorm(8, bias=1),
        TypeError,
        r"bias as a bool, got int",
    ),
    "FeedForward bias as str": (
        lambda: FeedForward(8, 16, bias="no"),
        TypeError,
        r"bias as a bool, got str",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("shape", [(2, 0, 8), (0, 5, 8)], ids=["n = 0", "b = 0"])
@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "relu", "swiglu"])
def test_empty_inputs_give_outputs_of_the_right_shape(shape, activation):
    with torch.no_grad():
        assert NORM(torch.randn(shape)).shape == shape
        assert FeedForward(8, 32, activation)(torch.randn(shape)).shape == shape
    x = torch.randn(shape, requires_grad=True)  # the autograd path too
    assert FeedForward(8, 32, activation)(NORM(x)).shape == shape


def test_a_constant_token_gives_the_bias_not_nan():
    constant = torch.full((1, 3, 8), 2.5)  # variance 0: eps keeps the division finite
    out = NORM(constant)
    assert not out.isnan().any() and torch.equal(out, NORM.bias.expand(1, 3, 8))


def test_modules_and_inputs_of_one_dtype_work():
    with torch.no_grad():
        assert LayerNorm(8).double()(X.double()).dtype == torch.float64
        assert FeedForward(8, 32).double()(X.double()).dtype == torch.float64


def test_autocast_mixes_dtypes_on_purpose():
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.no_grad():
        assert FFN(X.bfloat16()).shape == (2, 5, 8)
        assert NORM(X.bfloat16()).shape == (2, 5, 8)


def test_count_parameters_of_an_empty_module_is_zero():
    assert count_parameters(nn.Module()) == 0
    assert count_parameters(nn.ReLU(), trainable_only=True) == 0
