"""Bad input to encoderlib.layers (chapters 6 and 7): clear errors, never torch's.

Chapter 6's `LayerNorm`, `FeedForward` (and `encoderlib.utils.count_parameters`),
chapter 7's `EncoderLayer`: each case feeds one class of bad input (wrong types,
dtypes that do not match the parameters, wrong ranks and sizes, out-of-range
settings) and expects a TypeError or ValueError that names what was expected and
what was received. Empty batches and all-padding rows are valid input: they give
results of the right shape, without NaN.
"""

import pytest
import torch
from bad_input import sweep
from torch import nn

from encoderlib.layers import EncoderLayer, FeedForward, LayerNorm
from encoderlib.utils import count_parameters

NORM = LayerNorm(8)
FFN = FeedForward(8, 32).eval()
X = torch.randn(2, 5, 8)

CH06_CASES = {
    # LayerNorm: the constructor
    "LayerNorm d None": (
        lambda: LayerNorm(None),
        TypeError,
        r"expected d as a positive int, got None",
    ),
    "LayerNorm d a str": (
        lambda: LayerNorm("8"),
        TypeError,
        r"expected d as a positive int, got str '8'",
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
        r"expected eps > 0, got inf",
    ),
    "LayerNorm eps a str": (
        lambda: LayerNorm(8, eps="1e-5"),
        TypeError,
        "expected eps as a float, got str",
    ),
    "LayerNorm eps None": (
        lambda: LayerNorm(8, eps=None),
        TypeError,
        r"expected eps as a float, got None",
    ),
    # LayerNorm: x
    "LayerNorm x None": (
        lambda: NORM(None),
        TypeError,
        r"expected x as a torch\.Tensor, got None",
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
        "expected x with a floating dtype, got torch.int64",
    ),
    "LayerNorm int8 x": (
        lambda: NORM(X.to(torch.int8)),
        TypeError,
        "expected x with a floating dtype, got torch.int8",
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
        TypeError,
        r"expected d_model as a positive int, got None",
    ),
    "FeedForward negative d_ff": (
        lambda: FeedForward(8, -32),
        ValueError,
        "expected d_ff as a positive int, got -32",
    ),
    "FeedForward d_ff a float": (
        lambda: FeedForward(8, 32.0),
        TypeError,
        r"expected d_ff as a positive int, got float 32\.0",
    ),
    "FeedForward unknown activation": (
        lambda: FeedForward(8, 32, activation="tanh"),
        ValueError,
        r"expected activation as one of 'gelu', 'gelu_tanh', 'relu",
    ),
    "FeedForward activation None": (
        lambda: FeedForward(8, 32, activation=None),
        TypeError,
        r"expected activation as one of 'gelu', 'gelu_tanh', 'relu",
    ),
    "FeedForward activation a module": (
        lambda: FeedForward(8, 32, activation=nn.GELU()),
        TypeError,
        r"expected activation as one of 'gelu', 'gelu_tanh', 'relu",
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
        r"expected dropout as a float, got str '0\.1'",
    ),
    # FeedForward: x
    "FeedForward x None": (
        lambda: FFN(None),
        TypeError,
        r"expected x as a torch\.Tensor, got None",
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
        "expected x with a floating dtype, got torch.int64",
    ),
    "FeedForward uint8 x": (
        lambda: FFN(X.to(torch.uint8)),
        TypeError,
        "expected x with a floating dtype, got torch.uint8",
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
        r"expected module as an nn\.Module, got None",
    ),
    "count_parameters of a tensor": (
        lambda: count_parameters(torch.ones(3)),
        TypeError,
        r"expected module as an nn\.Module, got a Tensor of shape \(",
    ),
    "count_parameters of a list of modules": (
        lambda: count_parameters([nn.Linear(2, 2)]),
        TypeError,
        r"expected module as an nn\.Module, got list",
    ),
    "count_parameters of a state dict": (
        lambda: count_parameters(nn.Linear(2, 2).state_dict()),
        TypeError,
        r"expected module as an nn\.Module, got OrderedDict",
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


def layer(**overrides) -> EncoderLayer:
    torch.manual_seed(0)
    sizes = dict(d_model=8, n_heads=2, d_ff=16, dropout=0.0) | overrides
    return EncoderLayer(**sizes).eval()


def x(*shape, dtype=torch.float32) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype)


BOOL_MASK = torch.ones(2, 3, dtype=torch.bool)

CONSTRUCTOR = {
    "d_model as str": (lambda: EncoderLayer("8", 2, 16), TypeError, r"d_model .*'8'"),
    "d_model as float": (
        lambda: EncoderLayer(8.0, 2, 16),
        TypeError,
        r"d_model .*8\.0",
    ),
    "d_model as bool": (
        lambda: EncoderLayer(True, 1, 16),
        TypeError,
        r"d_model .*True",
    ),
    "negative d_ff": (
        lambda: EncoderLayer(8, 2, -1),
        ValueError,
        r"d_ff .*positive.*-1",
    ),
    "zero d_ff": (lambda: EncoderLayer(8, 2, 0), ValueError, r"d_ff .*positive.*0"),
    "n_heads None": (lambda: EncoderLayer(8, None, 16), TypeError, r"n_heads .*None"),
    "heads do not divide": (
        lambda: EncoderLayer(8, 3, 16),
        ValueError,
        r"d_model=8 .*n_heads=3",
    ),
    "dropout 1": (
        lambda: EncoderLayer(8, 2, 16, dropout=1.0),
        ValueError,
        r"dropout in \[0, 1\), got 1.0",
    ),
    "dropout negative": (
        lambda: EncoderLayer(8, 2, 16, dropout=-0.1),
        ValueError,
        r"dropout in .*got -0.1",
    ),
    "dropout nan": (
        lambda: EncoderLayer(8, 2, 16, dropout=float("nan")),
        ValueError,
        r"dropout in .*got nan",
    ),
    "dropout as str": (
        lambda: EncoderLayer(8, 2, 16, dropout="0.1"),
        TypeError,
        r"expected dropout as a float, got str '0\.1'",
    ),
    "eps 0": (lambda: EncoderLayer(8, 2, 16, eps=0.0), ValueError, r"eps > 0.*got 0"),
    "eps negative": (
        lambda: EncoderLayer(8, 2, 16, eps=-1.0),
        ValueError,
        r"eps > 0.*got -1.0",
    ),
    "eps as None": (
        lambda: EncoderLayer(8, 2, 16, eps=None),
        TypeError,
        r"eps as a float, got None",
    ),
    "unknown activation": (
        lambda: EncoderLayer(8, 2, 16, activation="tanh"),
        ValueError,
        r"expected activation as one of 'gelu', 'gelu_tanh', 'relu",
    ),
    "norm_first as int": (
        lambda: EncoderLayer(8, 2, 16, norm_first=1),
        TypeError,
        r"norm_first as a bool, got int 1",
    ),
    "bias as str": (
        lambda: EncoderLayer(8, 2, 16, bias="yes"),
        TypeError,
        r"bias as a bool",
    ),
    "qk_transform not a module": (
        lambda: EncoderLayer(8, 2, 16, qk_transform=lambda q, k: (q, k)),
        TypeError,
        r"qk_transform as an nn.Module or None, got function",
    ),
}

FORWARD = {
    "x None": (
        lambda: layer()(None),
        TypeError,
        r"expected x as a torch\.Tensor, got None",
    ),
    "x as list": (lambda: layer()([[0.0] * 8]), TypeError, r"torch.Tensor, got list"),
    "x float64 into float32": (
        lambda: layer()(x(2, 3, 8, dtype=torch.float64)),
        TypeError,
        r"x of dtype torch.float32 .*got torch.float64",
    ),
    "x float16 into float32": (
        lambda: layer()(x(2, 3, 8, dtype=torch.float16)),
        TypeError,
        r"x of dtype torch.float32 .*got torch.float16",
    ),
    "x float32 into float64": (
        lambda: layer().double()(x(2, 3, 8)),
        TypeError,
        r"x of dtype torch.float64 .*got torch.float32",
    ),
    "x of integers": (
        lambda: layer()(torch.ones(2, 3, 8, dtype=torch.long)),
        TypeError,
        r"floating dtype, got torch.int64",
    ),
    "x of rank 2": (lambda: layer()(x(3, 8)), ValueError, r"\(b, n, 8\), got \(3, 8\)"),
    "x of rank 4": (
        lambda: layer()(x(1, 2, 3, 8)),
        ValueError,
        r"\(b, n, 8\), got \(1, 2, 3, 8\)",
    ),
    "x too wide": (
        lambda: layer()(x(2, 3, 9)),
        ValueError,
        r"\(b, n, 8\), got \(2, 3, 9\)",
    ),
    "mask of uint8": (
        lambda: layer()(x(2, 3, 8), torch.ones(2, 3, dtype=torch.uint8)),
        TypeError,
        r"boolean mask.*got dtype torch.uint8",
    ),
    "mask of floats": (
        lambda: layer()(x(2, 3, 8), torch.ones(2, 3)),
        TypeError,
        r"boolean mask.*got dtype torch.float32",
    ),
    "mask as list": (
        lambda: layer()(x(2, 3, 8), [[True] * 3] * 2),
        TypeError,
        r"mask as a torch.Tensor, got list",
    ),
    "mask too long": (
        lambda: layer()(x(2, 3, 8), torch.ones(2, 4, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(b, n\) = \(2, 3\).*got \(2, 4\)",
    ),
    "return_weights as str": (
        lambda: layer()(x(2, 3, 8), BOOL_MASK, return_weights="yes"),
        TypeError,
        r"return_weights as a bool, got str 'yes'",
    ),
}

FROM_TORCH = {
    "None": (
        lambda: EncoderLayer.from_torch(None),
        TypeError,
        r"TransformerEncoderLayer, got NoneType",
    ),
    "a Linear": (
        lambda: EncoderLayer.from_torch(nn.Linear(8, 8)),
        TypeError,
        r"TransformerEncoderLayer, got Linear",
    ),
    "batch_first=False": (
        lambda: EncoderLayer.from_torch(nn.TransformerEncoderLayer(8, 2, 16)),
        ValueError,
        r"batch_first=True, got batch_first=False",
    ),
    "no biases": (
        lambda: EncoderLayer.from_torch(
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False)
        ),
        ValueError,
        r"biases .*got bias=False",
    ),
    "another activation": (
        lambda: EncoderLayer.from_torch(
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.Tanh())
        ),
        ValueError,
        r"relu or gelu activation, got Tanh",
    ),
}


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("shape", [(0, 3, 8), (2, 0, 8)], ids=["b=0", "n=0"])
def test_empty_batches_give_empty_results(norm_first, shape):
    out, weights = layer(norm_first=norm_first)(x(*shape), return_weights=True)
    b, n, _ = shape
    assert out.shape == shape and weights.shape == (b, 2, n, n)


@pytest.mark.parametrize("norm_first", [False, True])
def test_all_padding_rows_are_finite_and_leave_the_others_alone(norm_first):
    model, inputs = layer(norm_first=norm_first), x(3, 4, 8)
    mask = torch.tensor([[True] * 4, [False] * 4, [True, True, False, False]])
    out = model(inputs, mask)
    assert out.isfinite().all()
    alone = model(inputs[[0, 2]], mask[[0, 2]])
    assert torch.allclose(out[[0, 2]], alone, atol=1e-6)


def test_from_torch_keeps_float64_and_the_device():
    theirs = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).double().eval()
    ours = EncoderLayer.from_torch(theirs)
    assert all(p.dtype == torch.float64 for p in ours.parameters())
    inputs = x(2, 3, 8, dtype=torch.float64)
    with torch.no_grad():
        gap = (ours(inputs) - theirs(inputs)).abs().max().item()
    assert gap < 1e-12  # float64 all the way: agreement far below float32's 1e-7
    for parameter in ours.parameters():
        assert parameter.device == theirs.linear1.weight.device


CASES = {
    **{"ch06 " + k.replace(" ", ": ", 1): v for k, v in CH06_CASES.items()},
    **{f"ch07 EncoderLayer: {k}": v for k, v in CONSTRUCTOR.items()},
    **{f"ch07 EncoderLayer.forward: {k}": v for k, v in FORWARD.items()},
    **{f"ch07 EncoderLayer.from_torch: {k}": v for k, v in FROM_TORCH.items()},
}

test_bad_input_raises_a_clear_error = sweep(CASES)
