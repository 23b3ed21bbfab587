"""Task models leave the book whole: `save_pretrained` of a classifier and an MLM.

An `EncoderClassifier` ([CLS] pooling, BERT's tanh layer) is written as
`BertForSequenceClassification` and a `MaskedLanguageModel` as `BertForMaskedLM`.
Each folder must load in `transformers.AutoModelFor...` with no missing or
unexpected keys and give the same logits (≤ 1e-5, fp32, a padded batch, random
weights), in `sentence_transformers.CrossEncoder` for the classifier, and back
into encoderlib with `load_classifier` / `load_masked_lm`. A tokenizer that is
not a `WordPieceTokenizer` writes itself with its own `save(folder)`.
"""

import json
import warnings

import pytest
import torch
from tiny_bert import TINY_BERT, TINY_VOCAB

from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.heads import EncoderClassifier
from encoderlib.mlm import MaskedLanguageModel
from encoderlib.saving import load_classifier, load_masked_lm, save_pretrained
from encoderlib.tokenization import WordPieceTokenizer

transformers = pytest.importorskip("transformers")
transformers.utils.logging.disable_progress_bar()
transformers.utils.logging.set_verbosity_error()

TEXTS = ["the cat sat on the mat.", "a dog ran", "x", "the the the cat sat, zzz"]
PAIRS = [("the cat sat.", "on the mat."), ("a", "b c d e f")]
TOLERANCE = 1e-5


def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(TINY_VOCAB)


def classifier(seed: int = 0, n_classes: int = 3, **options) -> EncoderClassifier:
    torch.manual_seed(seed)
    encoder = Encoder(config_from_bert(TINY_BERT))
    model = EncoderClassifier(encoder, n_classes, "cls", **options)
    with torch.no_grad():  # random, not BERT's zero biases: every tensor matters
        for parameter in model.parameters():
            parameter.add_(0.02 * torch.randn_like(parameter))
    return model.eval()


def masked_lm(seed: int = 0) -> MaskedLanguageModel:
    torch.manual_seed(seed)
    model = MaskedLanguageModel(Encoder(config_from_bert(TINY_BERT)))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.02 * torch.randn_like(parameter))
    return model.eval()


def test_classifier_loads_in_transformers_with_the_same_logits(tmp_path):
    ours = classifier()
    folder = save_pretrained(
        tmp_path / "clf", ours, tokenizer(), labels=["n", "o", "p"]
    )
    hf, info = transformers.AutoModelForSequenceClassification.from_pretrained(
        folder, output_loading_info=True, local_files_only=True
    )
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert not info["mismatched_keys"]
    assert hf.config.id2label == {0: "n", 1: "o", 2: "p"}
    assert hf.config.label2id == {"n": 0, "o": 1, "p": 2}
    assert hf.config.problem_type == "single_label_classification"
    for batch in (tokenizer()(TEXTS), tokenizer()(PAIRS)):  # padded; pairs: segments
        assert bool((batch["attention_mask"] == 0).any())
        with torch.no_grad():
            expected = ours(**batch)
            got = hf.eval()(**batch).logits
        assert (expected - got).abs().max() <= TOLERANCE
    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    assert hf_tokenizer(TEXTS[0])["input_ids"] == tokenizer().encode(TEXTS[0])


def test_one_score_is_written_as_a_regression(tmp_path):
    # transformers refuses single_label_classification with num_labels=1.
    ours = classifier(n_classes=1)
    folder = save_pretrained(tmp_path / "score", ours, tokenizer())
    hf = transformers.AutoModelForSequenceClassification.from_pretrained(folder)
    assert hf.config.problem_type == "regression" and hf.config.num_labels == 1
    batch = tokenizer()(TEXTS)
    with torch.no_grad():
        assert (hf.eval()(**batch).logits - ours(**batch)).abs().max() <= TOLERANCE
    assert load_classifier(folder).head.n_classes == 1


def test_classifier_reads_back_into_encoderlib(tmp_path):
    ours = classifier(dropout=0.2)
    folder = save_pretrained(tmp_path / "clf", ours, tokenizer())
    back = load_classifier(folder)
    assert isinstance(back, EncoderClassifier) and not back.training
    assert back.pooling == "cls" and back.head.dropout.p == 0.2
    config = json.loads((folder / "config.json").read_text())
    assert config["id2label"] == {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    batch = tokenizer()(TEXTS)
    with torch.no_grad():
        assert torch.equal(back(**batch), ours(**batch))  # the same bits


def test_a_transformers_classifier_reads_into_encoderlib(tmp_path):
    torch.manual_seed(1)
    config = transformers.BertConfig(**TINY_BERT, num_labels=2)
    hf = transformers.BertForSequenceClassification(config).eval()
    hf.save_pretrained(tmp_path / "hf")
    ours = load_classifier(tmp_path / "hf")
    batch = tokenizer()(TEXTS)
    with torch.no_grad():
        assert (ours(**batch) - hf(**batch).logits).abs().max() <= TOLERANCE


def test_classifier_loads_in_a_cross_encoder(tmp_path):
    cross_encoder = pytest.importorskip("sentence_transformers").CrossEncoder
    ours = classifier()
    folder = save_pretrained(tmp_path / "clf", ours, tokenizer())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cross_encoder(str(folder), device="cpu", local_files_only=True)
        scores = model.predict(PAIRS, convert_to_tensor=True, activation_fn=None)
    with torch.no_grad():
        expected = ours(**tokenizer()(PAIRS))
    assert (scores.reshape(expected.shape) - expected).abs().max() <= TOLERANCE


def test_masked_lm_loads_in_transformers_with_the_same_logits(tmp_path):
    ours = masked_lm()
    folder = save_pretrained(tmp_path / "mlm", ours, tokenizer())
    hf, info = transformers.AutoModelForMaskedLM.from_pretrained(
        folder, output_loading_info=True, local_files_only=True
    )
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert not info["mismatched_keys"]
    assert hf.config.architectures == ["BertForMaskedLM"]
    embeddings = hf.get_input_embeddings().weight
    assert hf.get_output_embeddings().weight is embeddings  # tied, as ours
    batch = tokenizer()(TEXTS)
    real = batch["attention_mask"].bool()
    with torch.no_grad():
        expected = ours(**batch).logits
        got = hf.eval()(**batch).logits
    # Padded positions hold whatever the pad token's row gives: compare real ones.
    assert (expected - got)[real].abs().max() <= TOLERANCE


def test_masked_lm_reads_back_into_encoderlib(tmp_path):
    ours = masked_lm()
    folder = save_pretrained(tmp_path / "mlm", ours, tokenizer())
    back = load_masked_lm(folder)
    assert back.head.decoder.weight is back.encoder.embeddings.token_embeddings.weight
    batch = tokenizer()(TEXTS)
    with torch.no_grad():
        assert torch.equal(back(**batch).logits, ours(**batch).logits)


def test_a_trained_classifier_round_trips(tmp_path):
    """A few optimiser steps move every tensor; the folder keeps them all."""
    model = classifier(dropout=0.0).train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-2)
    batch = tokenizer()(TEXTS)
    labels = torch.tensor([0, 1, 2, 1])
    for _ in range(3):
        loss = torch.nn.functional.cross_entropy(model(**batch), labels)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval()
    folder = save_pretrained(tmp_path / "trained", model, tokenizer())
    hf = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        expected = model(**batch)
        assert (hf(**batch).logits - expected).abs().max() <= TOLERANCE
        assert torch.equal(load_classifier(folder)(**batch), expected)


def test_a_tokenizer_with_save_writes_itself(tmp_path):
    import encoderlib.saving as saving

    class Other:  # the tokenizer interface by delegation, plus save(folder)
        def __init__(self):
            self.inner, self.saved = tokenizer(), []

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def __call__(self, *args, **kwargs):
            return self.inner(*args, **kwargs)

        def save(self, folder):
            self.saved.append(folder)
            (folder / "tokenizer.json").write_text("{}", encoding="utf-8")

    other = Other()
    assert not isinstance(other, saving.WordPieceTokenizer)
    folder = save_pretrained(tmp_path / "other", classifier(), other)
    assert other.saved == [folder]
    assert not (folder / "vocab.txt").exists()  # the tokenizer wrote its own files
