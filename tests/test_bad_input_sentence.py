"""Bad input to encoderlib.sentence: `SentenceEncoder` and `load_minilm` (chapter 13).

`encode`'s options (`show_progress_bar`, `device`, `convert_to_numpy`,
`precision`, `truncate_dim`) and the constructor's `pooling` and `normalize`
are swept too.

The constructor, `encode` (and `forward`, which is `encode`),
`check_encode_arguments`, `SentenceEncoder.save_pretrained` and `load_minilm`
get the classes of bad input a reader meets: wrong Python types, a tokenizer
that does not fit the model, lengths out of range, unordered or non-str
sentences, batch sizes below one, and folders with a missing file, another
sentence-transformers pipeline or a broken `max_seq_length`. Each must raise a
`TypeError` or `ValueError` (a missing file: `FileNotFoundError`) naming what
was expected and what was received; empty inputs give empty results.

Everything runs on a tiny random BERT-shaped encoder, written once with
`save_pretrained` into a temporary folder, so the sweep needs no model download.
"""

import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch
from bad_input import flag_cases, positive_int_cases, scratch_folder, sweep
from torch import nn

from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.saving import save_pretrained
from encoderlib.sentence import (
    SentenceEncoder,
    check_encode_arguments,
    load_minilm,
    sentence_pipeline,
)
from encoderlib.tokenization import WordPieceTokenizer

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LETTERS = list("abcdefghijklmnopqrstuvwxyz")
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", ".", ","]
VOCAB = SPECIALS + LETTERS + ["##" + c for c in LETTERS] + WORDS
N = len(VOCAB)
BERT = {
    "vocab_size": N,
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}
TEXTS = ["the cat sat on the mat.", "a dog ran.", ""]


@cache
def encoder() -> SentenceEncoder:
    torch.manual_seed(0)
    model = Encoder(config_from_bert(BERT)).eval()
    return SentenceEncoder(WordPieceTokenizer(VOCAB), model, max_length=64)


@cache
def folder() -> Path:
    """The tiny encoder written as a sentence-transformers folder, once."""
    root = scratch_folder("bad-input-sentence-")
    return save_pretrained(root / "small", encoder().model, encoder().tokenizer)


def changed_folder(name: str, content) -> Path:
    """A copy of `folder()` whose file `name` holds `content` (None: deleted)."""
    target = scratch_folder("bad-input-sentence-") / "copy"
    shutil.copytree(folder(), target)
    if content is None:
        (target / name).unlink()
    else:
        (target / name).write_text(json.dumps(content), encoding="utf-8")
    return target


def with_two_poolings() -> Path:
    pooling = json.loads((folder() / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=True)
    return changed_folder("1_Pooling/config.json", pooling)


def build(tokenizer=None, model=None, **kwargs):
    tokenizer = encoder().tokenizer if tokenizer is None else tokenizer
    model = encoder().model if model is None else model
    return SentenceEncoder(tokenizer, model, **kwargs)


PIPELINE = [
    {"type": "sentence_transformers.models.Transformer", "path": ""},
    {"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"},
    {"type": "sentence_transformers.models.Dense", "path": "2_Dense"},
]

CONSTRUCTOR = {
    **{
        f"ch13 SentenceEncoder: tokenizer as {label}": (
            lambda v=value: SentenceEncoder(v, encoder().model),
            TypeError,
            rf"expected tokenizer as a tokenizer \(with encode, .*\), got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("str", "vocab.txt", "str"),
            ("list", ["[PAD]"], "list"),
        ]
    },
    **{
        f"ch13 SentenceEncoder: model as {label}": (
            lambda v=value: SentenceEncoder(encoder().tokenizer, v),
            TypeError,
            rf"expected model as an encoderlib Encoder, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("Linear", nn.Linear(32, 32), "Linear"),
            ("str", "model", "str"),
        ]
    },
    "ch13 SentenceEncoder: a vocabulary larger than the model's": (
        lambda: build(WordPieceTokenizer(VOCAB + ["extra"])),
        ValueError,
        rf"expected a tokenizer with at most the model's {N} tokens, got {N + 1}",
    ),
    "ch13 SentenceEncoder: another model's padding id": (
        lambda: build(
            model=Encoder(encoder().model.config.replace(pad_token_id=1)),
            max_length=64,
        ),
        ValueError,
        r"expected a tokenizer whose padding id is the model's pad_token_id 1, "
        r"got 0: is it this model's tokenizer\?",
    ),
    "ch13 SentenceEncoder: pooling as int": (
        lambda: build(pooling=1, max_length=64),
        TypeError,
        r"expected pooling as one of 'cls', 'mean', 'max', got int 1",
    ),
    "ch13 SentenceEncoder: pooling 'attention'": (
        lambda: build(pooling="attention", max_length=64),
        ValueError,
        r"expected pooling as one of 'cls', 'mean', 'max', got 'attention'",
    ),
    **flag_cases(
        "ch13 SentenceEncoder", "normalize", lambda v: build(normalize=v, max_length=64)
    ),
    **{
        f"ch13 SentenceEncoder: max_length as {type(value).__name__}": (
            lambda v=value: build(max_length=v),
            TypeError,
            r"expected max_length as an int, got",
        )
        for value in ["256", 2.5, True]  # None: the default, 256 or what fits
    },
    **{
        f"ch13 SentenceEncoder: max_length {value}": (
            lambda v=value: build(max_length=v),
            ValueError,
            rf"expected max_length in \[2, 64\] \(the positions the model has\), "
            rf"got {value}",
        )
        for value in [1, 0, -3, 65]
    },
}

ENCODE = {
    **{
        f"ch13 SentenceEncoder.{how}: sentences as {label}": (
            lambda v=value, h=how: getattr(encoder(), h)(v),
            TypeError,
            message,
        )
        for how in ("encode", "forward")
        for label, value, message in [
            ("None", None, r"expected a list of str, got NoneType"),
            ("int", 3, r"expected a list of str, got int"),
            ("str", "the cat", r"expected a list of str, got a single str"),
            ("set", {"a", "b"}, r"expected an ordered list of str, got a set"),
            ("dict", {"a": 1}, r"expected an ordered list of str, got a dict"),
            ("[None]", [None], r"expected a list of str, got NoneType at index 0"),
            (
                "[str, int]",
                ["the cat", 3],
                r"expected a list of str, got int at index 1",
            ),
            ("[bytes]", [b"bytes"], r"expected a list of str, got bytes at index 0"),
            (
                "tensor",
                torch.tensor([1, 2]),
                r"expected a list of str, got Tensor at index 0",
            ),
            (
                "numpy",
                np.array([1, 2]),
                r"expected a list of str, got int64 at index 0",
            ),
        ]
    },
    **positive_int_cases(
        "ch13 SentenceEncoder.encode",
        "batch_size",
        lambda v: encoder().encode(TEXTS, batch_size=v),
    ),
    **{
        f"ch13 SentenceEncoder.encode: normalize as {type(value).__name__}": (
            lambda v=value: encoder().encode(TEXTS, normalize=v),
            TypeError,
            r"normalize\b.*bool",
        )
        for value in (1, "yes")
    },
    **{
        f"ch13 SentenceEncoder.encode: {name} as {type(value).__name__}": (
            lambda n=name, v=value: encoder().encode(TEXTS, **{n: v}),
            TypeError,
            rf"{name}\b.*bool",
        )
        for name in ("show_progress_bar", "convert_to_numpy")
        for value in (1, "yes", None)
    },
    **{
        f"ch13 SentenceEncoder.encode: precision {value!r}": (
            lambda v=value: encoder().encode(TEXTS, precision=v),
            error,
            r"expected precision as one of 'float32', 'float16', 'bfloat16', got "
            + got,
        )
        for value, error, got in [
            ("int8", ValueError, "'int8'"),
            ("fp16", ValueError, "'fp16'"),
            (torch.float16, TypeError, "dtype"),
            (None, TypeError, "None"),
        ]
    },
    "ch13 SentenceEncoder.encode: float16 on the CPU": (
        lambda: encoder().encode(TEXTS, precision="float16", device="cpu"),
        ValueError,
        r"expected precision 'float32' or 'bfloat16' on the CPU, got 'float16'",
    ),
    **{
        f"ch13 SentenceEncoder.encode: truncate_dim {value!r}": (
            lambda v=value: encoder().encode(TEXTS, truncate_dim=v),
            error,
            message,
        )
        for value, error, message in [
            ("8", TypeError, r"expected truncate_dim as an int, got str '8'"),
            (8.0, TypeError, r"expected truncate_dim as an int, got float 8\.0"),
            (True, TypeError, r"expected truncate_dim as an int, got bool True"),
            (0, ValueError, r"expected truncate_dim in \[1, 32\], got 0"),
            (33, ValueError, r"expected truncate_dim in \[1, 32\], got 33"),
        ]
    },
    **{
        f"ch13 SentenceEncoder.encode: device {value!r}": (
            lambda v=value: encoder().encode(TEXTS, device=v),
            error,
            message,
        )
        for value, error, message in [
            (0, TypeError, r"expected device as a device name or torch\.device, got"),
            ("gpu", ValueError, r"expected device as a name such as 'cpu'.*'gpu'"),
            ("meta", ValueError, r"expected device as a device that holds data"),
            ("cuda:0", ValueError, r"device as a device this machine has, got 'cuda:0'")
            if not torch.cuda.is_available()
            else ("tpu", ValueError, r"expected device as a name such as"),
        ]
    },
    **positive_int_cases(
        "ch13 check_encode_arguments",
        "batch_size",
        lambda v: check_encode_arguments(TEXTS, v, True),
    ),
    **flag_cases(
        "ch13 check_encode_arguments",
        "normalize",
        lambda v: check_encode_arguments(TEXTS, 8, v),
    ),
    "ch13 SentenceEncoder.save_pretrained: normalize as str": (
        lambda: encoder().save_pretrained(
            Path(tempfile.gettempdir()) / "never", normalize="yes"
        ),
        TypeError,
        r"expected normalize as a bool, got str 'yes'",
    ),
    "ch13 SentenceEncoder.save_pretrained: path None": (
        lambda: encoder().save_pretrained(None),
        TypeError,
        r"expected path as a folder path, got None",
    ),
}

LOAD = {
    **{
        f"ch13 load_minilm: path as {label}": (
            lambda v=value: load_minilm(v),
            TypeError,
            rf"expected path as a folder path or None, got {kind}",
        )
        for label, value, kind in [
            ("int", 3, "int 3"),
            ("list", ["folder"], "list"),
            ("bytes", b"folder", "bytes"),
        ]
    },
    **{
        f"ch13 load_minilm: no {name}": (
            lambda n=name: load_minilm(changed_folder(n, None)),
            FileNotFoundError,
            rf"expected {name} in .*not there \(encoderlib.from_pretrained reads",
        )
        for name in ["config.json", "vocab.txt", "model.safetensors"]
    },
    "ch13 load_minilm: modules.json a dict": (
        lambda: load_minilm(changed_folder("modules.json", {"type": "x"})),
        ValueError,
        r"expected modules\.json to be a list of .*, got \{'type': 'x'\}",
    ),
    "ch13 load_minilm: a module without a type": (
        lambda: load_minilm(changed_folder("modules.json", [{"path": ""}])),
        ValueError,
        r"expected modules\.json to be a list of",
    ),
    "ch13 load_minilm: a Dense module": (
        lambda: load_minilm(changed_folder("modules.json", PIPELINE)),
        ValueError,
        r"expected the sentence-transformers modules Transformer, Pooling and "
        r"optionally Normalize, got \['Transformer', 'Pooling', 'Dense'\]",
    ),
    "ch13 load_minilm: two poolings at once": (
        lambda: load_minilm(with_two_poolings()),
        ValueError,
        r"expected one of cls, mean or max pooling in 1_Pooling/config\.json, got "
        r"\['pooling_mode_cls_token', 'pooling_mode_mean_tokens'\]",
    ),
    "ch13 sentence_pipeline: a path that is not a str or Path": (
        lambda: sentence_pipeline(42),
        TypeError,
        r"expected path as a str or pathlib\.Path, got int 42",
    ),
    "ch13 sentence_pipeline: a Dense module, named": (
        lambda: sentence_pipeline(changed_folder("modules.json", PIPELINE)),
        ValueError,
        r"got \['Transformer', 'Pooling', 'Dense'\] in modules\.json: a "
        r"SentenceEncoder cannot compute \['Dense'\]",
    ),
    "ch13 load_minilm: weighted-mean pooling": (
        lambda: load_minilm(
            changed_folder("1_Pooling/config.json", {"pooling_mode": "weightedmean"})
        ),
        ValueError,
        r"expected one of cls, mean or max pooling .*, got \['weightedmean'\]",
    ),
    **{
        f"ch13 load_minilm: sentence_bert_config.json {settings}": (
            lambda s=settings: load_minilm(
                changed_folder("sentence_bert_config.json", s)
            ),
            ValueError,
            message,
        )
        for settings, message in [
            (
                {},
                r"expected an int max_seq_length in sentence_bert_config\.json, "
                r"got None",
            ),
            ({"max_seq_length": "64"}, r"expected an int max_seq_length .*, got '64'"),
            ({"max_seq_length": 64.0}, r"expected an int max_seq_length .*, got 64\.0"),
            (
                {"max_seq_length": 1000},
                r"expected max_seq_length in \[2, 64\] .*, got 1000",
            ),
            ({"max_seq_length": 1}, r"expected max_seq_length in \[2, 64\] .*, got 1"),
            ([64], r"expected an int max_seq_length .*, got None"),
        ]
    },
    "ch13 load_minilm: a decoder config": (
        lambda: load_minilm(
            changed_folder("config.json", {**BERT, "is_decoder": True})
        ),
        ValueError,
        r"got is_decoder=True",
    ),
}

test_bad_input_raises_a_clear_error = sweep({**CONSTRUCTOR, **ENCODE, **LOAD})


@pytest.mark.parametrize("empty", [[], ()])
def test_encode_empty_input_gives_zero_rows(empty):
    out = encoder().encode(empty)
    assert out.shape == (0, 32) and out.dtype == torch.float32


def test_encode_empty_strings_are_finite_unit_vectors():
    out = encoder().encode(["", "", "the cat"])  # [CLS] [SEP] only, padded
    assert torch.isfinite(out).all()
    assert torch.allclose(out.norm(dim=-1), torch.ones(3), atol=1e-5)


def test_encode_float64_model_still_gives_float32():
    model = Encoder(encoder().model.config)
    model.load_state_dict(encoder().model.state_dict())
    double = SentenceEncoder(encoder().tokenizer, model.double(), max_length=64)
    out = double.encode(TEXTS)
    assert out.dtype == torch.float32 and torch.isfinite(out).all()
    assert torch.allclose(out, encoder().encode(TEXTS), atol=1e-5)


def test_check_encode_arguments_reads_an_iterator_once():
    assert check_encode_arguments(iter(["a", "b"]), 1, False) == ["a", "b"]


def test_a_refused_save_writes_nothing(tmp_path):
    with pytest.raises(TypeError):
        encoder().save_pretrained(tmp_path / "x", normalize="yes")
    assert not (tmp_path / "x").exists()


def test_folder_reads_back():
    assert torch.allclose(
        load_minilm(folder()).encode(TEXTS), encoder().encode(TEXTS), atol=1e-5
    )
