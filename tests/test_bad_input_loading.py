"""Bad input to encoderlib.loading (chapters 10 and 12): the loaders of hub data sets.

Text classification (chapter 10), the STS Benchmark (chapter 12) and the
fail-fast probe of the hub they share: wrong types, unknown names, missing or
malformed local copies give a clear TypeError, ValueError or FileNotFoundError.
"""

import pytest
from bad_input import flag_cases, sweep

from encoderlib.loading import (
    STSPairs,
    hub_unreachable,
    load_sts_benchmark,
    load_text_classification,
)

CASES = {
    "ch10 load_text_classification: name None": (
        lambda: load_text_classification(None),
        TypeError,
        r"expected name as one of 'ag_news', 'imdb', 'sst2', 'word_order', got None",
    ),
    "ch10 load_text_classification: unknown name": (
        lambda: load_text_classification("mnist"),
        ValueError,
        r"expected name as one of 'ag_news', 'imdb', 'sst2', 'word_order', got 'mnist'",
    ),
    "ch10 load_text_classification: path as an int": (
        lambda: load_text_classification("sst2", path=5),
        TypeError,
        "expected path as a str or pathlib\\.Path, got int 5",
    ),
    "ch10 load_text_classification: a path for the made task": (
        lambda: load_text_classification("word_order", path="x", verbose=False),
        ValueError,
        "the word-order task is made, not loaded: drop path=",
    ),
    "ch12 STSPairs: a str for the first sentences": (
        lambda: STSPairs("a cat", ["a dog"], [1.0], "here"),
        TypeError,
        "expected first as a list of str, got 'a cat'",
    ),
    "ch12 STSPairs: scores as str": (
        lambda: STSPairs(["a"], ["b"], ["4.5"], "here"),
        TypeError,
        r"expected scores as a list of numbers, got \['4.5'\]",
    ),
    "ch12 STSPairs: source None": (
        lambda: STSPairs(["a"], ["b"], [4.5], None),
        TypeError,
        "expected source as a str, got None",
    ),
    "ch12 STSPairs: lengths differ": (
        lambda: STSPairs(["a", "b"], ["c"], [1.0], "here"),
        ValueError,
        "expected first, second and scores of one length, got 2, 1 and 1",
    ),
    "ch12 STSPairs: a score above 5": (
        lambda: STSPairs(["a"], ["b"], [6.0], "here"),
        ValueError,
        r"expected scores in \[0, 5\], got 6.0 to 6.0",
    ),
    "ch12 load_sts_benchmark: path as an int": (
        lambda: load_sts_benchmark(path=5),
        TypeError,
        "expected path as a str or pathlib\\.Path, got int 5",
    ),
    **flag_cases(
        "ch10 load_text_classification",
        "verbose",
        lambda v: load_text_classification("word_order", verbose=v),
    ),
    "ch10 hub_unreachable: timeout as a str": (
        lambda: hub_unreachable("2"),
        TypeError,
        r"expected timeout as a float, got str '2'",
    ),
    "ch10 hub_unreachable: timeout 0": (
        lambda: hub_unreachable(0.0),
        ValueError,
        r"expected timeout > 0, got 0.0",
    ),
    **flag_cases("ch12 load_sts_benchmark", "hub", lambda v: load_sts_benchmark(hub=v)),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_missing_local_data_is_a_clear_file_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="expected a folder of parquet files"):
        load_text_classification("sst2", path=tmp_path / "absent", verbose=False)
    with pytest.raises(FileNotFoundError, match="expected parquet files under"):
        load_text_classification("sst2", path=tmp_path, verbose=False)


def test_a_missing_or_malformed_sts_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="expected an STS Benchmark file"):
        load_sts_benchmark(path=tmp_path / "absent.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("main\tfile\t2012\t1\tfive\ta cat\ta dog\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.csv:1: expected a score in the fifth"):
        load_sts_benchmark(path=bad)


def test_the_environment_variable_names_the_sts_copy(tmp_path, monkeypatch):
    folder = tmp_path / "stsbenchmark"
    folder.mkdir()
    line = "main-captions\tMSRvid\t2012test\t0001\t2.5\tA girl.\tA boy.\n"
    (folder / "sts-test.csv").write_text(line, encoding="utf-8")
    for named in (folder, folder / "sts-test.csv"):  # the folder or the file
        monkeypatch.setenv("ENCODER_BOOK_STS", str(named))
        pairs = load_sts_benchmark(hub=False)
        assert pairs.first == ["A girl."] and pairs.scores == [2.5]
        assert pairs.source == str(folder / "sts-test.csv")
    monkeypatch.setenv("ENCODER_BOOK_STS", str(tmp_path / "nowhere"))
    assert load_sts_benchmark(hub=False) is None
