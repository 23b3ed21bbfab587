"""Bad input to encoderlib.pooling (chapter 9): clear errors, and the empty cases.

`cls_pool`, `mean_pool`, `max_pool` and `AttentionPool` are fed each class of bad
input (wrong Python types, dtypes that do not match a module's parameters, masks
that are not bool or 0/1, wrong ranks and sizes, a bad `d_model` or flag) and
must raise a TypeError or ValueError from encoderlib's checks whose message names
what was expected and what was received. Empty inputs (n = 0, b = 0) and
all-padding rows give zeros of the right shape, as the docstrings promise.
"""

import pytest
import torch
from bad_input import flag_cases, positive_int_cases, sweep

from encoderlib.pooling import POOLINGS, AttentionPool, cls_pool, max_pool, mean_pool

H = torch.randn(2, 5, 8)  # (b, n, d)
MASK = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])


def pool_call(pool, *args):
    return lambda: pool(*args)


def pool_cases(prefix: str, pool) -> dict:
    """The cases every pooling shares: h and mask of the wrong kind."""
    return {
        f"{prefix}: h None": (
            pool_call(pool, None),
            TypeError,
            r"h as a torch.Tensor, got None",
        ),
        f"{prefix}: h as list": (
            pool_call(pool, H.tolist()),
            TypeError,
            r"h as a torch.Tensor, got list",
        ),
        f"{prefix}: h of integers": (
            pool_call(pool, torch.ones(2, 5, 8, dtype=torch.long)),
            TypeError,
            r"h with a floating dtype, got torch.int64",
        ),
        f"{prefix}: h of rank 2": (
            pool_call(pool, H[0]),
            ValueError,
            r"h of shape \(b, n, d\) = \(\*, \*, \*\), got \(5, 8\)",
        ),
        f"{prefix}: mask as list": (
            pool_call(pool, H, MASK.tolist()),
            TypeError,
            r"mask as a torch.Tensor, got list",
        ),
        f"{prefix}: mask of floats": (
            pool_call(pool, H, MASK.float()),
            TypeError,
            r"mask as bool or 0/1 integers, got dtype torch.float32",
        ),
        f"{prefix}: mask with a 2": (
            pool_call(pool, H, MASK * 2),
            ValueError,
            r"mask values 0 or 1 \(1 = real token\), got \[0, 2\]",
        ),
        f"{prefix}: mask of another shape": (
            pool_call(pool, H, MASK[:, :4]),
            ValueError,
            r"mask of shape \(b, n\) = \(2, 5\), the same shape as h's first two axes "
            r"\(2, 5\), got \(2, 4\)",
        ),
    }


CASES = {
    **pool_cases("ch09 cls_pool", cls_pool),
    **pool_cases("ch09 mean_pool", mean_pool),
    **pool_cases("ch09 max_pool", max_pool),
    **pool_cases("ch09 AttentionPool.forward", AttentionPool(8)),
    **positive_int_cases("ch09 AttentionPool", "d_model", AttentionPool),
    "ch09 AttentionPool.forward: h too wide": (
        lambda: AttentionPool(8)(torch.randn(2, 5, 9)),
        ValueError,
        r"h of shape \(b, n, d\) = \(\*, \*, 8\), got \(2, 5, 9\)",
    ),
    "ch09 AttentionPool.forward: h float64": (
        lambda: AttentionPool(8)(H.double()),
        TypeError,
        r"h of dtype torch.float32 \(the dtype of the weights it meets\), "
        r"got torch.float64",
    ),
    "ch09 AttentionPool.forward: h float16": (
        lambda: AttentionPool(8)(H.half(), MASK),
        TypeError,
        r"h of dtype torch.float32 .*got torch.float16",
    ),
    **flag_cases(
        "ch09 AttentionPool.forward",
        "return_weights",
        lambda value: AttentionPool(8)(H, MASK, return_weights=value),
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)

ALL_POOLS = {
    "cls_pool": cls_pool,
    "mean_pool": mean_pool,
    "max_pool": max_pool,
    "AttentionPool": AttentionPool(8),
}


def test_the_table_names_every_pooling():
    assert POOLINGS == {
        "cls": cls_pool,
        "mean": mean_pool,
        "max": max_pool,
        "attention": AttentionPool,
    }


@pytest.mark.parametrize("pool", ALL_POOLS.values(), ids=ALL_POOLS)
@pytest.mark.parametrize("with_mask", [False, True], ids=["no mask", "mask"])
def test_no_tokens_at_all_gives_zeros(pool, with_mask):
    h = torch.randn(3, 0, 8)  # n = 0: the docstrings promise zeros, not IndexError
    mask = torch.zeros(3, 0, dtype=torch.bool) if with_mask else None
    assert torch.equal(pool(h, mask), torch.zeros(3, 8))


@pytest.mark.parametrize("pool", ALL_POOLS.values(), ids=ALL_POOLS)
def test_an_empty_batch_and_all_padding_rows(pool):
    assert pool(torch.randn(0, 5, 8)).shape == (0, 8)
    mask = torch.tensor([[0, 0, 0, 0, 0], [1, 1, 0, 0, 0]])
    h = H.masked_fill(~mask.bool()[..., None], float("nan"))  # NaN at padding
    pooled = pool(h, mask)
    assert torch.equal(pooled[0], torch.zeros(8)) and pooled.isfinite().all()
