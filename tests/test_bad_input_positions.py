"""Bad input to chapter 17's relative positions (in encoderlib.embeddings).

`t5_relative_bucket`, `T5RelativePositionBias`, `alibi_slopes`, `ALiBiBias` and
`RotaryEmbedding` are fed each class of bad input (wrong Python types, float or
bool tensors where integers belong, integer tensors where floats belong, wrong
ranks and sizes, odd widths, bases and bucket counts out of range) and must raise
a TypeError or ValueError from encoderlib.checks' rules, naming what was expected
and what was received. Empty inputs (n = 0) give empty results of the right
shape, and offsets of every integer dtype, its extremes included, land in a
bucket.
"""

import pytest
import torch
from bad_input import positive_int_cases, sweep

from encoderlib.embeddings import (
    ALiBiBias,
    RotaryEmbedding,
    T5RelativePositionBias,
    alibi_slopes,
    t5_relative_bucket,
)

ONE = torch.tensor([1])


def length_cases(prefix: str, make) -> dict:
    """Cases for a sequence length n: an int >= 0."""
    return {
        f"{prefix}: n as float": (
            lambda: make(5.0),
            TypeError,
            r"n as an int >= 0, got float 5.0",
        ),
        f"{prefix}: n as tensor": (
            lambda: make(torch.tensor(5)),
            TypeError,
            r"n as an int >= 0, got a Tensor",
        ),
        f"{prefix}: n -1": (lambda: make(-1), ValueError, r"n as an int >= 0, got -1"),
    }


T5 = {
    "ch17 t5_relative_bucket: list": (
        lambda: t5_relative_bucket([0, 1]),
        TypeError,
        r"relative_position as a torch.Tensor, got list",
    ),
    "ch17 t5_relative_bucket: float tensor": (
        lambda: t5_relative_bucket(torch.tensor([0.0, 1.0])),
        TypeError,
        r"integer tensor, got dtype torch.float32",
    ),
    "ch17 t5_relative_bucket: bool tensor": (
        lambda: t5_relative_bucket(torch.tensor([True])),
        TypeError,
        r"integer tensor, got dtype torch.bool",
    ),
    "ch17 t5_relative_bucket: odd n_buckets": (
        lambda: t5_relative_bucket(ONE, n_buckets=9),
        ValueError,
        r"even n_buckets >= 4, got 9",
    ),
    "ch17 t5_relative_bucket: n_buckets 2": (
        lambda: t5_relative_bucket(ONE, n_buckets=2),
        ValueError,
        r"even n_buckets >= 4, got 2",
    ),
    "ch17 t5_relative_bucket: max_distance inside the exact range": (
        lambda: t5_relative_bucket(ONE, n_buckets=32, max_distance=8),
        ValueError,
        r"max_distance > n_buckets // 4 = 8, got 8",
    ),
    **positive_int_cases(
        "ch17 t5_relative_bucket",
        "n_buckets",
        lambda v: t5_relative_bucket(ONE, n_buckets=v),
    ),
    **positive_int_cases(
        "ch17 t5_relative_bucket",
        "max_distance",
        lambda v: t5_relative_bucket(ONE, max_distance=v),
    ),
    **positive_int_cases(
        "ch17 T5RelativePositionBias", "n_heads", T5RelativePositionBias
    ),
    "ch17 T5RelativePositionBias: odd buckets": (
        lambda: T5RelativePositionBias(4, n_buckets=7),
        ValueError,
        r"even n_buckets >= 4, got 7",
    ),
    **length_cases(
        "ch17 T5RelativePositionBias.forward", lambda n: T5RelativePositionBias(4)(n)
    ),
}

ALIBI = {
    **positive_int_cases("ch17 alibi_slopes", "n_heads", alibi_slopes),
    **positive_int_cases("ch17 ALiBiBias", "n_heads", ALiBiBias),
    **length_cases("ch17 ALiBiBias.forward", lambda n: ALiBiBias(4)(n)),
}

ROPE = {
    **positive_int_cases("ch17 RotaryEmbedding", "d_head", RotaryEmbedding),
    "ch17 RotaryEmbedding: odd d_head": (
        lambda: RotaryEmbedding(7),
        ValueError,
        r"even d_head \(pairs\), got 7",
    ),
    "ch17 RotaryEmbedding: theta 1": (
        lambda: RotaryEmbedding(8, theta=1.0),
        ValueError,
        r"theta > 1, got 1.0",
    ),
    "ch17 RotaryEmbedding: theta inf": (
        lambda: RotaryEmbedding(8, theta=float("inf")),
        ValueError,
        r"theta > 1, got inf",
    ),
    "ch17 RotaryEmbedding: theta nan": (
        lambda: RotaryEmbedding(8, theta=float("nan")),
        ValueError,
        r"theta > 1, got nan",
    ),
    "ch17 RotaryEmbedding: theta as str": (
        lambda: RotaryEmbedding(8, theta="10000"),
        TypeError,
        r"theta as a float, got str '10000'",
    ),
    "ch17 RotaryEmbedding: interleaved as int": (
        lambda: RotaryEmbedding(8, interleaved=1),
        TypeError,
        r"interleaved as a bool, got int 1",
    ),
    "ch17 RotaryEmbedding.rotate: integers": (
        lambda: RotaryEmbedding(8).rotate(torch.ones(2, 3, 8, dtype=torch.long)),
        TypeError,
        r"x with a floating dtype, got torch.int64",
    ),
    "ch17 RotaryEmbedding.rotate: list": (
        lambda: RotaryEmbedding(8).rotate([[0.0] * 8]),
        TypeError,
        r"x as a torch.Tensor, got list",
    ),
    "ch17 RotaryEmbedding.rotate: wrong d_head": (
        lambda: RotaryEmbedding(8).rotate(torch.randn(2, 3, 6)),
        ValueError,
        r"shape \(\.\.\., n, d_head=8\), got \(2, 3, 6\)",
    ),
    "ch17 RotaryEmbedding.rotate: rank 1": (
        lambda: RotaryEmbedding(8).rotate(torch.randn(8)),
        ValueError,
        r"shape \(\.\.\., n, d_head=8\), got \(8,\)",
    ),
    "ch17 RotaryEmbedding.forward: k of the wrong width": (
        lambda: RotaryEmbedding(8)(torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 4)),
        ValueError,
        r"d_head=8\), got \(1, 2, 3, 4\)",
    ),
    "ch17 RotaryEmbedding.rotate: one position too few": (
        lambda: RotaryEmbedding(8).rotate(torch.randn(2, 3, 8), torch.arange(2)),
        ValueError,
        r"expected positions of shape \(n\) = \(3\), got \(2,\)",
    ),
    **length_cases(
        "ch17 RotaryEmbedding.angles", lambda n: RotaryEmbedding(8).angles(n)
    ),
}

test_bad_input_raises_a_clear_error = sweep({**T5, **ALIBI, **ROPE})


@pytest.mark.parametrize("n", [0, 1])
def test_empty_inputs_give_empty_results(n):
    assert T5RelativePositionBias(4)(n).shape == (4, n, n)
    assert ALiBiBias(4)(n).shape == (4, n, n)
    assert t5_relative_bucket(torch.zeros(0, dtype=torch.long)).shape == (0,)
    rope = RotaryEmbedding(8)
    q = torch.randn(2, 3, n, 8)
    assert rope(q, q)[0].shape == (2, 3, n, 8)
    assert rope.angles(n).shape == (n, 4)


@pytest.mark.parametrize(
    "dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
)
def test_t5_buckets_of_every_integer_dtype_at_its_extremes(dtype):
    # abs() of a dtype's minimum overflows in that dtype (abs(-128) is -128 in
    # int8, and int64's minimum too): the offsets are widened and cut at
    # max_distance first, so every bucket is in [0, n_buckets).
    info = torch.iinfo(dtype)
    offsets = torch.tensor([info.min, info.min + 1, -1, 0, 1, info.max], dtype=dtype)
    buckets = t5_relative_bucket(offsets, n_buckets=32, max_distance=128)
    assert buckets.dtype == torch.int64
    assert ((buckets >= 0) & (buckets < 32)).all(), buckets
    wide = t5_relative_bucket(offsets.long(), n_buckets=32, max_distance=128)
    assert torch.equal(buckets, wide)
