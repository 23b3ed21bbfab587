"""Bad input to encoderlib.optim (chapter 10): AdamW's parameter groups, the schedule.

Each case expects a TypeError or ValueError worded by encoderlib.checks.
"""

import math

import pytest
import torch
from bad_input import sweep
from torch import nn

from encoderlib.optim import learning_rate_factor, parameter_groups


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))


CASES = {
    "ch10 parameter_groups: a list of tensors": (
        lambda: parameter_groups([torch.zeros(2)], 0.01),
        TypeError,
        "expected model as an nn\\.Module, got list",
    ),
    "ch10 parameter_groups: weight decay as a str": (
        lambda: parameter_groups(net(), "0.01"),
        TypeError,
        "expected weight_decay as a float, got str '0\\.01'",
    ),
    "ch10 parameter_groups: negative weight decay": (
        lambda: parameter_groups(net(), -0.01),
        ValueError,
        "expected weight_decay >= 0, got \\-0\\.01",
    ),
    "ch10 parameter_groups: NaN weight decay": (
        lambda: parameter_groups(net(), math.nan),
        ValueError,
        r"expected weight_decay >= 0, got nan",
    ),
    "ch10 learning_rate_factor: step as a str": (
        lambda: learning_rate_factor("1", 10, 2),
        TypeError,
        r"expected step as an int >= 0, got str '1'",
    ),
    "ch10 learning_rate_factor: negative step": (
        lambda: learning_rate_factor(-1, 10, 2),
        ValueError,
        "expected step as an int >= 0, got -1",
    ),
    "ch10 learning_rate_factor: no steps at all": (
        lambda: learning_rate_factor(0, 0, 0),
        ValueError,
        "expected total_steps as an int >= 1, got 0",
    ),
    "ch10 learning_rate_factor: fractional warm-up": (
        lambda: learning_rate_factor(0, 10, 1.5),
        TypeError,
        "expected warmup_steps as an int >= 0, got float 1\\.5",
    ),
    "ch10 learning_rate_factor: warm-up beyond the run": (
        lambda: learning_rate_factor(0, 10, 11),
        ValueError,
        r"expected warmup_steps in \[0, total_steps=10\], got 11",
    ),
    "ch10 learning_rate_factor: name None": (
        lambda: learning_rate_factor(0, 10, 1, None),
        TypeError,
        r"expected schedule as one of 'cosine', 'linear', 'constant', got None",
    ),
    "ch10 learning_rate_factor: unknown name": (
        lambda: learning_rate_factor(0, 10, 1, "step"),
        ValueError,
        r"expected schedule as one of 'cosine', 'linear', 'constant', got 'step'",
    ),
    "ch10 learning_rate_factor: floor as a str": (
        lambda: learning_rate_factor(0, 10, 1, "cosine", "0.1"),
        TypeError,
        "expected min_factor as a float, got str '0\\.1'",
    ),
    "ch10 learning_rate_factor: NaN floor": (
        lambda: learning_rate_factor(0, 10, 1, "cosine", math.nan),
        ValueError,
        "expected min_factor in \\[0, 1\\], got nan",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_the_schedule_after_the_run_stays_at_its_floor():
    assert learning_rate_factor(50, 10, 2, "cosine", 0.1) == pytest.approx(0.1)
