"""Bad input to encoderlib.packing (chapter 8): clear errors.

`Encoder` calls `run_packed` when the mask is on the CPU; called directly, it
checks its input as `Encoder.forward` does: x a float (b, n, d) tensor, a (b, n)
mask of bool or 0/1 integers, one score bias and one window (or None) per layer,
a bool `keep_states`. `plan_packing` takes a bool (b, n) mask, `window_bias`
ints >= 0, and `varlen_attention` CUDA tensors of one (t, h, e) shape with int32
sentence starts. Each case expects a TypeError or ValueError naming what was
expected and what was received.
"""

import torch
from bad_input import flag_cases, sweep

from encoderlib.layers import EncoderLayer
from encoderlib.packing import (
    plan_packing,
    run_packed,
    varlen_attention,
    window_bias,
)

torch.manual_seed(0)
LAYERS = [EncoderLayer(8, 2, 16, dropout=0.0).eval()]
X = torch.randn(2, 3, 8)
MASK = torch.tensor([[True, True, True], [True, False, False]])
CPU = torch.device("cpu")
Q = torch.randn(4, 2, 8)  # (t, h, e): the packed tokens of two sentences
CU = torch.tensor([0, 3, 4], dtype=torch.int32)


def packed(x=X, mask=MASK, biases=(None,), keep_states=False, windows=None):
    return run_packed(LAYERS, x, mask, list(biases), None, keep_states, windows)


PREFIX = "ch08 run_packed"
CASES = {
    f"{PREFIX}: x None": (lambda: packed(x=None), TypeError, r"x as a torch.Tensor"),
    f"{PREFIX}: x of integers": (
        lambda: packed(x=X.long()),
        TypeError,
        r"x with a floating dtype, got torch.int64",
    ),
    f"{PREFIX}: x of rank 2": (
        lambda: packed(x=X[0]),
        ValueError,
        r"x of shape \(b, n, d\).*got \(3, 8\)",
    ),
    f"{PREFIX}: mask of floats": (
        lambda: packed(mask=MASK.float()),
        TypeError,
        r"mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    f"{PREFIX}: mask too long": (
        lambda: packed(mask=torch.ones(2, 4, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(b, n\) = \(2, 3\).*got \(2, 4\)",
    ),
    f"{PREFIX}: mask of 2s": (
        lambda: packed(mask=torch.full((2, 3), 2)),
        ValueError,
        r"mask values 0 or 1",
    ),
    f"{PREFIX}: two biases for one layer": (
        lambda: packed(biases=(None, None)),
        ValueError,
        r"one score bias and one window \(or None\) per layer, 1, got 2 and 1",
    ),
    f"{PREFIX}: two windows for one layer": (
        lambda: packed(windows=(None, 4)),
        ValueError,
        r"one score bias and one window \(or None\) per layer, 1, got 1 and 2",
    ),
    **flag_cases(PREFIX, "keep_states", lambda v: packed(keep_states=v)),
    "ch08 plan_packing: a list": (
        lambda: plan_packing([[True]], CPU),
        TypeError,
        r"expected mask as a torch.Tensor, got list",
    ),
    "ch08 plan_packing: 0/1 integers": (
        lambda: plan_packing(MASK.long(), CPU),
        TypeError,
        r"expected mask as a bool tensor, got dtype torch.int64",
    ),
    "ch08 plan_packing: one axis": (
        lambda: plan_packing(MASK[0], CPU),
        ValueError,
        r"mask of shape \(b, n\).*got \(3,\)",
    ),
    "ch08 window_bias: a negative window": (
        lambda: window_bias(4, -1, CPU, torch.float32),
        ValueError,
        r"expected window .*>= 0.*got -1",
    ),
    "ch08 window_bias: n as a float": (
        lambda: window_bias(4.0, 1, CPU, torch.float32),
        TypeError,
        r"expected n as an int >= 0, got float 4.0",
    ),
    "ch08 varlen_attention: CPU tensors": (
        lambda: varlen_attention(Q, Q, Q, CU, 3),
        ValueError,
        r"expected q on a CUDA GPU, got it on cpu",
    ),
    "ch08 varlen_attention: q not a tensor": (
        lambda: varlen_attention(None, Q, Q, CU, 3),
        TypeError,
        r"expected q as a torch.Tensor, got None",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_run_packed_gives_what_the_padded_layers_give():
    with torch.no_grad():
        out, states = packed(keep_states=True)
        padded = LAYERS[0](X, MASK).masked_fill(~MASK[..., None], 0.0)
    assert torch.allclose(out, padded, atol=1e-6)
    assert len(states) == 2 and torch.equal(states[1], out)
    assert (states[0][~MASK] == 0).all()
