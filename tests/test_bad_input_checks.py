"""Bad input to encoderlib.checks itself (chapter 1): the wording every module shares.

Each check is called the way a module calls it, with the kind of mistake it
exists to catch; the message must name the parameter, what was expected and
what was received, in the same words everywhere. `compiling` takes no argument,
so it has no bad input.
"""

import math
import sys

import pytest
import torch
from bad_input import flag_cases, positive_int_cases, rate_cases, sweep

from encoderlib import Encoder, EncoderConfig, WordPieceTokenizer, checks

IDS = torch.tensor([[1, 2, 3]])


class _Odd(torch.Tensor):
    """A tensor subclass, as serving copies hold their weights."""


def _with_buffer(tensor: torch.Tensor) -> torch.nn.Module:
    module = torch.nn.Linear(2, 2)
    module.register_buffer("odd", tensor)
    return module


CASES = {
    **positive_int_cases(
        "ch01 check_positive_int",
        "n_heads",
        lambda v: checks.check_positive_int("n_heads", v),
    ),
    **flag_cases("ch01 check_flag", "scale", lambda v: checks.check_flag("scale", v)),
    **rate_cases(
        "ch01 check_rate", "dropout", lambda v: checks.check_rate("dropout", v)
    ),
    "ch01 integral: a bool is no integer": (
        lambda: checks.integral("n", True, "an int"),
        TypeError,
        r"expected n as an int, got bool True",
    ),
    "ch01 integral: a float, with the caller's wording": (
        lambda: checks.integral("d_ff", 2.0, "a positive int"),
        TypeError,
        r"expected d_ff as a positive int, got float 2.0",
    ),
    "ch01 check_int: str": (
        lambda: checks.check_int("n", "3"),
        TypeError,
        r"expected n as an int, got str '3'",
    ),
    "ch01 check_int: below low": (
        lambda: checks.check_int("n", -1, low=0),
        ValueError,
        r"expected n as an int >= 0, got -1",
    ),
    "ch01 check_number: open low end": (
        lambda: checks.check_number("eps", 0.0, 0, None, low_inclusive=False),
        ValueError,
        r"expected eps > 0, got 0.0",
    ),
    "ch01 check_number: infinity": (
        lambda: checks.check_number("lr", math.inf),
        ValueError,
        r"lr as a finite float, got inf",
    ),
    "ch01 check_number: closed interval": (
        lambda: checks.check_number("p", 1.5, 0, 1, high_inclusive=True),
        ValueError,
        r"expected p in \[0, 1\], got 1.5",
    ),
    "ch01 check_choice: unknown": (
        lambda: checks.check_choice("pooling", "avg", ("cls", "mean")),
        ValueError,
        r"expected pooling as one of 'cls', 'mean', got 'avg'",
    ),
    "ch01 check_choice: not a str": (
        lambda: checks.check_choice("pooling", 1, ("cls",)),
        TypeError,
        r"pooling as one of 'cls', got int 1",
    ),
    "ch01 check_seed: too large": (
        lambda: checks.check_seed("seed", 2**64),
        ValueError,
        r"seed in \[-2\*\*63, 2\*\*64\)",
    ),
    "ch01 check_seed: float": (
        lambda: checks.check_seed("seed", 1.0),
        TypeError,
        r"seed as an int, got float 1.0",
    ),
    "ch01 check_path: int": (
        lambda: checks.check_path("path", 3),
        TypeError,
        r"path as a str or pathlib.Path, got int 3",
    ),
    "ch01 check_labels: a str": (
        lambda: checks.check_labels("row_labels", "abc"),
        TypeError,
        r"row_labels as a list of labels",
    ),
    "ch01 check_labels: too few": (
        lambda: checks.check_labels("row_labels", ["a"], 2),
        ValueError,
        r"expected 2 row_labels, got 1",
    ),
    "ch01 check_tensor: a list": (
        lambda: checks.check_tensor("x", [1.0]),
        TypeError,
        r"expected x as a torch.Tensor, got list",
    ),
    "ch01 check_floating: integers": (
        lambda: checks.check_floating("x", IDS),
        TypeError,
        r"x with a floating dtype, got torch.int64",
    ),
    "ch01 check_same_dtype: float64 into float32": (
        lambda: checks.check_same_dtype(
            "x", torch.zeros(1, dtype=torch.float64), torch.zeros(1)
        ),
        TypeError,
        r"expected x of dtype torch.float32 .*got torch.float64",
    ),
    "ch01 check_plain_weights: a subclass among the buffers": (
        lambda: checks.check_plain_weights(
            "model", _with_buffer(torch.zeros(1).as_subclass(_Odd)), "do this"
        ),
        ValueError,
        r"expected model with plain tensors as weights, got _Odd: do this",
    ),
    "ch01 check_shape: wrong rank": (
        lambda: checks.check_shape("x", torch.zeros(2, 3), (2, None, 3), "b n d"),
        ValueError,
        r"expected x of shape \(b, n, d\) = \(2, \*, 3\), got \(2, 3\)",
    ),
    "ch01 check_values: a false entry": (
        lambda: checks.check_values(
            torch.tensor([True, False]), ValueError, "expected all true"
        ),
        ValueError,
        r"expected all true",
    ),
    "ch01 check_ids: floats": (
        lambda: checks.check_ids("input_ids", IDS.float(), None, 5),
        TypeError,
        r"input_ids with an integer dtype",
    ),
    "ch01 check_ids: bool": (
        lambda: checks.check_ids("input_ids", IDS.bool(), None, 5),
        TypeError,
        r"integer dtype, got torch.bool",
    ),
    "ch01 check_ids: out of range": (
        lambda: checks.check_ids("input_ids", IDS, (1, 3), 3),
        ValueError,
        r"expected input_ids in \[0, 3\), got values from 1 to 3",
    ),
    "ch01 check_ids: wrong shape": (
        lambda: checks.check_ids("input_ids", IDS, (2, 3), 5),
        ValueError,
        r"input_ids of shape \(b, n\) = \(2, 3\), got \(1, 3\)",
    ),
    "ch01 as_bool_mask: floats": (
        lambda: checks.as_bool_mask("attention_mask", IDS.float(), (1, 3)),
        TypeError,
        r"attention_mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "ch01 as_bool_mask: a 2": (
        lambda: checks.as_bool_mask("attention_mask", IDS, (1, 3)),
        ValueError,
        r"attention_mask values 0 or 1 \(1 = real token\), got \[1, 2, 3\]",
    ),
    "ch01 as_bool_mask: wrong shape": (
        lambda: checks.as_bool_mask("attention_mask", IDS, (2, 3)),
        ValueError,
        r"attention_mask of shape \(b, n\) = \(2, 3\), the same shape as input_ids",
    ),
    "ch01 fail_type and describe: a tensor": (
        lambda: checks.check_flag("flag", torch.ones(2)),
        TypeError,
        r"flag as a bool, got a Tensor of shape \(2,\) and dtype torch.float32",
    ),
    "ch01 count_host_reads: as_on_a_gpu not a bool": (
        lambda: checks.count_host_reads(as_on_a_gpu="yes").__enter__(),
        TypeError,
        r"as_on_a_gpu as a bool, got str 'yes'",
    ),
    "ch01 reads_values: not a tensor": (
        lambda: checks.reads_values("cpu"),
        TypeError,
        r"tensor as a torch.Tensor, got str 'cpu'",
    ),
    "ch01 check_device: an int": (
        lambda: checks.check_device("device", 0),
        TypeError,
        r"expected device as a device name or torch.device, got int 0",
    ),
    "ch01 check_device: a name torch cannot read": (
        lambda: checks.check_device("device", "gpu"),
        ValueError,
        r"expected device as a name such as 'cpu' or 'cuda:0', got 'gpu'",
    ),
    "ch01 check_device: meta": (
        lambda: checks.check_device("device", torch.device("meta")),
        ValueError,
        r"expected device as a device that holds data, got 'meta'",
    ),
    "ch01 check_device: a GPU past the count": (
        lambda: checks.check_device("device", "cuda:64"),
        ValueError,
        r"expected device as a device this machine has, got 'cuda:64': "
        r"torch.cuda.device_count\(\) is \d+",
    ),
    "ch01 check_tokenizer: a str": (
        lambda: checks.check_tokenizer("tokenizer", "bert-base-uncased"),
        TypeError,
        r"tokenizer as a tokenizer \(with encode, encode_pair, __call__, "
        r"pad_token_id, vocab_size\), got str 'bert-base-uncased' lacking encode_pair",
    ),
    "ch01 check_tokenizer: a class, not an instance": (
        lambda: checks.check_tokenizer("tokenizer", WordPieceTokenizer),
        TypeError,
        r"tokenizer as a tokenizer .*got type",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_import_optional_names_the_caller_and_the_pip_command(monkeypatch):
    assert checks.import_optional("math", "anything", "math") is math
    monkeypatch.setitem(sys.modules, "datasets", None)  # its import now fails
    with pytest.raises(ImportError, match=r"^f needs the datasets package: "):
        checks.import_optional("datasets", "f", "datasets")


def test_without_datasets_or_numpy_the_error_says_what_to_install(monkeypatch):
    # Each function that imports an optional package when called, with it hidden.
    from encoderlib import SentenceEncoder, load_text_classification, tokenize_dataset
    from encoderlib.word_order import make_word_order_dataset

    task = make_word_order_dataset(n_train=4, n_test=2)  # before datasets hides
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat"]
    tokenizer = WordPieceTokenizer(words)
    monkeypatch.setitem(sys.modules, "datasets", None)
    for name, call in {
        "make_word_order_dataset": lambda: make_word_order_dataset(n_train=2),
        "load_text_classification": lambda: load_text_classification("word_order"),
        "tokenize_dataset": lambda: tokenize_dataset(task["train"], tokenizer),
    }.items():
        with pytest.raises(ImportError, match=rf"^{name} needs the datasets package"):
            call()
    monkeypatch.setitem(sys.modules, "numpy", None)
    model = SentenceEncoder(tokenizer, Encoder(EncoderConfig.tiny(vocab_size=7)))
    model.encode(["the cat"])  # a tensor needs no numpy
    with pytest.raises(ImportError, match=r"convert_to_numpy=True\) needs the numpy"):
        model.encode(["the cat"], convert_to_numpy=True)
