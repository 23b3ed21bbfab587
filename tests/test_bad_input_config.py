"""Bad input to encoderlib.config (chapter 8): `EncoderConfig`, clear errors.

Each case feeds one class of bad input (wrong Python types, out-of-range sizes
and rates, unknown activations or position schemes, unknown field names) and
expects a TypeError or ValueError that names what was expected and what was
received, raised when the config is made.
"""

from bad_input import sweep

from encoderlib.config import EncoderConfig


def config(**overrides) -> EncoderConfig:
    sizes = dict(vocab_size=50, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    return EncoderConfig.tiny(**(sizes | overrides))


CONFIG = {
    "vocab_size 0": (
        lambda: config(vocab_size=0),
        ValueError,
        r"expected vocab_size as a positive int, got 0",
    ),
    "d_model as float": (
        lambda: config(d_model=16.0),
        TypeError,
        r"expected d_model as a positive int, got float 16\.0",
    ),
    "n_layers as str": (
        lambda: config(n_layers="6"),
        TypeError,
        r"expected n_layers as an int >= 0, got str '6'",
    ),
    "n_layers negative": (
        lambda: config(n_layers=-1),
        ValueError,
        r"expected n_layers as an int >= 0, got -1",
    ),
    "max_len 0": (
        lambda: config(max_len=0),
        ValueError,
        r"expected max_len as a positive int, got 0",
    ),
    "heads do not divide": (
        lambda: config(n_heads=3),
        ValueError,
        r"divisible by n_heads, got d_model=16 and n_heads=3",
    ),
    "dropout 1": (
        lambda: config(dropout=1.0),
        ValueError,
        r"dropout in \[0, 1\), got 1.0",
    ),
    "dropout nan": (lambda: config(dropout=float("nan")), ValueError, r"got nan"),
    "dropout as str": (
        lambda: config(dropout="0.1"),
        TypeError,
        r"expected dropout as a float, got str '0\.1'",
    ),
    "eps 0": (lambda: config(eps=0.0), ValueError, r"eps > 0, got 0.0"),
    "eps negative": (lambda: config(eps=-1e-5), ValueError, r"eps > 0, got -1e-05"),
    "unknown activation": (
        lambda: config(activation="tanh"),
        ValueError,
        r"expected activation as one of 'gelu', 'gelu_tanh', 'relu",
    ),
    "norm_first as int": (
        lambda: config(norm_first=1),
        TypeError,
        r"expected norm_first as a bool, got int 1",
    ),
    "unknown positions": (
        lambda: config(positional="rotary"),
        ValueError,
        r"expected positional as one of 'learned', 'sinusoidal', '",
    ),
    "odd width, sinusoidal": (
        lambda: config(d_model=15, n_heads=3, positional="sinusoidal"),
        ValueError,
        r"even d_model, got 15",
    ),
    "a field that does not exist": (
        lambda: config(width=64),
        TypeError,
        r"EncoderConfig fields \(vocab_size, .*\), got unknown 'width'",
    ),
    "replace() with a typo": (
        lambda: EncoderConfig.bert_base().replace(n_layer=6),
        TypeError,
        r"fields .*got unknown 'n_layer'",
    ),
    "replace() with a bad value": (
        lambda: EncoderConfig.minilm_l6().replace(d_model=100),
        ValueError,
        r"d_model=100 and n_heads=12",
    ),
    "bert_base() with a typo": (
        lambda: EncoderConfig.bert_base(layers=3),
        TypeError,
        r"got unknown 'layers'",
    ),
    "minilm_l6() with a typo": (
        lambda: EncoderConfig.minilm_l6(heads=3),
        TypeError,
        r"got unknown 'heads'",
    ),
    "rope_theta as str": (
        lambda: config(rope_theta="1e4"),
        TypeError,
        r"expected rope_theta as a float, got str '1e4'",
    ),
    "rope_theta 1": (
        lambda: config(rope_theta=1.0),
        ValueError,
        r"expected rope_theta > 1, got 1\.0",
    ),
    "local_rope_theta inf": (
        lambda: config(local_rope_theta=float("inf")),
        ValueError,
        r"expected local_rope_theta > 1, got inf",
    ),
    "window negative": (
        lambda: config(window=-1),
        ValueError,
        r"expected window as an int >= 0, got -1",
    ),
    "window as float": (
        lambda: config(window=4.0),
        TypeError,
        r"expected window as an int >= 0, got float 4\.0",
    ),
    "global_every 0": (
        lambda: config(global_every=0),
        ValueError,
        r"expected global_every as an int >= 1, got 0",
    ),
    "t5_buckets odd": (
        lambda: config(t5_buckets=9),
        ValueError,
        r"even t5_buckets and t5_max_distance > t5_buckets // 4, got 9 and 128",
    ),
    "t5_max_distance inside the exact range": (
        lambda: config(t5_buckets=32, t5_max_distance=8),
        ValueError,
        r"got 32 and 8",
    ),
    "bias as int": (
        lambda: config(bias=0),
        TypeError,
        r"expected bias as a bool, got int 0",
    ),
    "skip_first_norm as str": (
        lambda: config(skip_first_norm="yes"),
        TypeError,
        r"expected skip_first_norm as a bool, got str 'yes'",
    ),
    "skip_first_norm on post-norm": (
        lambda: config(skip_first_norm=True, norm_first=False),
        ValueError,
        r"needs a pre-norm model \(norm_first=True\)",
    ),
    "rope with an odd d_head": (
        lambda: config(d_model=18, n_heads=2, positional="rope"),
        ValueError,
        r"even d_head, got 9",
    ),
    "layer_is_local(str)": (
        lambda: config().layer_is_local("1"),
        TypeError,
        r"expected i as an int, got str '1'",
    ),
    "layer_is_local out of range": (
        lambda: config(window=2).layer_is_local(2),
        ValueError,
        r"i in \[0, n_layers=2\), got 2",
    ),
    "pad_token_id as str": (
        lambda: config(pad_token_id="0"),
        TypeError,
        r"expected pad_token_id as an int >= 0, got str '0'",
    ),
    "pad_token_id beyond the vocabulary": (
        lambda: config(pad_token_id=50),
        ValueError,
        r"pad_token_id in \[0, vocab_size=50\), got 50",
    ),
    "modernbert_base() with a typo": (
        lambda: EncoderConfig.modernbert_base(local_window=3),
        TypeError,
        r"got unknown 'local_window'",
    ),
    "position_offset as str": (
        lambda: config(position_offset="2"),
        TypeError,
        r"expected position_offset as an int >= 0, got str '2'",
    ),
    "position_offset negative": (
        lambda: config(position_offset=-1),
        ValueError,
        r"expected position_offset as an int >= 0, got -1",
    ),
    "position_offset at max_len": (
        lambda: config(max_len=8, position_offset=8),
        ValueError,
        r"expected position_offset < max_len=8, got 8",
    ),
    "position_offset with RoPE": (
        lambda: config(positional="rope", position_offset=2),
        ValueError,
        r"position_offset 0 with positions that are not added .*got 2 with "
        r"positional='rope'",
    ),
    "d_embed as float": (
        lambda: config(d_embed=8.0),
        TypeError,
        r"expected d_embed as a positive int, got float 8\.0",
    ),
    "d_embed 0": (
        lambda: config(d_embed=0),
        ValueError,
        r"expected d_embed as a positive int, got 0",
    ),
    "d_embed with ALiBi": (
        lambda: config(positional="alibi", d_embed=8),
        ValueError,
        r"expected d_embed None with positions inside attention, got d_embed=8",
    ),
    "an odd d_embed with sinusoidal positions": (
        lambda: config(positional="sinusoidal", d_embed=7),
        ValueError,
        r"expected an even d_embed, got 7",
    ),
}


CASES = {f"ch08 EncoderConfig: {k}": v for k, v in CONFIG.items()}

test_bad_input_raises_a_clear_error = sweep(CASES)
