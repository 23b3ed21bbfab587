"""Bad input to encoderlib.normalization (chapter 2's BERT normalisation): clear errors.

Each case feeds the public steps one class of bad input a reader meets (None,
bytes, a list where a text belongs, settings that are not bools) and expects a
TypeError, raised by encoderlib's own checks, whose message names what was
expected and what was received, never an AttributeError from inside `str`.
"""

from bad_input import flag_cases, sweep

from encoderlib.normalization import bert_normalize, bert_pre_tokenize

CASES = {
    "ch02 bert_normalize: text None": (
        lambda: bert_normalize(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 bert_normalize: text bytes": (
        lambda: bert_normalize(b"caf\xc3\xa9"),
        TypeError,
        r"expected text as a str, got bytes b'caf\\xc3\\xa9'",
    ),
    **flag_cases(
        "ch02 bert_normalize", "lowercase", lambda v: bert_normalize("Cat", v)
    ),
    **flag_cases(
        "ch02 bert_normalize",
        "strip_accents",
        lambda v: bert_normalize("Café", strip_accents=v),
    ),
    "ch02 bert_pre_tokenize: text None": (
        lambda: bert_pre_tokenize(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 bert_pre_tokenize: a list of words": (
        lambda: bert_pre_tokenize(["don't", "stop"]),
        TypeError,
        "expected text as a str, got list",
    ),
}

test_bad_normalization_input_raises_a_clear_error = sweep(CASES)


def test_empty_and_blank_texts_give_no_words():
    assert bert_normalize("") == "" and bert_pre_tokenize("") == []
    assert bert_pre_tokenize(bert_normalize("\t\u200b\u3000\x00")) == []
