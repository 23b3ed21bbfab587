"""One runner for the bad-input sweep, and generators of the usual cases.

Every `tests/test_bad_input_<module>.py` holds a case table: {case id: (call,
error, message pattern)}. A case id starts with the chapter that builds the
object ("ch07 EncoderLayer: d_model as str"), so a failure points at the
chapter to read. `sweep(cases)` turns a table into one parametrized test; each
case must raise `error` with a message matching the pattern, and the raise must
come from encoderlib's own code (a check), not from inside torch.

The generators write the cases every module needs in the same words, from
encoderlib.checks' rules: a wrong type is a TypeError, a wrong value a
ValueError, and the message names the parameter and what it received.
"""

import atexit
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from encoderlib import Encoder, EncoderConfig

Cases = dict[str, tuple[Callable[[], Any], type[Exception], str]]


def raises_in_encoderlib(call: Callable[[], Any], error: type, message: str) -> None:
    """Run `call`; it must raise `error` matching `message` from encoderlib's code."""
    with pytest.raises(error, match=message) as info:
        call()
    origin = info.traceback[-1].path.as_posix()
    assert "/encoderlib/" in origin, f"raised in {origin}, not by an encoderlib check"


def scratch_folder(prefix: str) -> Path:
    """A new empty folder in the system's temporary directory, removed at exit.

    Case tables are built when a test file is imported, before any pytest
    fixture exists, so their files cannot live in `tmp_path`; this folder is
    deleted when the test process ends instead of being left behind.
    """
    root = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def sweep(cases: Cases):
    """A parametrized test over a case table: `test_x = sweep(CASES)`."""

    @pytest.mark.parametrize(("call", "error", "message"), cases.values(), ids=cases)
    def test_bad_input_raises_a_clear_error(call, error, message):
        raises_in_encoderlib(call, error, message)

    return test_bad_input_raises_a_clear_error


def positive_int_cases(prefix: str, name: str, make: Callable[[Any], Any]) -> Cases:
    """Cases for a parameter that must be a positive int: wrong types, 0 and -1."""
    return {
        f"{prefix}: {name} as str": (lambda: make("4"), TypeError, rf"{name}\b.*'4'"),
        f"{prefix}: {name} as float": (
            lambda: make(4.0),
            TypeError,
            rf"{name}\b.*4\.0",
        ),
        f"{prefix}: {name} as bool": (
            lambda: make(True),
            TypeError,
            rf"{name}\b.*True",
        ),
        f"{prefix}: {name} zero": (
            lambda: make(0),
            ValueError,
            rf"{name}\b.*positive.*0",
        ),
        f"{prefix}: {name} negative": (
            lambda: make(-1),
            ValueError,
            rf"{name}\b.*positive.*-1",
        ),
    }


def flag_cases(prefix: str, name: str, make: Callable[[Any], Any]) -> Cases:
    """Cases for a parameter that must be True or False: 1, "yes" and None."""
    return {
        f"{prefix}: {name} as {label}": (
            lambda v=value: make(v),
            TypeError,
            rf"{name}\b.*bool",
        )
        for label, value in (("int", 1), ("str", "yes"), ("None", None))
    }


def rate_cases(prefix: str, name: str, make: Callable[[Any], Any]) -> Cases:
    """Cases for a rate in [0, 1): a str, 1.0, a negative value and NaN."""
    return {
        f"{prefix}: {name} as str": (
            lambda: make("0.1"),
            TypeError,
            rf"{name}\b.*'0.1'",
        ),
        f"{prefix}: {name} 1": (lambda: make(1.0), ValueError, rf"{name} in \[0, 1\)"),
        f"{prefix}: {name} negative": (
            lambda: make(-0.1),
            ValueError,
            rf"{name} in \[0, 1\)",
        ),
        f"{prefix}: {name} nan": (
            lambda: make(float("nan")),
            ValueError,
            rf"{name} in \[0, 1\)",
        ),
    }


def tensor_type_cases(
    prefix: str, name: str, make: Callable[[Any], Any], like: torch.Tensor
) -> Cases:
    """Cases for a tensor argument given as a list or a numpy-free plain number."""
    return {
        f"{prefix}: {name} as list": (
            lambda: make(like.tolist()),
            TypeError,
            rf"{name}\b.*Tensor",
        ),
        f"{prefix}: {name} as None": (
            lambda: make(None),
            TypeError,
            rf"{name}\b.*Tensor",
        ),
    }


def linear_copy_cases(prefix: str, make_copy: Callable[[Any], Any], verb: str) -> Cases:
    """The refusals of a function that copies a model with new linear weights.

    `quantize_int8` and `prepack_for_cpu` take any module whose linear layers
    are float32: a non-module, a float64 or bfloat16 model and a model with no
    `nn.Linear` are refused in the same words, the fix named with `verb`.
    """
    return {
        f"{prefix}(a function)": (
            lambda: make_copy(len),
            TypeError,
            r"expected model as an nn.Module, got builtin_function_or_method",
        ),
        f"{prefix}(a float64 Encoder)": (
            lambda: make_copy(Encoder(EncoderConfig.tiny()).double()),
            TypeError,
            r"expected model with float32 linear layers, got layers.0.attn.q_proj of "
            rf"dtype torch.float64: {verb} model.float\(\)",
        ),
        f"{prefix}(a bfloat16 Linear)": (
            lambda: make_copy(nn.Linear(3, 3).bfloat16()),
            TypeError,
            r"float32 linear layers, got model of dtype torch.bfloat16",
        ),
        f"{prefix}(no Linear)": (
            lambda: make_copy(nn.Sequential(nn.ReLU())),
            ValueError,
            r"expected a module with nn.Linear layers, got none in Sequential",
        ),
    }
