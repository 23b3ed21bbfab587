"""Bad input to encoderlib.serving (chapter 19): ONNX export, ONNX Runtime, int8.

`export_onnx`, `OnnxSentenceEncoder` (and its `encode`), `Int8Weight`,
`quantize_int8` and `quantize_onnx_int8` are fed each class of bad input (wrong
Python types, paths that name nothing, files that are not ONNX models, out-of-range
opsets, thread counts and lengths, a tokenizer of another vocabulary, a graph that
is not a sentence encoder's, models the exporter cannot describe, a model whose
int8 copy could not run) and must raise a TypeError, ValueError or
FileNotFoundError whose message names what was expected and what was received.
Without onnx or onnxruntime, the functions that need them raise an ImportError
naming `pip install encoderlib[serving]`, and `import encoderlib` still works.
"""

import functools
import subprocess
import sys

import pytest
import torch
from bad_input import linear_copy_cases, scratch_folder, sweep
from torch import nn

from encoderlib import Encoder, EncoderConfig, WordPieceTokenizer, load_minilm
from encoderlib.pretrained import SentenceEncoder
from encoderlib.quantization import Int8Weight, quantize_int8
from encoderlib.serving import OnnxSentenceEncoder, export_onnx, quantize_onnx_int8


@functools.cache
def minilm():
    return load_minilm()


@functools.cache
def files() -> dict:
    """Tiny sentence-encoder and bare-encoder ONNX files, and two that are not ONNX."""
    folder = scratch_folder("bad-input-serving-")
    torch.manual_seed(0)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "cat", "sat"]
    tokenizer = WordPieceTokenizer(vocab)
    encoder = Encoder(EncoderConfig.tiny(vocab_size=len(vocab), max_len=16))
    sentence_file = export_onnx(
        SentenceEncoder(tokenizer, encoder, max_length=16), folder / "tiny.onnx"
    )
    encoder_file = export_onnx(encoder, folder / "tiny-encoder.onnx")
    (folder / "not-onnx.onnx").write_text("a cat sat, not a model\n")
    (folder / "empty.onnx").write_bytes(b"")
    return {
        "folder": folder,
        "tokenizer": tokenizer,
        "sentence": sentence_file,
        "encoder": encoder_file,
        "text": folder / "not-onnx.onnx",
        "empty": folder / "empty.onnx",
    }


EXPORT = {
    "ch19 export_onnx(a Linear)": (
        lambda: export_onnx(nn.Linear(3, 3), "x.onnx"),
        TypeError,
        r"expected model as a SentenceEncoder or an Encoder, got Linear",
    ),
    "ch19 export_onnx(path 3)": (
        lambda: export_onnx(minilm(), 3),
        TypeError,
        r"expected path as a str or pathlib.Path, got int 3",
    ),
    "ch19 export_onnx(path '')": (
        lambda: export_onnx(minilm(), ""),
        ValueError,
        r"expected path as a file path, got ''",
    ),
    "ch19 export_onnx(opset '18')": (
        lambda: export_onnx(minilm(), "x.onnx", opset="18"),
        TypeError,
        r"expected opset as an int >= 18, got str '18'",
    ),
    "ch19 export_onnx(opset 17)": (
        lambda: export_onnx(minilm(), "x.onnx", opset=17),
        ValueError,
        r"expected opset as an int >= 18, got 17",
    ),
    "ch19 export_onnx(max_len 1)": (
        lambda: export_onnx(Encoder(EncoderConfig.tiny(max_len=1)), "x.onnx"),
        ValueError,
        r"expected max_len - position_offset >= 2 .*got 1 - 0",
    ),
    "ch19 export_onnx(an int8 copy)": (
        lambda: export_onnx(quantize_int8(Encoder(EncoderConfig.tiny())), "x"),
        ValueError,
        r"expected model with plain tensors as weights, got Int8Weight: export the",
    ),
}

ONNX_ENCODER = {
    "ch19 OnnxSentenceEncoder(path None)": (
        lambda: OnnxSentenceEncoder(None, files()["tokenizer"]),
        TypeError,
        r"expected path as a str or pathlib.Path, got None",
    ),
    "ch19 OnnxSentenceEncoder(missing file)": (
        lambda: OnnxSentenceEncoder("no/such.onnx", files()["tokenizer"]),
        FileNotFoundError,
        r"expected an ONNX file at 'no/such.onnx'",
    ),
    "ch19 OnnxSentenceEncoder(tokenizer a dict)": (
        lambda: OnnxSentenceEncoder(files()["sentence"], {"a": 0}),
        TypeError,
        r"expected tokenizer as a tokenizer \(with encode, .*\), got dict",
    ),
    "ch19 OnnxSentenceEncoder(providers a str)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], providers="CPUExecutionProvider"
        ),
        TypeError,
        r"expected providers as a list of provider names or None, got str",
    ),
    "ch19 OnnxSentenceEncoder(providers with a non-str)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], providers=[1]
        ),
        TypeError,
        r"expected providers as a list of provider names \(str\), got int 1",
    ),
    "ch19 OnnxSentenceEncoder(an unknown provider)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], providers=["TPUProvider"]
        ),
        ValueError,
        r"expected providers among this onnxruntime's \[.*'CPUExecutionProvider'.*\], "
        r"got 'TPUProvider'",
    ),
    "ch19 OnnxSentenceEncoder(no provider)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], providers=[]
        ),
        ValueError,
        r"expected at least one provider of \[.*\], got none",
    ),
    "ch19 OnnxSentenceEncoder(max_length 2.5)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], max_length=2.5
        ),
        TypeError,
        r"expected max_length as an int >= 2, got float 2.5",
    ),
    "ch19 OnnxSentenceEncoder(max_length 1)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], max_length=1
        ),
        ValueError,
        r"expected max_length as an int >= 2, got 1",
    ),
    "ch19 OnnxSentenceEncoder(max_length 17 > max_len)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], max_length=17
        ),
        ValueError,
        r"expected max_length in \[2, 16\], got 17",
    ),
    "ch19 OnnxSentenceEncoder(threads True)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], threads=True
        ),
        TypeError,
        r"expected threads as an int >= 1, got bool True",
    ),
    "ch19 OnnxSentenceEncoder(threads 0)": (
        lambda: OnnxSentenceEncoder(
            files()["sentence"], files()["tokenizer"], threads=0
        ),
        ValueError,
        r"expected threads as an int >= 1, got 0",
    ),
    "ch19 OnnxSentenceEncoder(a text file)": (
        lambda: OnnxSentenceEncoder(files()["text"], files()["tokenizer"]),
        ValueError,
        r"expected path as an ONNX model file, got '.*not-onnx.onnx' \(DecodeError",
    ),
    "ch19 OnnxSentenceEncoder(an empty file)": (
        lambda: OnnxSentenceEncoder(files()["empty"], files()["tokenizer"]),
        ValueError,
        r"expected path as an ONNX model file, got '.*empty.onnx' \(no graph",
    ),
    "ch19 OnnxSentenceEncoder(path '')": (
        lambda: OnnxSentenceEncoder("", files()["tokenizer"]),
        ValueError,
        r"expected path as a file path, got ''",
    ),
    "ch19 OnnxSentenceEncoder(another vocabulary)": (
        lambda: OnnxSentenceEncoder(files()["sentence"], minilm().tokenizer),
        ValueError,
        r"expected a tokenizer with at most the model.s 8 tokens, got 30522",
    ),
    "ch19 OnnxSentenceEncoder(an Encoder's graph)": (
        lambda: OnnxSentenceEncoder(files()["encoder"], files()["tokenizer"]),
        ValueError,
        r"expected a sentence encoder's graph .*outputs \['last_hidden_state'\]",
    ),
}


def onnx_tiny() -> OnnxSentenceEncoder:
    return OnnxSentenceEncoder(files()["sentence"], files()["tokenizer"])


ENCODE = {
    "ch19 OnnxSentenceEncoder.encode(a str)": (
        lambda: onnx_tiny().encode("a cat"),
        TypeError,
        r"expected a list of str, got a single str; wrap it",
    ),
    "ch19 OnnxSentenceEncoder.encode(a set)": (
        lambda: onnx_tiny().encode({"a cat"}),
        TypeError,
        r"expected an ordered list of str, got a set",
    ),
    "ch19 OnnxSentenceEncoder.encode(an int item)": (
        lambda: onnx_tiny().encode(["a cat", 3]),
        TypeError,
        r"expected a list of str, got int at index 1",
    ),
    "ch19 OnnxSentenceEncoder.encode(not iterable)": (
        lambda: onnx_tiny().encode(3),
        TypeError,
        r"expected a list of str, got int",
    ),
    "ch19 OnnxSentenceEncoder.encode(batch_size 0)": (
        lambda: onnx_tiny().encode(["a cat"], batch_size=0),
        ValueError,
        r"expected batch_size as a positive int, got 0",
    ),
    "ch19 OnnxSentenceEncoder.encode(batch_size 2.0)": (
        lambda: onnx_tiny().encode(["a cat"], batch_size=2.0),
        TypeError,
        r"expected batch_size as a positive int, got float 2.0",
    ),
    "ch19 OnnxSentenceEncoder.encode(normalize 1)": (
        lambda: onnx_tiny().encode(["a cat"], normalize=1),
        TypeError,
        r"expected normalize as a bool, got int 1",
    ),
}

INT8 = {
    "ch19 Int8Weight(a list)": (
        lambda: Int8Weight([[1.0, 2.0]]),
        TypeError,
        r"expected weight as a torch.Tensor, got list",
    ),
    "ch19 Int8Weight(int64)": (
        lambda: Int8Weight(torch.ones(2, 3, dtype=torch.long)),
        TypeError,
        r"expected weight with a floating dtype, got torch.int64",
    ),
    "ch19 Int8Weight(1-D)": (
        lambda: Int8Weight(torch.ones(3)),
        ValueError,
        r"expected weight of shape \(out, in\) = \(\*, \*\), got \(3,\)",
    ),
    **linear_copy_cases("ch19 quantize_int8", quantize_int8, "quantize"),
    "ch19 quantize_onnx_int8(src 3)": (
        lambda: quantize_onnx_int8(3, "out.onnx"),
        TypeError,
        r"expected src as a str or pathlib.Path, got int 3",
    ),
    "ch19 quantize_onnx_int8(dst None)": (
        lambda: quantize_onnx_int8(files()["sentence"], None),
        TypeError,
        r"expected dst as a str or pathlib.Path, got None",
    ),
    "ch19 quantize_onnx_int8(missing src)": (
        lambda: quantize_onnx_int8("no/such.onnx", "out.onnx"),
        FileNotFoundError,
        r"expected an ONNX file at 'no/such.onnx'",
    ),
    "ch19 quantize_onnx_int8(a text file)": (
        lambda: quantize_onnx_int8(files()["text"], files()["folder"] / "out.onnx"),
        ValueError,
        r"expected src as an ONNX model file, got '.*not-onnx.onnx' \(DecodeError",
    ),
    "ch19 quantize_onnx_int8(an empty file)": (
        lambda: quantize_onnx_int8(files()["empty"], files()["folder"] / "out.onnx"),
        ValueError,
        r"expected src as an ONNX model file, got '.*empty.onnx' \(no graph",
    ),
    "ch19 quantize_onnx_int8(dst is src)": (
        lambda: quantize_onnx_int8(files()["sentence"], files()["sentence"]),
        ValueError,
        r"expected dst to differ from src",
    ),
}

CASES = {**EXPORT, **ONNX_ENCODER, **ENCODE, **INT8}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_without_onnxruntime_the_error_names_the_extra(monkeypatch):
    paths = files()
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    for call in (
        lambda: export_onnx(minilm(), "x.onnx"),
        lambda: OnnxSentenceEncoder(paths["sentence"], paths["tokenizer"]),
        lambda: quantize_onnx_int8(paths["sentence"], "out.onnx"),
    ):
        with pytest.raises(ImportError, match=r"pip install encoderlib\[serving\]"):
            call()


def test_encoderlib_imports_without_onnx():
    code = (
        "import sys; sys.modules['onnx'] = None; sys.modules['onnxruntime'] = None\n"
        "import encoderlib.serving, encoderlib; print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_empty_and_tiny_inputs_work():
    tiny = onnx_tiny()
    assert tiny.encode([]).shape == (0, 64)
    vectors = tiny.encode(["", "a cat sat", "cat"], batch_size=2)
    assert vectors.shape == (3, 64)
    assert torch.allclose(vectors.norm(dim=1), torch.ones(3), atol=1e-5)
