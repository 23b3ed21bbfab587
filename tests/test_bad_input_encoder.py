"""Bad input to encoderlib.encoder (chapter 8): `Encoder`, `EncoderOutput`.

Each case feeds one class of bad input (wrong Python types, float or bool ids,
ids out of range, wrong ranks and sizes, masks that are not 0/1, unknown config
fields) and expects a TypeError or ValueError whose message names what was
expected and what was received. Small integer dtypes for ids (uint8, int8,
int16) are valid: they must give exactly what int64 ids give, never be read as
a boolean mask. Empty batches and all-padding rows give zeros of the right
shape, without NaN.
"""

import dataclasses

import pytest
import torch
from bad_input import sweep

from encoderlib.encoder import Encoder, EncoderConfig, EncoderOutput, bert_init


def config(**overrides) -> EncoderConfig:
    sizes = dict(vocab_size=50, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    return EncoderConfig.tiny(**(sizes | overrides))


def encoder(**overrides) -> Encoder:
    torch.manual_seed(0)
    return Encoder(config(**overrides)).eval()


IDS = torch.tensor([[2, 7, 9, 11, 0], [3, 4, 0, 0, 0]])  # (2, 5)
MASK = (IDS != 0).long()


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
        r"expected input_ids as a torch\.Tensor, got None",
    ),
    "ids as list": (lambda: encoder()([[2, 7]]), TypeError, r"torch.Tensor, got list"),
    "ids as str": (lambda: encoder()("the cat"), TypeError, r"torch.Tensor, got str"),
    "too many tokens for the position offset": (
        lambda: encoder(max_len=6, position_offset=2)(IDS),
        ValueError,
        r"expected at most max_len - position_offset = 6 - 2 = 4 tokens, got n=5",
    ),
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
    "ids of rank 1": (
        lambda: encoder()(IDS[0]),
        ValueError,
        r"expected input_ids of shape \(b, n\) = \(\*, \*\), got \(5,\)",
    ),
    "ids of rank 3": (
        lambda: encoder()(IDS[None]),
        ValueError,
        r"expected input_ids of shape \(b, n\) = \(\*, \*\), got \(1, 2, 5\)",
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
        r"expected last_hidden_state as a torch\.Tensor, got None",
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


BERT_INIT = {
    "module None": (
        lambda: bert_init(None),
        TypeError,
        r"module as an nn.Module, got None",
    ),
    "a tensor": (
        lambda: bert_init(torch.ones(2)),
        TypeError,
        r"module as an nn.Module, got a Tensor",
    ),
}

CASES = {
    **{f"ch08 Encoder: {k}": v for k, v in ENCODER.items()},
    **{f"ch08 Encoder.forward: {k}": v for k, v in FORWARD.items()},
    **{f"ch08 EncoderOutput: {k}": v for k, v in OUTPUT.items()},
    **{f"ch08 bert_init: {k}": v for k, v in BERT_INIT.items()},
}

test_bad_input_raises_a_clear_error = sweep(CASES)
