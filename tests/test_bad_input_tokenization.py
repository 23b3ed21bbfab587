"""Bad input to encoderlib.tokenization (chapter 2's tokenizers): clear errors.

Each case feeds one class of bad input a reader meets (None and other wrong Python
types, wrong settings, a single str where a batch belongs, empty batches, ids out
of range) and expects a TypeError or ValueError, raised by encoderlib's own checks,
whose message names what was expected and what was received: never an error from
deep inside torch, characters where a token was meant, or a wrong-shaped batch.
The tokenizer's text side runs without torch, so its checks are the torch-free
twins in encoderlib.normalization, worded as encoderlib.checks words them.
"""

import pytest
import torch
from bad_input import flag_cases, sweep

from encoderlib.tokenization import (
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    WordTokenizer,
    pad_batch,
)

VOCAB = [*SPECIAL_TOKENS, "the", "cat", "sat", ".", "un", "##happ", "##ily"]
PIECES = WordPieceTokenizer(VOCAB)
WORDS = WordTokenizer.from_texts(["The cat sat.", "The dog sat on the mat."])
IDS = torch.tensor([[2, 5, 7, 3], [2, 6, 3, 0]])

CASES = {
    # building a tokenizer
    "ch02 WordPieceTokenizer: vocab None": (
        lambda: WordPieceTokenizer(None),
        TypeError,
        "expected the vocabulary as a list of str, got NoneType",
    ),
    "ch02 WordPieceTokenizer: vocab an int": (
        lambda: WordPieceTokenizer(42),
        TypeError,
        "expected the vocabulary as a list of str, got int",
    ),
    "ch02 WordPieceTokenizer: a missing file": (
        lambda: WordPieceTokenizer("/no/such/vocab.txt"),
        FileNotFoundError,
        "expected the path of a vocab.txt file, got '/no/such/vocab.txt'",
    ),
    "ch02 WordPieceTokenizer: no [SEP]": (
        lambda: WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "cat"]),
        ValueError,
        r"but \['\[SEP\]'\] are missing",
    ),
    "ch02 WordPieceTokenizer: a token twice": (
        lambda: WordPieceTokenizer([*SPECIAL_TOKENS, "cat", "cat"]),
        ValueError,
        "expected unique tokens, got 'cat' at indices 5 and 6",
    ),
    "ch02 WordPieceTokenizer: a non-str token": (
        lambda: WordPieceTokenizer([*SPECIAL_TOKENS, None]),
        TypeError,
        "expected vocabulary entry 5 as a str, got None",
    ),
    **flag_cases(
        "ch02 WordPieceTokenizer", "lowercase", lambda v: WordPieceTokenizer(VOCAB, v)
    ),
    **flag_cases(
        "ch02 WordPieceTokenizer",
        "strip_accents",
        lambda v: WordPieceTokenizer(VOCAB, strip_accents=v),
    ),
    "ch02 WordPieceTokenizer: max_input_chars_per_word 0": (
        lambda: WordPieceTokenizer(VOCAB, max_input_chars_per_word=0),
        ValueError,
        "expected max_input_chars_per_word as an int >= 1, got 0",
    ),
    "ch02 WordPieceTokenizer: max_input_chars_per_word a float": (
        lambda: WordPieceTokenizer(VOCAB, max_input_chars_per_word=100.0),
        TypeError,
        "expected max_input_chars_per_word as an int >= 1, got float 100.0",
    ),
    "ch02 WordTokenizer: vocab None": (
        lambda: WordTokenizer(None),
        TypeError,
        "expected the vocabulary as a list of str, got NoneType",
    ),
    **flag_cases(
        "ch02 WordTokenizer",
        "lowercase",
        lambda v: WordTokenizer(list(SPECIAL_TOKENS), lowercase=v),
    ),
    "ch02 WordTokenizer.from_texts: None": (
        lambda: WordTokenizer.from_texts(None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "ch02 WordTokenizer.from_texts: one str": (
        lambda: WordTokenizer.from_texts("The cat sat."),
        TypeError,
        "expected a list of str, got a single str",
    ),
    "ch02 WordTokenizer.from_texts: a number among the texts": (
        lambda: WordTokenizer.from_texts(["The cat sat.", 3]),
        TypeError,
        "expected text as a str, got int 3",
    ),
    "ch02 WordTokenizer.from_texts: max_size too small": (
        lambda: WordTokenizer.from_texts(["a b"], max_size=3),
        ValueError,
        r"expected max_size >= 5 \(the special tokens\), got 3",
    ),
    "ch02 WordTokenizer.from_texts: max_size a float": (
        lambda: WordTokenizer.from_texts(["a b"], max_size=10.0),
        TypeError,
        "expected max_size as an int, got float 10.0",
    ),
    "ch02 WordTokenizer.from_texts: min_count 0": (
        lambda: WordTokenizer.from_texts(["a b"], min_count=0),
        ValueError,
        "expected min_count as an int >= 1, got 0",
    ),
    "ch02 WordTokenizer.from_texts: min_count None": (
        lambda: WordTokenizer.from_texts(["a b"], min_count=None),
        TypeError,
        "expected min_count as an int >= 1, got None",
    ),
    # text in
    "ch02 tokenize: None": (
        lambda: PIECES.tokenize(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 tokenize: bytes": (
        lambda: PIECES.tokenize(b"cat"),
        TypeError,
        "expected text as a str, got bytes b'cat'",
    ),
    "ch02 WordTokenizer.split: None": (
        lambda: WORDS.split(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 normalize: None": (
        lambda: PIECES.normalize(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 pre_tokenize: a list": (
        lambda: PIECES.pre_tokenize(["cat"]),
        TypeError,
        "expected text as a str, got list",
    ),
    "ch02 wordpiece: None": (
        lambda: PIECES.wordpiece(None),
        TypeError,
        "expected word as a str, got None",
    ),
    "ch02 encode: None": (
        lambda: PIECES.encode(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 encode: max_length a str": (
        lambda: PIECES.encode("the cat", max_length="8"),
        TypeError,
        "expected max_length as an int, got str '8'",
    ),
    "ch02 encode: max_length a float": (
        lambda: PIECES.encode("the cat", max_length=8.0),
        TypeError,
        "expected max_length as an int, got float 8.0",
    ),
    "ch02 encode: max_length 1": (
        lambda: PIECES.encode("the cat", max_length=1),
        ValueError,
        "expected max_length >= 2, got 1",
    ),
    **flag_cases(
        "ch02 encode",
        "add_special_tokens",
        lambda v: PIECES.encode("the cat", add_special_tokens=v),
    ),
    "ch02 encode_pair: None": (
        lambda: PIECES.encode_pair("the cat", None),
        TypeError,
        "expected text_pair as a str, got None",
    ),
    "ch02 encode_pair: max_length 2": (
        lambda: PIECES.encode_pair("the", "cat", max_length=2),
        ValueError,
        r"expected max_length >= 3 for a pair \(\[CLS\] and two \[SEP\]\), got 2",
    ),
    "ch02 encode_pair: max_length a str": (
        lambda: PIECES.encode_pair("the", "cat", max_length="8"),
        TypeError,
        "expected max_length as an int, got str '8'",
    ),
    # tokens and ids
    "ch02 convert_tokens_to_ids: None": (
        lambda: PIECES.convert_tokens_to_ids(None),
        TypeError,
        r"expected a token \(str\) or a list of tokens, got NoneType",
    ),
    "ch02 convert_tokens_to_ids: an int": (
        lambda: PIECES.convert_tokens_to_ids(5),
        TypeError,
        r"expected a token \(str\) or a list of tokens, got int",
    ),
    "ch02 convert_tokens_to_ids: None among the tokens": (
        lambda: PIECES.convert_tokens_to_ids(["cat", None]),
        TypeError,
        "expected token 1 as a str, got None",
    ),
    "ch02 convert_ids_to_tokens: None": (
        lambda: PIECES.convert_ids_to_tokens(None),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got NoneType",
    ),
    "ch02 convert_ids_to_tokens: a str": (
        lambda: PIECES.convert_ids_to_tokens("cat"),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got str",
    ),
    "ch02 convert_ids_to_tokens: float ids": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([1.0, 2.0])),
        TypeError,
        "expected ids as an int, got float 1.0",
    ),
    "ch02 convert_ids_to_tokens: one float": (
        lambda: PIECES.convert_ids_to_tokens(2.0),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got float",
    ),
    "ch02 convert_ids_to_tokens: a bool mask": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([True, False])),
        TypeError,
        "expected ids as an int, got bool True",
    ),
    "ch02 convert_ids_to_tokens: a batch (b, n)": (
        lambda: PIECES.convert_ids_to_tokens(IDS),
        ValueError,
        r"expected one sequence of ids, shape \(n,\), got shape \(2, 4\)",
    ),
    "ch02 convert_ids_to_tokens: an id out of range": (
        lambda: PIECES.convert_ids_to_tokens([3, 12]),
        ValueError,
        r"expected ids in \[0, 12\), got 12",
    ),
    "ch02 convert_ids_to_tokens: a negative id": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([-1], dtype=torch.int8)),
        ValueError,
        r"expected ids in \[0, 12\), got -1",
    ),
    "ch02 decode: None": (
        lambda: PIECES.decode(None),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got NoneType",
    ),
    **flag_cases(
        "ch02 decode",
        "skip_special_tokens",
        lambda v: PIECES.decode([2, 5, 3], skip_special_tokens=v),
    ),
    # batches
    "ch02 __call__: one str": (
        lambda: PIECES("the cat sat"),
        TypeError,
        r"expected a list of str, got a single str; wrap it: tokenizer\(\[text\]\)",
    ),
    "ch02 __call__: None": (
        lambda: PIECES(None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "ch02 __call__: a batch holding None": (
        lambda: PIECES(["the cat", None]),
        TypeError,
        r"expected a list of str or of \(str, str\) tuples, got NoneType at index 1",
    ),
    "ch02 __call__: an empty batch": (
        lambda: PIECES([]),
        ValueError,
        "expected at least one text, got an empty list",
    ),
    "ch02 __call__: max_length None": (
        lambda: PIECES(["the cat"], max_length=None),
        TypeError,
        "expected max_length as an int >= 0, got None",
    ),
    "ch02 __call__: max_length 1": (
        lambda: PIECES(["the cat"], max_length=1),
        ValueError,
        "expected max_length >= 2, got 1",
    ),
    "ch02 __call__: padding 'yes'": (
        lambda: PIECES(["the cat"], padding="yes"),
        ValueError,
        "expected padding as one of True, False, 'longest', 'max_length', got 'yes'",
    ),
    "ch02 __call__: padding=False on texts of two lengths": (
        lambda: PIECES(["the cat", "the"], padding=False),
        ValueError,
        r"padding=False needs texts of equal length in ids, got \[4, 3\]",
    ),
    **flag_cases(
        "ch02 __call__", "truncation", lambda v: WORDS(["the cat"], truncation=v)
    ),
    "ch02 __call__: pairs and texts mixed": (
        lambda: WORDS([("the", "cat"), "sat"]),
        TypeError,
        r"expected items of one kind, all str or all \(str, str\) pairs",
    ),
    "ch02 __call__: a pair that is a list": (
        lambda: WORDS([["the", "cat"]]),
        TypeError,
        "got list at index 0",
    ),
    "ch02 __call__: a pair of three": (
        lambda: WORDS([("a", "b", "c")]),
        TypeError,
        r"expected a pair as a \(str, str\) tuple, got \(str, str, str\) at index 0",
    ),
    "ch02 pad_batch: rows a str": (
        lambda: pad_batch("the cat", 0),
        TypeError,
        "expected rows as a list of lists, got str",
    ),
    "ch02 pad_batch: a row that is an int": (
        lambda: pad_batch([[2, 5, 3], 7], 0),
        TypeError,
        "expected row 1 as a list of ids, got int",
    ),
    "ch02 pad_batch: no rows": (
        lambda: pad_batch([], 0),
        ValueError,
        "expected at least one row of ids, got an empty list",
    ),
    "ch02 pad_batch: pad_token_id a str": (
        lambda: pad_batch([[2, 5, 3]], "[PAD]"),
        TypeError,
        r"expected pad_token_id as an int, got str '\[PAD\]'",
    ),
    "ch02 pad_batch: max_length negative": (
        lambda: pad_batch([[2, 5, 3]], 0, max_length=-1),
        ValueError,
        "expected max_length as an int >= 0, got -1",
    ),
    "ch02 pad_batch: padding 'longest_first'": (
        lambda: pad_batch([[2, 5, 3]], 0, padding="longest_first"),
        ValueError,
        "expected padding as one of True, False, 'longest', 'max_length'",
    ),
}

test_bad_tokenizer_input_raises_a_clear_error = sweep(CASES)


def test_one_token_as_a_str_is_one_token_not_its_characters():
    # As in Hugging Face: a str is one token and gives one id; an int gives one token.
    assert PIECES.convert_tokens_to_ids("cat") == PIECES.vocab["cat"]
    assert PIECES.convert_tokens_to_ids("kitten") == PIECES.unk_token_id
    assert PIECES.convert_tokens_to_ids(["cat"]) == [PIECES.vocab["cat"]]
    assert PIECES.convert_ids_to_tokens(PIECES.vocab["cat"]) == "cat"
    assert PIECES.convert_ids_to_tokens(torch.tensor(PIECES.vocab["cat"])) == "cat"
    assert PIECES.decode(PIECES.vocab["cat"]) == "cat"
    assert WORDS.convert_tokens_to_ids("sat") == WORDS.vocab["sat"]


def test_small_integer_ids_give_their_tokens():
    # uint8 ids are positions in the vocabulary, never a boolean mask
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
        ids = torch.tensor([2, 5], dtype=dtype)
        assert PIECES.convert_ids_to_tokens(ids) == ["[CLS]", "the"]


def test_empty_lists_give_empty_lists():
    assert PIECES.convert_tokens_to_ids([]) == []
    assert PIECES.convert_ids_to_tokens([]) == []


def test_pad_batch_equals_a_tokenizer_call():
    rows = [PIECES.encode(text) for text in ("the cat sat.", "unhappily")]
    assert {name: tensor.tolist() for name, tensor in pad_batch(rows, 0).items()} == {
        name: t.tolist() for name, t in PIECES(["the cat sat.", "unhappily"]).items()
    }


def test_a_token_twice_in_a_vocab_file_names_the_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join([*SPECIAL_TOKENS, "cat", "cat"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"indices 5 and 6, in '.*vocab\.txt'$"):
        WordPieceTokenizer(path)
