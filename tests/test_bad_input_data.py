"""Bad input to encoderlib.data (chapter 10): vocabulary, tokenising, collating.

Each case feeds one class of bad input a reader meets (wrong Python types,
float or 2-D ids, negative ids, empty batches, mismatched examples) and expects
a TypeError or ValueError worded by encoderlib.checks, never an error from deep
inside torch or datasets.
"""

import datasets
import torch
from bad_input import flag_cases, positive_int_cases, sweep

from encoderlib import WordPieceTokenizer
from encoderlib.data import (
    PaddingCollator,
    data_loader,
    restrict_vocabulary,
    tokenize_dataset,
)

TOKENIZER = WordPieceTokenizer(
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "cat", "sat", "##s"]
)
TEXTS = datasets.Dataset.from_dict(
    {"text": ["the dog", "the cats sat"], "label": [0, 1]}
)
COLLATE = PaddingCollator(0)

CASES = {
    "ch10 restrict_vocabulary: texts None": (
        lambda: restrict_vocabulary(TOKENIZER, None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "ch10 restrict_vocabulary: one str": (
        lambda: restrict_vocabulary(TOKENIZER, "the dog"),
        TypeError,
        "expected a list of str, got a single str",
    ),
    "ch10 restrict_vocabulary: a non-str text": (
        lambda: restrict_vocabulary(TOKENIZER, ["the dog", 7]),
        TypeError,
        "expected texts of str, got int at 1",
    ),
    "ch10 restrict_vocabulary: not a WordPiece tokenizer": (
        lambda: restrict_vocabulary(None, ["the dog"]),
        TypeError,
        "expected a WordPieceTokenizer, got NoneType",
    ),
    "ch10 tokenize_dataset: a list, not a Dataset": (
        lambda: tokenize_dataset([{"text": "the dog"}], TOKENIZER),
        TypeError,
        "expected a datasets.Dataset, got list",
    ),
    "ch10 tokenize_dataset: a DatasetDict": (
        lambda: tokenize_dataset(datasets.DatasetDict({"train": TEXTS}), TOKENIZER),
        TypeError,
        "expected a datasets.Dataset, got DatasetDict.*pass one split",
    ),
    "ch10 tokenize_dataset: tokenizer None": (
        lambda: tokenize_dataset(TEXTS, None),
        TypeError,
        r"expected tokenizer as a tokenizer \(with encode, .*\), got None",
    ),
    "ch10 tokenize_dataset: max_length as a str": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, max_length="8"),
        TypeError,
        r"expected max_length as an int >= 2, got str '8'",
    ),
    "ch10 tokenize_dataset: max_length too small": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, max_length=1),
        ValueError,
        r"expected max_length as an int >= 2, got 1",
    ),
    "ch10 tokenize_dataset: keep_columns as one str": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, keep_columns="label"),
        TypeError,
        "expected keep_columns as a list of column names, got 'label'",
    ),
    "ch10 tokenize_dataset: a missing column": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, text_column="sentence"),
        ValueError,
        "expected a column 'sentence', got columns",
    ),
    "ch10 tokenize_dataset: a text that is not a str": (
        lambda: tokenize_dataset(
            datasets.Dataset.from_dict({"text": [1, 2], "label": [0, 1]}), TOKENIZER
        ),
        TypeError,
        "expected text as a str, got int",
    ),
    "ch10 PaddingCollator: pad id as a float": (
        lambda: PaddingCollator(0.0),
        TypeError,
        "expected pad_token_id as an int >= 0, got float 0\\.0",
    ),
    "ch10 PaddingCollator: negative pad id": (
        lambda: PaddingCollator(-1),
        ValueError,
        "expected pad_token_id as an int >= 0, got \\-1",
    ),
    "ch10 PaddingCollator: label_key not a str": (
        lambda: PaddingCollator(0, label_key=5),
        TypeError,
        r"expected label_key as a str, got int 5",
    ),
    "ch10 PaddingCollator: None for the examples": (
        lambda: COLLATE(None),
        TypeError,
        "expected a list of examples, got NoneType",
    ),
    "ch10 PaddingCollator: b = 0": (
        lambda: COLLATE([]),
        ValueError,
        "expected at least one example, got an empty batch",
    ),
    "ch10 PaddingCollator: ids as a str": (
        lambda: COLLATE([{"input_ids": "2 5 3"}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got '2 5 3'",
    ),
    "ch10 PaddingCollator: float ids": (
        lambda: COLLATE([{"input_ids": [2, 5.5, 3]}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got float 5.5 in it",
    ),
    "ch10 PaddingCollator: float tensor ids": (
        lambda: COLLATE([{"input_ids": torch.tensor([2.0, 3.0])}]),
        TypeError,
        "expected input_ids at index 0 as integers, got dtype torch.float32",
    ),
    "ch10 PaddingCollator: 2-D tensor ids": (
        lambda: COLLATE([{"input_ids": torch.tensor([[2, 3]])}]),
        ValueError,
        r"expected input_ids at index 0 of shape \(n,\), got \(1, 2\)",
    ),
    "ch10 PaddingCollator: negative id": (
        lambda: COLLATE([{"input_ids": [2, -7, 3]}]),
        ValueError,
        "expected input_ids >= 0, got -7 at index 0",
    ),
    "ch10 PaddingCollator: a label that is a str": (
        lambda: COLLATE([{"input_ids": [2, 3], "label": "positive"}]),
        TypeError,
        "expected 'label' as an int class id, got 'positive' at index 0",
    ),
    "ch10 PaddingCollator: a label missing from one example": (
        lambda: COLLATE([{"input_ids": [2], "label": 1}, {"input_ids": [2]}]),
        ValueError,
        "expected every example to have 'label', as the first does; index 1",
    ),
    "ch10 PaddingCollator: segment ids of another length": (
        lambda: COLLATE([{"input_ids": [2, 5, 3], "token_type_ids": [0, 0]}]),
        ValueError,
        r"expected token_type_ids as long as input_ids \(3\) at index 0, got 2",
    ),
    "ch10 data_loader: None for the data": (
        lambda: data_loader(None, COLLATE),
        TypeError,
        "expected a dataset with len.. and indexing .*got NoneType",
    ),
    "ch10 data_loader: collate_fn not callable": (
        lambda: data_loader([1, 2], "pad"),
        TypeError,
        r"expected collate_fn as a callable, got str 'pad'",
    ),
    "ch10 data_loader: seed beyond torch's range": (
        lambda: data_loader([1, 2], COLLATE, seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    **flag_cases(
        "ch10 restrict_vocabulary",
        "keep_characters",
        lambda v: restrict_vocabulary(TOKENIZER, ["a"], keep_characters=v),
    ),
    **positive_int_cases(
        "ch10 data_loader", "batch_size", lambda v: data_loader([1, 2], COLLATE, v)
    ),
    **flag_cases(
        "ch10 data_loader", "shuffle", lambda v: data_loader([1, 2], COLLATE, shuffle=v)
    ),
    **flag_cases(
        "ch10 data_loader",
        "drop_last",
        lambda v: data_loader([1, 2], COLLATE, drop_last=v),
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_small_integer_ids_are_read_as_ids_never_as_a_mask():
    expected = COLLATE([{"input_ids": [2, 5, 6, 3]}, {"input_ids": [2, 7, 3]}])
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
        batch = COLLATE(
            [
                {"input_ids": torch.tensor([2, 5, 6, 3], dtype=dtype)},
                {"input_ids": torch.tensor([2, 7, 3], dtype=dtype)},
            ]
        )
        for key in ("input_ids", "attention_mask"):
            assert batch[key].dtype == torch.long
            assert torch.equal(batch[key], expected[key])  # integers


def test_empty_inputs_give_empty_results():
    tokenized = tokenize_dataset(TEXTS.select([]), TOKENIZER)
    assert len(tokenized) == 0 and tokenized.column_names == ["label", "input_ids"]
    batch = COLLATE([{"input_ids": []}, {"input_ids": [2, 3]}])  # an empty example
    assert batch["input_ids"].shape == (2, 2)
    assert batch["attention_mask"].tolist() == [[0, 0], [1, 1]]
    assert restrict_vocabulary(TOKENIZER, []).vocab_size <= TOKENIZER.vocab_size


def test_the_edges_of_the_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        data_loader([1, 2, 3], lambda rows: rows, seed=seed)
