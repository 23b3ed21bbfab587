"""Bad input to encoderlib.autoload: `from_pretrained` and `Pretrained` (chapter 14).

`from_pretrained(folder)` reads from disk only, so the classes of bad input are
a folder argument of the wrong type, a path that is not a folder on disk (a hub
id, a file), and folders whose files are missing or say something a
`SentenceEncoder` cannot do: broken JSON, a `modules.json` that is not a list, a
`max_seq_length` out of range, sentence-transformers' own lower-casing or a
default prompt. Each raises a `TypeError`, `ValueError` or `FileNotFoundError`
naming what was expected and what was found. `Pretrained` is the NamedTuple it
returns; it is built by `from_pretrained`, not by hand, so it has no cases of its
own beyond unpacking.

The folders are a tiny random BERT-shaped encoder written once with encoderlib's
`save_pretrained`, then copied and changed one file at a time.
"""

import json
import shutil
from functools import cache
from pathlib import Path

import torch
from bad_input import scratch_folder, sweep

from encoderlib.autoload import Pretrained, from_pretrained
from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.saving import save_pretrained
from encoderlib.tokenization import WordPieceTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list("abcdefghij")
BERT = {
    "vocab_size": len(VOCAB),
    "hidden_size": 16,
    "num_attention_heads": 2,
    "num_hidden_layers": 1,
    "intermediate_size": 32,
    "max_position_embeddings": 32,
}


@cache
def folder() -> Path:
    """The tiny encoder written as a sentence-transformers folder, once."""
    torch.manual_seed(0)
    model = Encoder(config_from_bert(BERT)).eval()
    folder = scratch_folder("bad-input-autoload-") / "small"
    return save_pretrained(folder, model, WordPieceTokenizer(VOCAB))


def changed(name: str, content) -> Path:
    """A copy of `folder()` whose file `name` holds `content` (None: deleted)."""
    target = scratch_folder("bad-input-autoload-") / "copy"
    shutil.copytree(folder(), target)
    if content is None:
        (target / name).unlink()
    elif isinstance(content, str):
        (target / name).write_text(content, encoding="utf-8")
    else:
        (target / name).write_text(json.dumps(content), encoding="utf-8")
    return target


def sentence_settings(**changes) -> dict:
    return {"max_seq_length": 16, "do_lower_case": False, **changes}


CASES = {
    "ch14 from_pretrained: folder as int": (
        lambda: from_pretrained(3),
        TypeError,
        r"folder\b.*3",
    ),
    "ch14 from_pretrained: folder as None": (
        lambda: from_pretrained(None),
        TypeError,
        r"folder\b.*None",
    ),
    "ch14 from_pretrained: a hub id, not a folder on disk": (
        lambda: from_pretrained("sentence-transformers/all-MiniLM-L6-v2"),
        FileNotFoundError,
        r"'sentence-transformers/all-MiniLM-L6-v2'.*disk only",
    ),
    "ch14 from_pretrained: a file, not a folder": (
        lambda: from_pretrained(folder() / "config.json"),
        FileNotFoundError,
        r"config\.json'.*a file, not a folder",
    ),
    "ch14 from_pretrained: a folder without config.json": (
        lambda: from_pretrained(changed("config.json", None)),
        FileNotFoundError,
        r"config\.json",
    ),
    "ch14 from_pretrained: config.json that is not JSON": (
        lambda: from_pretrained(changed("config.json", "{not json")),
        ValueError,
        r"expected JSON in .*config\.json",
    ),
    "ch14 from_pretrained: modules.json that is not a list": (
        lambda: from_pretrained(changed("modules.json", {"type": "Transformer"})),
        ValueError,
        r"expected modules\.json to be a list of \{'type': \.\.\., 'path': \.\.\.\}",
    ),
    "ch14 from_pretrained: max_seq_length 0": (
        lambda: from_pretrained(
            changed("sentence_bert_config.json", sentence_settings(max_seq_length=0))
        ),
        ValueError,
        r"max_seq_length in \[2, 32\].*got 0",
    ),
    "ch14 from_pretrained: max_seq_length beyond the positions": (
        lambda: from_pretrained(
            changed("sentence_bert_config.json", sentence_settings(max_seq_length=99))
        ),
        ValueError,
        r"max_seq_length in \[2, 32\].*got 99",
    ),
    "ch14 from_pretrained: max_seq_length as str": (
        lambda: from_pretrained(
            changed("sentence_bert_config.json", sentence_settings(max_seq_length="8"))
        ),
        ValueError,
        r"int max_seq_length.*'8'",
    ),
    "ch14 from_pretrained: sentence-transformers' own lower-casing": (
        lambda: from_pretrained(
            changed("sentence_bert_config.json", sentence_settings(do_lower_case=True))
        ),
        ValueError,
        r"do_lower_case false.*got true",
    ),
    "ch14 from_pretrained: a default prompt": (
        lambda: from_pretrained(
            changed(
                "config_sentence_transformers.json",
                {"prompts": {"query": "query: "}, "default_prompt_name": "query"},
            )
        ),
        ValueError,
        r"default_prompt_name.*'query'",
    ),
}

test_from_pretrained_bad_input = sweep(CASES)


def test_the_result_is_a_pretrained_that_unpacks():
    result = from_pretrained(folder())
    assert isinstance(result, Pretrained) and result.tokenizer is result.model.tokenizer
    model, tokenizer, report = result
    assert model.max_length == 32 and not report.missing
