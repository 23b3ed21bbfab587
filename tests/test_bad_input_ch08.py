"""Bad input to chapter 8's exports: `EncoderConfig`, `Encoder`, `EncoderOutput`.

Each case feeds one class of bad input (wrong Python types, float or bool ids,
ids out of range, wrong ranks and sizes, masks that are not 0/1, out-of-range
settings, unknown config fields) and expects a TypeError or ValueError whose
message names what was expected and what was received. Small integer dtypes for
ids (uint8, int8, int16) are valid: they must give exactly what int64 ids give,
never be read as a boolean mask. Empty batches and all-padding rows give zeros
of the right shape, without NaN.
"""

import dataclasses

import pytest
import torch

from encoderlib.encoder import Encoder, EncoderConfig, EncoderOutput


def config(**overrides) -> EncoderConfig:
    sizes = dict(vocab_size=50, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    return EncoderConfig.tiny(**(sizes | overrides))


def encoder(**overrides) -> Encoder:
    torch.manual_seed(0)
    return Encoder(config(**overrides)).eval()


IDS = torch.tensor([[2, 7, 9, 11, 0], [3, 4, 0, 0, 0]])  # (2, 5)
MASK = (IDS != 0).long()

CONFIG = {
    "vocab_size 0": (
        lambda: config(vocab_size=0),
        ValueError,
        r"vocab_size >= 1, got 0",
    ),
    "d_model as float": (
        lambda: config(d_model=16.0),
        TypeError,
        r"d_model as an int, got 16.0",
    ),
    "n_layers as str": (
        lambda: config(n_layers="6"),
        TypeError,
        r"n_layers as an int, got '6'",
    ),
    "n_layers negative": (
        lambda: config(n_layers=-1),
        ValueError,
        r"n_layers >= 0, got -1",
    ),
    "max_len 0": (lambda: config(max_len=0), ValueError, r"max_len >= 1, got 0"),
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
        r"dropout as a float, got '0.1'",
    ),
    "eps 0": (lambda: config(eps=0.0), ValueError, r"eps > 0, got 0.0"),
    "eps negative": (lambda: config(eps=-1e-5), ValueError, r"eps > 0, got -1e-05"),
    "unknown activation": (
        lambda: config(activation="tanh"),
        ValueError,
        r"activation in \(.*'gelu'.*\), got 'tanh'",
    ),
    "norm_first as int": (
        lambda: config(norm_first=1),
        TypeError,
        r"norm_first as a bool, got 1",
    ),
    "unknown positions": (
        lambda: config(positional="rotary"),
        ValueError,
        r"positional in \('learned', 'sinusoidal', 'none', 't5', 'alibi', 'rope'\), "
        r"got 'rotary'",
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
        r"rope_theta as a float, got '1e4'",
    ),
    "rope_theta 1": (
        lambda: config(rope_theta=1.0),
        ValueError,
        r"rope_theta > 1 and finite, got 1.0",
    ),
    "local_rope_theta inf": (
        lambda: config(local_rope_theta=float("inf")),
        ValueError,
        r"local_rope_theta > 1 and finite, got inf",
    ),
    "window negative": (
        lambda: config(window=-1),
        ValueError,
        r"window >= 0, got -1",
    ),
    "window as float": (
        lambda: config(window=4.0),
        TypeError,
        r"window as an int, got 4.0",
    ),
    "global_every 0": (
        lambda: config(global_every=0),
        ValueError,
        r"global_every >= 1, got 0",
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
    "bias as int": (lambda: config(bias=0), TypeError, r"bias as a bool, got 0"),
    "skip_first_norm as str": (
        lambda: config(skip_first_norm="yes"),
        TypeError,
        r"skip_first_norm as a bool, got 'yes'",
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
        r"i as an int, got '1'",
    ),
    "layer_is_local out of range": (
        lambda: config(window=2).layer_is_local(2),
        ValueError,
        r"i in \[0, n_layers=2\), got 2",
    ),
    "pad_token_id as str": (
        lambda: config(pad_token_id="0"),
        TypeError,
        r"pad_token_id as an int or None, got '0'",
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
}

ENCODER = {
    "config None": (lambda: Encoder(None), TypeError, r"EncoderConfig, got NoneType"),
    "config as dict": (
        lambda: Encoder(dataclasses.asdict(config())),
        TypeError,
        r"EncoderConfig, got dict",
    ),
    "from_config(None)": (
        lambda: Encoder.from_config(None),
        TypeError,
        r"EncoderConfig, got NoneType",
    ),
    "from_config(dict with a typo)": (
        lambda: Encoder.from_config(dataclasses.asdict(config()) | {"vocab": 9}),
        TypeError,
        r"EncoderConfig fields .*got unknown 'vocab'",
    ),
    "from_config(dict with a bad value)": (
        lambda: Encoder.from_config(dataclasses.asdict(config()) | {"eps": -1.0}),
        ValueError,
        r"eps > 0, got -1.0",
    ),
}

FORWARD = {
    "ids None": (
        lambda: encoder()(None),
        TypeError,
        r"input_ids as a torch.Tensor, got NoneType",
    ),
    "ids as list": (lambda: encoder()([[2, 7]]), TypeError, r"torch.Tensor, got list"),
    "ids as str": (lambda: encoder()("the cat"), TypeError, r"torch.Tensor, got str"),
    "ids of floats": (
        lambda: encoder()(IDS.float()),
        TypeError,
        r"input_ids with an integer dtype, got torch.float32",
    ),
    "ids of bools": (
        lambda: encoder()(IDS.bool()),
        TypeError,
        r"integer dtype, got torch.bool",
    ),
    "ids too large": (
        lambda: encoder()(IDS + 50),
        ValueError,
        r"input_ids in \[0, 50\), got values from 50 to 61",
    ),
    "ids negative": (
        lambda: encoder()(-IDS),
        ValueError,
        r"in \[0, 50\), got values from -11",
    ),
    "ids uint8 too large": (
        lambda: encoder()(torch.full((1, 3), 200, dtype=torch.uint8)),
        ValueError,
        r"in \[0, 50\), got values from 200 to 200",
    ),
    "ids of rank 1": (lambda: encoder()(IDS[0]), ValueError, r"\(b, n\), got \(5,\)"),
    "ids of rank 3": (
        lambda: encoder()(IDS[None]),
        ValueError,
        r"\(b, n\), got \(1, 2, 5\)",
    ),
    "more tokens than max_len": (
        lambda: encoder()(torch.ones(1, 129, dtype=torch.long)),
        ValueError,
        r"max_len=128 tokens, got n=129",
    ),
    "mask as list": (
        lambda: encoder()(IDS, MASK.tolist()),
        TypeError,
        r"attention_mask as a torch.Tensor, got list",
    ),
    "mask of floats": (
        lambda: encoder()(IDS, MASK.float()),
        TypeError,
        r"attention_mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "mask with a 2": (
        lambda: encoder()(IDS, MASK * 2),
        ValueError,
        r"values 0 or 1 \(1 = real token\), got \[0, 2\]",
    ),
    "mask of another shape": (
        lambda: encoder()(IDS, MASK[:, :4]),
        ValueError,
        r"attention_mask of shape \(b, n\) = \(2, 5\).*got \(2, 4\)",
    ),
    "segment ids of floats": (
        lambda: encoder()(IDS, MASK, torch.zeros(2, 5)),
        TypeError,
        r"token_type_ids with an integer dtype, got torch.float32",
    ),
    "segment id 2 with two segments": (
        lambda: encoder()(IDS, MASK, torch.full((2, 5), 2)),
        ValueError,
        r"token_type_ids in \[0, 2\), got values from 2 to 2",
    ),
    "segment ids of another shape": (
        lambda: encoder()(IDS, MASK, torch.zeros(2, 4, dtype=torch.long)),
        ValueError,
        r"token_type_ids of shape \(b, n\) = \(2, 5\), got \(2, 4\)",
    ),
    "output_attentions as str": (
        lambda: encoder()(IDS, MASK, output_attentions="yes"),
        TypeError,
        r"output_attentions as a bool, got str 'yes'",
    ),
    "output_hidden_states as int": (
        lambda: encoder()(IDS, MASK, output_hidden_states=1),
        TypeError,
        r"output_hidden_states as a bool, got int 1",
    ),
}

OUTPUT = {
    "last_hidden_state None": (
        lambda: EncoderOutput(None),
        TypeError,
        r"last_hidden_state as a torch.Tensor, got NoneType",
    ),
    "last_hidden_state of rank 2": (
        lambda: EncoderOutput(torch.zeros(5, 16)),
        ValueError,
        r"last_hidden_state of shape \(b, n, d\), got \(5, 16\)",
    ),
    "hidden_states as a list": (
        lambda: EncoderOutput(
            torch.zeros(1, 5, 16), hidden_states=[torch.zeros(1, 5, 16)]
        ),
        TypeError,
        r"hidden_states as None or a tuple of tensors, got list",
    ),
    "attentions holding None": (
        lambda: EncoderOutput(torch.zeros(1, 5, 16), attentions=(None,)),
        TypeError,
        r"attentions as None or a tuple of tensors, got tuple of NoneType",
    ),
}

CASES = {
    **{f"EncoderConfig({k})": v for k, v in CONFIG.items()},
    **{f"Encoder({k})": v for k, v in ENCODER.items()},
    **{f"Encoder.forward({k})": v for k, v in FORWARD.items()},
    **{f"EncoderOutput({k})": v for k, v in OUTPUT.items()},
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    # The error comes from encoderlib's own checks, not from inside torch.
    assert "encoderlib" in info.traceback[-1].path.as_posix()


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
@pytest.mark.parametrize(
    "mask_dtype", [torch.bool, torch.uint8, torch.int8, torch.long]
)
def test_small_integer_ids_and_masks_give_what_int64_gives(dtype, mask_dtype):
    model = encoder()
    with torch.no_grad():
        expected = model(IDS, MASK.bool(), torch.zeros_like(IDS))
        result = model(
            IDS.to(dtype), MASK.to(mask_dtype), torch.zeros_like(IDS, dtype=dtype)
        )
    assert result.shape == (2, 5, 16)  # a uint8 tensor used as a mask would not be
    assert torch.equal(result, expected)  # same code path once widened to int64


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("shape", [(0, 4), (2, 0)], ids=["b=0", "n=0"])
def test_empty_batches_give_empty_results(norm_first, shape):
    model, ids = encoder(norm_first=norm_first), torch.zeros(shape, dtype=torch.long)
    mask = torch.ones(shape, dtype=torch.bool)
    with torch.no_grad():
        out = model(ids, mask, output_hidden_states=True, output_attentions=True)
    assert out.last_hidden_state.shape == (*shape, 16)
    assert all(s.shape == (*shape, 16) for s in out.hidden_states)
    assert model(ids).shape == (*shape, 16)


@pytest.mark.parametrize("output_attentions", [False, True], ids=["packed", "padded"])
def test_all_padding_rows_are_zeros_without_nan(output_attentions):
    model = encoder()
    mask = MASK.clone()
    mask[1] = 0  # the second sentence is all padding
    with torch.no_grad():
        result = model(IDS, mask, output_attentions=output_attentions)
    hidden = result if isinstance(result, torch.Tensor) else result.last_hidden_state
    assert not hidden.isnan().any() and (hidden[1] == 0).all()
