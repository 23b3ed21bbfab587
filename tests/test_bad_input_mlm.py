"""Bad input to encoderlib.mlm (chapter 11): clear errors, and the edge cases.

Each case feeds one class of bad input a reader meets (wrong Python types, float
ids or masks, wrong shapes, out-of-range ids, shares and seeds) and expects a
TypeError or ValueError from encoderlib's checks whose message names what was
expected and what was received, never an error from deep inside torch, a wrong
shape or NaN. Ids of every integer dtype are accepted, as everywhere in
encoderlib; empty batches and all-padding rows give empty or finite results.
"""

import math

import pytest
import torch
from bad_input import sweep

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


torch.manual_seed(0)
MODEL = MaskedLanguageModel(
    Encoder(EncoderConfig(vocab_size=V, d_model=16, n_heads=2, n_layers=1, d_ff=32))
).eval()
LABELS = torch.full_like(IDS, IGNORE_INDEX)
LABELS[0, 2] = 6


class NoMaskTokenizer:
    """The tokenizer interface without mask_token_id: it cannot mask."""

    pad_token_id, vocab_size = 0, 5

    def encode(self, text, add_special_tokens=True, max_length=None):
        return [2, 3]

    def encode_pair(self, first, second, max_length=None):
        return [2, 3, 3], [0, 0, 1]

    def __call__(self, texts, max_length=512, padding=True, truncation=True):
        return {}


def masking(**changes):
    arguments = dict(
        input_ids=IDS,
        mask_token_id=MASK_ID,
        vocab_size=V,
        special_token_ids=SPECIALS,
        attention_mask=MASK,
    )
    return mask_tokens(**(arguments | changes))


MASK_TOKENS = {
    "ch11 mask_tokens: ids None": (
        lambda: masking(input_ids=None),
        TypeError,
        "expected input_ids as a torch.Tensor, got None",
    ),
    "ch11 mask_tokens: ids as a list": (
        lambda: masking(input_ids=IDS.tolist()),
        TypeError,
        "expected input_ids as a torch.Tensor, got list",
    ),
    "ch11 mask_tokens: float ids": (
        lambda: masking(input_ids=IDS.float()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
    "ch11 mask_tokens: bool ids": (
        lambda: masking(input_ids=IDS > 4),
        TypeError,
        "expected input_ids with an integer dtype, got torch.bool",
    ),
    "ch11 mask_tokens: ids beyond the vocabulary": (
        lambda: masking(vocab_size=6, mask_token_id=4),
        ValueError,
        r"expected input_ids in \[0, 6\), got values from 0 to 9",
    ),
    "ch11 mask_tokens: negative ids": (
        lambda: masking(input_ids=IDS - 3),
        ValueError,
        r"expected input_ids in \[0, 10\), got values from -3 to 6",
    ),
    "ch11 mask_tokens: negative int8 ids": (
        lambda: masking(input_ids=(IDS - 3).to(torch.int8)),
        ValueError,
        r"expected input_ids in \[0, 10\), got values from -3 to 6",
    ),
    "ch11 mask_tokens: vocab_size as a float": (
        lambda: masking(vocab_size=10.0),
        TypeError,
        "expected vocab_size as a positive int, got float 10.0",
    ),
    "ch11 mask_tokens: empty vocabulary": (
        lambda: masking(vocab_size=0),
        ValueError,
        "expected vocab_size as a positive int, got 0",
    ),
    "ch11 mask_tokens: [MASK] id as a str": (
        lambda: masking(mask_token_id="4"),
        TypeError,
        "expected mask_token_id as an int, got str '4'",
    ),
    "ch11 mask_tokens: [MASK] id out of range": (
        lambda: masking(mask_token_id=10),
        ValueError,
        r"expected mask_token_id in \[0, 10\), got 10",
    ),
    "ch11 mask_tokens: specials None": (
        lambda: masking(special_token_ids=None),
        TypeError,
        r"expected special_token_ids as an iterable of ints \(a set, a list\), "
        "got None",
    ),
    "ch11 mask_tokens: specials as a str": (
        lambda: masking(special_token_ids="01234"),
        TypeError,
        "expected special_token_ids as an iterable of ints .*got str '01234'",
    ),
    "ch11 mask_tokens: a special id out of range": (
        lambda: masking(special_token_ids=[0, 1, 2, 3, 4, 99]),
        ValueError,
        r"expected a special token id in \[0, 10\), got 99",
    ),
    "ch11 mask_tokens: a float mask": (
        lambda: masking(attention_mask=MASK.float()),
        TypeError,
        "expected attention_mask as bool or 0/1 integers, got dtype torch.float32",
    ),
    "ch11 mask_tokens: a mask of 0 and 2": (
        lambda: masking(attention_mask=2 * MASK),
        ValueError,
        r"expected attention_mask values 0 or 1 \(1 = real token\), got \[0, 2\]",
    ),
    "ch11 mask_tokens: a mask as a list": (
        lambda: masking(attention_mask=MASK.tolist()),
        TypeError,
        "expected attention_mask as a torch.Tensor, got list",
    ),
    "ch11 mask_tokens: a mask of another shape": (
        lambda: masking(attention_mask=MASK[:, :3]),
        ValueError,
        r"expected attention_mask of shape \(b, n\) = \(2, 5\), the same shape as "
        r"input_ids \(2, 5\), got \(2, 3\)",
    ),
    "ch11 mask_tokens: probability as a str": (
        lambda: masking(probability="0.15"),
        TypeError,
        "expected probability as a float, got str '0.15'",
    ),
    "ch11 mask_tokens: probability NaN": (
        lambda: masking(probability=math.nan),
        ValueError,
        r"expected probability in \[0, 1\], got nan",
    ),
    "ch11 mask_tokens: probability 1.5": (
        lambda: masking(probability=1.5),
        ValueError,
        r"expected probability in \[0, 1\], got 1.5",
    ),
    "ch11 mask_tokens: every id special": (
        lambda: masking(special_token_ids=range(V)),
        ValueError,
        "expected at least one non-special id to draw random tokens",
    ),
    "ch11 mask_tokens: mask_fraction above 1": (
        lambda: masking(mask_fraction=1.5),
        ValueError,
        r"expected mask_fraction in \[0, 1\], got 1.5",
    ),
    "ch11 mask_tokens: random_fraction as a bool": (
        lambda: masking(random_fraction=True),
        TypeError,
        "expected random_fraction as a float, got bool True",
    ),
    "ch11 mask_tokens: shares above 1": (
        lambda: masking(mask_fraction=0.9, random_fraction=0.2),
        ValueError,
        "expected mask_fraction . random_fraction <= 1, got 0.9 . 0.2",
    ),
    "ch11 mask_tokens: a generator that is not one": (
        lambda: masking(generator=0),
        TypeError,
        "expected generator as a torch.Generator or None, got int 0",
    ),
}

MLM_COLLATOR = {
    "ch11 MLMCollator: tokenizer None": (
        lambda: MLMCollator(None),
        TypeError,
        r"expected tokenizer as a tokenizer \(with encode, .*\), got None",
    ),
    "ch11 MLMCollator: a tokenizer without mask_token_id": (
        lambda: MLMCollator(NoMaskTokenizer()),
        TypeError,
        r"expected tokenizer as a tokenizer with mask_token_id .*, got NoMaskTokenizer",
    ),
    "ch11 MLMCollator: a vocabulary without [MASK]": (
        lambda: MLMCollator(WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])),
        ValueError,
        r"expected a tokenizer whose vocabulary has \[MASK\]",
    ),
    "ch11 MLMCollator: seed as a float": (
        lambda: MLMCollator(TOKENIZER, seed=1.5),
        TypeError,
        "expected seed as an int, got float 1.5",
    ),
    "ch11 MLMCollator: seed beyond torch's range": (
        lambda: MLMCollator(TOKENIZER, seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "ch11 MLMCollator: probability 15": (
        lambda: MLMCollator(TOKENIZER, probability=15),
        ValueError,
        r"expected probability in \[0, 1\], got 15",
    ),
    "ch11 MLMCollator: b = 0": (
        lambda: MLMCollator(TOKENIZER)([]),
        ValueError,
        "expected at least one example, got an empty batch",
    ),
    "ch11 MLMCollator: examples None": (
        lambda: MLMCollator(TOKENIZER)(None),
        TypeError,
        "expected a list of examples, got None",
    ),
    "ch11 MLMCollator: texts instead of ids": (
        lambda: MLMCollator(TOKENIZER)([{"input_ids": "the cat sat"}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got .*'the cat sat'",
    ),
}

MLM_OUTPUT = {
    "ch11 MLMOutput: loss as a float": (
        lambda: MLMOutput(0.5, torch.zeros(3, V)),
        TypeError,
        "expected loss as a scalar tensor or None, got float 0.5",
    ),
    "ch11 MLMOutput: loss of shape (3,)": (
        lambda: MLMOutput(torch.zeros(3), torch.zeros(3, V)),
        TypeError,
        r"expected loss as a scalar tensor or None, got a Tensor of shape \(3,\)",
    ),
    "ch11 MLMOutput: logits as a list": (
        lambda: MLMOutput(None, [[0.0] * V]),
        TypeError,
        "expected logits as a torch.Tensor, got list",
    ),
    "ch11 MLMOutput: 1-D logits": (
        lambda: MLMOutput(None, torch.zeros(V)),
        ValueError,
        r"expected logits of shape \(t, vocab_size\) or \(b, n, vocab_size\), got "
        r"\(10,\)",
    ),
}

MASKED_LANGUAGE_MODEL = {
    "ch11 MaskedLanguageModel: no encoder": (
        lambda: MaskedLanguageModel(None),
        TypeError,
        "expected encoder as an encoderlib Encoder, got None",
    ),
    "ch11 MaskedLanguageModel: a torch layer": (
        lambda: MaskedLanguageModel(torch.nn.Linear(2, 2)),
        TypeError,
        "expected encoder as an encoderlib Encoder, got Linear",
    ),
    "ch11 MaskedLanguageModel.forward: labels as a list": (
        lambda: MODEL(IDS, MASK, LABELS.tolist()),
        TypeError,
        "expected labels as an int64 tensor, got list",
    ),
    "ch11 MaskedLanguageModel.forward: int32 labels": (
        lambda: MODEL(IDS, MASK, LABELS.int()),
        TypeError,
        r"expected labels as an int64 tensor, got a Tensor of shape \(2, 5\) and "
        "dtype torch.int32",
    ),
    "ch11 MaskedLanguageModel.forward: uint8 labels": (
        lambda: MODEL(IDS, MASK, LABELS.clamp(min=0).to(torch.uint8)),
        TypeError,
        "expected labels as an int64 tensor, got .*dtype torch.uint8",
    ),
    "ch11 MaskedLanguageModel.forward: labels of another shape": (
        lambda: MODEL(IDS, MASK, LABELS[:, :3]),
        ValueError,
        r"expected labels of shape \(2, 5\) like input_ids, got \(2, 3\)",
    ),
    "ch11 MaskedLanguageModel.forward: a label beyond the vocabulary": (
        lambda: MODEL(IDS, MASK, torch.where(LABELS == 6, 99, LABELS)),
        ValueError,
        r"expected labels in \[0, 10\) or -100, got 99",
    ),
    "ch11 MaskedLanguageModel.forward: a negative label other than -100": (
        lambda: MODEL(IDS, MASK, torch.where(LABELS == 6, -5, LABELS)),
        ValueError,
        r"expected labels in \[0, 10\) or -100, got -5",
    ),
    "ch11 MaskedLanguageModel.forward: ids None": (
        lambda: MODEL(None),
        TypeError,
        "expected input_ids as a torch.Tensor, got None",
    ),
    "ch11 MaskedLanguageModel.forward: float ids": (
        lambda: MODEL(IDS.float()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
}

MLM_LOSS = {
    "ch11 mlm_loss: model None": (
        lambda: mlm_loss(None, {"input_ids": IDS, "labels": LABELS}),
        TypeError,
        "expected model as a MaskedLanguageModel, got None",
    ),
    "ch11 mlm_loss: batch None": (
        lambda: mlm_loss(MODEL, None),
        TypeError,
        r"expected batch as a mapping \(as MLMCollator makes it\), got None",
    ),
    "ch11 mlm_loss: a batch without labels": (
        lambda: mlm_loss(MODEL, {"input_ids": IDS, "attention_mask": MASK}),
        ValueError,
        r"expected a batch with 'input_ids' and 'labels', got keys "
        r"\['attention_mask', 'input_ids'\]",
    ),
}

CASES = {
    **MASK_TOKENS,
    **MLM_COLLATOR,
    **MLM_OUTPUT,
    **MASKED_LANGUAGE_MODEL,
    **MLM_LOSS,
}

test_bad_input_raises_a_clear_error = sweep(CASES)

INTEGER_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=str)
def test_mask_tokens_reads_ids_of_every_integer_dtype_as_int64(dtype):
    # One rule for ids in encoderlib (checks.check_ids): any integer dtype.
    def run(ids, mask):
        generator = torch.Generator().manual_seed(0)
        return masking(
            input_ids=ids, attention_mask=mask, probability=0.5, generator=generator
        )

    expected_ids, expected_labels = run(IDS, MASK)
    masked, labels = run(IDS.to(dtype), MASK.to(dtype))
    assert masked.dtype == labels.dtype == torch.int64
    assert torch.equal(masked, expected_ids) and torch.equal(labels, expected_labels)


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
