"""Bad input to encoderlib.prepacked (chapter 19): prepacked linear weights.

`PrepackedWeight` and `prepack_for_cpu` are fed each class of bad input (wrong
Python types, dtypes the oneDNN product does not take, weights of the wrong
rank, models without linear layers or off the CPU) and must raise a TypeError
or ValueError whose message names what was expected and what was received.
"""

import torch
from bad_input import linear_copy_cases, sweep
from torch import nn

from encoderlib.prepacked import PrepackedWeight, prepack_for_cpu

CASES = {
    "ch19 PrepackedWeight(a list)": (
        lambda: PrepackedWeight([[1.0, 2.0]]),
        TypeError,
        r"expected weight as a torch.Tensor, got list",
    ),
    "ch19 PrepackedWeight(int64)": (
        lambda: PrepackedWeight(torch.ones(2, 3, dtype=torch.long)),
        TypeError,
        r"expected weight with a floating dtype, got torch.int64",
    ),
    "ch19 PrepackedWeight(float64)": (
        lambda: PrepackedWeight(torch.ones(2, 3, dtype=torch.float64)),
        TypeError,
        r"expected weight as float32, got torch.float64",
    ),
    "ch19 PrepackedWeight(1-D)": (
        lambda: PrepackedWeight(torch.ones(3)),
        ValueError,
        r"expected weight of shape \(out, in\) = \(\*, \*\), got \(3,\)",
    ),
    "ch19 PrepackedWeight(on the meta device)": (
        lambda: PrepackedWeight(torch.ones(2, 3, device="meta")),
        ValueError,
        r"expected weight on the CPU, got it on meta",
    ),
    **linear_copy_cases("ch19 prepack_for_cpu", prepack_for_cpu, "prepack"),
    "ch19 prepack_for_cpu(a Linear on the meta device)": (
        lambda: prepack_for_cpu(nn.Linear(3, 3, device="meta")),
        ValueError,
        r"expected model on the CPU, got model on meta: prepack model.cpu\(\)",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
