"""Bad input to encoderlib.pretrained (chapter 13) is refused clearly.

Every public name of the module (`config_from_bert`, `LoadReport`,
`load_bert_weights`, `SentenceEncoder` with `encode`, `forward` and
`save_pretrained`, `load_minilm`, `save_pretrained`) gets the classes of bad input
a reader meets: wrong Python types, numpy arrays and small integer dtypes where
float tensors are expected, float64 next to float32, wrong shapes, empty inputs,
out-of-range settings and decoder configs. Each must raise a `TypeError` or
`ValueError` whose message names what was expected and what was received (or,
where the docstring promises it, convert, cast or return an empty result), never
an error from deep inside torch, a wrong-shaped result or NaN. Missing files are
`FileNotFoundError`s naming the file, as Python's own loaders do.

Everything runs on a tiny random BERT-shaped encoder, written once with
`save_pretrained`, so the sweep takes seconds and needs no model download.
"""

import json
import math
import os
import re
import shutil

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import load_file  # noqa: E402
from torch import nn  # noqa: E402

from encoderlib.encoder import Encoder  # noqa: E402
from encoderlib.pretrained import (  # noqa: E402
    LoadReport,
    SentenceEncoder,
    config_from_bert,
    load_bert_weights,
    load_minilm,
    save_pretrained,
)
from encoderlib.tokenization import WordPieceTokenizer  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LETTERS = list("abcdefghijklmnopqrstuvwxyz")
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", ".", ","]
VOCAB = SPECIALS + LETTERS + ["##" + c for c in LETTERS] + WORDS
BERT = {
    "vocab_size": len(VOCAB),
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}
N = len(VOCAB)
TEXTS = ["the cat sat on the mat.", "a dog ran.", ""]


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(VOCAB)


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tokenizer):
    """A small random encoder written as a sentence-transformers folder."""
    torch.manual_seed(0)
    model = Encoder(config_from_bert(BERT)).eval()
    path = tmp_path_factory.mktemp("bad-input") / "small"
    return save_pretrained(path, model, tokenizer)


@pytest.fixture(scope="module")
def state_dict(folder) -> dict[str, torch.Tensor]:
    return load_file(folder / "model.safetensors")


@pytest.fixture
def blank() -> Encoder:
    return Encoder(config_from_bert(BERT)).eval()


@pytest.fixture(scope="module")
def sentence_encoder(folder) -> SentenceEncoder:
    return load_minilm(folder)


def copy_folder(folder, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(folder, target)
    return target


# config_from_bert ---------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, 3, 2.5, ["config.json"], b"config.json"])
def test_config_from_bert_wrong_types(bad):
    with pytest.raises(TypeError, match=r"expected a config dict or a path, got \w+"):
        config_from_bert(bad)


def test_config_from_bert_missing_file_and_broken_json(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"expected a config\.json at .*none"):
        config_from_bert(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match=r"expected a config\.json at"):
        config_from_bert(tmp_path)  # a folder without config.json
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"expected JSON in .*config\.json.*got"):
        config_from_bert(tmp_path)


def test_config_from_bert_missing_size_is_named():
    partial = {k: v for k, v in BERT.items() if k != "intermediate_size"}
    with pytest.raises(
        ValueError, match=r"expected a BERT config with .*missing intermediate_size"
    ):
        config_from_bert(partial)


def got(value) -> str:
    """The regex of ", got <repr(value)>" at the end of a message."""
    return ", got " + re.escape(repr(value))


CONFIG_TYPE_ERRORS = [  # (config.json key, value, what the message expects)
    ("hidden_size", "32", "hidden_size as an int"),
    ("hidden_size", 32.0, "hidden_size as an int"),
    ("num_hidden_layers", True, "num_hidden_layers as an int"),
    ("vocab_size", None, "vocab_size as an int"),
    ("layer_norm_eps", "1e-12", "layer_norm_eps as a float"),
    ("hidden_dropout_prob", None, "hidden_dropout_prob as a float"),
]
CONFIG_VALUE_ERRORS = [
    ("num_attention_heads", 0, "num_attention_heads >= 1"),
    ("vocab_size", -5, "vocab_size >= 1"),
    ("intermediate_size", 0, "intermediate_size >= 1"),
    ("max_position_embeddings", 0, "max_position_embeddings >= 1"),
    ("type_vocab_size", -1, "type_vocab_size >= 0"),
    ("layer_norm_eps", 0.0, "layer_norm_eps > 0"),
    ("layer_norm_eps", -1e-12, "layer_norm_eps > 0"),
    ("layer_norm_eps", math.nan, "layer_norm_eps > 0"),
    ("hidden_dropout_prob", 1.0, "hidden_dropout_prob in [0, 1)"),
    ("hidden_dropout_prob", -0.1, "hidden_dropout_prob in [0, 1)"),
    ("hidden_dropout_prob", math.nan, "hidden_dropout_prob in [0, 1)"),
    ("hidden_act", None, "hidden_act in ["),
    ("hidden_act", "swish", "hidden_act in ["),
    ("hidden_act", ["gelu"], "hidden_act in ["),
    ("model_type", "roberta", "a BERT config (model_type 'bert')"),
    ("position_embedding_type", "relative_key", "absolute position embeddings"),
]


@pytest.mark.parametrize(("key", "value", "expected"), CONFIG_TYPE_ERRORS)
def test_config_from_bert_wrong_value_types_name_the_key(key, value, expected):
    with pytest.raises(TypeError, match=f"expected {re.escape(expected)}{got(value)}"):
        config_from_bert({**BERT, key: value})


@pytest.mark.parametrize(("key", "value", "expected"), CONFIG_VALUE_ERRORS)
def test_config_from_bert_values_out_of_range_name_the_key(key, value, expected):
    with pytest.raises(
        ValueError, match=f"expected {re.escape(expected)}.*{got(value)}"
    ):
        config_from_bert({**BERT, key: value})


def test_config_from_bert_heads_must_divide_the_width():
    with pytest.raises(
        ValueError,
        match="expected hidden_size divisible by num_attention_heads, "
        "got hidden_size=32 and num_attention_heads=5",
    ):
        config_from_bert({**BERT, "num_attention_heads": 5})


@pytest.mark.parametrize("flag", ["is_decoder", "add_cross_attention"])
def test_config_from_bert_refuses_decoders(flag):
    with pytest.raises(
        ValueError,
        match=rf"expected an encoder config \({flag} false or absent\), "
        rf"got {flag}=True",
    ):
        config_from_bert({**BERT, flag: True})


def test_config_from_bert_decoder_flags_false_are_fine():
    config = config_from_bert(
        {**BERT, "is_decoder": False, "add_cross_attention": False}
    )
    assert config.d_model == 32


# LoadReport ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ((None, [], [], []), r"expected loaded as a dict from .* to str\), got None"),
        (({1: "a"}, [], [], []), r"expected loaded as a dict .* got \{1: 'a'\}"),
        (({"a": None}, [], [], []), r"expected loaded as a dict .* got \{'a': None\}"),
        (({}, "abc", [], []), r"expected ignored as a list of str, got 'abc'"),
        (({}, [], [None], []), r"expected missing as a list of str, got \[None\]"),
        (({}, [], [], ("a",)), r"expected unexpected as a list of str, got \('a',\)"),
    ],
)  # fmt: skip
def test_load_report_fields_are_checked(fields, message):
    with pytest.raises(TypeError, match=message):
        LoadReport(*fields)


def test_load_report_of_names_is_fine():
    report = LoadReport({"a.weight": "b.weight"}, ["pooler.x"], [], [])
    assert report.loaded == {"a.weight": "b.weight"}


# load_bert_weights --------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, "encoder", nn.Linear(2, 2)])
def test_load_bert_weights_model_must_be_an_encoder(bad, state_dict):
    with pytest.raises(TypeError, match=r"expected an encoderlib Encoder, got \w+"):
        load_bert_weights(bad, state_dict)


@pytest.mark.parametrize("bad", [None, [("a", torch.zeros(1))], torch.zeros(3), "x"])
def test_load_bert_weights_state_dict_must_be_a_mapping(bad, blank):
    with pytest.raises(
        TypeError, match=r"expected a mapping of names to tensors, got \w+"
    ):
        load_bert_weights(blank, bad)


@pytest.mark.parametrize("bad", ["yes", None, 1, 0])
def test_load_bert_weights_strict_must_be_a_bool(bad, blank, state_dict):
    with pytest.raises(TypeError, match=r"expected strict as a bool, got"):
        load_bert_weights(blank, state_dict, strict=bad)


def test_load_bert_weights_keys_must_be_str(blank, state_dict):
    with pytest.raises(
        TypeError, match=r"expected str keys \(parameter names\), got int 0"
    ):
        load_bert_weights(blank, {**state_dict, 0: torch.zeros(1)})


@pytest.mark.parametrize("bad", [None, [[0.0] * 32] * 3, "weights", 1.5])
def test_load_bert_weights_values_must_be_tensors(bad, blank, state_dict):
    key = "embeddings.LayerNorm.weight"
    before = [p.detach().clone() for p in blank.parameters()]
    with pytest.raises(
        TypeError, match=rf"expected a tensor \(or numpy array\) for {key}, got \w+"
    ):
        load_bert_weights(blank, {**state_dict, key: bad})
    for old, new in zip(before, blank.parameters(), strict=True):
        assert torch.equal(old, new)  # nothing copied: the same tensors, untouched


@pytest.mark.parametrize(
    "dtype",
    [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool],
)
def test_load_bert_weights_integer_weights_are_refused(dtype, blank, state_dict):
    key = "encoder.layer.0.attention.self.query.weight"
    bad = state_dict[key].to(dtype)
    with pytest.raises(
        TypeError,
        match=rf"expected floating-point weights for {key}, got dtype {dtype}",
    ):
        load_bert_weights(blank, {**state_dict, key: bad})


def test_load_bert_weights_numpy_integer_arrays_are_refused(blank, state_dict):
    key = "embeddings.LayerNorm.bias"
    bad = np.zeros(32, dtype=np.int16)
    with pytest.raises(TypeError, match=rf"expected floating-point weights for {key}"):
        load_bert_weights(blank, {**state_dict, key: bad})


def test_load_bert_weights_converts_numpy_arrays(blank, state_dict):
    as_numpy = {key: value.numpy() for key, value in state_dict.items()}
    report = load_bert_weights(blank, as_numpy)
    assert len(report.loaded) == len(dict(blank.named_parameters()))
    parameters = dict(blank.named_parameters())
    for key, name in report.loaded.items():
        assert torch.equal(parameters[name], state_dict[key])  # copied float32 bits


def test_load_bert_weights_float64_checkpoint_fills_a_float32_model(blank, state_dict):
    doubled = {key: value.double() for key, value in state_dict.items()}
    load_bert_weights(blank, doubled)
    parameters = dict(blank.named_parameters())
    assert all(p.dtype == torch.float32 for p in parameters.values())
    weight = parameters["embeddings.token_embeddings.weight"]
    assert torch.allclose(weight, state_dict["embeddings.word_embeddings.weight"])


def test_load_bert_weights_float32_checkpoint_fills_a_float64_model(state_dict):
    model = Encoder(config_from_bert(BERT)).double()
    load_bert_weights(model, state_dict)
    assert all(p.dtype == torch.float64 for p in model.parameters())


@pytest.mark.parametrize(
    ("key", "shape"),
    [
        ("embeddings.word_embeddings.weight", (len(VOCAB) - 1, 32)),
        ("encoder.layer.0.attention.self.query.weight", (32,)),  # wrong rank
        ("encoder.layer.0.intermediate.dense.weight", (32, 64)),  # transposed
        ("embeddings.LayerNorm.bias", (0,)),  # empty
    ],
)
def test_load_bert_weights_wrong_shapes_name_both(key, shape, blank, state_dict):
    expected = tuple(state_dict[key].shape)
    message = (
        rf"shape mismatch for {key} → .*: expected {expected}, got {shape}".replace(
            "(", r"\("
        ).replace(")", r"\)")
    )
    with pytest.raises(ValueError, match=message):
        load_bert_weights(blank, {**state_dict, key: torch.zeros(shape)})


def test_load_bert_weights_empty_checkpoint(blank):
    with pytest.raises(
        ValueError, match=r"expected Hugging Face BERT names .* none among 0 keys"
    ):
        load_bert_weights(blank, {})
    with pytest.raises(ValueError, match=r"got none among 0 keys"):
        load_bert_weights(blank, {}, strict=False)


@pytest.mark.parametrize(
    "overrides", [{"norm_first": True}, {"positional": "sinusoidal"}]
)
def test_load_bert_weights_refuses_what_bert_is_not(overrides, state_dict):
    model = Encoder(config_from_bert(BERT).replace(**overrides))
    with pytest.raises(
        ValueError, match=r"expected a post-norm Encoder with learned positions"
    ):
        load_bert_weights(model, state_dict)


# SentenceEncoder ----------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, "vocab.txt", ["[PAD]", "[UNK]"]])
def test_sentence_encoder_tokenizer_type(bad, sentence_encoder):
    with pytest.raises(TypeError, match=r"expected a WordPieceTokenizer, got \w+"):
        SentenceEncoder(bad, sentence_encoder.model)


@pytest.mark.parametrize("bad", [None, nn.Linear(32, 32), "model"])
def test_sentence_encoder_model_type(bad, tokenizer):
    with pytest.raises(TypeError, match=r"expected an Encoder, got \w+"):
        SentenceEncoder(tokenizer, bad)


def test_sentence_encoder_vocabulary_must_match(sentence_encoder):
    other = WordPieceTokenizer(VOCAB[:-1])
    with pytest.raises(
        ValueError,
        match=rf"expected a tokenizer with the model's {N} tokens, got {N - 1}",
    ):
        SentenceEncoder(other, sentence_encoder.model)


@pytest.mark.parametrize("bad", ["256", 2.5, True, None])
def test_sentence_encoder_max_length_type(bad, sentence_encoder):
    with pytest.raises(TypeError, match=r"expected max_length as an int, got"):
        SentenceEncoder(
            sentence_encoder.tokenizer, sentence_encoder.model, max_length=bad
        )


@pytest.mark.parametrize("bad", [1, 0, -3, 65])
def test_sentence_encoder_max_length_range(bad, sentence_encoder):
    with pytest.raises(
        ValueError, match=rf"expected max_length in \[2, 64\], got {bad}"
    ):
        SentenceEncoder(
            sentence_encoder.tokenizer, sentence_encoder.model, max_length=bad
        )


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (None, r"expected a list of str, got NoneType"),
        (3, r"expected a list of str, got int"),
        ("the cat", r"expected a list of str, got a single str"),
        ({"a", "b"}, r"expected an ordered list of str, got a set"),
        ({"a": 1}, r"expected an ordered list of str, got a dict"),
        ([None], r"expected a list of str, got NoneType at index 0"),
        (["the cat", 3], r"expected a list of str, got int at index 1"),
        ([b"bytes"], r"expected a list of str, got bytes at index 0"),
        (torch.tensor([1, 2]), r"expected a list of str, got Tensor at index 0"),
        (np.array([1, 2]), r"expected a list of str, got int64 at index 0"),
    ],
)
def test_encode_sentences_must_be_a_list_of_str(bad, message, sentence_encoder):
    with pytest.raises(TypeError, match=message):
        sentence_encoder.encode(bad)
    with pytest.raises(TypeError, match=message):
        sentence_encoder(bad)  # forward is encode


@pytest.mark.parametrize("bad", ["2", 2.0, None, True])
def test_encode_batch_size_type(bad, sentence_encoder):
    with pytest.raises(TypeError, match=r"expected batch_size as an int, got"):
        sentence_encoder.encode(TEXTS, batch_size=bad)


@pytest.mark.parametrize("bad", [0, -1])
def test_encode_batch_size_range(bad, sentence_encoder):
    with pytest.raises(ValueError, match=rf"expected batch_size >= 1, got {bad}"):
        sentence_encoder.encode(TEXTS, batch_size=bad)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_encode_normalize_type(bad, sentence_encoder):
    with pytest.raises(TypeError, match=r"expected normalize as a bool, got"):
        sentence_encoder.encode(TEXTS, normalize=bad)


@pytest.mark.parametrize("empty", [[], ()])
def test_encode_empty_input_gives_zero_rows(empty, sentence_encoder):
    out = sentence_encoder.encode(empty)
    assert out.shape == (0, 32) and out.dtype == torch.float32


def test_encode_empty_strings_are_finite_unit_vectors(sentence_encoder):
    out = sentence_encoder.encode(["", "", "the cat"])  # [CLS] [SEP] only, padded
    assert torch.isfinite(out).all()
    assert torch.allclose(out.norm(dim=-1), torch.ones(3), atol=1e-5)


def test_encode_float64_model_still_gives_float32(sentence_encoder, tokenizer):
    model = Encoder(sentence_encoder.model.config)
    model.load_state_dict(sentence_encoder.model.state_dict())
    double = SentenceEncoder(tokenizer, model.double(), max_length=64)
    out = double.encode(TEXTS)
    assert out.dtype == torch.float32 and torch.isfinite(out).all()
    assert torch.allclose(out, sentence_encoder.encode(TEXTS), atol=1e-5)


def test_sentence_encoder_save_pretrained_arguments(sentence_encoder, tmp_path):
    with pytest.raises(TypeError, match=r"expected normalize as a bool, got 'yes'"):
        sentence_encoder.save_pretrained(tmp_path / "x", normalize="yes")
    with pytest.raises(TypeError, match=r"expected a folder path, got NoneType"):
        sentence_encoder.save_pretrained(None)
    assert not (tmp_path / "x").exists()


# load_minilm --------------------------------------------------------------------


@pytest.mark.parametrize("bad", [3, ["folder"], b"folder"])
def test_load_minilm_path_type(bad):
    with pytest.raises(TypeError, match=r"expected a folder path or None, got \w+"):
        load_minilm(bad)


@pytest.mark.parametrize("name", ["config.json", "vocab.txt", "model.safetensors"])
def test_load_minilm_missing_file_is_named(name, folder, tmp_path):
    target = copy_folder(folder, tmp_path)
    (target / name).unlink()
    with pytest.raises(FileNotFoundError, match=rf"expected {name} in .*not there"):
        load_minilm(target)


@pytest.mark.parametrize(
    ("modules", "message"),
    [
        (
            {"type": "x"},
            r"expected modules\.json to be a list of .*, got \{'type': 'x'\}",
        ),
        ([{"path": ""}], r"expected modules\.json to be a list of"),
        (
            [
                {"type": "sentence_transformers.models.Transformer", "path": ""},
                {"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"},
                {"type": "sentence_transformers.models.Dense", "path": "2_Dense"},
            ],
            r"expected the sentence-transformers modules Transformer, Pooling and "
            r"optionally Normalize, got \['Transformer', 'Pooling', 'Dense'\]",
        ),
    ],
)
def test_load_minilm_refuses_other_pipelines(modules, message, folder, tmp_path):
    target = copy_folder(folder, tmp_path)
    (target / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_minilm(target)


def test_load_minilm_refuses_cls_pooling(folder, tmp_path):
    target = copy_folder(folder, tmp_path)
    pooling_file = target / "1_Pooling" / "config.json"
    pooling = json.loads(pooling_file.read_text(encoding="utf-8"))
    pooling.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    pooling_file.write_text(json.dumps(pooling), encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"expected mean pooling in 1_Pooling/config\.json, got"
    ):
        load_minilm(target)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({}, r"expected an int max_seq_length in sentence_bert_config\.json, got None"),
        ({"max_seq_length": "64"}, r"expected an int max_seq_length .*, got '64'"),
        ({"max_seq_length": 64.0}, r"expected an int max_seq_length .*, got 64\.0"),
        (
            {"max_seq_length": 1000},
            r"expected max_seq_length in \[2, 64\] .*, got 1000",
        ),
        ({"max_seq_length": 1}, r"expected max_seq_length in \[2, 64\] .*, got 1"),
        ([64], r"expected an int max_seq_length .*, got None"),
    ],
)
def test_load_minilm_checks_max_seq_length(settings, message, folder, tmp_path):
    target = copy_folder(folder, tmp_path)
    settings_file = target / "sentence_bert_config.json"
    settings_file.write_text(json.dumps(settings), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_minilm(target)


def test_load_minilm_refuses_a_decoder_config(folder, tmp_path):
    target = copy_folder(folder, tmp_path)
    config = json.loads((target / "config.json").read_text(encoding="utf-8"))
    (target / "config.json").write_text(
        json.dumps({**config, "is_decoder": True}), encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"got is_decoder=True"):
        load_minilm(target)


# save_pretrained ----------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, 3, ["folder"]])
def test_save_pretrained_path_type(bad, sentence_encoder):
    with pytest.raises(TypeError, match=r"expected a folder path, got \w+"):
        save_pretrained(bad, sentence_encoder.model, sentence_encoder.tokenizer)


def test_save_pretrained_empty_path_and_existing_file(sentence_encoder, tmp_path):
    with pytest.raises(ValueError, match=r"expected a folder path, got ''"):
        save_pretrained("", sentence_encoder.model, sentence_encoder.tokenizer)
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"expected a folder path, got the file .*a_file"
    ):
        save_pretrained(a_file, sentence_encoder.model, sentence_encoder.tokenizer)
    assert a_file.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize("bad", [None, nn.Linear(2, 2), "model"])
def test_save_pretrained_model_type(bad, sentence_encoder, tmp_path):
    with pytest.raises(TypeError, match=r"expected an encoderlib Encoder, got \w+"):
        save_pretrained(tmp_path / "x", bad, sentence_encoder.tokenizer)


@pytest.mark.parametrize("bad", [None, "vocab.txt", VOCAB])
def test_save_pretrained_tokenizer_type(bad, sentence_encoder, tmp_path):
    with pytest.raises(TypeError, match=r"expected a WordPieceTokenizer, got \w+"):
        save_pretrained(tmp_path / "x", sentence_encoder.model, bad)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_length": "8"}, TypeError, r"expected max_length as an int or .*'8'"),
        ({"max_length": 8.0}, TypeError, r"expected max_length as an int or .*8\.0"),
        ({"max_length": True}, TypeError, r"expected max_length as an int or .*True"),
        ({"max_length": 1}, ValueError, r"expected max_length in \[2, 64\], got 1"),
        ({"max_length": -8}, ValueError, r"expected max_length in \[2, 64\], got -8"),
        ({"max_length": 65}, ValueError, r"expected max_length in \[2, 64\], got 65"),
        ({"normalize": 1}, TypeError, r"expected normalize as a bool, got 1"),
        ({"normalize": "no"}, TypeError, r"expected normalize as a bool, got 'no'"),
    ],
)  # fmt: skip
def test_save_pretrained_settings(kwargs, error, message, sentence_encoder, tmp_path):
    target = tmp_path / "x"
    with pytest.raises(error, match=message):
        save_pretrained(
            target, sentence_encoder.model, sentence_encoder.tokenizer, **kwargs
        )
    assert not target.exists()  # nothing written


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"norm_first": True}, r"expected norm_first=False \(BERT is .*\), got True"),
        ({"positional": "sinusoidal"}, r"expected positional='learned' .*, got 'sinus"),
        ({"activation": "swiglu"}, r"expected activation in .*, got 'swiglu'"),
        ({"window": 4}, r"expected window=None \(every BERT layer .*\), got 4"),
        ({"bias": False}, r"expected bias=True \(BERT's layers have .*\), got False"),
    ],
)  # fmt: skip
def test_save_pretrained_refuses_what_bert_cannot_compute(
    overrides, message, tokenizer, tmp_path
):
    model = Encoder(config_from_bert(BERT).replace(**overrides))
    target = tmp_path / "x"
    with pytest.raises(
        ValueError, match=r"BERT's format cannot express this Encoder: " + message
    ):
        save_pretrained(target, model, tokenizer)
    assert not target.exists()


def test_save_pretrained_vocabulary_must_match(sentence_encoder, tmp_path):
    with pytest.raises(
        ValueError,
        match=rf"expected a tokenizer with the model's {N} tokens, got {N - 1}",
    ):
        save_pretrained(
            tmp_path / "x", sentence_encoder.model, WordPieceTokenizer(VOCAB[:-1])
        )


def test_save_pretrained_float64_model_reads_back(sentence_encoder, tmp_path):
    model = Encoder(sentence_encoder.model.config)
    model.load_state_dict(sentence_encoder.model.state_dict())
    folder = save_pretrained(
        tmp_path / "double", model.double(), sentence_encoder.tokenizer
    )
    assert json.loads((folder / "config.json").read_text())["torch_dtype"] == "float64"
    back = load_minilm(folder)  # a float32 Encoder, filled from float64 tensors
    assert next(back.model.parameters()).dtype == torch.float32
    assert torch.allclose(back.encode(TEXTS), sentence_encoder.encode(TEXTS), atol=1e-5)


def test_every_public_name_is_swept():
    import encoderlib.pretrained as pretrained

    assert sorted(pretrained.__all__) == sorted(
        [
            "config_from_bert",
            "LoadReport",
            "load_bert_weights",
            "SentenceEncoder",
            "load_minilm",
            "save_pretrained",
        ]
    )
