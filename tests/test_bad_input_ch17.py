"""Bad input to chapter 17's exports: relative positions and the ModernBERT loader.

`t5_relative_bucket`, `T5RelativePositionBias`, `alibi_slopes`, `ALiBiBias`,
`RotaryEmbedding`, `config_from_modernbert` and `load_modernbert_weights` are
fed each class of bad input (wrong Python types, float or bool tensors where
integers belong, integer tensors where floats belong, wrong ranks and sizes,
odd widths, bases and bucket counts out of range, configs an `EncoderConfig`
cannot express, checkpoints that do not fit) and must raise a TypeError or
ValueError whose message names what was expected and what was received. Empty
inputs (n = 0) give empty results of the right shape.
"""

import pytest
import torch
from transformers import ModernBertConfig, ModernBertModel

from encoderlib import Encoder, EncoderConfig
from encoderlib.embeddings import (
    ALiBiBias,
    RotaryEmbedding,
    T5RelativePositionBias,
    alibi_slopes,
    t5_relative_bucket,
)
from encoderlib.encoder import config_from_modernbert, load_modernbert_weights


def small_hf_config(**changes) -> ModernBertConfig:
    settings = dict(
        vocab_size=50,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=3,
        num_attention_heads=4,
        max_position_embeddings=32,
        local_attention=4,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        cls_token_id=1,
        sep_token_id=2,
    )
    settings.update(changes)
    return ModernBertConfig(**settings)


HF_DICT = small_hf_config().to_dict()


def state_dict() -> dict:
    torch.manual_seed(0)
    return ModernBertModel(small_hf_config()).state_dict()


def modern_encoder(**changes) -> Encoder:
    return Encoder(config_from_modernbert(small_hf_config()).replace(**changes))


T5 = {
    "t5_relative_bucket(list)": (
        lambda: t5_relative_bucket([0, 1]),
        TypeError,
        r"relative_position as a torch.Tensor, got list",
    ),
    "t5_relative_bucket(float tensor)": (
        lambda: t5_relative_bucket(torch.tensor([0.0, 1.0])),
        TypeError,
        r"integer tensor, got dtype torch.float32",
    ),
    "t5_relative_bucket(bool tensor)": (
        lambda: t5_relative_bucket(torch.tensor([True])),
        TypeError,
        r"integer tensor, got dtype torch.bool",
    ),
    "t5_relative_bucket(odd n_buckets)": (
        lambda: t5_relative_bucket(torch.tensor([1]), n_buckets=9),
        ValueError,
        r"even n_buckets >= 4, got 9",
    ),
    "t5_relative_bucket(n_buckets 2)": (
        lambda: t5_relative_bucket(torch.tensor([1]), n_buckets=2),
        ValueError,
        r"even n_buckets >= 4, got 2",
    ),
    "t5_relative_bucket(n_buckets as float)": (
        lambda: t5_relative_bucket(torch.tensor([1]), n_buckets=32.0),
        TypeError,
        r"n_buckets as an int, got float",
    ),
    "t5_relative_bucket(max_distance inside the exact range)": (
        lambda: t5_relative_bucket(torch.tensor([1]), n_buckets=32, max_distance=8),
        ValueError,
        r"max_distance > n_buckets // 4 = 8, got 8",
    ),
    "t5_relative_bucket(max_distance 0)": (
        lambda: t5_relative_bucket(torch.tensor([1]), max_distance=0),
        ValueError,
        r"max_distance >= 1, got 0",
    ),
    "T5RelativePositionBias(n_heads 0)": (
        lambda: T5RelativePositionBias(0),
        ValueError,
        r"n_heads >= 1, got 0",
    ),
    "T5RelativePositionBias(n_heads as bool)": (
        lambda: T5RelativePositionBias(True),
        TypeError,
        r"n_heads as an int, got bool",
    ),
    "T5RelativePositionBias(odd buckets)": (
        lambda: T5RelativePositionBias(4, n_buckets=7),
        ValueError,
        r"even n_buckets >= 4, got 7",
    ),
    "T5RelativePositionBias.forward(n as float)": (
        lambda: T5RelativePositionBias(4)(5.0),
        TypeError,
        r"n as an int, got float",
    ),
    "T5RelativePositionBias.forward(n -1)": (
        lambda: T5RelativePositionBias(4)(-1),
        ValueError,
        r"n >= 0, got -1",
    ),
}

ALIBI = {
    "alibi_slopes(0)": (lambda: alibi_slopes(0), ValueError, r"n_heads >= 1, got 0"),
    "alibi_slopes(4.0)": (
        lambda: alibi_slopes(4.0),
        TypeError,
        r"n_heads as an int, got float",
    ),
    "ALiBiBias(n_heads -2)": (
        lambda: ALiBiBias(-2),
        ValueError,
        r"n_heads >= 1, got -2",
    ),
    "ALiBiBias(n_heads as str)": (
        lambda: ALiBiBias("8"),
        TypeError,
        r"n_heads as an int, got str",
    ),
    "ALiBiBias.forward(n as tensor)": (
        lambda: ALiBiBias(4)(torch.tensor(5)),
        TypeError,
        r"n as an int, got Tensor",
    ),
    "ALiBiBias.forward(n -3)": (
        lambda: ALiBiBias(4)(-3),
        ValueError,
        r"n >= 0, got -3",
    ),
}

ROPE = {
    "RotaryEmbedding(odd d_head)": (
        lambda: RotaryEmbedding(7),
        ValueError,
        r"even d_head \(pairs\), got 7",
    ),
    "RotaryEmbedding(d_head 0)": (
        lambda: RotaryEmbedding(0),
        ValueError,
        r"d_head >= 1, got 0",
    ),
    "RotaryEmbedding(d_head as float)": (
        lambda: RotaryEmbedding(8.0),
        TypeError,
        r"d_head as an int, got float",
    ),
    "RotaryEmbedding(theta 1)": (
        lambda: RotaryEmbedding(8, theta=1.0),
        ValueError,
        r"theta > 1 and finite, got 1.0",
    ),
    "RotaryEmbedding(theta inf)": (
        lambda: RotaryEmbedding(8, theta=float("inf")),
        ValueError,
        r"theta > 1 and finite, got inf",
    ),
    "RotaryEmbedding(theta as str)": (
        lambda: RotaryEmbedding(8, theta="10000"),
        TypeError,
        r"theta as a float, got str",
    ),
    "RotaryEmbedding(interleaved as int)": (
        lambda: RotaryEmbedding(8, interleaved=1),
        TypeError,
        r"interleaved as a bool, got int",
    ),
    "RotaryEmbedding.rotate(integers)": (
        lambda: RotaryEmbedding(8).rotate(torch.ones(2, 3, 8, dtype=torch.long)),
        TypeError,
        r"a float tensor, got Tensor of dtype torch.int64",
    ),
    "RotaryEmbedding.rotate(list)": (
        lambda: RotaryEmbedding(8).rotate([[0.0] * 8]),
        TypeError,
        r"a float tensor, got list",
    ),
    "RotaryEmbedding.rotate(wrong d_head)": (
        lambda: RotaryEmbedding(8).rotate(torch.randn(2, 3, 6)),
        ValueError,
        r"shape \(\.\.\., n, d_head=8\), got \(2, 3, 6\)",
    ),
    "RotaryEmbedding.rotate(rank 1)": (
        lambda: RotaryEmbedding(8).rotate(torch.randn(8)),
        ValueError,
        r"shape \(\.\.\., n, d_head=8\), got \(8,\)",
    ),
    "RotaryEmbedding.forward(k wrong)": (
        lambda: RotaryEmbedding(8)(torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 4)),
        ValueError,
        r"d_head=8\), got \(1, 2, 3, 4\)",
    ),
    "RotaryEmbedding.angles(n -1)": (
        lambda: RotaryEmbedding(8).angles(-1),
        ValueError,
        r"n >= 0, got -1",
    ),
}

CONFIG = {
    "config_from_modernbert(None)": (
        lambda: config_from_modernbert(None),
        TypeError,
        r"a ModernBertConfig, a config dict or a path to config.json, got NoneType",
    ),
    "config_from_modernbert(a BERT config)": (
        lambda: config_from_modernbert({**HF_DICT, "model_type": "bert"}),
        ValueError,
        r"model_type 'modernbert'\), got 'bert'",
    ),
    "config_from_modernbert(the decoder)": (
        lambda: config_from_modernbert({**HF_DICT, "model_type": "modernbert-decoder"}),
        ValueError,
        r"got 'modernbert-decoder'",
    ),
    "config_from_modernbert(no hidden_size)": (
        lambda: config_from_modernbert(
            {k: v for k, v in HF_DICT.items() if k != "hidden_size"}
        ),
        ValueError,
        r"missing hidden_size",
    ),
    "config_from_modernbert(hidden_size as str)": (
        lambda: config_from_modernbert({**HF_DICT, "hidden_size": "32"}),
        TypeError,
        r"hidden_size as an int, got '32'",
    ),
    "config_from_modernbert(heads do not divide)": (
        lambda: config_from_modernbert({**HF_DICT, "num_attention_heads": 5}),
        ValueError,
        r"hidden_size divisible by num_attention_heads.*ModernBERT config",
    ),
    "config_from_modernbert(tanh GELU)": (
        lambda: config_from_modernbert({**HF_DICT, "hidden_activation": "gelu_new"}),
        ValueError,
        r"hidden_activation 'gelu' \(exact GELU, for GeGLU\), got 'gelu_new'",
    ),
    "config_from_modernbert(biases in attention only)": (
        lambda: config_from_modernbert({**HF_DICT, "attention_bias": True}),
        ValueError,
        r"all true or all false .*'attention_bias': True",
    ),
    "config_from_modernbert(two dropout rates)": (
        lambda: config_from_modernbert({**HF_DICT, "mlp_dropout": 0.1}),
        ValueError,
        r"one dropout rate .*'mlp_dropout': 0.1",
    ),
    "config_from_modernbert(first layer local)": (
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
    "config_from_modernbert(irregular globals)": (
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
    "config_from_modernbert(layer_types of the wrong length)": (
        lambda: config_from_modernbert({**HF_DICT, "layer_types": ["full_attention"]}),
        ValueError,
        r"layer_types as a list of 3 layer kinds",
    ),
    "config_from_modernbert(an unknown layer kind)": (
        lambda: config_from_modernbert(
            {**HF_DICT, "layer_types": ["full_attention", "chunked", "full_attention"]}
        ),
        ValueError,
        r"layer_types from \['full_attention', 'sliding_attention'\], got",
    ),
    "config_from_modernbert(scaled RoPE)": (
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
    "config_from_modernbert(local_attention as float)": (
        lambda: config_from_modernbert({**HF_DICT, "local_attention": 4.0}),
        ValueError,
        r"local_attention as an int, got 4.0",
    ),
    "config_from_modernbert(a base of 1)": (
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

LOADER = {
    "load_modernbert_weights(not an Encoder)": (
        lambda: load_modernbert_weights(torch.nn.Linear(2, 2), state_dict()),
        TypeError,
        r"an encoderlib Encoder, got Linear",
    ),
    "load_modernbert_weights(state dict as list)": (
        lambda: load_modernbert_weights(modern_encoder(), list(state_dict().items())),
        TypeError,
        r"a mapping of names to tensors, got list",
    ),
    "load_modernbert_weights(strict as str)": (
        lambda: load_modernbert_weights(modern_encoder(), state_dict(), strict="no"),
        TypeError,
        r"strict as a bool, got 'no'",
    ),
    "load_modernbert_weights(a BERT-shaped Encoder)": (
        lambda: load_modernbert_weights(Encoder(EncoderConfig.tiny()), state_dict()),
        ValueError,
        r"an Encoder of ModernBERT's shape .*got \{'positional': 'learned'",
    ),
    "load_modernbert_weights(a wrong shape)": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            {**state_dict(), "layers.1.attn.Wqkv.weight": torch.zeros(90, 32)},
        ),
        ValueError,
        r"shape mismatch for layers.1.attn.Wqkv.weight .*expected \(96, 32\), "
        r"got \(90, 32\)",
    ),
    "load_modernbert_weights(a missing tensor)": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            {k: v for k, v in state_dict().items() if k != "final_norm.weight"},
        ),
        ValueError,
        r"missing \['final_norm.weight'\]; unexpected \[\]",
    ),
    "load_modernbert_weights(an unexpected tensor)": (
        lambda: load_modernbert_weights(
            modern_encoder(), {**state_dict(), "layers.7.attn.Wo.weight": torch.eye(32)}
        ),
        ValueError,
        r"unexpected \['layers.7.attn.Wo.weight'\]",
    ),
    "load_modernbert_weights(nothing matches)": (
        lambda: load_modernbert_weights(
            modern_encoder(), {"encoder.layer.0.weight": torch.zeros(2)}
        ),
        ValueError,
        r"ModernBERT names such as 'layers.0.attn.Wqkv.weight', got none",
    ),
    "load_modernbert_weights(integer weights)": (
        lambda: load_modernbert_weights(
            modern_encoder(),
            {**state_dict(), "final_norm.weight": torch.ones(32, dtype=torch.long)},
        ),
        TypeError,
        r"floating-point tensor for final_norm.weight, got torch.int64",
    ),
    "load_modernbert_weights(a non-str key)": (
        lambda: load_modernbert_weights(modern_encoder(), {0: torch.zeros(2)}),
        TypeError,
        r"str keys \(parameter names\), got int 0",
    ),
}

CASES = {**T5, **ALIBI, **ROPE, **CONFIG, **LOADER}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    # The error comes from encoderlib's own checks, not from inside torch.
    assert "encoderlib" in info.traceback[-1].path.as_posix()


def test_config_from_modernbert_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        config_from_modernbert(tmp_path)


def test_strict_false_reports_instead_of_raising():
    partial = {k: v for k, v in state_dict().items() if k != "final_norm.weight"}
    report = load_modernbert_weights(modern_encoder(), partial, strict=False)
    assert report.missing == ["final_norm.weight"] and report.unexpected == []


@pytest.mark.parametrize("n", [0, 1])
def test_empty_inputs_give_empty_results(n):
    assert T5RelativePositionBias(4)(n).shape == (4, n, n)
    assert ALiBiBias(4)(n).shape == (4, n, n)
    assert t5_relative_bucket(torch.zeros(0, dtype=torch.long)).shape == (0,)
    rope = RotaryEmbedding(8)
    q = torch.randn(2, 3, n, 8)
    assert rope(q, q)[0].shape == (2, 3, n, 8)
    assert rope.angles(n).shape == (n, 4)
