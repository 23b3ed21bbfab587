"""Bad input to chapter 2's public names (encoderlib.tokenization, EncoderEmbeddings).

Each case feeds one class of bad input a reader meets (None and other wrong Python
types, wrong dtypes, small integer dtypes for ids, wrong shapes, empty inputs,
out-of-range settings) and expects a TypeError or ValueError whose message names
what was expected and what was received: never an error from deep inside torch, a
wrong-shaped result, characters where a token was meant, or NaN.
"""

import math

import pytest
import torch
from torch import nn

from encoderlib.embeddings import EncoderEmbeddings
from encoderlib.tokenization import SPECIAL_TOKENS, WordPieceTokenizer, WordTokenizer

VOCAB = [*SPECIAL_TOKENS, "the", "cat", "sat", ".", "un", "##happ", "##ily"]
PIECES = WordPieceTokenizer(VOCAB)
WORDS = WordTokenizer.from_texts(["The cat sat.", "The dog sat on the mat."])
LAYER = EncoderEmbeddings(vocab_size=50, d_model=8, max_len=16).eval()
IDS = torch.tensor([[2, 5, 7, 3], [2, 6, 3, 0]])


class WrongPositions(nn.Module):
    """A position module that returns vectors of the wrong width or dtype."""

    def __init__(self, width: int = 8, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.width, self.dtype = width, dtype

    def forward(self, position_ids: torch.Tensor) -> torch.Tensor:
        return torch.zeros(*position_ids.shape, self.width, dtype=self.dtype)


BAD_TOKENIZER_INPUT = {
    # building a tokenizer
    "WordPieceTokenizer(None)": (
        lambda: WordPieceTokenizer(None),
        TypeError,
        "expected the vocabulary as a list of str, got NoneType",
    ),
    "WordPieceTokenizer(42)": (
        lambda: WordPieceTokenizer(42),
        TypeError,
        "expected the vocabulary as a list of str, got int",
    ),
    "WordPieceTokenizer with a missing file": (
        lambda: WordPieceTokenizer("/no/such/vocab.txt"),
        FileNotFoundError,
        "expected the path of a vocab.txt file, got '/no/such/vocab.txt'",
    ),
    "WordPieceTokenizer without [SEP]": (
        lambda: WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "cat"]),
        ValueError,
        r"but \['\[SEP\]'\] are missing",
    ),
    "WordPieceTokenizer with a non-str token": (
        lambda: WordPieceTokenizer([*SPECIAL_TOKENS, None]),
        TypeError,
        "expected every vocabulary entry to be a str, got NoneType at index 5",
    ),
    "WordPieceTokenizer with lowercase as a str": (
        lambda: WordPieceTokenizer(VOCAB, lowercase="no"),
        TypeError,
        "expected lowercase as a bool, got 'no'",
    ),
    "WordPieceTokenizer with strip_accents None": (
        lambda: WordPieceTokenizer(VOCAB, strip_accents=None),
        TypeError,
        "expected strip_accents as a bool, got None",
    ),
    "WordPieceTokenizer with max_input_chars_per_word 0": (
        lambda: WordPieceTokenizer(VOCAB, max_input_chars_per_word=0),
        ValueError,
        "expected max_input_chars_per_word >= 1, got 0",
    ),
    "WordPieceTokenizer with max_input_chars_per_word a float": (
        lambda: WordPieceTokenizer(VOCAB, max_input_chars_per_word=100.0),
        TypeError,
        "expected max_input_chars_per_word as an int, got 100.0",
    ),
    "WordTokenizer(None)": (
        lambda: WordTokenizer(None),
        TypeError,
        "expected the vocabulary as a list of str, got NoneType",
    ),
    "WordTokenizer with lowercase as an int": (
        lambda: WordTokenizer(list(SPECIAL_TOKENS), lowercase=1),
        TypeError,
        "expected lowercase as a bool, got 1",
    ),
    "WordTokenizer.from_texts(None)": (
        lambda: WordTokenizer.from_texts(None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "WordTokenizer.from_texts of one str": (
        lambda: WordTokenizer.from_texts("The cat sat."),
        TypeError,
        "expected a list of str, got a single str",
    ),
    "WordTokenizer.from_texts with a number among the texts": (
        lambda: WordTokenizer.from_texts(["The cat sat.", 3]),
        TypeError,
        "expected text as a str, got int",
    ),
    "WordTokenizer.from_texts with max_size too small": (
        lambda: WordTokenizer.from_texts(["a b"], max_size=3),
        ValueError,
        r"expected max_size >= 5 \(the special tokens\), got 3",
    ),
    "WordTokenizer.from_texts with max_size a float": (
        lambda: WordTokenizer.from_texts(["a b"], max_size=10.0),
        TypeError,
        "expected max_size as an int, got 10.0",
    ),
    "WordTokenizer.from_texts with min_count 0": (
        lambda: WordTokenizer.from_texts(["a b"], min_count=0),
        ValueError,
        "expected min_count >= 1, got 0",
    ),
    "WordTokenizer.from_texts with min_count None": (
        lambda: WordTokenizer.from_texts(["a b"], min_count=None),
        TypeError,
        "expected min_count as an int, got None",
    ),
    # text in
    "tokenize(None)": (
        lambda: PIECES.tokenize(None),
        TypeError,
        "expected text as a str, got NoneType",
    ),
    "tokenize(bytes)": (
        lambda: PIECES.tokenize(b"cat"),
        TypeError,
        "expected text as a str, got bytes",
    ),
    "WordTokenizer.split(None)": (
        lambda: WORDS.split(None),
        TypeError,
        "expected text as a str, got NoneType",
    ),
    "normalize(None)": (
        lambda: PIECES.normalize(None),
        TypeError,
        "expected text as a str, got NoneType",
    ),
    "pre_tokenize of a list": (
        lambda: PIECES.pre_tokenize(["cat"]),
        TypeError,
        "expected text as a str, got list",
    ),
    "wordpiece(None)": (
        lambda: PIECES.wordpiece(None),
        TypeError,
        "expected word as a str, got NoneType",
    ),
    "encode(None)": (
        lambda: PIECES.encode(None),
        TypeError,
        "expected text as a str, got NoneType",
    ),
    "encode with max_length a str": (
        lambda: PIECES.encode("the cat", max_length="8"),
        TypeError,
        "expected max_length as an int or None, got '8'",
    ),
    "encode with max_length a float": (
        lambda: PIECES.encode("the cat", max_length=8.0),
        TypeError,
        "expected max_length as an int or None, got 8.0",
    ),
    "encode with max_length 1": (
        lambda: PIECES.encode("the cat", max_length=1),
        ValueError,
        "expected max_length >= 2, got 1",
    ),
    "encode with add_special_tokens a str": (
        lambda: PIECES.encode("the cat", add_special_tokens="no"),
        TypeError,
        "expected add_special_tokens as a bool, got 'no'",
    ),
    "encode_pair with None": (
        lambda: PIECES.encode_pair("the cat", None),
        TypeError,
        "expected text_pair as a str, got NoneType",
    ),
    "encode_pair with max_length 2": (
        lambda: PIECES.encode_pair("the", "cat", max_length=2),
        ValueError,
        r"expected max_length >= 3 for a pair \(\[CLS\] and two \[SEP\]\), got 2",
    ),
    # tokens and ids
    "convert_tokens_to_ids(None)": (
        lambda: PIECES.convert_tokens_to_ids(None),
        TypeError,
        r"expected a token \(str\) or a list of tokens, got NoneType",
    ),
    "convert_tokens_to_ids of an int": (
        lambda: PIECES.convert_tokens_to_ids(5),
        TypeError,
        r"expected a token \(str\) or a list of tokens, got int",
    ),
    "convert_tokens_to_ids with a None among the tokens": (
        lambda: PIECES.convert_tokens_to_ids(["cat", None]),
        TypeError,
        "expected every token to be a str, got NoneType at index 1",
    ),
    "convert_ids_to_tokens(None)": (
        lambda: PIECES.convert_ids_to_tokens(None),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got NoneType",
    ),
    "convert_ids_to_tokens of a str": (
        lambda: PIECES.convert_ids_to_tokens("cat"),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got str",
    ),
    "convert_ids_to_tokens of floats": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([1.0, 2.0])),
        TypeError,
        "expected integer ids, got float",
    ),
    "convert_ids_to_tokens of a float": (
        lambda: PIECES.convert_ids_to_tokens(2.0),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got float",
    ),
    "convert_ids_to_tokens of a bool mask": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([True, False])),
        TypeError,
        "expected integer ids, got bool",
    ),
    "convert_ids_to_tokens of a batch (b, n)": (
        lambda: PIECES.convert_ids_to_tokens(IDS),
        ValueError,
        r"expected one sequence of ids, shape \(n,\), got shape \(2, 4\)",
    ),
    "convert_ids_to_tokens of an id out of range": (
        lambda: PIECES.convert_ids_to_tokens([3, 12]),
        ValueError,
        r"expected ids in \[0, 12\), got 12",
    ),
    "convert_ids_to_tokens of a negative id": (
        lambda: PIECES.convert_ids_to_tokens(torch.tensor([-1], dtype=torch.int8)),
        ValueError,
        r"expected ids in \[0, 12\), got -1",
    ),
    "decode(None)": (
        lambda: PIECES.decode(None),
        TypeError,
        r"expected an id \(int\) or a sequence of ids, got NoneType",
    ),
    "decode with skip_special_tokens a str": (
        lambda: PIECES.decode([2, 5, 3], skip_special_tokens="yes"),
        TypeError,
        "expected skip_special_tokens as a bool, got 'yes'",
    ),
    # batches
    "a batch of one str": (
        lambda: PIECES("the cat sat"),
        TypeError,
        r"expected a list of str, got a single str; wrap it: tokenizer\(\[text\]\)",
    ),
    "a batch of None": (
        lambda: PIECES(None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "a batch holding None": (
        lambda: PIECES(["the cat", None]),
        TypeError,
        "expected a list of str or of \\(str, str\\) tuples, got NoneType at index 1",
    ),
    "an empty batch": (
        lambda: PIECES([]),
        ValueError,
        "expected at least one text, got an empty list",
    ),
    "a batch with max_length None": (
        lambda: PIECES(["the cat"], max_length=None),
        TypeError,
        "expected max_length as an int, got None",
    ),
    "a batch with max_length 1": (
        lambda: PIECES(["the cat"], max_length=1),
        ValueError,
        "expected max_length >= 2, got 1",
    ),
    "a batch with padding 'yes'": (
        lambda: PIECES(["the cat"], padding="yes"),
        ValueError,
        "expected padding to be True, False, 'longest' or 'max_length', got 'yes'",
    ),
    "a batch with truncation 'only_second'": (
        lambda: WORDS(["the cat"], truncation="only_second"),
        TypeError,
        "expected truncation as a bool, got 'only_second'",
    ),
    "a batch with pairs and texts mixed": (
        lambda: WORDS([("the", "cat"), "sat"]),
        TypeError,
        r"expected items of one kind, all str or all \(str, str\) pairs",
    ),
    "a pair that is a list": (
        lambda: WORDS([["the", "cat"]]),
        TypeError,
        "got list at index 0",
    ),
}


BAD_EMBEDDING_INPUT = {
    # settings
    "vocab_size 0": (
        lambda: EncoderEmbeddings(0, 8),
        ValueError,
        "expected vocab_size as an int >= 1, got 0",
    ),
    "d_model a float": (
        lambda: EncoderEmbeddings(50, 8.0),
        TypeError,
        "expected d_model as an int, got 8.0",
    ),
    "max_len negative": (
        lambda: EncoderEmbeddings(50, 8, max_len=-1),
        ValueError,
        "expected max_len as an int >= 1, got -1",
    ),
    "type_vocab_size negative": (
        lambda: EncoderEmbeddings(50, 8, type_vocab_size=-2),
        ValueError,
        "expected type_vocab_size as an int >= 0, got -2",
    ),
    "eps = -1": (
        lambda: EncoderEmbeddings(50, 8, eps=-1),
        ValueError,
        "expected eps > 0 and finite, got eps=-1",
    ),
    "eps = 0": (
        lambda: EncoderEmbeddings(50, 8, eps=0.0),
        ValueError,
        "expected eps > 0 and finite, got eps=0.0",
    ),
    "eps = nan": (
        lambda: EncoderEmbeddings(50, 8, eps=math.nan),
        ValueError,
        "expected eps > 0 and finite, got eps=nan",
    ),
    "eps a str": (
        lambda: EncoderEmbeddings(50, 8, eps="1e-12"),
        TypeError,
        "expected eps as a float, got '1e-12'",
    ),
    "dropout = 1": (
        lambda: EncoderEmbeddings(50, 8, dropout=1.0),
        ValueError,
        r"expected dropout in \[0, 1\), got dropout=1.0",
    ),
    "dropout < 0": (
        lambda: EncoderEmbeddings(50, 8, dropout=-0.1),
        ValueError,
        r"expected dropout in \[0, 1\), got dropout=-0.1",
    ),
    "dropout None": (
        lambda: EncoderEmbeddings(50, 8, dropout=None),
        TypeError,
        "expected dropout as a float, got None",
    ),
    "padding_idx = vocab_size": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=50),
        ValueError,
        r"expected padding_idx in \[0, vocab_size=50\), got 50",
    ),
    "padding_idx negative": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=-1),
        ValueError,
        r"expected padding_idx in \[0, vocab_size=50\), got -1",
    ),
    "padding_idx a float": (
        lambda: EncoderEmbeddings(50, 8, padding_idx=0.0),
        TypeError,
        "expected padding_idx as an int or None, got 0.0",
    ),
    "position_embeddings a tensor": (
        lambda: EncoderEmbeddings(50, 8, position_embeddings=torch.zeros(16, 8)),
        TypeError,
        "expected position_embeddings as an nn.Module or None, got Tensor",
    ),
    # inputs
    "input_ids None": (
        lambda: LAYER(None),
        TypeError,
        "expected input_ids as a torch.Tensor, got NoneType",
    ),
    "input_ids a list": (
        lambda: LAYER([[2, 5, 3]]),
        TypeError,
        "expected input_ids as a torch.Tensor, got list",
    ),
    "input_ids float": (
        lambda: LAYER(IDS.float()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float32",
    ),
    "input_ids float64": (
        lambda: LAYER(IDS.double()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.float64",
    ),
    "input_ids bool": (
        lambda: LAYER(IDS.bool()),
        TypeError,
        "expected input_ids with an integer dtype, got torch.bool",
    ),
    "input_ids 1-D": (
        lambda: LAYER(IDS[0]),
        ValueError,
        r"expected input_ids of shape \(b, n\), got \(4,\)",
    ),
    "input_ids 3-D": (
        lambda: LAYER(IDS[None]),
        ValueError,
        r"expected input_ids of shape \(b, n\), got \(1, 2, 4\)",
    ),
    "input_ids longer than max_len": (
        lambda: LAYER(torch.zeros(1, 17, dtype=torch.long)),
        ValueError,
        "expected at most max_len=16 tokens, got n=17",
    ),
    "input_ids out of the vocabulary": (
        lambda: LAYER(torch.tensor([[2, 50]])),
        ValueError,
        r"expected input_ids in \[0, 50\), got values from 2 to 50",
    ),
    "input_ids negative, int8": (
        lambda: LAYER(torch.tensor([[2, -3]], dtype=torch.int8)),
        ValueError,
        r"expected input_ids in \[0, 50\), got values from -3 to 2",
    ),
    "token_type_ids of the wrong shape": (
        lambda: LAYER(IDS, token_type_ids=torch.zeros(4, dtype=torch.long)),
        ValueError,
        r"expected token_type_ids of shape \(b, n\) = \(2, 4\), got \(4,\)",
    ),
    "token_type_ids out of range": (
        lambda: LAYER(IDS, token_type_ids=torch.full((2, 4), 2)),
        ValueError,
        r"expected token_type_ids in \[0, 2\), got values from 2 to 2",
    ),
    "token_type_ids float": (
        lambda: LAYER(IDS, token_type_ids=torch.zeros(2, 4)),
        TypeError,
        "expected token_type_ids with an integer dtype, got torch.float32",
    ),
    "token_type_ids without segment embeddings": (
        lambda: EncoderEmbeddings(50, 8, type_vocab_size=0)(
            IDS, token_type_ids=torch.zeros(2, 4, dtype=torch.long)
        ),
        ValueError,
        r"got token_type_ids, but this layer has no segment embeddings",
    ),
    "position_ids past max_len": (
        lambda: LAYER(IDS, position_ids=torch.tensor([[0, 1, 2, 16]])),
        ValueError,
        r"expected position_ids in \[0, 16\), got values from 0 to 16",
    ),
    "position_ids of the wrong length": (
        lambda: LAYER(IDS, position_ids=torch.arange(3)[None]),
        ValueError,
        r"expected position_ids of shape \(b, n\) = \(1, 4\), got \(1, 3\)",
    ),
    "position_ids float": (
        lambda: LAYER(IDS, position_ids=torch.arange(4.0)[None]),
        TypeError,
        "expected position_ids with an integer dtype, got torch.float32",
    ),
    "a position module of the wrong width": (
        lambda: EncoderEmbeddings(50, 8, position_embeddings=WrongPositions(6))(IDS),
        ValueError,
        r"expected position_embeddings to map position ids of shape \(1, 4\) to "
        r"vectors of shape \(1, 4, 8\), got \(1, 4, 6\)",
    ),
    "a position module in float64": (
        lambda: EncoderEmbeddings(
            50, 8, position_embeddings=WrongPositions(dtype=torch.float64)
        )(IDS),
        TypeError,
        "expected position vectors in the token embeddings' dtype torch.float32, "
        "got torch.float64",
    ),
    "absolute_positions as int": (
        lambda: EncoderEmbeddings(50, 8, absolute_positions=0),
        TypeError,
        "expected absolute_positions as a bool, got 0",
    ),
    "norm_bias as str": (
        lambda: EncoderEmbeddings(50, 8, norm_bias="no"),
        TypeError,
        "expected norm_bias as a bool, got 'no'",
    ),
    "a position module and absolute_positions=False": (
        lambda: EncoderEmbeddings(
            50, 8, position_embeddings=nn.Embedding(16, 8), absolute_positions=False
        ),
        ValueError,
        "got position_embeddings with absolute_positions=False",
    ),
    "position_ids for a layer without positions": (
        lambda: EncoderEmbeddings(50, 8, absolute_positions=False)(
            torch.tensor([[1, 2]]), position_ids=torch.tensor([[0, 1]])
        ),
        ValueError,
        r"got position_ids, but this layer adds no positions",
    ),
}


@pytest.mark.parametrize("case", list(BAD_TOKENIZER_INPUT), ids=str)
def test_bad_tokenizer_input_gets_a_clear_error(case):
    call, error, message = BAD_TOKENIZER_INPUT[case]
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("case", list(BAD_EMBEDDING_INPUT), ids=str)
def test_bad_embedding_input_gets_a_clear_error(case):
    call, error, message = BAD_EMBEDDING_INPUT[case]
    with pytest.raises(error, match=message):
        call()


def test_one_token_as_a_str_is_one_token_not_its_characters():
    # As in Hugging Face: a str is one token and gives one id; an int gives one token.
    assert PIECES.convert_tokens_to_ids("cat") == PIECES.vocab["cat"]
    assert PIECES.convert_tokens_to_ids("kitten") == PIECES.unk_token_id
    assert PIECES.convert_tokens_to_ids(["cat"]) == [PIECES.vocab["cat"]]
    assert PIECES.convert_ids_to_tokens(PIECES.vocab["cat"]) == "cat"
    assert PIECES.convert_ids_to_tokens(torch.tensor(PIECES.vocab["cat"])) == "cat"
    assert PIECES.decode(PIECES.vocab["cat"]) == "cat"
    assert WORDS.convert_tokens_to_ids("sat") == WORDS.vocab["sat"]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
def test_small_integer_ids_embed_as_int64_ids(dtype):
    # uint8 must never be read as a boolean mask: the same vectors as int64 ids
    expected = LAYER(IDS, token_type_ids=torch.ones_like(IDS))
    got = LAYER(
        IDS.to(dtype),
        token_type_ids=torch.ones_like(IDS, dtype=dtype),
        position_ids=torch.arange(4, dtype=dtype)[None],
    )
    assert got.shape == (2, 4, 8)
    assert torch.equal(got, expected)  # the same rows looked up: same bits
    assert PIECES.convert_ids_to_tokens(torch.tensor([2, 5], dtype=dtype)) == [
        "[CLS]",
        "the",
    ]


def test_empty_batches_give_empty_vectors():
    assert LAYER(torch.zeros(0, 4, dtype=torch.long)).shape == (0, 4, 8)  # b = 0
    assert LAYER(torch.zeros(2, 0, dtype=torch.long)).shape == (2, 0, 8)  # n = 0
    assert (
        PIECES.convert_tokens_to_ids([]) == []
        and PIECES.convert_ids_to_tokens([]) == []
    )


def test_padding_rows_give_no_nan():
    all_padding = torch.zeros(2, 5, dtype=torch.long)  # every id is [PAD]
    out = EncoderEmbeddings(50, 8, max_len=16, eps=1e-12).eval()(all_padding)
    assert out.shape == (2, 5, 8) and not out.isnan().any()
