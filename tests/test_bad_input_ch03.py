"""Bad input to chapter 3's public names (the position tables of encoderlib.embeddings).

Each case feeds one class of bad input a reader meets (wrong Python types, float
and bool ids, small integer dtypes, wrong sizes, empty inputs, out-of-range
settings) and expects a TypeError or ValueError whose message names what was
expected and what was received: never an error from deep inside torch, a
wrong-shaped result (uint8 ids read as a boolean mask) or NaN.
"""

import pytest
import torch

from encoderlib.embeddings import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    sinusoidal_positional_encoding,
)

SINUSOIDAL = SinusoidalPositionalEncoding(d_model=8, max_len=16)
LEARNED = LearnedPositionalEmbedding(d_model=8, max_len=16)
MODULES = {"sinusoidal": SINUSOIDAL, "learned": LEARNED}

BAD_TABLE_INPUT = {
    "n None": (
        lambda: sinusoidal_positional_encoding(None, 8),
        TypeError,
        "expected n as an int, got NoneType",
    ),
    "n a float": (
        lambda: sinusoidal_positional_encoding(4.0, 8),
        TypeError,
        "expected n as an int, got float",
    ),
    "n negative": (
        lambda: sinusoidal_positional_encoding(-1, 8),
        ValueError,
        "expected n >= 0 positions, got n=-1",
    ),
    "d a str": (
        lambda: sinusoidal_positional_encoding(4, "8"),
        TypeError,
        "expected d as an int, got str",
    ),
    "d a bool": (
        lambda: sinusoidal_positional_encoding(4, True),
        TypeError,
        "expected d as an int, got bool",
    ),
    "d = 0": (
        lambda: sinusoidal_positional_encoding(4, 0),
        ValueError,
        "expected d >= 1, got d=0",
    ),
    "d odd": (
        lambda: sinusoidal_positional_encoding(4, 3),
        ValueError,
        r"expected an even d \(one sine and one cosine per frequency\), got d=3",
    ),
    "dtype an integer type": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype=torch.long),
        TypeError,
        "expected dtype as a floating-point torch.dtype or None, got torch.int64",
    ),
    "dtype a str": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype="float32"),
        TypeError,
        "expected dtype as a floating-point torch.dtype or None, got 'float32'",
    ),
    "dtype bool": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype=torch.bool),
        TypeError,
        "got torch.bool",
    ),
}

BAD_MODULE_SETTINGS = {
    "d_model None": (
        lambda cls: cls(None),
        TypeError,
        "expected d_model as an int, got NoneType",
    ),
    "d_model a float": (
        lambda cls: cls(8.0),
        TypeError,
        "expected d_model as an int, got float",
    ),
    "d_model 0": (
        lambda cls: cls(0),
        ValueError,
        "expected d_model >= 1, got d_model=0",
    ),
    "max_len negative": (
        lambda cls: cls(8, max_len=-4),
        ValueError,
        "expected max_len >= 1, got max_len=-4",
    ),
    "max_len a str": (
        lambda cls: cls(8, max_len="512"),
        TypeError,
        "expected max_len as an int, got str",
    ),
}

BAD_POSITION_IDS = {
    "None": (None, TypeError, "expected position_ids as a torch.Tensor, got NoneType"),
    "a list": (
        [0, 1, 2],
        TypeError,
        "expected position_ids as a torch.Tensor, got list",
    ),
    "floats": (
        torch.arange(3.0),
        TypeError,
        r"expected position_ids with an integer dtype \(torch.long\), "
        "got torch.float32",
    ),
    "float64": (
        torch.arange(3, dtype=torch.float64),
        TypeError,
        "got torch.float64",
    ),
    "a bool mask": (
        torch.tensor([True, False]),
        TypeError,
        "expected position_ids with an integer dtype, got torch.bool",
    ),
    "complex": (
        torch.zeros(2, dtype=torch.complex64),
        TypeError,
        "got torch.complex64",
    ),
    "past max_len": (
        torch.tensor([0, 16]),
        ValueError,
        r"position 16 is beyond max_len=16 \(valid positions are 0 to 15\)",
    ),
    "past max_len, uint8": (
        torch.tensor([3, 200], dtype=torch.uint8),
        ValueError,
        "position 200 is beyond max_len=16",
    ),
    "negative, int8": (
        torch.tensor([1, -1], dtype=torch.int8),
        ValueError,
        "expected positions >= 0, got position -1",
    ),
}


@pytest.mark.parametrize("case", list(BAD_TABLE_INPUT), ids=str)
def test_bad_table_arguments_get_a_clear_error(case):
    call, error, message = BAD_TABLE_INPUT[case]
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("case", list(BAD_MODULE_SETTINGS), ids=str)
def test_bad_module_settings_get_a_clear_error(case, name):
    make, error, message = BAD_MODULE_SETTINGS[case]
    with pytest.raises(error, match=message):
        make(type(MODULES[name]))


def test_an_odd_width_is_refused_by_the_sinusoidal_module():
    with pytest.raises(ValueError, match="expected an even d_model .* got d_model=7"):
        SinusoidalPositionalEncoding(7)


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("case", list(BAD_POSITION_IDS), ids=str)
def test_bad_position_ids_get_a_clear_error(case, name):
    position_ids, error, message = BAD_POSITION_IDS[case]
    with pytest.raises(error, match=message):
        MODULES[name](position_ids)


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
def test_small_integer_ids_give_the_rows_of_int64_ids(name, dtype):
    # uint8 must never be read as a boolean mask (which would pick rows 1 and 3 of 5)
    ids = torch.tensor([[1, 0, 1, 0, 1], [3, 4, 5, 6, 7]])
    expected = MODULES[name](ids)
    got = MODULES[name](ids.to(dtype))
    assert got.shape == (2, 5, 8)
    assert torch.equal(got, expected)  # the same rows looked up: same bits


@pytest.mark.parametrize("name", list(MODULES))
def test_no_positions_give_no_vectors(name):
    assert MODULES[name](torch.zeros(0, dtype=torch.long)).shape == (0, 8)
    assert MODULES[name](torch.zeros(2, 0, dtype=torch.long)).shape == (2, 0, 8)
    assert sinusoidal_positional_encoding(0, 8).shape == (0, 8)


def test_tables_hold_no_nan_at_any_position():
    table = sinusoidal_positional_encoding(100_000, 64)
    assert not table.isnan().any() and table.abs().max() <= 1.0
    assert sinusoidal_positional_encoding(3, 4, dtype=torch.float64).dtype == (
        torch.float64
    )
