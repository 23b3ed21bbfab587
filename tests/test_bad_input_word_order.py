"""Bad input to encoderlib.word_order (chapter 10): the book's word-order task.

Each case feeds one class of bad input a reader meets (wrong Python types,
negative sizes, seeds beyond torch's range, rates outside [0, 1]) and expects a
TypeError or ValueError worded by encoderlib.checks.
"""

import math

from bad_input import sweep

from encoderlib.word_order import (
    make_word_order_dataset,
    word_order_mirror,
    word_order_sentence,
)

CASES = {
    "ch10 word_order_sentence: None for a word": (
        lambda: word_order_sentence(None, "bit", "judge"),
        TypeError,
        r"expected agent as a str, got None",
    ),
    "ch10 word_order_sentence: passive as a str": (
        lambda: word_order_sentence("dog", "bit", "judge", "yes"),
        TypeError,
        "expected passive as a bool, got str",
    ),
    "ch10 word_order_sentence: passive of a verb without a participle": (
        lambda: word_order_sentence("dog", "ate", "judge", True),
        ValueError,
        "expected a verb of WORD_ORDER_VERBS for the passive.*got 'ate'",
    ),
    "ch10 word_order_mirror: a list": (
        lambda: word_order_mirror(["the", "dog"]),
        TypeError,
        "expected text as a str, got list",
    ),
    "ch10 word_order_mirror: no person": (
        lambda: word_order_mirror("the dog chased the cat"),
        ValueError,
        "expected one animal and one person in the sentence, got 'the dog",
    ),
    "ch10 word_order_mirror: empty": (
        lambda: word_order_mirror(""),
        ValueError,
        "expected one animal and one person in the sentence, got ''",
    ),
    "ch10 make_word_order_dataset: n_train as a str": (
        lambda: make_word_order_dataset(n_train="5"),
        TypeError,
        r"expected n_train as an int >= 0, got str '5'",
    ),
    "ch10 make_word_order_dataset: n_test as a float": (
        lambda: make_word_order_dataset(n_test=1.5),
        TypeError,
        "expected n_test as an int >= 0, got float 1\\.5",
    ),
    "ch10 make_word_order_dataset: negative size": (
        lambda: make_word_order_dataset(n_train=-1),
        ValueError,
        "expected n_train as an int >= 0, got \\-1",
    ),
    "ch10 make_word_order_dataset: seed beyond torch's range": (
        lambda: make_word_order_dataset(seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "ch10 make_word_order_dataset: seed as a str": (
        lambda: make_word_order_dataset(seed="0"),
        TypeError,
        r"expected seed as an int, got str '0'",
    ),
    "ch10 make_word_order_dataset: passive as a bool": (
        lambda: make_word_order_dataset(passive=True),
        TypeError,
        r"expected passive as a float, got bool True",
    ),
    "ch10 make_word_order_dataset: passive NaN": (
        lambda: make_word_order_dataset(passive=math.nan),
        ValueError,
        r"expected passive in \[0, 1\], got nan",
    ),
    "ch10 make_word_order_dataset: too many sentences": (
        lambda: make_word_order_dataset(n_train=10**6),
        ValueError,
        "expected at most 34,992 sentences in all, got n_train=1000000",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_an_empty_task_is_empty():
    empty = make_word_order_dataset(n_train=0, n_test=0)
    assert (len(empty["train"]), len(empty["test"])) == (0, 0)


def test_the_edges_of_the_seed_range_are_accepted():
    assert len(make_word_order_dataset(n_train=4, n_test=2, seed=-1)["train"]) == 4
