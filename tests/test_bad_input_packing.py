"""Bad input to encoderlib.packing (chapter 8): `run_packed`, clear errors.

`Encoder` calls `run_packed` on a padded CPU batch; called directly, it checks
its input as `Encoder.forward` does: x a float (b, n, d) tensor, a (b, n) mask
of bool or 0/1 integers, one score bias (or None) per layer, a bool
`keep_states`. Each case expects a TypeError or ValueError naming what was
expected and what was received.
"""

import torch
from bad_input import flag_cases, sweep

from encoderlib.layers import EncoderLayer
from encoderlib.packing import run_packed

torch.manual_seed(0)
LAYERS = [EncoderLayer(8, 2, 16, dropout=0.0).eval()]
X = torch.randn(2, 3, 8)
MASK = torch.tensor([[True, True, True], [True, False, False]])


def packed(x=X, mask=MASK, biases=(None,), keep_states=False):
    return run_packed(LAYERS, x, mask, list(biases), None, keep_states)


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
        r"one score bias \(or None\) per layer, 1, got 2",
    ),
    **flag_cases(PREFIX, "keep_states", lambda v: packed(keep_states=v)),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_run_packed_gives_what_the_padded_layers_give():
    with torch.no_grad():
        out, states = packed(keep_states=True)
        padded = LAYERS[0](X, MASK).masked_fill(~MASK[..., None], 0.0)
    assert torch.allclose(out, padded, atol=1e-6)
    assert len(states) == 2 and torch.equal(states[1], out)
    assert (states[0][~MASK] == 0).all()
