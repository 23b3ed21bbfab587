"""Fine-tuned classifiers of every family leave whole (issue 25).

For each family folder that `tests/pretrained_folders.py` builds (random
weights, tiny tokenizers), a user's round trip: `from_pretrained`, an
`EncoderClassifier` with the family's head, a few steps of `train`,
`save_pretrained`, then `transformers.AutoModelForSequenceClassification` must
load the folder with no missing or unexpected keys and give the same logits on
a padded batch (≤ 1e-5, fp32), and `load_classifier` must read it back. BERT,
RoBERTa, XLM-RoBERTa, ELECTRA and ModernBERT (with [CLS] or mean pooling) are
written in their own formats; DistilBERT, whose layers compute what BERT's do,
as BERT. What a format cannot say is refused by name. A classifier that
transformers saved reads into encoderlib.
"""

import json
import warnings

import pytest
import torch
import torch.nn.functional as F
from pretrained_folders import SENTENCES, hf_config, hf_tokenizer, model_folder

import encoderlib
from encoderlib.formats import choose_format
from encoderlib.heads import EncoderClassifier
from encoderlib.saving import load_classifier, save_pretrained

transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
transformers.utils.logging.set_verbosity_error()

TOLERANCE = 1e-5
# family → (head_style, model_type given to save_pretrained, the architecture
# transformers must build from the folder). Without model_type the config decides:
# an XLM-R encoder computes what RoBERTa's does, and is written as RoBERTa.
WRITTEN_AS = {
    "bert": ("bert", None, "BertForSequenceClassification"),
    "roberta": ("bert", None, "RobertaForSequenceClassification"),
    "xlm-roberta": ("bert", "xlm-roberta", "XLMRobertaForSequenceClassification"),
    "distilbert": ("bert", None, "BertForSequenceClassification"),
    "electra": ("electra", None, "ElectraForSequenceClassification"),
    "modernbert": ("modernbert", None, "ModernBertForSequenceClassification"),
}


def fine_tuned(family: str, pooling: str = "cls") -> tuple[EncoderClassifier, object]:
    """The family's folder read by `from_pretrained`, a head, 3 steps of `train`."""
    model, tokenizer, _ = encoderlib.from_pretrained(model_folder(family))
    classifier = EncoderClassifier(
        model, 3, pooling, dropout=0.0, head_style=WRITTEN_AS[family][0], copy=True
    )
    batch = {
        **tokenizer(SENTENCES),
        "labels": torch.tensor([0, 1, 2, 1, 0][: len(SENTENCES)]),
    }

    def loss_fn(model, batch):
        logits = model(batch["input_ids"], batch["attention_mask"])
        return F.cross_entropy(logits, batch["labels"])

    encoderlib.train(
        classifier, loss_fn, [batch], steps=3, lr=1e-2, progress=False, seed=0
    )
    return classifier.eval(), tokenizer


def logits(model, batch: dict) -> torch.Tensor:
    inputs = {k: batch[k] for k in ("input_ids", "attention_mask")}
    with torch.no_grad():
        out = model(**inputs)
    return getattr(out, "logits", out)


@pytest.mark.parametrize(
    "family, pooling",
    [(family, "cls") for family in WRITTEN_AS] + [("modernbert", "mean")],
)
def test_a_fine_tuned_classifier_loads_in_transformers(family, pooling, tmp_path):
    ours, tokenizer = fine_tuned(family, pooling)
    _, model_type, architecture = WRITTEN_AS[family]
    folder = save_pretrained(
        tmp_path / family,
        ours,
        tokenizer,
        labels=["a", "b", "c"],
        model_type=model_type,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf, info = transformers.AutoModelForSequenceClassification.from_pretrained(
            folder, output_loading_info=True, local_files_only=True
        )
    assert type(hf).__name__ == architecture
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert hf.config.id2label == {0: "a", 1: "b", 2: "c"}
    batch = tokenizer(SENTENCES)
    assert bool((batch["attention_mask"] == 0).any())  # padded
    expected = logits(ours, batch)
    assert (logits(hf.eval(), batch) - expected).abs().max() <= TOLERANCE
    back = load_classifier(folder)
    assert back.head.style == WRITTEN_AS[family][0] and back.pooling == pooling
    assert (logits(back, batch) - expected).abs().max() <= 1e-6


@pytest.mark.parametrize("family", ["roberta", "xlm-roberta", "electra", "modernbert"])
def test_a_transformers_classifier_of_the_family_reads_in(family):
    tokenizer = hf_tokenizer(family)
    config = hf_config(family, len(tokenizer), tokenizer.pad_token_id, num_labels=2)
    torch.manual_seed(3)
    hf = transformers.AutoModelForSequenceClassification.from_config(config).eval()
    folder = model_folder(family).parent / f"{family}-classifier"
    hf.save_pretrained(folder)
    ours = load_classifier(folder)
    batch = dict(tokenizer(SENTENCES, padding=True, return_tensors="pt"))
    assert (logits(ours, batch) - logits(hf, batch)).abs().max() <= TOLERANCE


@pytest.mark.parametrize("family", ["roberta", "electra", "modernbert"])
def test_the_encoder_alone_round_trips_in_its_format(family, tmp_path):
    model, tokenizer, _ = encoderlib.from_pretrained(model_folder(family))
    folder = save_pretrained(tmp_path / family, model, tokenizer)
    hf = transformers.AutoModel.from_pretrained(folder).eval()
    assert hf.config.model_type == family
    # Inputs are cut where the positions end: RoBERTa's 2 fewer than max_len.
    usable = model.config.max_len - model.config.position_offset
    settings = json.loads((folder / "sentence_bert_config.json").read_text())
    assert settings["max_seq_length"] == usable
    batch = tokenizer(SENTENCES)
    with torch.no_grad():
        ours = model(batch["input_ids"], batch["attention_mask"])
        theirs = hf(batch["input_ids"], batch["attention_mask"]).last_hidden_state
    real = batch["attention_mask"].bool()
    assert (ours[real] - theirs[real]).abs().max() <= TOLERANCE


def test_what_a_format_cannot_say_is_refused_by_name(tmp_path):
    roberta, tokenizer, _ = encoderlib.from_pretrained(model_folder("roberta"))
    modern, modern_tokenizer, _ = encoderlib.from_pretrained(model_folder("modernbert"))
    wrong_head = EncoderClassifier(roberta, 2, "cls", head_style="electra", copy=True)
    max_pooled = EncoderClassifier(modern, 2, "max", head_style="modernbert", copy=True)
    refusals = [
        (
            lambda: choose_format(roberta, "bert"),
            r"BERT's format cannot express.*position_offset=0",
        ),
        (
            lambda: save_pretrained(tmp_path / "wrong", wrong_head, tokenizer),
            r"head_style='bert'.*got .*head_style='electra'",
        ),
        (
            lambda: choose_format(modern, "bert"),
            r"cannot express this Encoder: expected norm_first",
        ),
        (
            lambda: save_pretrained(tmp_path / "modern", max_pooled, modern_tokenizer),
            r"pooling in \('cls', 'mean'\).*got pooling='max'",
        ),
    ]
    for call, message in refusals:
        with pytest.raises(ValueError, match=message):
            call()
    assert not (tmp_path / "wrong").exists() and not (tmp_path / "modern").exists()


def test_a_head_tensor_without_a_place_is_refused():
    tokenizer = hf_tokenizer("modernbert")
    config = hf_config(
        "modernbert", len(tokenizer), tokenizer.pad_token_id, classifier_bias=True
    )
    hf = transformers.AutoModelForSequenceClassification.from_config(config)
    folder = model_folder("modernbert").parent / "modernbert-classifier-bias"
    hf.save_pretrained(folder)
    with pytest.raises(ValueError, match=r"got \['head.dense.bias'\] as well"):
        load_classifier(folder)
