"""Bad input to encoderlib.embeddings, chapters 2 and 3: clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, float
and bool ids, small integer dtypes, wrong shapes, ids out of range, out-of-range
settings) to `EncoderEmbeddings` (chapter 2) or the position tables (chapter 3)
and expects a TypeError or ValueError, raised by encoderlib's own checks, whose
message names what was expected and what was received: never an index error
from deep inside torch, a wrong-shaped result (uint8 ids read as a boolean mask)
or NaN. Chapter 17's relative schemes have their cases in test_bad_input_ch17.py.
"""

import math

import pytest
import torch
from bad_input import flag_cases, positive_int_cases, rate_cases, sweep
from torch import nn

from encoderlib.checks import count_host_reads
from encoderlib.embeddings import (
    EncoderEmbeddings,
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    sinusoidal_positional_encoding,
)

LAYER = EncoderEmbeddings(vocab_size=50, d_model=8, max_len=16).eval()
IDS = torch.tensor([[2, 5, 7, 3], [2, 6, 3, 0]])
SINUSOIDAL = SinusoidalPositionalEncoding(d_model=8, max_len=16)
LEARNED = LearnedPositionalEmbedding(d_model=8, max_len=16)
POSITION_MODULES = {"sinusoidal": SINUSOIDAL, "learned": LEARNED}


class WrongPositions(nn.Module):
    """A position module that returns vectors of the wrong width or dtype."""

    def __init__(self, width: int = 8, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.width, self.dtype = width, dtype

    def forward(self, position_ids: torch.Tensor) -> torch.Tensor:
        return torch.zeros(*position_ids.shape, self.width, dtype=self.dtype)


EMBEDDING_CASES = {
    # settings
    **positive_int_cases(
        "ch02 EncoderEmbeddings", "vocab_size", lambda v: EncoderEmbeddings(v, 8)
    ),
    **positive_int_cases(
        "ch02 EncoderEmbeddings", "d_model", lambda v: EncoderEmbeddings(50, v)
    ),
    **positive_int_cases(
        "ch02 EncoderEmbeddings", "max_len", lambda v: EncoderEmbeddings(50, 8, v)
    ),
    "ch02 EncoderEmbeddings: type_vocab_size negative": (
        lambda: EncoderEmbeddings(50, 8, type_vocab_size=-2),
        ValueError,
        "expected type_vocab_size as an int >= 0, got -2",
    ),
    "ch02 EncoderEmbeddings: eps -1": (
        lambda: EncoderEmbeddings(50, 8, eps=-1),
        ValueError,
        "expected eps > 0, got -1",
    ),
    "ch02 EncoderEmbeddings: eps 0": (
        lambda: EncoderEmbeddings(50, 8, eps=0.0),
        ValueError,
        "expected eps > 0, got 0.0",
    ),
    "ch02 EncoderEmbeddings: eps nan": (
        lambda: EncoderEmbeddings(50, 8, eps=math.nan),
        ValueError,
        "expected eps > 0, got nan",
    ),
    "ch02 EncoderEmbeddings: eps as str": (
        lambda: EncoderEmbeddings(50, 8, eps="1e-12"),
        TypeError,
        "expected eps as a float, got str '1e-12'",
    ),
    **rate_cases(
        "ch02 EncoderEmbeddings",
        "dropout",
        lambda v: EncoderEmbeddings(50, 8, dropout=v),
    ),
    "ch02 EncoderEmbeddings: dropout None": (
        lambda: EncoderEmbeddings(50, 8, dropout=None),
        TypeError,
        "expected dropout as a float, got None",
    ),
    "ch02 EncoderEmbeddings: padding_idx = vocab_size": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=50),
        ValueError,
        r"expected padding_idx in \[0, vocab_size=50\), got 50",
    ),
    "ch02 EncoderEmbeddings: padding_idx negative": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=-1),
        ValueError,
        r"expected padding_idx in \[0, vocab_size=50\), got -1",
    ),
    "ch02 EncoderEmbeddings: padding_idx as float": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=0.0),
        TypeError,
        "expected padding_idx as an int, got float 0.0",
    ),
    "ch02 EncoderEmbeddings: position_embeddings a tensor": (
        lambda: EncoderEmbeddings(50, 8, position_embeddings=torch.zeros(16, 8)),
        TypeError,
        r"expected position_embeddings as an nn.Module or None, got a Tensor "
        r"of shape \(16, 8\)",
    ),
    **flag_cases(
        "ch02 EncoderEmbeddings",
        "absolute_positions",
        lambda v: EncoderEmbeddings(50, 8, absolute_positions=v),
    ),
    **flag_cases(
        "ch02 EncoderEmbeddings",
        "norm_bias",
        lambda v: EncoderEmbeddings(50, 8, norm_bias=v),
    ),
    "ch02 EncoderEmbeddings: a position module and absolute_positions=False": (
        lambda: EncoderEmbeddings(
            50, 8, position_embeddings=nn.Embedding(16, 8), absolute_positions=False
        ),
        ValueError,
        "got position_embeddings with absolute_positions=False",
    ),
    # inputs
    "ch02 EncoderEmbeddings: input_ids None": (
        lambda: LAYER(None),
        TypeError,
        "expected input_ids as a torch.Tensor, got None",
    ),
    "ch02 EncoderEmbeddings: input_ids a list": (
        lambda: LAYER([[2, 5, 3]]),
        TypeError,
        "expected input_ids as a torch.Tensor, got list",
    ),
    "ch02 EncoderEmbeddings: input_ids float": (
        lambda: LAYER(IDS.float()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
    "ch02 EncoderEmbeddings: input_ids float64": (
        lambda: LAYER(IDS.double()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float64",
    ),
    "ch02 EncoderEmbeddings: input_ids bool": (
        lambda: LAYER(IDS.bool()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.bool",
    ),
    "ch02 EncoderEmbeddings: input_ids 1-D": (
        lambda: LAYER(IDS[0]),
        ValueError,
        r"expected input_ids of shape \(b, n\) = \(\*, \*\), got \(4,\)",
    ),
    "ch02 EncoderEmbeddings: input_ids 3-D": (
        lambda: LAYER(IDS[None]),
        ValueError,
        r"expected input_ids of shape \(b, n\) = \(\*, \*\), got \(1, 2, 4\)",
    ),
    "ch02 EncoderEmbeddings: input_ids longer than max_len": (
        lambda: LAYER(torch.zeros(1, 17, dtype=torch.long)),
        ValueError,
        "expected at most max_len=16 tokens, got n=17",
    ),
    "ch02 EncoderEmbeddings: input_ids out of the vocabulary": (
        lambda: LAYER(torch.tensor([[2, 50]])),
        ValueError,
        r"expected input_ids in \[0, 50\), got values from 2 to 50",
    ),
    "ch02 EncoderEmbeddings: input_ids negative, int8": (
        lambda: LAYER(torch.tensor([[2, -3]], dtype=torch.int8)),
        ValueError,
        r"expected input_ids in \[0, 50\), got values from -3 to 2",
    ),
    "ch02 EncoderEmbeddings: token_type_ids of the wrong shape": (
        lambda: LAYER(IDS, token_type_ids=torch.zeros(4, dtype=torch.long)),
        ValueError,
        r"expected token_type_ids of shape \(b, n\) = \(2, 4\), got \(4,\)",
    ),
    "ch02 EncoderEmbeddings: token_type_ids out of range": (
        lambda: LAYER(IDS, token_type_ids=torch.full((2, 4), 2)),
        ValueError,
        r"expected token_type_ids in \[0, 2\), got values from 2 to 2",
    ),
    "ch02 EncoderEmbeddings: token_type_ids float": (
        lambda: LAYER(IDS, token_type_ids=torch.zeros(2, 4)),
        TypeError,
        "expected token_type_ids with an integer dtype, got torch.float32",
    ),
    "ch02 EncoderEmbeddings: token_type_ids without segment embeddings": (
        lambda: EncoderEmbeddings(50, 8, type_vocab_size=0)(
            IDS, token_type_ids=torch.zeros(2, 4, dtype=torch.long)
        ),
        ValueError,
        r"got token_type_ids, but this layer has no segment embeddings",
    ),
    "ch02 EncoderEmbeddings: position_ids past max_len": (
        lambda: LAYER(IDS, position_ids=torch.tensor([[0, 1, 2, 16]])),
        ValueError,
        r"expected position_ids in \[0, 16\), got values from 0 to 16",
    ),
    "ch02 EncoderEmbeddings: position_ids of the wrong length": (
        lambda: LAYER(IDS, position_ids=torch.arange(3)[None]),
        ValueError,
        r"expected position_ids of shape \(b, n\) = \(1, 4\), got \(1, 3\)",
    ),
    "ch02 EncoderEmbeddings: position_ids float": (
        lambda: LAYER(IDS, position_ids=torch.arange(4.0)[None]),
        TypeError,
        "expected position_ids with an integer dtype, got torch.float32",
    ),
    "ch02 EncoderEmbeddings: a position module of the wrong width": (
        lambda: EncoderEmbeddings(50, 8, position_embeddings=WrongPositions(6))(IDS),
        ValueError,
        r"expected position_embeddings to map position ids of shape \(1, 4\) to "
        r"vectors of shape \(1, 4, 8\), got \(1, 4, 6\)",
    ),
    "ch02 EncoderEmbeddings: a position module in float64": (
        lambda: EncoderEmbeddings(
            50, 8, position_embeddings=WrongPositions(dtype=torch.float64)
        )(IDS),
        TypeError,
        "expected position vectors in the token embeddings' dtype torch.float32, "
        "got torch.float64",
    ),
    "ch02 EncoderEmbeddings: position_ids for a layer without positions": (
        lambda: EncoderEmbeddings(50, 8, absolute_positions=False)(
            torch.tensor([[1, 2]]), position_ids=torch.tensor([[0, 1]])
        ),
        ValueError,
        r"got position_ids, but this layer adds no positions",
    ),
}

TABLE_CASES = {
    "ch03 sinusoidal_positional_encoding: n None": (
        lambda: sinusoidal_positional_encoding(None, 8),
        TypeError,
        "expected n as an int >= 0, got None",
    ),
    "ch03 sinusoidal_positional_encoding: n a float": (
        lambda: sinusoidal_positional_encoding(4.0, 8),
        TypeError,
        "expected n as an int >= 0, got float 4.0",
    ),
    "ch03 sinusoidal_positional_encoding: n negative": (
        lambda: sinusoidal_positional_encoding(-1, 8),
        ValueError,
        "expected n as an int >= 0, got -1",
    ),
    **positive_int_cases(
        "ch03 sinusoidal_positional_encoding",
        "d",
        lambda v: sinusoidal_positional_encoding(4, v),
    ),
    "ch03 sinusoidal_positional_encoding: d odd": (
        lambda: sinusoidal_positional_encoding(4, 3),
        ValueError,
        r"expected an even d \(one sine and one cosine per frequency\), got d=3",
    ),
    "ch03 sinusoidal_positional_encoding: dtype an integer type": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype=torch.long),
        TypeError,
        "expected dtype as a floating-point torch.dtype or None, got torch.int64",
    ),
    "ch03 sinusoidal_positional_encoding: dtype a str": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype="float32"),
        TypeError,
        "expected dtype as a floating-point torch.dtype or None, got 'float32'",
    ),
    "ch03 sinusoidal_positional_encoding: dtype bool": (
        lambda: sinusoidal_positional_encoding(4, 8, dtype=torch.bool),
        TypeError,
        "got torch.bool",
    ),
    "ch03 SinusoidalPositionalEncoding: an odd d_model": (
        lambda: SinusoidalPositionalEncoding(7),
        ValueError,
        r"expected an even d_model .* got d_model=7",
    ),
}

for cls in (SinusoidalPositionalEncoding, LearnedPositionalEmbedding):
    TABLE_CASES |= positive_int_cases(
        f"ch03 {cls.__name__}", "d_model", lambda v, cls=cls: cls(v)
    )
    TABLE_CASES |= positive_int_cases(
        f"ch03 {cls.__name__}", "max_len", lambda v, cls=cls: cls(8, max_len=v)
    )

BAD_POSITION_IDS = {
    "None": (None, TypeError, "expected position_ids as a torch.Tensor, got None"),
    "a list": (
        [0, 1, 2],
        TypeError,
        "expected position_ids as a torch.Tensor, got list",
    ),
    "floats": (
        torch.arange(3.0),
        TypeError,
        "expected position_ids with an integer dtype, got torch.float32",
    ),
    "float64": (torch.arange(3, dtype=torch.float64), TypeError, "got torch.float64"),
    "a bool mask": (
        torch.tensor([True, False]),
        TypeError,
        "expected position_ids with an integer dtype, got torch.bool",
    ),
    "complex": (torch.zeros(2, dtype=torch.complex64), TypeError, "torch.complex64"),
    "past max_len": (
        torch.tensor([0, 16]),
        ValueError,
        r"expected position_ids in \[0, 16\), got values from 0 to 16",
    ),
    "past max_len, uint8": (
        torch.tensor([3, 200], dtype=torch.uint8),
        ValueError,
        r"expected position_ids in \[0, 16\), got values from 3 to 200",
    ),
    "negative, int8": (
        torch.tensor([1, -1], dtype=torch.int8),
        ValueError,
        r"expected position_ids in \[0, 16\), got values from -1 to 1",
    ),
}
for module in POSITION_MODULES.values():
    for label, (ids, error, message) in BAD_POSITION_IDS.items():
        TABLE_CASES[f"ch03 {type(module).__name__}: position_ids {label}"] = (
            lambda module=module, ids=ids: module(ids),
            error,
            message,
        )

test_bad_embedding_input_raises_a_clear_error = sweep(EMBEDDING_CASES)
test_bad_position_table_input_raises_a_clear_error = sweep(TABLE_CASES)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
def test_small_integer_ids_embed_as_int64_ids(dtype):
    # uint8 must never be read as a boolean mask: the same vectors as int64 ids
    expected = LAYER(IDS, token_type_ids=torch.ones_like(IDS))
    got = LAYER(
        IDS.to(dtype),
        token_type_ids=torch.ones_like(IDS, dtype=dtype),
        position_ids=torch.arange(4, dtype=dtype)[None],
    )
    assert got.shape == (2, 4, 8)
    assert torch.equal(got, expected)  # the same rows looked up: same bits


@pytest.mark.parametrize("name", list(POSITION_MODULES))
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
def test_small_integer_position_ids_give_the_rows_of_int64_ids(name, dtype):
    # uint8 must never be read as a boolean mask (which would pick rows 1 and 3 of 5)
    ids = torch.tensor([[1, 0, 1, 0, 1], [3, 4, 5, 6, 7]])
    expected = POSITION_MODULES[name](ids)
    got = POSITION_MODULES[name](ids.to(dtype))
    assert got.shape == (2, 5, 8)
    assert torch.equal(got, expected)  # the same rows looked up: same bits


def test_empty_batches_give_empty_vectors():
    assert LAYER(torch.zeros(0, 4, dtype=torch.long)).shape == (0, 4, 8)  # b = 0
    assert LAYER(torch.zeros(2, 0, dtype=torch.long)).shape == (2, 0, 8)  # n = 0


@pytest.mark.parametrize("name", list(POSITION_MODULES))
def test_no_positions_give_no_vectors(name):
    assert POSITION_MODULES[name](torch.zeros(0, dtype=torch.long)).shape == (0, 8)
    assert POSITION_MODULES[name](torch.zeros(2, 0, dtype=torch.long)).shape == (
        2,
        0,
        8,
    )
    assert sinusoidal_positional_encoding(0, 8).shape == (0, 8)


def test_padding_rows_give_no_nan():
    all_padding = torch.zeros(2, 5, dtype=torch.long)  # every id is [PAD]
    out = EncoderEmbeddings(50, 8, max_len=16, eps=1e-12).eval()(all_padding)
    assert out.shape == (2, 5, 8) and not out.isnan().any()


def test_tables_hold_no_nan_at_any_position():
    table = sinusoidal_positional_encoding(100_000, 64)
    assert not table.isnan().any() and table.abs().max() <= 1.0
    assert sinusoidal_positional_encoding(3, 4, dtype=torch.float64).dtype == (
        torch.float64
    )


def test_values_are_checked_without_a_wait_on_the_gpu_path():
    # As on a GPU (encoderlib.checks.count_host_reads): the ids' values are not read.
    with count_host_reads() as reads:
        LAYER(IDS, token_type_ids=torch.ones_like(IDS), position_ids=IDS[:1])
        SINUSOIDAL(IDS)
        LEARNED(IDS)
    assert reads == []
