"""Bad input to chapter 7's export, `EncoderLayer`: clear errors, never torch's.

Each case feeds one class of bad input (wrong Python types, dtypes that do not
match the layer's parameters, wrong ranks and sizes, out-of-range settings) and
expects a TypeError or ValueError whose message names what was expected and
what was received. Empty batches and all-padding rows are valid input: they
must give results of the right shape, without NaN.
"""

import pytest
import torch
from torch import nn

from encoderlib.encoder import EncoderLayer


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
        r"dropout as a float, got '0.1'",
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
        r"'tanh'.*gelu",
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
    "x None": (lambda: layer()(None), TypeError, r"x as a torch.Tensor, got NoneType"),
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
        r"floating-point dtype, got torch.int64",
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

CASES = {
    **{f"EncoderLayer({k})": v for k, v in CONSTRUCTOR.items()},
    **{f"EncoderLayer.forward({k})": v for k, v in FORWARD.items()},
    **{f"EncoderLayer.from_torch({k})": v for k, v in FROM_TORCH.items()},
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    # The error comes from encoderlib's own checks, not from inside torch.
    assert "encoderlib" in info.traceback[-1].path.as_posix()


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
