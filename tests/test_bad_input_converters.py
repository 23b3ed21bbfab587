"""Bad input to encoderlib.converters: Hugging Face configs read into an EncoderConfig.

`config_from_bert` (chapter 13) and `config_from_modernbert` (chapter 17) get
the classes of bad input a reader meets: arguments that are neither a config
nor a path, missing files and broken JSON, missing sizes, sizes and rates of
the wrong type or out of range (named by their config.json key), and configs
of another kind of model, or that an `EncoderConfig` cannot express. Each must
raise a `TypeError` or `ValueError` naming what was expected and what was
received; a missing file is a `FileNotFoundError` naming it.
"""

import math
import re

import pytest
from bad_input import sweep
from small_models import small_modernbert_config

from encoderlib.converters import (
    config_from_bert,
    config_from_modernbert,
    config_from_pretrained,
    read_config_file,
)

BERT = {
    "vocab_size": 66,
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}


small_modernbert = small_modernbert_config


HF_DICT = small_modernbert().to_dict()


def bert_case(key, value, error, expected):
    """config.json's `key` set to `value`: the message names the key and the value."""
    message = (
        rf"{re.escape(expected)}.*{re.escape(repr(value))}.*\(in the BERT config\)"
    )
    if expected.startswith(("a BERT", "absolute", "hidden_act")):
        message = rf"{re.escape(expected)}.*{re.escape(repr(value))}"
    return {
        f"ch13 config_from_bert: {key} = {value!r}": (
            lambda: config_from_bert({**BERT, key: value}),
            error,
            message,
        )
    }


BERT_CASES = {
    **{
        f"ch13 config_from_bert: {label}": (
            lambda v=value: config_from_bert(v),
            TypeError,
            rf"expected hf_config as a config dict or a path, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("int", 3, "int 3"),
            ("float", 2.5, "float 2.5"),
            ("list", ["config.json"], "list"),
            ("bytes", b"config.json", "bytes"),
        ]
    },
    "ch13 config_from_bert: no intermediate_size": (
        lambda: config_from_bert(
            {k: v for k, v in BERT.items() if k != "intermediate_size"}
        ),
        ValueError,
        r"expected a BERT config with .*missing intermediate_size",
    ),
    **bert_case("hidden_size", "32", TypeError, "hidden_size"),
    **bert_case("hidden_size", 32.0, TypeError, "hidden_size"),
    **bert_case("num_hidden_layers", True, TypeError, "num_hidden_layers"),
    **bert_case("vocab_size", None, TypeError, "vocab_size"),
    **bert_case("layer_norm_eps", "1e-12", TypeError, "layer_norm_eps"),
    **bert_case("hidden_dropout_prob", None, TypeError, "hidden_dropout_prob"),
    **bert_case("num_attention_heads", 0, ValueError, "num_attention_heads"),
    **bert_case("vocab_size", -5, ValueError, "vocab_size"),
    **bert_case("intermediate_size", 0, ValueError, "intermediate_size"),
    **bert_case("max_position_embeddings", 0, ValueError, "max_position_embeddings"),
    **bert_case("type_vocab_size", -1, ValueError, "type_vocab_size"),
    **bert_case("layer_norm_eps", 0.0, ValueError, "layer_norm_eps"),
    **bert_case("layer_norm_eps", -1e-12, ValueError, "layer_norm_eps"),
    **bert_case("layer_norm_eps", math.nan, ValueError, "layer_norm_eps"),
    **bert_case(
        "hidden_dropout_prob", 1.0, ValueError, "hidden_dropout_prob in [0, 1)"
    ),
    **bert_case(
        "hidden_dropout_prob", -0.1, ValueError, "hidden_dropout_prob in [0, 1)"
    ),
    **bert_case(
        "hidden_dropout_prob", math.nan, ValueError, "hidden_dropout_prob in [0, 1)"
    ),
    **bert_case("hidden_act", None, ValueError, "hidden_act in ["),
    **bert_case("hidden_act", "swish", ValueError, "hidden_act in ["),
    **bert_case("hidden_act", ["gelu"], ValueError, "hidden_act in ["),
    **bert_case(
        "model_type", "roberta", ValueError, "a BERT config (model_type 'bert')"
    ),
    **bert_case(
        "position_embedding_type",
        "relative_key",
        ValueError,
        "absolute position embeddings",
    ),
    "ch13 config_from_bert: heads do not divide the width": (
        lambda: config_from_bert({**BERT, "num_attention_heads": 5}),
        ValueError,
        r"hidden_size divisible by num_attention_heads.*hidden_size=32 and "
        r"num_attention_heads=5",
    ),
    **{
        f"ch13 config_from_bert: {flag}": (
            lambda f=flag: config_from_bert({**BERT, f: True}),
            ValueError,
            rf"expected an encoder config \({flag} false or absent\), got {flag}=True",
        )
        for flag in ("is_decoder", "add_cross_attention")
    },
}

MODERNBERT_CASES = {
    "ch17 config_from_modernbert: None": (
        lambda: config_from_modernbert(None),
        TypeError,
        r"hf_config as a ModernBertConfig, a config dict or a path to config.json, "
        r"got None",
    ),
    "ch17 config_from_modernbert: a BERT config": (
        lambda: config_from_modernbert({**HF_DICT, "model_type": "bert"}),
        ValueError,
        r"model_type 'modernbert'\), got 'bert'",
    ),
    "ch17 config_from_modernbert: the decoder": (
        lambda: config_from_modernbert({**HF_DICT, "model_type": "modernbert-decoder"}),
        ValueError,
        r"got 'modernbert-decoder'",
    ),
    "ch17 config_from_modernbert: no hidden_size": (
        lambda: config_from_modernbert(
            {k: v for k, v in HF_DICT.items() if k != "hidden_size"}
        ),
        ValueError,
        r"missing hidden_size",
    ),
    "ch17 config_from_modernbert: hidden_size as str": (
        lambda: config_from_modernbert({**HF_DICT, "hidden_size": "32"}),
        TypeError,
        r"hidden_size as an int, got str '32'",
    ),
    "ch17 config_from_modernbert: heads do not divide": (
        lambda: config_from_modernbert({**HF_DICT, "num_attention_heads": 5}),
        ValueError,
        r"hidden_size divisible by num_attention_heads.*ModernBERT config",
    ),
    "ch17 config_from_modernbert: tanh GELU": (
        lambda: config_from_modernbert({**HF_DICT, "hidden_activation": "gelu_new"}),
        ValueError,
        r"hidden_activation 'gelu' \(exact GELU, for GeGLU\), got 'gelu_new'",
    ),
    "ch17 config_from_modernbert: biases in attention only": (
        lambda: config_from_modernbert({**HF_DICT, "attention_bias": True}),
        ValueError,
        r"all true or all false .*'attention_bias': True",
    ),
    "ch17 config_from_modernbert: two dropout rates": (
        lambda: config_from_modernbert({**HF_DICT, "mlp_dropout": 0.1}),
        ValueError,
        r"one dropout rate .*'mlp_dropout': 0.1",
    ),
    "ch17 config_from_modernbert: first layer local": (
        lambda: config_from_modernbert(
            {
                **HF_DICT,
                "layer_types": [
                    "sliding_attention",
                    "full_attention",
                    "sliding_attention",
                ],
            }
        ),
        ValueError,
        r"global \(full_attention\) layers 0, g, 2g, .*got global layers \[1\]",
    ),
    "ch17 config_from_modernbert: irregular globals": (
        lambda: config_from_modernbert(
            {
                **HF_DICT,
                "num_hidden_layers": 4,
                "layer_types": [
                    "full_attention",
                    "sliding_attention",
                    "full_attention",
                    "full_attention",
                ],
            }
        ),
        ValueError,
        r"got global layers \[0, 2, 3\]",
    ),
    "ch17 config_from_modernbert: layer_types of the wrong length": (
        lambda: config_from_modernbert({**HF_DICT, "layer_types": ["full_attention"]}),
        ValueError,
        r"layer_types as a list of 3 layer kinds",
    ),
    "ch17 config_from_modernbert: an unknown layer kind": (
        lambda: config_from_modernbert(
            {**HF_DICT, "layer_types": ["full_attention", "chunked", "full_attention"]}
        ),
        ValueError,
        r"layer_types from \['full_attention', 'sliding_attention'\], got",
    ),
    "ch17 config_from_modernbert: scaled RoPE": (
        lambda: config_from_modernbert(
            {
                **HF_DICT,
                "rope_parameters": {
                    "full_attention": {"rope_type": "yarn", "rope_theta": 1e4},
                    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                },
            }
        ),
        ValueError,
        r"rope_type 'default'\) for full_attention, got 'yarn'",
    ),
    "ch17 config_from_modernbert: local_attention as float": (
        lambda: config_from_modernbert({**HF_DICT, "local_attention": 4.0}),
        TypeError,
        r"local_attention as an int, got float 4.0",
    ),
    "ch17 config_from_modernbert: a base of 1": (
        lambda: config_from_modernbert(
            {
                **HF_DICT,
                "rope_parameters": {
                    "full_attention": {"rope_type": "default", "rope_theta": 1.0},
                    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                },
            }
        ),
        ValueError,
        r"the global rope_theta .*got 1.0 \(in the ModernBERT config\)",
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
PRETRAINED_CASES = {
    **{
        f"ch13 config_from_pretrained: {label}": (
            lambda v=value: config_from_pretrained(v),
            TypeError,
            rf"expected hf_config as a config dict, a path to config.json or a "
            rf"transformers config, got {kind}",
        )
        for label, value, kind in [
            ("None", None, "None"),
            ("int", 3, "int 3"),
            ("list", ["config.json"], "list"),
        ]
    },
    "ch13 config_from_pretrained: a missing folder": (
        lambda: config_from_pretrained("/no/such/folder"),
        FileNotFoundError,
        r"expected a config.json at '/no/such/folder', found none",
    ),
    "ch13 config_from_pretrained: no model_type": (
        lambda: config_from_pretrained(BERT),
        ValueError,
        r"expected a config with a model_type \('bert', .*'modernbert'\), got None",
    ),
    "ch13 config_from_pretrained: model_type as int": (
        lambda: config_from_pretrained({**BERT, "model_type": 3}),
        ValueError,
        r"with a model_type .*got 3",
    ),
    "ch13 config_from_pretrained: a GPT-2": (
        lambda: config_from_pretrained({"model_type": "gpt2"}),
        ValueError,
        r"expected an encoder-only config .*got model_type 'gpt2'",
    ),
    "ch13 config_from_pretrained: an encoder-decoder": (
        lambda: config_from_pretrained({"model_type": "x", "is_encoder_decoder": True}),
        ValueError,
        r"got model_type 'x' with is_encoder_decoder=True",
    ),
    "ch13 config_from_pretrained: cross-attention": (
        lambda: config_from_pretrained({**ROBERTA, "add_cross_attention": True}),
        ValueError,
        r"got model_type 'roberta' with add_cross_attention=True",
    ),
    "ch13 config_from_pretrained: an unknown family": (
        lambda: config_from_pretrained({"model_type": "deberta-v2"}),
        ValueError,
        r"model_type as one of 'bert', 'roberta', 'xlm-roberta', 'distilbert', "
        r"'electra', 'modernbert', the families encoderlib reads, got 'deberta-v2'",
    ),
    "ch13 config_from_pretrained: RoBERTa with relative positions": (
        lambda: config_from_pretrained(
            {**ROBERTA, "position_embedding_type": "relative_key_query"}
        ),
        ValueError,
        r"absolute position embeddings, got 'relative_key_query'",
    ),
    "ch13 config_from_pretrained: RoBERTa pad_token_id as str": (
        lambda: config_from_pretrained({**ROBERTA, "pad_token_id": "1"}),
        TypeError,
        r"expected pad_token_id as an int >= 0, got str '1'",
    ),
    "ch13 config_from_pretrained: RoBERTa without room for the offset": (
        lambda: config_from_pretrained({**ROBERTA, "max_position_embeddings": 2}),
        ValueError,
        r"expected pad_token_id \+ 1 < max_position_embeddings=2, got 2 "
        r"\(in the RoBERTa config\)",
    ),
    "ch13 config_from_pretrained: XLM-R hidden_size as str": (
        lambda: config_from_pretrained(
            {**ROBERTA, "model_type": "xlm-roberta", "hidden_size": "32"}
        ),
        TypeError,
        r"hidden_size .*'32' \(in the XLM-RoBERTa config\)",
    ),
    "ch13 config_from_pretrained: DistilBERT without dim": (
        lambda: config_from_pretrained(
            {k: v for k, v in DISTILBERT.items() if k != "dim"}
        ),
        ValueError,
        r"expected a DistilBERT config with .*missing dim",
    ),
    "ch13 config_from_pretrained: DistilBERT heads do not divide": (
        lambda: config_from_pretrained({**DISTILBERT, "n_heads": 5}),
        ValueError,
        r"dim divisible by n_heads.*\(in the DistilBERT config\)",
    ),
    "ch13 config_from_pretrained: DistilBERT activation": (
        lambda: config_from_pretrained({**DISTILBERT, "activation": "swish"}),
        ValueError,
        r"expected activation in \[.*\], got 'swish'",
    ),
    "ch13 config_from_pretrained: ELECTRA embedding_size 0": (
        lambda: config_from_pretrained(
            {**BERT, "model_type": "electra", "embedding_size": 0}
        ),
        ValueError,
        r"expected embedding_size as a positive int, got 0 \(in the ELECTRA config\)",
    ),
    "ch13 config_from_pretrained: a ViT, pointed to chapter 15": (
        lambda: config_from_pretrained({"model_type": "vit"}),
        ValueError,
        r"got 'vit' \(a ViT: chapter 15's vit_from_pretrained reads it\)",
    ),
    "ch13 read_config_file(path as int)": (
        lambda: read_config_file(7),
        TypeError,
        r"expected path as a str or pathlib.Path, got int 7",
    ),
    "ch13 config_from_pretrained: a ModernBERT refusal": (
        lambda: config_from_pretrained({**HF_DICT, "hidden_activation": "relu"}),
        ValueError,
        r"hidden_activation 'gelu'",
    ),
}

test_bad_input_raises_a_clear_error = sweep(
    {**BERT_CASES, **MODERNBERT_CASES, **PRETRAINED_CASES}
)


@pytest.mark.parametrize(
    "read", [config_from_bert, config_from_modernbert, read_config_file]
)
def test_missing_file_and_broken_json(read, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"expected a config\.json at .*none"):
        read(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match=r"expected a config\.json at"):
        read(tmp_path)  # a folder without config.json
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"expected JSON in .*config\.json.*got"):
        read(tmp_path)
    (tmp_path / "config.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match=r"expected a JSON object in .*, got \[1, 2\]"):
        read(tmp_path)


def test_config_from_bert_decoder_flags_false_are_fine():
    config = config_from_bert(
        {**BERT, "is_decoder": False, "add_cross_attention": False}
    )
    assert config.d_model == 32
