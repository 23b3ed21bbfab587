"""encoderlib.data (chapter 10): collator, tokenising, loaders, the word-order task,
and loading hub data sets offline from local copies in the hub's layout."""

import random
import socket
import time
from collections import Counter

import datasets
import pytest
import torch
from tiny_bert import DuckTokenizer

from encoderlib.data import (
    TEXT_CLASSIFICATION_DATASETS,
    WORD_ORDER_ANIMALS,
    WORD_ORDER_LABELS,
    WORD_ORDER_PARTICIPLES,
    WORD_ORDER_PEOPLE,
    WORD_ORDER_VERBS,
    PaddingCollator,
    data_loader,
    load_text_classification,
    make_word_order_dataset,
    restrict_vocabulary,
    tokenize_dataset,
    word_order_mirror,
    word_order_sentence,
)
from encoderlib.tokenization import WordPieceTokenizer

datasets.disable_progress_bars()


@pytest.fixture(scope="module")
def minilm_tokenizer():
    return WordPieceTokenizer.from_minilm()


@pytest.fixture(scope="module")
def word_order():
    return make_word_order_dataset()


# --- PaddingCollator -----------------------------------------------------------------


def test_collator_pads_each_batch_to_its_longest_example():
    collate = PaddingCollator(pad_token_id=0)
    batch = collate(
        [{"input_ids": [2, 5, 6, 3], "label": 1}, {"input_ids": [2, 7, 3], "label": 0}]
    )
    assert batch["input_ids"].tolist() == [[2, 5, 6, 3], [2, 7, 3, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert batch["attention_mask"].dtype == torch.long
    assert batch["labels"].tolist() == [1, 0]
    assert "token_type_ids" not in batch
    short = collate([{"input_ids": [2, 3]}, {"input_ids": [2, 9, 3]}])
    assert short["input_ids"].shape == (2, 3)  # dynamic: no fixed width
    assert "labels" not in short


def test_collator_pads_segment_ids_of_pairs_and_other_label_keys():
    collate = PaddingCollator(pad_token_id=7, label_key="score")
    batch = collate(
        [
            {
                "input_ids": [1, 2, 3, 4, 5],
                "token_type_ids": [0, 0, 0, 1, 1],
                "score": 2,
            },
            {"input_ids": [1, 2, 3], "token_type_ids": [0, 0, 1], "score": 5},
        ]
    )
    assert batch["input_ids"][1].tolist() == [1, 2, 3, 7, 7]
    assert batch["token_type_ids"].tolist() == [[0, 0, 0, 1, 1], [0, 0, 1, 0, 0]]
    assert batch["labels"].tolist() == [2, 5]


def test_collator_errors_are_clear():
    with pytest.raises(TypeError, match="pad_token_id as an int"):
        PaddingCollator(pad_token_id=0.0)
    with pytest.raises(ValueError, match="empty batch"):
        PaddingCollator(0)([])
    with pytest.raises(TypeError, match="'input_ids'.*index 1"):
        PaddingCollator(0)([{"input_ids": [1]}, {"ids": [1]}])


# --- tokenize_dataset and data_loader -----------------------------------------------


def test_tokenize_dataset_is_a_batched_map_with_the_tokenizers_ids(
    minilm_tokenizer, monkeypatch
):
    texts = ["the dog chased the teacher", "A cat saw the judge!", "héllo wörld"]
    dataset = datasets.Dataset.from_dict({"text": texts, "label": [1, 0, 1]})
    calls = []
    original = datasets.Dataset.map

    def recording_map(self, function, *args, **kwargs):
        calls.append(kwargs)
        return original(self, function, *args, **kwargs)

    monkeypatch.setattr(datasets.Dataset, "map", recording_map)
    tokenized = tokenize_dataset(dataset, minilm_tokenizer, max_length=5)
    assert calls and calls[0]["batched"] is True
    assert tokenized.column_names == ["label", "input_ids"]
    for text, ids in zip(texts, tokenized["input_ids"], strict=True):
        assert list(ids) == minilm_tokenizer.encode(text, max_length=5)
        assert ids[0] == minilm_tokenizer.cls_token_id
        assert ids[-1] == minilm_tokenizer.sep_token_id


def test_tokenize_dataset_pairs_get_segment_ids(minilm_tokenizer):
    dataset = datasets.Dataset.from_dict(
        {"first": ["a cat sat"], "second": ["on the mat"], "label": [0]}
    )
    tokenized = tokenize_dataset(dataset, minilm_tokenizer, "first", "second")
    ids, types = minilm_tokenizer.encode_pair("a cat sat", "on the mat")
    assert list(tokenized[0]["input_ids"]) == ids
    assert list(tokenized[0]["token_type_ids"]) == types
    assert set(types) == {0, 1}
    with pytest.raises(ValueError, match="column 'text'"):
        tokenize_dataset(dataset, minilm_tokenizer)


def test_tokenize_dataset_progress_false_hides_the_bar(minilm_tokenizer, capfd):
    dataset = datasets.Dataset.from_dict({"text": ["a cat sat"] * 3, "label": [0] * 3})
    was_off = datasets.are_progress_bars_disabled()
    datasets.enable_progress_bars()
    try:
        tokenize_dataset(dataset, minilm_tokenizer)
        assert "Tokenizing" in capfd.readouterr().err
        tokenize_dataset(dataset, minilm_tokenizer, progress=False)
        assert "Tokenizing" not in capfd.readouterr().err
        assert not datasets.are_progress_bars_disabled()  # switched back on
    finally:
        if was_off:
            datasets.disable_progress_bars()
    with pytest.raises(TypeError, match="progress"):
        tokenize_dataset(dataset, minilm_tokenizer, progress="no")


def test_data_loader_order_depends_on_its_seed_alone():
    dataset = [{"input_ids": [2, i, 3], "label": i % 2} for i in range(10, 50)]
    collate = PaddingCollator(0)

    def order(seed: int, epochs: int = 1) -> list[list[int]]:
        loader = data_loader(dataset, collate, batch_size=8, seed=seed)
        return [b["input_ids"][:, 1].tolist() for _ in range(epochs) for b in loader]

    first = order(3)
    torch.manual_seed(123)  # the global generator must not matter
    torch.rand(5)
    assert order(3) == first
    assert order(4) != first
    two_epochs = order(3, epochs=2)
    assert two_epochs[:5] == first and two_epochs[5:] != first  # reshuffled
    assert sorted(sum(first, [])) == list(range(10, 50))
    assert len(data_loader(dataset, collate, batch_size=16, drop_last=True)) == 2


# --- restrict_vocabulary ------------------------------------------------------------


def test_restricted_vocabulary_cuts_its_texts_as_the_full_one(
    minilm_tokenizer, word_order
):
    texts = list(word_order["train"]["text"]) + [
        "Unbelievably, the tokenizer's pieces stay the same: playing, played, plays.",
        "naïve café, 東京 and emoji 🙂 become pieces or [UNK] as before",
    ]
    small = restrict_vocabulary(minilm_tokenizer, texts)
    assert small.vocab_size < 5000 < minilm_tokenizer.vocab_size
    for text in texts:
        assert small.tokenize(text) == minilm_tokenizer.tokenize(text)
    assert small.pad_token_id == 0  # [PAD] stays first: the embeddings' padding row
    for token in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]:
        assert token in small.vocab
    without = restrict_vocabulary(minilm_tokenizer, texts, keep_characters=False)
    assert without.vocab_size < small.vocab_size
    assert restrict_vocabulary(minilm_tokenizer, word_order["test"]["text"]).vocab_size
    with pytest.raises(TypeError, match="single str"):
        restrict_vocabulary(minilm_tokenizer, "the dog")
    with pytest.raises(TypeError, match="WordPieceTokenizer"):
        restrict_vocabulary(object(), ["the dog"])


# --- the word-order task ------------------------------------------------------------


def who_acts(text: str) -> int:
    # The label from the grammar: the agent is the first noun of an active
    # sentence and the second of a passive one; 1 when the agent is an animal.
    nouns = [w for w in text.split() if w in WORD_ORDER_ANIMALS + WORD_ORDER_PEOPLE]
    assert len(nouns) == 2, text
    agent = nouns[1] if " was " in text else nouns[0]
    return int(agent in WORD_ORDER_ANIMALS)


def test_word_order_recipe(word_order):
    train, test = word_order["train"], word_order["test"]
    assert (len(train), len(test)) == (2000, 500)
    assert train.features["label"].names == list(WORD_ORDER_LABELS)
    assert Counter(train["label"]) == {0: 1000, 1: 1000}  # balanced, exactly
    assert Counter(test["label"]) == {0: 250, 1: 250}
    assert not set(train["text"]) & set(test["text"])
    assert len(set(train["text"])) == 2000
    for text, label in zip(train["text"], train["label"], strict=True):
        assert who_acts(text) == label
        assert " was " not in text  # active voice by default
    again = make_word_order_dataset()
    assert list(again["train"]["text"]) == list(train["text"])  # seeded
    assert list(make_word_order_dataset(seed=1)["train"]["text"]) != list(train["text"])
    odd = make_word_order_dataset(n_train=7, n_test=3)
    assert Counter(odd["train"]["label"]) == {0: 4, 1: 3}


def test_the_mirror_has_the_same_words_and_the_other_label(word_order):
    test = word_order["test"]
    for text, label in zip(test["text"], test["label"], strict=True):
        mirror = word_order_mirror(text)
        assert sorted(mirror.split()) == sorted(text.split())
        assert who_acts(mirror) == 1 - label
        assert word_order_mirror(mirror) == text
    assert word_order_mirror("the old dog bit the teacher") == (
        "the old teacher bit the dog"
    )
    with pytest.raises(ValueError, match="one animal and one person"):
        word_order_mirror("the dog chased the cat")


@pytest.mark.parametrize("passive", [0.0, 0.5])
def test_no_test_sentence_is_a_reordering_of_a_training_sentence(passive):
    # A held-out test must not hold a training sentence's mirror, nor any other
    # sentence with the same bag of words (adjectives swapped between the nouns).
    task = make_word_order_dataset(n_train=2000, n_test=500, seed=3, passive=passive)
    training = {tuple(sorted(t.split())) for t in task["train"]["text"]}
    mirrors = {word_order_mirror(t) for t in task["train"]["text"]}
    for text in task["test"]["text"]:
        assert tuple(sorted(text.split())) not in training, text
        assert text not in mirrors, text
    # the training split is drawn first, so the rule leaves it as it was
    assert Counter(task["train"]["label"]) == {0: 1000, 1: 1000}


def test_the_passive_uses_every_verbs_past_participle():
    participles = {
        "chased": "chased", "followed": "followed", "watched": "watched",
        "pushed": "pushed", "helped": "helped", "found": "found", "bit": "bitten",
        "kicked": "kicked", "saw": "seen", "heard": "heard", "called": "called",
        "ignored": "ignored",
    }  # fmt: skip
    assert WORD_ORDER_PARTICIPLES == participles
    assert set(WORD_ORDER_PARTICIPLES) == set(WORD_ORDER_VERBS)
    for verb, participle in participles.items():
        text = word_order_sentence("cat", verb, "nurse", passive=True)
        assert text == f"the nurse was {participle} by the cat"
    task = make_word_order_dataset(n_train=600, n_test=100, passive=1.0)
    words = {w for t in task["train"]["text"] for w in t.split()}
    assert {"bitten", "seen"} <= words and not {"bit", "saw"} & words


def test_passive_voice_keeps_the_label_with_the_agent():
    assert word_order_sentence("dog", "bit", "judge") == "the dog bit the judge"
    assert word_order_sentence("dog", "bit", "judge", True, "old") == (
        "the judge was bitten by the old dog"
    )
    mixed = make_word_order_dataset(n_train=400, n_test=100, passive=0.5)
    texts, labels = mixed["train"]["text"], mixed["train"]["label"]
    passive = sum(" was " in t for t in texts)
    assert 150 < passive < 250
    assert all(who_acts(t) == y for t, y in zip(texts, labels, strict=True))
    everything = make_word_order_dataset(n_train=50, n_test=10, passive=1.0)
    assert all(" was " in t for t in everything["train"]["text"])


def test_a_bag_of_words_classifier_is_at_chance(word_order):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    words = CountVectorizer(token_pattern=r"\S+")
    train_x = words.fit_transform(word_order["train"]["text"])
    test_x = words.transform(word_order["test"]["text"])
    test_y = list(word_order["test"]["label"])
    for model in (LogisticRegression(max_iter=2000), DecisionTreeClassifier()):
        model.fit(train_x, list(word_order["train"]["label"]))
        accuracy = (model.predict(test_x) == test_y).mean()
        assert 0.43 < accuracy < 0.57, (type(model).__name__, accuracy)
    # The reason, exactly: a sentence and its mirror have the same bag of words
    # and opposite labels, so no function of the bag can get both right.
    mirrors = [word_order_mirror(t) for t in word_order["test"]["text"]]
    assert (words.transform(mirrors) != test_x).nnz == 0


def test_word_order_errors():
    with pytest.raises(ValueError, match="n_train"):
        make_word_order_dataset(n_train=-1)
    with pytest.raises(ValueError, match="passive in"):
        make_word_order_dataset(passive=1.5)
    with pytest.raises(ValueError, match="at most"):
        make_word_order_dataset(n_train=10**6)


# --- load_text_classification -------------------------------------------------------


def write_parquet(path, columns: dict, features: datasets.Features | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))


def news(n: int) -> dict:
    rng = random.Random(n)
    return {
        "text": [f"news story {i}" for i in range(n)],
        "label": [rng.randrange(4) for _ in range(n)],
    }


AG_FEATURES = datasets.Features(
    {
        "text": datasets.Value("string"),
        "label": datasets.ClassLabel(names=["World", "Sports", "Business", "Sci/Tech"]),
    }
)


def test_local_copy_of_ag_news_in_the_hubs_layout(tmp_path, capsys):
    folder = tmp_path / "ag_news"
    write_parquet(
        folder / "data" / "train-00000-of-00001.parquet", news(12), AG_FEATURES
    )
    write_parquet(folder / "data" / "test-00000-of-00001.parquet", news(5), AG_FEATURES)
    loaded = load_text_classification(
        "ag_news", path=folder, cache_dir=tmp_path / "cache"
    )
    assert set(loaded) == {"train", "test"}
    assert (len(loaded["train"]), len(loaded["test"])) == (12, 5)
    assert loaded["train"].column_names == ["text", "label"]
    assert loaded["train"].features["label"].names[3] == "Sci/Tech"
    assert loaded["test"]["text"][0] == "news story 0"
    assert capsys.readouterr().out == (
        f"ag_news: the local copy in {folder} (12 train, 5 test)\n"
    )


def test_local_imdb_with_sharded_splits_and_an_extra_split(tmp_path):
    folder = tmp_path / "imdb" / "plain_text"
    reviews = {"text": ["good", "bad", "fine"], "label": [1, 0, 1]}
    write_parquet(folder / "train-00000-of-00002.parquet", reviews)
    write_parquet(folder / "train-00001-of-00002.parquet", reviews)
    write_parquet(folder / "test-00000-of-00001.parquet", reviews)
    unlabelled = {"text": ["?"], "label": [-1]}
    write_parquet(folder / "unsupervised-00000-of-00001.parquet", unlabelled)
    loaded = load_text_classification(
        "imdb", path=tmp_path / "imdb", verbose=False, cache_dir=tmp_path / "cache"
    )
    assert set(loaded) == {"train", "test"} and len(loaded["train"]) == 6
    # plain integer labels (no ClassLabel in the file) get the data set's names
    assert loaded["train"].features["label"].names == ["neg", "pos"]


def test_local_sst2_renames_sentence_and_tests_on_validation(tmp_path):
    folder = tmp_path / "sst2" / "data"
    rows = {"idx": [0, 1], "sentence": ["a gem .", "dull ."], "label": [1, 0]}
    write_parquet(folder / "train-00000-of-00001.parquet", rows)
    write_parquet(folder / "validation-00000-of-00001.parquet", rows)
    hidden = {"idx": [0], "sentence": ["?"], "label": [-1]}  # the hub hides these
    write_parquet(folder / "test-00000-of-00001.parquet", hidden)
    loaded = load_text_classification(
        "sst2", path=tmp_path / "sst2", verbose=False, cache_dir=tmp_path / "cache"
    )
    assert loaded["test"]["text"] == ["a gem .", "dull ."]
    assert loaded["test"].column_names == ["text", "label"]
    assert loaded["test"].features["label"].names == ["negative", "positive"]


def test_local_copy_in_the_converted_parquet_layout(tmp_path):
    folder = tmp_path / "ag" / "default"
    write_parquet(folder / "train" / "0000.parquet", news(4), AG_FEATURES)
    write_parquet(folder / "test" / "0000.parquet", news(2), AG_FEATURES)
    loaded = load_text_classification(
        "ag_news", path=tmp_path / "ag", verbose=False, cache_dir=tmp_path / "cache"
    )
    assert (len(loaded["train"]), len(loaded["test"])) == (4, 2)


def test_local_copy_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder of parquet files"):
        load_text_classification("imdb", path=tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="parquet files under"):
        load_text_classification("imdb", path=tmp_path / "empty")
    write_parquet(tmp_path / "ag" / "train-0.parquet", news(3), AG_FEATURES)
    with pytest.raises(ValueError, match="'test' split"):
        load_text_classification(
            "ag_news", path=tmp_path / "ag", cache_dir=tmp_path / "cache"
        )


def test_unknown_names_list_the_choices():
    with pytest.raises(ValueError, match="ag_news.*imdb.*sst2.*word_order"):
        load_text_classification("mnist")


def test_offline_it_falls_back_fast_without_touching_the_hub(monkeypatch, capsys):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")

    def no_network(*args, **kwargs):
        raise AssertionError("the hub must not be called offline")

    monkeypatch.setattr(datasets, "load_dataset", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    start = time.perf_counter()
    loaded = load_text_classification("ag_news")
    assert time.perf_counter() - start < 1.0  # well under the 2-second probe
    assert loaded["train"].features["label"].names == list(WORD_ORDER_LABELS)
    assert list(loaded["test"]["text"]) == list(
        make_word_order_dataset()["test"]["text"]
    )
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "word-order task" in out and "HF_DATASETS_OFFLINE=1 is set" in out


@pytest.mark.parametrize("variable", ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"])
def test_either_offline_switch_is_enough(monkeypatch, capsys, variable):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv(variable, "true")
    load_text_classification("imdb")
    assert f"{variable}=true is set" in capsys.readouterr().out


def test_an_unreachable_hub_is_detected_within_the_timeout(monkeypatch, capsys):
    from encoderlib import loading

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)

    def refused(*args, **kwargs):
        raise ConnectionRefusedError

    monkeypatch.setattr(socket, "create_connection", refused)
    assert "unreachable: ConnectionRefusedError" in loading.hub_unreachable()
    load_text_classification("sst2")
    assert "ConnectionRefusedError" in capsys.readouterr().out

    def hangs(*args, **kwargs):  # a DNS lookup that takes far too long, say
        time.sleep(2)
        raise OSError("too late")

    monkeypatch.setattr(socket, "create_connection", hangs)
    start = time.perf_counter()
    assert "did not answer within 0.2 s" in loading.hub_unreachable(timeout=0.2)
    assert time.perf_counter() - start < 1.0


def test_online_path_normalises_the_hubs_data_set(monkeypatch, capsys):
    from encoderlib import loading

    requested = []

    def fake_hub(repository, **kwargs):
        requested.append(repository)
        rows = {"idx": [0, 1], "sentence": ["fine .", "bad ."], "label": [1, 0]}
        hidden = {"idx": [0], "sentence": ["?"], "label": [-1]}
        return datasets.DatasetDict(
            {
                "train": datasets.Dataset.from_dict(rows),
                "validation": datasets.Dataset.from_dict(rows),
                "test": datasets.Dataset.from_dict(hidden),
            }
        )

    monkeypatch.setattr(loading, "hub_unreachable", lambda: None)
    monkeypatch.setattr(datasets, "load_dataset", fake_hub)
    loaded = load_text_classification("sst2")
    assert (
        requested == [TEXT_CLASSIFICATION_DATASETS["sst2"][0]] == ["stanfordnlp/sst2"]
    )
    assert loaded["test"]["label"] == [1, 0]
    assert "stanfordnlp/sst2 from the Hugging Face hub (2 train, 2 test)" in (
        capsys.readouterr().out
    )

    def broken_hub(repository, **kwargs):
        raise ConnectionError("rate limited")

    monkeypatch.setattr(datasets, "load_dataset", broken_hub)
    fallback = load_text_classification("sst2")
    assert fallback["train"].features["label"].names == list(WORD_ORDER_LABELS)
    assert "loading stanfordnlp/sst2 failed: ConnectionError" in capsys.readouterr().out


def test_word_order_by_name(capsys):
    loaded = load_text_classification("word_order")
    assert len(loaded["train"]) == 2000
    assert "the book's task" in capsys.readouterr().out
    with pytest.raises(ValueError, match="drop path"):
        load_text_classification("word_order", path=".")


def test_tokenize_dataset_takes_any_tokenizer_with_the_interface():
    inner = WordPieceTokenizer(
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "dog", "bit", "man"]
    )
    rows = datasets.Dataset.from_dict(
        {"text": ["a dog bit a man", "a man"], "other": ["bit", "dog"], "label": [0, 1]}
    )
    shaped = DuckTokenizer(inner, masking=False)
    for pair_column in (None, "other"):
        ours = tokenize_dataset(rows, inner, pair_column=pair_column, max_length=6)
        duck = tokenize_dataset(rows, shaped, pair_column=pair_column, max_length=6)
        assert ours.to_list() == duck.to_list()
