"""Bad input to encoderlib.checkpoints: checkpoints copied into an `Encoder`.

`LoadReport`, `load_bert_weights`, `bert_parameter_names` (chapter 13) and
`load_modernbert_weights` (chapter 17, the same loading routine) get the
classes of bad input a reader meets: a model that is not an `Encoder` or not of
the family's shape, a state dict that is not a mapping of str keys, values that
are neither tensors nor numpy arrays or not floating-point, wrong shapes, empty
checkpoints, missing and unexpected names, and a `strict` that is not a bool.
Each raises a `TypeError` or `ValueError` naming what was expected and what was
received, and nothing is copied before every check has passed. numpy arrays and
float64 checkpoints load, into either loader.
"""

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch
from bad_input import flag_cases, positive_int_cases, scratch_folder, sweep
from small_models import small_modernbert_config
from torch import nn
from transformers import ModernBertConfig, ModernBertModel

from encoderlib import Encoder, EncoderConfig
from encoderlib.checkpoints import (
    LoadReport,
    bert_parameter_names,
    load_bert_weights,
    load_modernbert_weights,
    load_pretrained_weights,
    read_weights,
)
from encoderlib.converters import (
    config_from_bert,
    config_from_modernbert,
    config_from_pretrained,
)

BERT = {
    "vocab_size": 66,
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}
QUERY = "encoder.layer.0.attention.self.query.weight"


def bert_encoder(**changes) -> Encoder:
    return Encoder(config_from_bert(BERT).replace(**changes)).eval()


@cache
def _bert_state() -> dict:
    torch.manual_seed(0)
    names = bert_parameter_names(1)
    return {names[k]: v.detach().clone() for k, v in bert_encoder().named_parameters()}


def bert_state(**changes) -> dict:
    """BERT's names → a random one-layer encoder's tensors, `changes` replaced."""
    return {**_bert_state(), **changes}


def modernbert_config() -> ModernBertConfig:
    return small_modernbert_config()


@cache
def _modern_state() -> dict:
    torch.manual_seed(0)
    return ModernBertModel(modernbert_config()).state_dict()


def modern_state(**changes) -> dict:
    return {**_modern_state(), **changes}


def modern_encoder(**changes) -> Encoder:
    return Encoder(config_from_modernbert(modernbert_config()).replace(**changes))


REPORT = {
    f"ch13 LoadReport: {label}": (lambda f=fields: LoadReport(*f), TypeError, message)
    for label, fields, message in [
        (
            "loaded None",
            (None, [], [], []),
            r"expected loaded as a dict from .* to str\), got None",
        ),
        (
            "loaded int keys",
            ({1: "a"}, [], [], []),
            r"expected loaded as a dict .* got \{1: 'a'\}",
        ),
        (
            "loaded None values",
            ({"a": None}, [], [], []),
            r"loaded as a dict .* got \{'a': None\}",
        ),
        (
            "ignored as str",
            ({}, "abc", [], []),
            r"expected ignored as a list of str, got 'abc'",
        ),
        (
            "missing of None",
            ({}, [], [None], []),
            r"expected missing as a list of str, got \[None\]",
        ),
        (
            "unexpected as tuple",
            ({}, [], [], ("a",)),
            r"unexpected as a list of str, got \('a',\)",
        ),
    ]
}

BERT_LOADER = {
    **{
        f"ch13 load_bert_weights: model as {label}": (
            lambda m=model: load_bert_weights(m, bert_state()),
            TypeError,
            rf"expected model as an encoderlib Encoder, got {kind}",
        )
        for label, model, kind in [
            ("None", None, "None"),
            ("str", "encoder", "str"),
            ("Linear", nn.Linear(2, 2), "Linear"),
        ]
    },
    **{
        f"ch13 load_bert_weights: state_dict as {label}": (
            lambda s=state: load_bert_weights(bert_encoder(), s),
            TypeError,
            rf"expected state_dict as a mapping of names to tensors, got {kind}",
        )
        for label, state, kind in [
            ("None", None, "None"),
            ("list of pairs", [("a", torch.zeros(1))], "list"),
            ("tensor", torch.zeros(3), "a Tensor"),
        ]
    },
    **flag_cases(
        "ch13 load_bert_weights",
        "strict",
        lambda v: load_bert_weights(bert_encoder(), bert_state(), strict=v),
    ),
    "ch13 load_bert_weights: an int key": (
        lambda: load_bert_weights(bert_encoder(), {**bert_state(), 0: torch.zeros(1)}),
        TypeError,
        r"expected str keys \(parameter names\), got int 0",
    ),
    **{
        f"ch13 load_bert_weights: a value as {label}": (
            lambda v=value: load_bert_weights(
                bert_encoder(), bert_state(**{"embeddings.LayerNorm.weight": v})
            ),
            TypeError,
            r"expected a tensor \(or numpy array\) for embeddings.LayerNorm.weight, "
            rf"got {kind}",
        )
        for label, value, kind in [
            ("None", None, "NoneType"),
            ("list", [[0.0] * 32] * 3, "list"),
            ("str", "weights", "str"),
            ("float", 1.5, "float"),
        ]
    },
    **{
        f"ch13 load_bert_weights: {dtype} weights": (
            lambda d=dtype: load_bert_weights(
                bert_encoder(), bert_state(**{QUERY: _bert_state()[QUERY].to(d)})
            ),
            TypeError,
            rf"expected floating-point weights for {QUERY}, got dtype {dtype}",
        )
        for dtype in [
            torch.uint8,
            torch.int8,
            torch.int16,
            torch.int32,
            torch.int64,
            torch.bool,
        ]
    },
    "ch13 load_bert_weights: numpy integers": (
        lambda: load_bert_weights(
            bert_encoder(),
            bert_state(**{"embeddings.LayerNorm.bias": np.zeros(32, dtype=np.int16)}),
        ),
        TypeError,
        r"expected floating-point weights for embeddings.LayerNorm.bias",
    ),
    **{
        f"ch13 load_bert_weights: {key} of shape {shape}": (
            lambda k=key, s=shape: load_bert_weights(
                bert_encoder(), bert_state(**{k: torch.zeros(s)})
            ),
            ValueError,
            rf"shape mismatch for {key} → .*: expected \({expected}\), got \({got}\)",
        )
        for key, shape, expected, got in [
            ("embeddings.word_embeddings.weight", (65, 32), "66, 32", "65, 32"),
            (QUERY, (32,), "32, 32", "32,"),  # wrong rank
            ("encoder.layer.0.intermediate.dense.weight", (32, 64), "64, 32", "32, 64"),
            ("embeddings.LayerNorm.bias", (0,), "32,", "0,"),  # empty
        ]
    },
    "ch13 load_bert_weights: an empty checkpoint": (
        lambda: load_bert_weights(bert_encoder(), {}),
        ValueError,
        r"expected Hugging Face BERT names .* none among 0 keys",
    ),
    "ch13 load_bert_weights: an empty checkpoint, not strict": (
        lambda: load_bert_weights(bert_encoder(), {}, strict=False),
        ValueError,
        r"got none among 0 keys",
    ),
    "ch13 load_bert_weights: a pre-norm Encoder": (
        lambda: load_bert_weights(bert_encoder(norm_first=True), bert_state()),
        ValueError,
        r"expected a post-norm Encoder with learned positions",
    ),
    "ch13 load_bert_weights: sinusoidal positions": (
        lambda: load_bert_weights(bert_encoder(positional="sinusoidal"), bert_state()),
        ValueError,
        r"expected a post-norm Encoder with learned positions",
    ),
    **positive_int_cases("ch13 bert_parameter_names", "n_layers", bert_parameter_names),
}

MODERNBERT_LOADER = {
    "ch17 load_modernbert_weights: not an Encoder": (
        lambda: load_modernbert_weights(nn.Linear(2, 2), modern_state()),
        TypeError,
        r"model as an encoderlib Encoder, got Linear",
    ),
    "ch17 load_modernbert_weights: state dict as list": (
        lambda: load_modernbert_weights(modern_encoder(), list(modern_state().items())),
        TypeError,
        r"state_dict as a mapping of names to tensors, got list",
    ),
    **flag_cases(
        "ch17 load_modernbert_weights",
        "strict",
        lambda v: load_modernbert_weights(modern_encoder(), modern_state(), strict=v),
    ),
    "ch17 load_modernbert_weights: a BERT-shaped Encoder": (
        lambda: load_modernbert_weights(Encoder(EncoderConfig.tiny()), modern_state()),
        ValueError,
        r"an Encoder of ModernBERT's shape .*got \{'positional': 'learned'",
    ),
    "ch17 load_modernbert_weights: a wrong shape": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            modern_state(**{"layers.1.attn.Wqkv.weight": torch.zeros(90, 32)}),
        ),
        ValueError,
        r"shape mismatch for layers.1.attn.Wqkv.weight .*expected \(96, 32\), "
        r"got \(90, 32\)",
    ),
    "ch17 load_modernbert_weights: a missing tensor": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            {k: v for k, v in modern_state().items() if k != "final_norm.weight"},
        ),
        ValueError,
        r"missing \['final_norm.weight'\]; unexpected none",
    ),
    "ch17 load_modernbert_weights: an unexpected tensor": (
        lambda: load_modernbert_weights(
            modern_encoder(), modern_state(**{"layers.7.attn.Wo.weight": torch.eye(32)})
        ),
        ValueError,
        r"unexpected \['layers.7.attn.Wo.weight'\]",
    ),
    "ch17 load_modernbert_weights: nothing matches": (
        lambda: load_modernbert_weights(
            modern_encoder(), {"encoder.layer.0.weight": torch.zeros(2)}
        ),
        ValueError,
        r"ModernBERT names such as 'layers.0.attn.Wqkv.weight', got none",
    ),
    "ch17 load_modernbert_weights: integer weights": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            modern_state(**{"final_norm.weight": torch.ones(32, dtype=torch.long)}),
        ),
        TypeError,
        r"floating-point weights for final_norm.weight, got dtype torch.int64",
    ),
    "ch17 load_modernbert_weights: a list value": (
        lambda: load_modernbert_weights(
            modern_encoder(), modern_state(**{"final_norm.weight": [1.0] * 32})
        ),
        TypeError,
        r"a tensor \(or numpy array\) for final_norm.weight, got list",
    ),
    "ch17 load_modernbert_weights: a non-str key": (
        lambda: load_modernbert_weights(modern_encoder(), {0: torch.zeros(2)}),
        TypeError,
        r"str keys \(parameter names\), got int 0",
    ),
}

ROBERTA = {**BERT, "model_type": "roberta", "max_position_embeddings": 66}
DISTILBERT = {
    "model_type": "distilbert",
    "vocab_size": 66,
    "dim": 32,
    "n_heads": 4,
    "n_layers": 1,
    "hidden_dim": 64,
}


def family_encoder(hf: dict, **changes) -> Encoder:
    return Encoder(config_from_pretrained(hf).replace(**changes))


def empty_folder(name: str = "") -> str:
    folder = str(scratch_folder("bad-input-checkpoints-"))
    if name:
        (Path(folder) / name).write_text("{}")
    return folder


PRETRAINED_LOADER = {
    "ch13 load_pretrained_weights: model_type None": (
        lambda: load_pretrained_weights(bert_encoder(), bert_state(), None),
        TypeError,
        r"expected model_type as one of 'bert', .*'modernbert', got None",
    ),
    "ch13 load_pretrained_weights: an unknown model_type": (
        lambda: load_pretrained_weights(bert_encoder(), bert_state(), "gpt2"),
        ValueError,
        r"expected model_type as one of 'bert', .*got 'gpt2'",
    ),
    "ch13 load_pretrained_weights: model None": (
        lambda: load_pretrained_weights(None, bert_state(), "bert"),
        TypeError,
        r"expected model as an encoderlib Encoder, got None",
    ),
    "ch13 load_pretrained_weights: state_dict as list": (
        lambda: load_pretrained_weights(bert_encoder(), [], "bert"),
        TypeError,
        r"expected state_dict as a mapping of names to tensors, got list",
    ),
    "ch13 load_pretrained_weights: strict as str": (
        lambda: load_pretrained_weights(bert_encoder(), bert_state(), "bert", "no"),
        TypeError,
        r"strict as a bool, got str 'no'",
    ),
    "ch13 load_pretrained_weights: RoBERTa weights into BERT's positions": (
        lambda: load_pretrained_weights(bert_encoder(), bert_state(), "roberta"),
        ValueError,
        r"expected an Encoder of roberta's shape .*got \{'position_offset': 0\}: "
        r"build it with config_from_pretrained",
    ),
    "ch13 load_pretrained_weights: BERT weights with an offset": (
        lambda: load_pretrained_weights(family_encoder(ROBERTA), bert_state(), "bert"),
        ValueError,
        r"bert's shape .*got \{'position_offset': 2\}",
    ),
    "ch13 load_pretrained_weights: DistilBERT into a pre-norm Encoder": (
        lambda: load_pretrained_weights(
            family_encoder(DISTILBERT, norm_first=True), {}, "distilbert"
        ),
        ValueError,
        r"distilbert's shape .*got \{'norm_first': True\}",
    ),
    "ch13 load_pretrained_weights: BERT names as DistilBERT": (
        lambda: load_pretrained_weights(
            family_encoder(DISTILBERT), bert_state(), "distilbert"
        ),
        ValueError,
        r"does not match the Encoder: missing \['layers.0.attn.q_proj.weight'",
    ),
    "ch13 load_pretrained_weights: a query of the wrong shape": (
        lambda: load_pretrained_weights(
            bert_encoder(), bert_state(**{QUERY: torch.zeros(3, 3)}), "electra"
        ),
        ValueError,
        r"shape mismatch for encoder.layer.0.attention.self.query.weight",
    ),
    "ch13 load_pretrained_weights: ModernBERT into BERT's shape": (
        lambda: load_pretrained_weights(bert_encoder(), modern_state(), "modernbert"),
        ValueError,
        r"expected an Encoder of ModernBERT's shape",
    ),
    "ch13 load_pretrained_weights: no name matches": (
        lambda: load_pretrained_weights(bert_encoder(), {"x.weight": None}, "bert"),
        ValueError,
        r"expected Hugging Face bert names such as "
        r"'encoder.layer.0.attention.self.query.weight', got none among 1 keys",
    ),
    "ch13 read_weights: folder None": (
        lambda: read_weights(None),
        TypeError,
        r"expected folder as a str or pathlib.Path, got None",
    ),
    "ch13 read_weights: a folder without weights": (
        lambda: read_weights("/no/such/folder"),
        FileNotFoundError,
        r"expected one of model.safetensors, model.safetensors.index.json, "
        r"pytorch_model.bin, pytorch_model.bin.index.json in '/no/such/folder', "
        r"found none",
    ),
    "ch13 read_weights: an index without a weight_map": (
        lambda: read_weights(empty_folder("model.safetensors.index.json")),
        ValueError,
        r"expected a weight_map in '.*model.safetensors.index.json', found none",
    ),
}

test_bad_input_raises_a_clear_error = sweep(
    {**REPORT, **BERT_LOADER, **MODERNBERT_LOADER, **PRETRAINED_LOADER}
)


def test_read_weights_names_a_missing_shard(tmp_path):
    index = {"weight_map": {"a.weight": "model-00001-of-00002.safetensors"}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(FileNotFoundError, match=r"model-00001-of-00002.safetensors"):
        read_weights(tmp_path)


def test_read_weights_refuses_a_bin_that_is_not_a_dict(tmp_path):
    torch.save([torch.zeros(2)], tmp_path / "pytorch_model.bin")
    with pytest.raises(ValueError, match=r"expected a dict of tensors .*got list"):
        read_weights(tmp_path)


def test_load_report_of_names_is_fine():
    report = LoadReport({"a.weight": "b.weight"}, ["pooler.x"], [], [])
    assert report.loaded == {"a.weight": "b.weight"}


def test_a_refused_value_copies_nothing():
    model = bert_encoder()
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(TypeError):
        load_bert_weights(model, bert_state(**{"embeddings.LayerNorm.weight": None}))
    for old, new in zip(before, model.parameters(), strict=True):
        assert torch.equal(old, new)


@pytest.mark.parametrize("family", ["bert", "modernbert"])
def test_both_loaders_convert_numpy_arrays(family):
    model, state, load = {
        "bert": (bert_encoder(), _bert_state(), load_bert_weights),
        "modernbert": (modern_encoder(), _modern_state(), load_modernbert_weights),
    }[family]
    report = load(model, {key: value.numpy() for key, value in state.items()})
    assert report.missing == [] and report.unexpected == []
    parameters = dict(model.named_parameters())
    for key, names in report.loaded.items():
        filled = torch.cat([parameters[name] for name in names.split(", ")])
        assert torch.equal(filled, state[key])  # the float32 bits, copied


def test_float64_checkpoint_fills_a_float32_model_and_back():
    model = bert_encoder()
    load_bert_weights(model, {k: v.double() for k, v in _bert_state().items()})
    assert all(p.dtype == torch.float32 for p in model.parameters())
    double = bert_encoder().double()
    load_bert_weights(double, _bert_state())
    assert all(p.dtype == torch.float64 for p in double.parameters())


def test_strict_false_reports_instead_of_raising():
    partial = {k: v for k, v in _modern_state().items() if k != "final_norm.weight"}
    report = load_modernbert_weights(modern_encoder(), partial, strict=False)
    assert report.missing == ["final_norm.weight"] and report.unexpected == []


@pytest.mark.parametrize("name", ["model.safetensors", "pytorch_model.bin"])
def test_read_weights_names_a_file_that_does_not_read(tmp_path, name):
    # safetensors says "header too small", torch.load advises weights_only=False:
    # neither names the file, and the second would run code from it.
    (tmp_path / name).write_bytes(b"not a weights file")
    with pytest.raises(ValueError, match=rf"weights file at '.*{name}', got one that"):
        read_weights(tmp_path)
