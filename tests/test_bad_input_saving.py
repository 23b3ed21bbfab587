"""Bad input to encoderlib.saving: `save_pretrained` and its readers (chapter 13).

Wrong types for the folder, model, tokenizer, `max_length` and `normalize`, an
empty path or one that is an existing file, a `max_length` outside [2, max_len],
a tokenizer that does not fit the model, an unknown `model_type`, and encoders
that the chosen family's format cannot describe (pre-norm, sinusoidal positions,
SwiGLU, a window, no biases, another family's offset or embeddings) must each
raise a `TypeError` or `ValueError` naming what was expected and what was
received, before anything is written. Task models too: a classifier that
BertForSequenceClassification cannot compute, wrong labels, options that only a
sentence encoder has; and `load_classifier` / `load_masked_lm` given a missing
file, another architecture, or missing or misshapen head tensors; the readers and
`load_minilm` given a folder that does not exist.
"""

import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest
import torch
from bad_input import scratch_folder, sweep
from safetensors.torch import load_file, save_file
from torch import nn

from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.heads import EncoderClassifier
from encoderlib.mlm import MaskedLanguageModel
from encoderlib.prepacked import prepack_for_cpu
from encoderlib.quantization import quantize_int8
from encoderlib.saving import load_classifier, load_masked_lm, save_pretrained
from encoderlib.sentence import SentenceEncoder, load_minilm
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


class NoSave:
    """A tokenizer with encoderlib's interface but no save(folder): not writable."""

    encode = encode_pair = __call__ = decode = None
    pad_token_id, vocab_size = 0, N


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


def classifier(pooling: str = "cls", hidden_layer: bool = True) -> EncoderClassifier:
    torch.manual_seed(0)
    encoder = Encoder(config_from_bert(BERT))
    return EncoderClassifier(encoder, 2, pooling, hidden_layer=hidden_layer)


def masked_lm() -> MaskedLanguageModel:
    torch.manual_seed(0)
    return MaskedLanguageModel(Encoder(config_from_bert(BERT)))


def untied_masked_lm() -> MaskedLanguageModel:
    untied = masked_lm()
    untied.head.decoder.weight = nn.Parameter(untied.head.decoder.weight.clone())
    return untied


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
            rf"expected model as an encoderlib Encoder, EncoderClassifier or "
            rf"MaskedLanguageModel, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("Linear", nn.Linear(2, 2), "Linear"),
            ("str", "model", "str"),
        ]
    },
    "ch13 save_pretrained: a SentenceEncoder for its encoder": (
        lambda: save(encoder=SentenceEncoder(tokenizer(), model())),
        TypeError,
        r"got SentenceEncoder: call its own model.save_pretrained\(path\)",
    ),
    "ch13 save_pretrained: a prepacked copy": (
        lambda: save(encoder=prepack_for_cpu(model())),
        ValueError,
        r"expected model with plain tensors as weights, got PrepackedWeight: save "
        r"the model it was copied from",
    ),
    "ch13 save_pretrained: an int8 copy of a classifier": (
        lambda: save(encoder=quantize_int8(EncoderClassifier(model(), 2, "cls"))),
        ValueError,
        r"expected model with plain tensors as weights, got Int8Weight",
    ),
    **{
        f"ch13 save_pretrained: tokenizer as {label}": (
            lambda v=value: save(words=v),
            TypeError,
            rf"expected tokenizer as a tokenizer \(with encode, .*\), got {kind}",
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
    **{
        f"ch13 save_pretrained: normalize as {type(value).__name__}": (
            lambda v=value: save(normalize=v),
            TypeError,
            r"normalize\b.*bool",
        )
        for value in (1, "yes")
    },
    "ch13 save_pretrained: a tokenizer that cannot save itself": (
        lambda: save(words=NoSave()),
        TypeError,
        r"expected tokenizer as a WordPieceTokenizer or a tokenizer with "
        r"save\(folder\), got NoSave",
    ),
    **{
        f"ch13 save_pretrained: pooling {value!r}": (
            lambda v=value: save(pooling=v),
            error,
            rf"expected pooling as one of 'cls', 'mean', 'max', got {got}",
        )
        for value, error, got in [
            ("attention", ValueError, "'attention'"),
            (1, TypeError, "int 1"),
        ]
    },
    **{
        f"ch13 save_pretrained: {name} for a {kind}": (
            lambda n=name, m=make, v=value: save(encoder=m(), **{n: v}),
            ValueError,
            rf"expected no {name} for a {kind} \(its head is written as it is\)",
        )
        for name, value in (("pooling", "mean"), ("normalize", True))
        for kind, make in (
            ("EncoderClassifier", classifier),
            ("MaskedLanguageModel", masked_lm),
        )
    },
    **{
        f"ch13 save_pretrained: labels for a {kind}": (
            lambda m=make: save(encoder=m(), labels=["a", "b"]),
            ValueError,
            rf"expected labels only for an EncoderClassifier, got labels for a {kind}",
        )
        for kind, make in (("Encoder", model), ("MaskedLanguageModel", masked_lm))
    },
    **{
        f"ch13 save_pretrained: labels {value!r}": (
            lambda v=value: save(encoder=classifier(), labels=v),
            error,
            message,
        )
        for value, error, message in [
            ("ab", TypeError, r"expected labels as a list of str, got str 'ab'"),
            ([0, 1], TypeError, r"expected labels as a list of str, got list"),
            (["a"], ValueError, r"expected labels as 2 distinct names .*\['a'\]"),
            (["a", "a"], ValueError, r"expected labels as 2 distinct names"),
        ]
    },
    **{
        f"ch13 save_pretrained: a classifier with {changes}": (
            lambda c=changes: save(encoder=classifier(**c)),
            ValueError,
            r"expected an EncoderClassifier\(encoder, n_classes, pooling in "
            r"\('cls',\), hidden_layer=True, head_style='bert'\): "
            r"BertForSequenceClassification scores the pooled vector through a "
            r"dense layer of that style; got " + got,
        )
        for changes, got in [
            ({"pooling": "mean"}, r"pooling='mean', hidden_layer=True"),
            ({"pooling": "attention"}, r"pooling='attention'"),
            ({"hidden_layer": False}, r"pooling='cls', hidden_layer=False"),
        ]
    },
    "ch13 save_pretrained: a masked LM on a tanh-GELU encoder": (
        lambda: save(encoder=MaskedLanguageModel(unlike_bert(activation="gelu_tanh"))),
        ValueError,
        r"expected an encoder with activation='gelu' and the head's LayerNorm eps "
        r"\(BertForMaskedLM's head .*\), got 'gelu_tanh'",
    ),
    "ch13 save_pretrained: a masked LM with an untied decoder": (
        lambda: save(encoder=untied_masked_lm()),
        ValueError,
        r"expected the head's decoder tied to the token embeddings",
    ),
    **{
        f"ch13 save_pretrained: {changes}": (
            lambda c=changes: save(encoder=unlike_bert(**c), model_type="bert"),
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
                {"position_offset": 2},
                r"expected position_offset=0 \(BERT counts positions from 0; "
                r"RoBERTa's .*model_type='roberta'\), got 2",
            ),
            (
                {"d_embed": 16},
                r"expected d_embed=None \(BERT's embeddings are d_model wide; "
                r"ELECTRA.*model_type='electra'\), got 16",
            ),
            (
                {"bias": False},
                r"expected bias=True \(BERT's layers have .*\), got False",
            ),
        ]
    },
    "ch13 save_pretrained: RoBERTa's offset that is not pad_token_id + 1": (
        lambda: save(encoder=unlike_bert(position_offset=2)),
        ValueError,
        r"RoBERTa's format cannot express this Encoder: expected position_offset=1 "
        r"\(RoBERTa counts positions from pad_token_id \+ 1;.*\), got 2",
    ),
    "ch13 save_pretrained: an unknown model_type": (
        lambda: save(model_type="gpt2"),
        ValueError,
        r"expected model_type as one of 'bert', 'roberta', 'xlm-roberta', "
        r"'electra', 'modernbert', got 'gpt2'",
    ),
    "ch13 save_pretrained: ModernBERT's format for a BERT": (
        lambda: save(model_type="modernbert"),
        ValueError,
        r"ModernBERT's format cannot express this Encoder: expected .*norm_first=True, "
        r"got False",
    ),
    "ch13 save_pretrained: a vocabulary of another size": (
        lambda: save(words=WordPieceTokenizer(VOCAB[:-1])),
        ValueError,
        rf"expected a tokenizer with the model's {N} tokens, got {N - 1}",
    ),
}


@cache
def task_folder(kind: str) -> Path:
    """A classifier or masked LM written once, to be broken by `changed`."""
    root = scratch_folder("bad-input-saving-")
    task = classifier() if kind == "classifier" else masked_lm()
    return save(root / kind, encoder=task)


def changed(kind: str, name: str, content=None, drop: str | None = None) -> Path:
    """A copy of task_folder(kind): a file replaced or deleted, or a tensor broken."""
    target = scratch_folder("bad-input-saving-") / "copy"
    shutil.copytree(task_folder(kind), target)
    if drop is not None:
        tensors = load_file(target / "model.safetensors")
        if drop.endswith("*"):
            tensors = {k: v for k, v in tensors.items() if not k.startswith(drop[:-1])}
        else:
            tensors[drop] = tensors[drop][:1]  # a wrong shape
        save_file(tensors, target / "model.safetensors")
    elif content is None:
        (target / name).unlink()
    else:
        (target / name).write_text(json.dumps(content), encoding="utf-8")
    return target


READERS = {"classifier": load_classifier, "masked LM": load_masked_lm}
ARCHITECTURES = {
    "classifier": "BertForSequenceClassification",
    "masked LM": "BertForMaskedLM",
}
HEADS = {"classifier": "classifier.*", "masked LM": "cls.predictions.transform.*"}
SHAPES = {"classifier": "classifier.weight", "masked LM": "cls.predictions.bias"}

LOAD = {
    **{
        f"ch13 {read.__name__}: path as {label}": (
            lambda r=read, v=value: r(v),
            TypeError,
            rf"expected path as a folder path, got {kind}",
        )
        for read in READERS.values()
        for label, value, kind in [("None", None, "None"), ("int", 3, "int 3")]
    },
    **{
        f"ch13 {read.__name__}: a folder that does not exist": (
            lambda r=read: r("/no/such/folder"),
            FileNotFoundError,
            r"expected a model folder at '/no/such/folder', found none",
        )
        for read in (*READERS.values(), load_minilm)
    },
    **{
        f"ch13 {read.__name__}: no {name}": (
            lambda r=read, k=kind, n=name: r(changed(k, n)),
            FileNotFoundError,
            rf"expected {name} in .*not there",
        )
        for kind, read in READERS.items()
        for name in ("config.json", "model.safetensors")
    },
    **{
        f"ch13 {read.__name__}: another architecture": (
            lambda r=read, k=kind: r(
                changed(k, "config.json", {**BERT, "architectures": ["BertModel"]})
            ),
            ValueError,
            rf"expected a .*{ARCHITECTURES[kind]}.* folder \(architectures in "
            r"config\.json\), got \['BertModel'\]",
        )
        for kind, read in READERS.items()
    },
    **{
        f"ch13 {read.__name__}: no head tensors": (
            lambda r=read, k=kind: r(changed(k, "", drop=HEADS[k])),
            ValueError,
            r"expected the head's tensors in the folder, missing \[",
        )
        for kind, read in READERS.items()
    },
    **{
        f"ch13 {read.__name__}: a head tensor of another shape": (
            lambda r=read, k=kind: r(changed(k, "", drop=SHAPES[k])),
            ValueError,
            rf"expected {SHAPES[kind]} of shape \(.*\), got \(1",
        )
        for kind, read in READERS.items()
    },
}

test_bad_input_raises_a_clear_error = sweep({**CASES, **LOAD})


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
