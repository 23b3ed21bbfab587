"""Bad input to chapter 11's public names (encoderlib.mlm): clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, ids of
small integer dtypes, float masks, wrong shapes, empty batches, out-of-range ids,
shares and seeds) and expects a TypeError or ValueError whose message names what
was expected and what was received, never an error from deep inside torch, a
wrong shape or NaN.
"""

import math

import pytest
import torch

from encoderlib import Encoder, EncoderConfig, WordPieceTokenizer
from encoderlib.mlm import (
    IGNORE_INDEX,
    MaskedLanguageModel,
    MLMCollator,
    MLMOutput,
    mask_tokens,
    mlm_loss,
)

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat"]
TOKENIZER = WordPieceTokenizer(VOCAB)
SPECIALS = TOKENIZER.special_token_ids
MASK_ID, V = TOKENIZER.mask_token_id, TOKENIZER.vocab_size
IDS = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 9, 3, 0]])
MASK = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]])


def model() -> MaskedLanguageModel:
    torch.manual_seed(0)
    config = EncoderConfig(
        vocab_size=V, d_model=16, n_heads=2, n_layers=1, d_ff=32, dropout=0.0
    )
    return MaskedLanguageModel(Encoder(config)).eval()


MODEL = model()
LABELS = torch.full_like(IDS, IGNORE_INDEX)
LABELS[0, 2] = 6


def masking(**changes):
    arguments = dict(
        input_ids=IDS,
        mask_token_id=MASK_ID,
        vocab_size=V,
        special_token_ids=SPECIALS,
        attention_mask=MASK,
    )
    return mask_tokens(**(arguments | changes))


CASES = {
    # --- mask_tokens
    "mask_tokens: ids None": (
        lambda: masking(input_ids=None),
        TypeError,
        "expected input_ids as an int64 tensor, got NoneType",
    ),
    "mask_tokens: ids as a list": (
        lambda: masking(input_ids=IDS.tolist()),
        TypeError,
        "expected input_ids as an int64 tensor, got list",
    ),
    "mask_tokens: uint8 ids": (
        lambda: masking(input_ids=IDS.to(torch.uint8)),
        TypeError,
        "expected input_ids as an int64 tensor, got torch.uint8",
    ),
    "mask_tokens: int8 ids": (
        lambda: masking(input_ids=IDS.to(torch.int8)),
        TypeError,
        "expected input_ids as an int64 tensor, got torch.int8",
    ),
    "mask_tokens: int16 ids": (
        lambda: masking(input_ids=IDS.to(torch.int16)),
        TypeError,
        "expected input_ids as an int64 tensor, got torch.int16",
    ),
    "mask_tokens: float ids": (
        lambda: masking(input_ids=IDS.float()),
        TypeError,
        "expected input_ids as an int64 tensor, got torch.float32",
    ),
    "mask_tokens: ids beyond the vocabulary": (
        lambda: masking(vocab_size=6, mask_token_id=4),
        ValueError,
        r"expected input_ids in \[0, 6\), got ids from 0 to 9",
    ),
    "mask_tokens: negative ids": (
        lambda: masking(input_ids=IDS - 3),
        ValueError,
        r"expected input_ids in \[0, 10\), got ids from -3 to 6",
    ),
    "mask_tokens: vocab_size as a float": (
        lambda: masking(vocab_size=10.0),
        TypeError,
        "expected vocab_size as an int, got 10.0",
    ),
    "mask_tokens: empty vocabulary": (
        lambda: masking(vocab_size=0),
        ValueError,
        "expected vocab_size >= 1, got 0",
    ),
    "mask_tokens: [MASK] id out of range": (
        lambda: masking(mask_token_id=10),
        ValueError,
        r"expected mask_token_id in \[0, 10\), got 10",
    ),
    "mask_tokens: specials None": (
        lambda: masking(special_token_ids=None),
        TypeError,
        r"expected special_token_ids as an iterable of ints \(a set, a list\), got "
        "NoneType",
    ),
    "mask_tokens: specials as a str": (
        lambda: masking(special_token_ids="01234"),
        TypeError,
        "expected special_token_ids as an iterable of ints .*got str",
    ),
    "mask_tokens: a special id out of range": (
        lambda: masking(special_token_ids=[0, 1, 2, 3, 4, 99]),
        ValueError,
        r"expected a special token id in \[0, 10\), got 99",
    ),
    "mask_tokens: a float mask": (
        lambda: masking(attention_mask=MASK.float()),
        TypeError,
        "expected attention_mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "mask_tokens: a mask of 0 and 2": (
        lambda: masking(attention_mask=2 * MASK),
        ValueError,
        r"expected attention_mask values 0 or 1 \(1 = real token\), got \[0, 2\]",
    ),
    "mask_tokens: a mask as a list": (
        lambda: masking(attention_mask=MASK.tolist()),
        TypeError,
        "expected attention_mask as a tensor, got list",
    ),
    "mask_tokens: a mask of another shape": (
        lambda: masking(attention_mask=MASK[:, :3]),
        ValueError,
        r"expected attention_mask of shape \(2, 5\) like input_ids, got \(2, 3\)",
    ),
    "mask_tokens: probability as a str": (
        lambda: masking(probability="0.15"),
        TypeError,
        "expected probability as a float, got '0.15'",
    ),
    "mask_tokens: probability NaN": (
        lambda: masking(probability=math.nan),
        ValueError,
        r"expected probability in \[0, 1\], got nan",
    ),
    "mask_tokens: shares above 1": (
        lambda: masking(mask_fraction=0.9, random_fraction=0.2),
        ValueError,
        "expected mask_fraction . random_fraction <= 1, got 0.9 . 0.2",
    ),
    "mask_tokens: a generator that is not one": (
        lambda: masking(generator=0),
        TypeError,
        "expected generator as a torch.Generator or None, got 0",
    ),
    # --- MLMCollator
    "collator: tokenizer None": (
        lambda: MLMCollator(None),
        TypeError,
        r"expected a chapter-2 tokenizer \(a WordPieceTokenizer, say\), got NoneType",
    ),
    "collator: a vocabulary without [MASK]": (
        lambda: MLMCollator(WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])),
        ValueError,
        r"expected a tokenizer whose vocabulary has \[MASK\]",
    ),
    "collator: seed as a float": (
        lambda: MLMCollator(TOKENIZER, seed=1.5),
        TypeError,
        "expected seed as an int, got 1.5",
    ),
    "collator: seed beyond torch's range": (
        lambda: MLMCollator(TOKENIZER, seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "collator: probability 15": (
        lambda: MLMCollator(TOKENIZER, probability=15),
        ValueError,
        r"expected probability in \[0, 1\], got 15",
    ),
    "collator: b = 0": (
        lambda: MLMCollator(TOKENIZER)([]),
        ValueError,
        "expected at least one example, got an empty batch",
    ),
    "collator: examples None": (
        lambda: MLMCollator(TOKENIZER)(None),
        TypeError,
        "expected a list of examples, got NoneType",
    ),
    "collator: texts instead of ids": (
        lambda: MLMCollator(TOKENIZER)([{"input_ids": "the cat sat"}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got 'the cat sat'",
    ),
    # --- MLMOutput
    "output: loss as a float": (
        lambda: MLMOutput(0.5, torch.zeros(3, V)),
        TypeError,
        "expected loss as a scalar tensor or None, got float",
    ),
    "output: loss of shape (3,)": (
        lambda: MLMOutput(torch.zeros(3), torch.zeros(3, V)),
        TypeError,
        r"expected loss as a scalar tensor or None, got \(3,\)",
    ),
    "output: logits as a list": (
        lambda: MLMOutput(None, [[0.0] * V]),
        TypeError,
        "expected logits as a tensor, got list",
    ),
    "output: 1-D logits": (
        lambda: MLMOutput(None, torch.zeros(V)),
        ValueError,
        r"expected logits of shape \(t, vocab_size\) or \(b, n, vocab_size\), got "
        r"\(10,\)",
    ),
    # --- MaskedLanguageModel
    "model: no encoder": (
        lambda: MaskedLanguageModel(None),
        TypeError,
        "expected an encoderlib Encoder, got NoneType",
    ),
    "model: a torch layer": (
        lambda: MaskedLanguageModel(torch.nn.Linear(2, 2)),
        TypeError,
        "expected an encoderlib Encoder, got Linear",
    ),
    "model: labels as a list": (
        lambda: MODEL(IDS, MASK, LABELS.tolist()),
        TypeError,
        "expected labels as an int64 tensor, got list",
    ),
    "model: int32 labels": (
        lambda: MODEL(IDS, MASK, LABELS.int()),
        TypeError,
        "expected labels as an int64 tensor, got torch.int32",
    ),
    "model: uint8 labels": (
        lambda: MODEL(IDS, MASK, LABELS.clamp(min=0).to(torch.uint8)),
        TypeError,
        "expected labels as an int64 tensor, got torch.uint8",
    ),
    "model: labels of another shape": (
        lambda: MODEL(IDS, MASK, LABELS[:, :3]),
        ValueError,
        r"expected labels of shape \(2, 5\) like input_ids, got \(2, 3\)",
    ),
    "model: a label beyond the vocabulary": (
        lambda: MODEL(IDS, MASK, torch.where(LABELS == 6, 99, LABELS)),
        ValueError,
        r"expected labels in \[0, 10\) or -100, got 99",
    ),
    "model: a negative label other than -100": (
        lambda: MODEL(IDS, MASK, torch.where(LABELS == 6, -5, LABELS)),
        ValueError,
        r"expected labels in \[0, 10\) or -100, got -5",
    ),
    "model: ids None": (
        lambda: MODEL(None),
        TypeError,
        "expected input_ids as a torch.Tensor, got NoneType",
    ),
    "model: float ids": (
        lambda: MODEL(IDS.float()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
    # --- mlm_loss
    "loss: model None": (
        lambda: mlm_loss(None, {"input_ids": IDS, "labels": LABELS}),
        TypeError,
        "expected a MaskedLanguageModel, got NoneType",
    ),
    "loss: batch None": (
        lambda: mlm_loss(MODEL, None),
        TypeError,
        r"expected batch as a mapping \(as MLMCollator makes it\), got NoneType",
    ),
    "loss: a batch without labels": (
        lambda: mlm_loss(MODEL, {"input_ids": IDS, "attention_mask": MASK}),
        ValueError,
        r"expected a batch with 'input_ids' and 'labels', got keys "
        r"\['attention_mask', 'input_ids'\]",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_small_integer_ids_and_masks_are_read_as_integers():
    with torch.no_grad():
        expected = MODEL(IDS, MASK, LABELS)
        for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
            got = MODEL(IDS.to(dtype), MASK.to(dtype), LABELS)
            assert got.logits.shape == expected.logits.shape == (1, V)
            assert torch.allclose(got.logits, expected.logits, atol=1e-6)
            assert torch.allclose(got.loss, expected.loss, atol=1e-6)
    # a uint8 mask in mask_tokens is 0/1 values, not a boolean index
    generator = torch.Generator().manual_seed(0)
    masked, labels = masking(
        attention_mask=MASK.to(torch.uint8), probability=1.0, generator=generator
    )
    assert masked.shape == labels.shape == IDS.shape
    assert (labels[MASK == 0] == IGNORE_INDEX).all()


def test_empty_batches_give_empty_results_without_nan():
    masked, labels = masking(input_ids=IDS[:0], attention_mask=MASK[:0])
    assert masked.shape == labels.shape == (0, 5)
    with torch.no_grad():
        every = MODEL(IDS[:0])
        assert every.loss is None and every.logits.shape == (0, 5, V)
        none_chosen = MODEL(IDS, MASK, torch.full_like(IDS, IGNORE_INDEX))
    assert none_chosen.logits.shape == (0, V)
    assert none_chosen.loss == 0.0 and not none_chosen.loss.isnan()


def test_all_padding_rows_give_no_nan():
    padded = torch.tensor([[2, 5, 3], [0, 0, 0]])
    mask = torch.tensor([[1, 1, 1], [0, 0, 0]])
    with torch.no_grad():
        logits = MODEL(padded, mask).logits
    assert logits.shape == (2, 3, V) and not logits.isnan().any()


def test_the_edges_of_the_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        batch = MLMCollator(TOKENIZER, seed=seed)([{"input_ids": [2, 5, 6, 3]}])
        assert batch["input_ids"].shape == (1, 4)
