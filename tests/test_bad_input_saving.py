"""Bad input to encoderlib.saving: `save_pretrained` (chapter 13).

Wrong types for the folder, model, tokenizer, `max_length` and `normalize`, an
empty path or one that is an existing file, a `max_length` outside [2, max_len],
a tokenizer that does not fit the model, and encoders that BERT's format cannot
describe (pre-norm, sinusoidal positions, SwiGLU, a window, no biases) must each
raise a `TypeError` or `ValueError` naming what was expected and what was
received, before anything is written.
"""

import json
import tempfile
from functools import cache
from pathlib import Path

import pytest
import torch
from bad_input import flag_cases, sweep
from torch import nn

from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.saving import save_pretrained
from encoderlib.sentence import load_minilm
from encoderlib.tokenization import WordPieceTokenizer

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIALS + list("abcdefghijklmnopqrstuvwxyz") + ["the", "cat", "."]
N = len(VOCAB)
BERT = {
    "vocab_size": N,
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}
NOWHERE = Path(tempfile.gettempdir()) / "encoderlib-never-written"


@cache
def model() -> Encoder:
    torch.manual_seed(0)
    return Encoder(config_from_bert(BERT)).eval()


@cache
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(VOCAB)


DEFAULT = object()


def save(path=NOWHERE, encoder=DEFAULT, words=DEFAULT, **kwargs):
    encoder = model() if encoder is DEFAULT else encoder
    words = tokenizer() if words is DEFAULT else words
    return save_pretrained(path, encoder, words, **kwargs)


def unlike_bert(**changes) -> Encoder:
    return Encoder(config_from_bert(BERT).replace(**changes))


CASES = {
    **{
        f"ch13 save_pretrained: path as {label}": (
            lambda v=value: save(v),
            TypeError,
            rf"expected path as a folder path, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("int", 3, "int 3"),
            ("list", ["folder"], "list"),
        ]
    },
    "ch13 save_pretrained: an empty path": (
        lambda: save(""),
        ValueError,
        r"expected a folder path, got ''",
    ),
    **{
        f"ch13 save_pretrained: model as {label}": (
            lambda v=value: save(encoder=v),
            TypeError,
            rf"expected model as an encoderlib Encoder, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("Linear", nn.Linear(2, 2), "Linear"),
            ("str", "model", "str"),
        ]
    },
    **{
        f"ch13 save_pretrained: tokenizer as {label}": (
            lambda v=value: save(words=v),
            TypeError,
            rf"expected tokenizer as a WordPieceTokenizer, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("str", "vocab.txt", "str"),
            ("list", VOCAB, "list"),
        ]
    },
    **{
        f"ch13 save_pretrained: max_length {value!r}": (
            lambda v=value: save(max_length=v),
            error,
            message,
        )
        for value, error, message in [
            ("8", TypeError, r"expected max_length as an int, got str '8'"),
            (8.0, TypeError, r"expected max_length as an int, got float 8\.0"),
            (True, TypeError, r"expected max_length as an int, got bool True"),
            (1, ValueError, r"expected max_length in \[2, 64\], got 1"),
            (-8, ValueError, r"expected max_length in \[2, 64\], got -8"),
            (65, ValueError, r"expected max_length in \[2, 64\], got 65"),
        ]
    },
    **flag_cases("ch13 save_pretrained", "normalize", lambda v: save(normalize=v)),
    **{
        f"ch13 save_pretrained: {changes}": (
            lambda c=changes: save(encoder=unlike_bert(**c)),
            ValueError,
            r"BERT's format cannot express this Encoder: " + message,
        )
        for changes, message in [
            (
                {"norm_first": True},
                r"expected norm_first=False \(BERT is .*\), got True",
            ),
            (
                {"positional": "sinusoidal"},
                r"expected positional='learned' .*, got 'sinus",
            ),
            ({"activation": "swiglu"}, r"expected activation in .*, got 'swiglu'"),
            ({"window": 4}, r"expected window=None \(every BERT layer .*\), got 4"),
            (
                {"bias": False},
                r"expected bias=True \(BERT's layers have .*\), got False",
            ),
        ]
    },
    "ch13 save_pretrained: a vocabulary of another size": (
        lambda: save(words=WordPieceTokenizer(VOCAB[:-1])),
        ValueError,
        rf"expected a tokenizer with the model's {N} tokens, got {N - 1}",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_nothing_is_written_when_refused(tmp_path):
    target = tmp_path / "x"
    for bad in ({"max_length": 1}, {"normalize": "no"}):
        with pytest.raises((TypeError, ValueError)):
            save(target, **bad)
    with pytest.raises(ValueError):
        save(target, encoder=unlike_bert(norm_first=True))
    assert not target.exists()


def test_an_existing_file_is_not_a_folder(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"expected a folder path, got the file .*a_file"
    ):
        save(a_file)
    assert a_file.read_text(encoding="utf-8") == "not a folder"


def test_float64_model_reads_back(tmp_path):
    double = Encoder(model().config)
    double.load_state_dict(model().state_dict())
    folder = save(tmp_path / "double", encoder=double.double())
    assert json.loads((folder / "config.json").read_text())["torch_dtype"] == "float64"
    back = load_minilm(folder)  # a float32 Encoder, filled from float64 tensors
    assert next(back.model.parameters()).dtype == torch.float32
    single = save(tmp_path / "single")
    texts = ["the cat.", "a b c"]
    assert torch.allclose(
        back.encode(texts), load_minilm(single).encode(texts), atol=1e-5
    )
