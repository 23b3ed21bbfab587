"""Bad input to encoderlib.formats (chapter 13): clear errors before anything is built.

`choose_format` and `hf_model_files` decide and build what `save_pretrained`
writes for each family. A model of another kind, an unknown model_type, an
encoder a family cannot express, a classifier head of another family and
labels of the wrong kind must each raise a `TypeError` or `ValueError` that
names what was expected and what was received.
"""

import torch
from bad_input import sweep

from encoderlib.config import EncoderConfig
from encoderlib.encoder import Encoder
from encoderlib.formats import choose_format, hf_model_files
from encoderlib.heads import EncoderClassifier

BERT = EncoderConfig.tiny(norm_first=False, dropout=0.0, vocab_size=50)
ROBERTA = BERT.replace(pad_token_id=1, position_offset=2)


def encoder(config: EncoderConfig = BERT) -> Encoder:
    torch.manual_seed(0)
    return Encoder(config)


def classifier(**options) -> EncoderClassifier:
    return EncoderClassifier(encoder(), 2, "cls", copy=False, **options)


CASES = {
    "ch13 choose_format: a module that is not an Encoder": (
        lambda: choose_format(torch.nn.Linear(2, 2)),
        TypeError,
        r"expected encoder as an encoderlib Encoder, got Linear",
    ),
    "ch13 choose_format: an unknown model_type": (
        lambda: choose_format(encoder(), "gpt2"),
        ValueError,
        r"expected model_type as one of 'bert', .*'modernbert', got 'gpt2'",
    ),
    "ch13 choose_format: RoBERTa's offset written as BERT": (
        lambda: choose_format(encoder(ROBERTA), "bert"),
        ValueError,
        r"BERT's format cannot express this Encoder: expected position_offset=0 "
        r"\(BERT counts positions from 0;.*\), got 2",
    ),
    "ch13 choose_format: a pre-norm encoder as ELECTRA": (
        lambda: choose_format(encoder(BERT.replace(norm_first=True)), "electra"),
        ValueError,
        r"ELECTRA's format cannot express this Encoder: expected norm_first=False "
        r"\(ELECTRA is post-norm\), got True",
    ),
    "ch13 hf_model_files: a tokenizer in place of a model": (
        lambda: hf_model_files("bert-base-uncased", 0),
        TypeError,
        r"expected model as an encoderlib Encoder, EncoderClassifier or "
        r"MaskedLanguageModel, got str",
    ),
    "ch13 hf_model_files: an ELECTRA head on BERT": (
        lambda: hf_model_files(classifier(head_style="electra"), 0),
        ValueError,
        r"head_style='bert'\): BertForSequenceClassification scores .*"
        r"got .*head_style='electra'",
    ),
    "ch13 hf_model_files: labels as one string": (
        lambda: hf_model_files(classifier(), 0, labels="ab"),
        TypeError,
        r"expected labels as a list of str, got str 'ab'",
    ),
    "ch13 hf_model_files: one label for two classes": (
        lambda: hf_model_files(classifier(), 0, labels=["a"]),
        ValueError,
        r"expected labels as 2 distinct names \(one per class\), got \['a'\]",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
