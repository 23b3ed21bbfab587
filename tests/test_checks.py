"""encoderlib.checks, the contract layer: one rule per kind of mistake.

The bad-input sweep (tests/test_bad_input_checks.py) covers the messages; these
tests pin the behaviour the other modules rely on: values pass through (ids
widened, masks as bool), value checks read on the CPU and never on a device
without host reads, and count_host_reads counts what would wait.
"""

import pytest
import torch

from encoderlib import checks


def test_checks_return_what_they_accept():
    assert checks.check_positive_int("n", 3) == 3
    assert checks.check_int("n", 0, low=0) == 0
    assert checks.check_number("p", 1, 0, 1, high_inclusive=True) == 1.0
    assert checks.check_rate("dropout", 0.0) == 0.0
    assert checks.check_flag("f", False) is False
    assert checks.check_choice("pooling", "mean", ("cls", "mean")) == "mean"
    assert checks.check_seed("seed", 2**64 - 1) == 2**64 - 1
    assert str(checks.check_path("path", "a/b")) == "a/b"


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
def test_small_integer_ids_are_widened_never_read_as_a_mask(dtype):
    ids = checks.check_ids(
        "input_ids", torch.tensor([[1, 0, 2]], dtype=dtype), (1, 3), 5
    )
    assert ids.dtype == torch.int64 and ids.tolist() == [[1, 0, 2]]


def test_int32_and_int64_ids_pass_unchanged():
    for dtype in (torch.int32, torch.int64):
        ids = torch.tensor([[1, 2]], dtype=dtype)
        assert checks.check_ids("input_ids", ids, None, None) is ids


def test_integer_masks_become_bool_and_bool_masks_pass_through():
    mask = torch.tensor([[1, 0]])
    assert checks.as_bool_mask("attention_mask", mask, (1, 2)).tolist() == [
        [True, False]
    ]
    same = torch.tensor([[True, False]])
    assert checks.as_bool_mask("attention_mask", same, (1, 2)) is same
    assert checks.as_bool_mask("attention_mask", None, (1, 2)) is None


def test_value_checks_read_nothing_on_a_device_without_host_reads():
    # On the meta device (no data) the check can neither read nor queue: it passes.
    ids = torch.empty(2, 3, dtype=torch.long, device="meta")
    assert checks.check_ids("input_ids", ids, (2, 3), 10) is ids
    with checks.count_host_reads() as reads:
        checks.check_ids("input_ids", torch.tensor([[1, 2]]), (1, 2), 10)
    assert reads == []  # queued with torch._assert_async, not read


def test_without_host_reads_a_bad_value_still_fails_when_the_queue_runs():
    with checks.count_host_reads(), pytest.raises(RuntimeError, match="input_ids in"):
        checks.check_ids("input_ids", torch.tensor([[1, 12]]), (1, 2), 10)


def test_count_host_reads_counts_what_would_wait():
    x = torch.arange(6)
    with checks.count_host_reads() as reads:
        x.tolist()
        bool(x.any())
        x[x > 2]
        x.nonzero()
    assert reads == [
        "tolist",
        "_local_scalar_dense",
        "index by a boolean mask",
        "nonzero",
    ]
    assert checks.reads_values(x)  # restored after the block


def test_reads_values_is_true_on_the_cpu_only():
    assert checks.reads_values(torch.zeros(1))
    assert not checks.reads_values(torch.zeros(1, device="meta"))


def test_an_encoder_reports_bad_ids_and_masks_in_the_checks_words(tiny_encoder):
    encoder = tiny_encoder()
    ids = torch.tensor([[1, 2, 60]])
    with pytest.raises(ValueError, match=r"expected input_ids in \[0, 50\)"):
        encoder(ids)
    with pytest.raises(ValueError, match=r"attention_mask values 0 or 1"):
        encoder(ids.clamp(max=5), torch.tensor([[1, 2, 1]]))


def test_check_tokenizer_accepts_any_object_with_the_interface():
    """Chapter 2's tokenizer passes, and so does any object of the same shape."""
    from encoderlib import WordPieceTokenizer

    tokenizer = WordPieceTokenizer.from_minilm()
    assert checks.check_tokenizer("tokenizer", tokenizer) is tokenizer

    class Shaped:
        pad_token_id, vocab_size = 0, 10

        def encode(self, text, max_length=None):
            return [1, 2]

        def encode_pair(self, a, b, max_length=None):
            return [1, 2], [0, 0]

        def __call__(self, texts):
            return {}

    shaped = Shaped()
    assert checks.check_tokenizer("tokenizer", shaped) is shaped
    shaped.pad_token_id = True  # a bool is not an id
    with pytest.raises(TypeError, match="int pad_token_id and vocab_size"):
        checks.check_tokenizer("tokenizer", shaped)


def test_numpy_scalars_pass_as_python_numbers():
    import numpy as np

    # A count from a NumPy array (len of a split, an argmax) is an int to a reader.
    for check in (checks.check_int, checks.check_positive_int, checks.check_seed):
        value = check("n", np.int64(3))
        assert value == 3 and type(value) is int
    rate = checks.check_rate("dropout", np.float32(0.25))
    assert rate == 0.25 and type(rate) is float
    for bad in (np.bool_(True), True, np.float64(3.0), "3"):
        with pytest.raises(TypeError, match="expected n as"):
            checks.check_positive_int("n", bad)
    with pytest.raises(ValueError, match="got 0"):
        checks.check_positive_int("n", np.int32(0))
    with pytest.raises(ValueError, match="expected dropout in"):
        checks.check_rate("dropout", np.float32("nan"))
