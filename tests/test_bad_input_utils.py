"""Bad input to encoderlib.utils (chapters 1 and 6): clear errors.

Seeds of the wrong type or outside torch's range, and the other helpers' bad
arguments, raise a TypeError or ValueError from encoderlib's own checks.
"""

import pytest
from bad_input import sweep

from encoderlib.utils import default_device, set_seed

CASES = {
    "ch01 set_seed(2**70)": (
        lambda: set_seed(2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "ch01 set_seed(2**64)": (lambda: set_seed(2**64), ValueError, "expected seed in"),
    "ch01 set_seed(-2**63 - 1)": (
        lambda: set_seed(-(2**63) - 1),
        ValueError,
        "got -9223372036854775809",
    ),
    "ch01 set_seed(1.5)": (lambda: set_seed(1.5), TypeError, "expected seed as an int"),
    "ch01 set_seed('0')": (lambda: set_seed("0"), TypeError, "got str"),
    "ch01 set_seed(None)": (lambda: set_seed(None), TypeError, "got None"),
    "ch01 set_seed(True)": (lambda: set_seed(True), TypeError, "got bool"),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_default_device_takes_no_argument():
    with pytest.raises(TypeError, match="positional argument"):
        default_device("cuda")


def test_the_edges_of_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        set_seed(seed)
    set_seed(0)
