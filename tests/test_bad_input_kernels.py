"""Bad input to encoderlib.kernels (chapter 4): the kernel of the linear maps.

`linear` and `set_cpu_linear_kernel` are fed each class of bad input
(non-tensors, an input whose width is not the weight's, an unknown kernel name
or a non-string) and must raise a TypeError or ValueError whose message names
what was expected and what was received. `cpu_linear_kernel` takes no argument,
and `Linear`, as `nn.Linear`, leaves its input to the modules that call it,
which check theirs (its sizes are `nn.Linear`'s: `Linear(0.5, 3)` fails there).
"""

import torch
from bad_input import sweep

from encoderlib.kernels import linear, set_cpu_linear_kernel

CASES = {
    "ch4 linear(a list, weight)": (
        lambda: linear([[1.0, 2.0]], torch.ones(3, 2)),
        TypeError,
        r"expected x as a tensor, got list",
    ),
    "ch4 linear(x, a list)": (
        lambda: linear(torch.ones(1, 2), [[1.0, 2.0]]),
        TypeError,
        r"expected weight as a tensor, got list",
    ),
    "ch4 linear(x of the wrong width)": (
        lambda: linear(torch.ones(4, 5), torch.ones(3, 2)),
        ValueError,
        r"expected x \(\.\.\., 2\) for weight \(3, 2\), got x \(4, 5\)",
    ),
    "ch4 set_cpu_linear_kernel('mkl')": (
        lambda: set_cpu_linear_kernel("mkl"),
        ValueError,
        r"expected kernel as one of 'auto', 'torch', 'onednn', got 'mkl'",
    ),
    "ch4 set_cpu_linear_kernel(True)": (
        lambda: set_cpu_linear_kernel(True),
        TypeError,
        r"expected kernel as one of 'auto', 'torch', 'onednn', got bool True",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
