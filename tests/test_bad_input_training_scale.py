"""Bad input to chapter 18's part of encoderlib.training: distributed, compiled.

Each is fed the classes of bad input a reader meets (wrong Python types, values out
of range, half of torchrun's environment, ranks that are not integers, a model that
is not callable, example inputs that are not a tuple) and must raise a TypeError or
ValueError whose message names what was expected and what was received, before
anything starts a process group or compiles.
"""

import pytest
import torch
from bad_input import raises_in_encoderlib, sweep

from encoderlib.training import compile_or_eager, init_distributed

TORCHRUN = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
FULL_ENVIRONMENT = {
    "RANK": "0",
    "LOCAL_RANK": "0",
    "WORLD_SIZE": "1",
    "MASTER_ADDR": "127.0.0.1",
    "MASTER_PORT": "29500",
}


def square(x: torch.Tensor) -> torch.Tensor:
    return x * x


X = (torch.ones(3),)

INIT_DISTRIBUTED = {
    "ch18 init_distributed(backend 3)": (
        lambda: init_distributed(3),
        {},
        TypeError,
        r"backend as a str or None, got int 3",
    ),
    "ch18 init_distributed(timeout '60')": (
        lambda: init_distributed(timeout="60"),
        {},
        TypeError,
        r"timeout as a float, got str '60'",
    ),
    "ch18 init_distributed(timeout 0)": (
        lambda: init_distributed(timeout=0),
        {},
        ValueError,
        r"timeout > 0, got 0",
    ),
    "ch18 init_distributed(only RANK set)": (
        init_distributed,
        {"RANK": "0"},
        ValueError,
        r"torchrun's variables RANK, LOCAL_RANK, .*got RANK without LOCAL_RANK",
    ),
    "ch18 init_distributed(RANK 'zero')": (
        init_distributed,
        {**FULL_ENVIRONMENT, "RANK": "zero"},
        ValueError,
        r"RANK as an int, got 'zero'",
    ),
    "ch18 init_distributed(backend 'carrier-pigeon')": (
        lambda: init_distributed("carrier-pigeon"),
        FULL_ENVIRONMENT,
        ValueError,
        r"a backend this torch has .*got 'carrier-pigeon'",
    ),
}
if not torch.cuda.is_available():
    INIT_DISTRIBUTED["ch18 init_distributed(backend 'nccl' without CUDA)"] = (
        lambda: init_distributed("nccl"),
        FULL_ENVIRONMENT,
        ValueError,
        r"a backend this torch has \('gloo'; 'nccl' with CUDA\), got 'nccl'",
    )

COMPILE_OR_EAGER = {
    "ch18 compile_or_eager(model None)": (
        lambda: compile_or_eager(None, X),
        TypeError,
        r"model as a callable, got None",
    ),
    "ch18 compile_or_eager(model a tensor)": (
        lambda: compile_or_eager(torch.ones(2), X),
        TypeError,
        r"model as a callable, got a Tensor of shape \(2,\)",
    ),
    "ch18 compile_or_eager(example_inputs a tensor)": (
        lambda: compile_or_eager(square, torch.ones(3)),
        TypeError,
        r"example_inputs as a tuple of positional arguments, got a Tensor of "
        r"shape \(3,\)",
    ),
    "ch18 compile_or_eager(example_inputs a list)": (
        lambda: compile_or_eager(square, [torch.ones(3)]),
        TypeError,
        r"example_inputs as a tuple of positional arguments, got list",
    ),
    "ch18 compile_or_eager(atol '1e-5')": (
        lambda: compile_or_eager(square, X, atol="1e-5"),
        TypeError,
        r"atol as a float, got str '1e-5'",
    ),
    "ch18 compile_or_eager(atol -1)": (
        lambda: compile_or_eager(square, X, atol=-1),
        ValueError,
        r"atol >= 0, got -1",
    ),
    "ch18 compile_or_eager(atol nan)": (
        lambda: compile_or_eager(square, X, atol=float("nan")),
        ValueError,
        r"atol >= 0, got nan",
    ),
}


@pytest.mark.parametrize(
    ("call", "environment", "error", "message"),
    INIT_DISTRIBUTED.values(),
    ids=INIT_DISTRIBUTED,
)
def test_init_distributed_raises_a_clear_error(
    monkeypatch, call, environment, error, message
):
    for name in TORCHRUN:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    raises_in_encoderlib(call, error, message)
    assert not torch.distributed.is_initialized()


test_compile_or_eager_raises_a_clear_error = sweep(COMPILE_OR_EAGER)


def test_empty_example_inputs_are_a_valid_call():
    # A function of no arguments is a model too: () is its tuple of inputs.
    function, note = compile_or_eager(lambda: torch.ones(2), (), backend="eager")
    assert note == "compiled" and torch.equal(function(), torch.ones(2))
