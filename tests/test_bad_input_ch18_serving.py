"""Bad input to chapter 18's serving exports: ONNX export, ONNX Runtime, int8.

`export_onnx`, `OnnxSentenceEncoder` (and its `encode`), `Int8Weight`,
`quantize_int8` and `quantize_onnx_int8` are fed each class of bad input (wrong
Python types, paths that name nothing, out-of-range opsets, thread counts and
lengths, a tokenizer of another vocabulary, a graph that is not a sentence
encoder's, models the exporter cannot describe) and must raise a TypeError,
ValueError or FileNotFoundError whose message names what was expected and what
was received. Without onnx or onnxruntime, the functions that need them raise an
ImportError naming `pip install encoderlib[serving]`, and `import encoderlib`
still works.
"""

import sys

import pytest
import torch
from torch import nn

from encoderlib import Encoder, EncoderConfig, WordPieceTokenizer, load_minilm
from encoderlib.serving import (
    Int8Weight,
    OnnxSentenceEncoder,
    export_onnx,
    quantize_int8,
    quantize_onnx_int8,
)


@pytest.fixture(scope="module")
def minilm():
    return load_minilm()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny sentence encoder's ONNX file and a tiny bare encoder's."""
    from encoderlib.pretrained import SentenceEncoder

    folder = tmp_path_factory.mktemp("serving_bad")
    torch.manual_seed(0)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "cat", "sat"]
    tokenizer = WordPieceTokenizer(vocab)
    encoder = Encoder(EncoderConfig.tiny(vocab_size=len(vocab), max_len=16))
    sentence_file = export_onnx(
        SentenceEncoder(tokenizer, encoder, max_length=16), folder / "tiny.onnx"
    )
    encoder_file = export_onnx(encoder, folder / "tiny-encoder.onnx")
    return {"tokenizer": tokenizer, "sentence": sentence_file, "encoder": encoder_file}


EXPORT = {
    "export_onnx(a Linear)": (
        lambda m, f: export_onnx(nn.Linear(3, 3), "x.onnx"),
        TypeError,
        r"expected a SentenceEncoder or an Encoder, got Linear",
    ),
    "export_onnx(path 3)": (
        lambda m, f: export_onnx(m, 3),
        TypeError,
        r"expected a file path \(str or Path\), got 3",
    ),
    "export_onnx(path '')": (
        lambda m, f: export_onnx(m, ""),
        TypeError,
        r"expected a file path \(str or Path\), got ''",
    ),
    "export_onnx(opset '18')": (
        lambda m, f: export_onnx(m, "x.onnx", opset="18"),
        TypeError,
        r"expected opset as an int, got '18'",
    ),
    "export_onnx(opset 17)": (
        lambda m, f: export_onnx(m, "x.onnx", opset=17),
        ValueError,
        r"expected opset >= 18 .*got 17",
    ),
    "export_onnx(max_len 1)": (
        lambda m, f: export_onnx(Encoder(EncoderConfig.tiny(max_len=1)), "x.onnx"),
        ValueError,
        r"expected max_len >= 2 .*got 1",
    ),
    "export_onnx(an int8 copy)": (
        lambda m, f: export_onnx(quantize_int8(Encoder(EncoderConfig.tiny())), "x"),
        ValueError,
        r"expected plain float weights, got a quantized copy",
    ),
}

ONNX_ENCODER = {
    "OnnxSentenceEncoder(path None)": (
        lambda m, f: OnnxSentenceEncoder(None, f["tokenizer"]),
        TypeError,
        r"expected a file path \(str or Path\), got None",
    ),
    "OnnxSentenceEncoder(missing file)": (
        lambda m, f: OnnxSentenceEncoder("no/such.onnx", f["tokenizer"]),
        FileNotFoundError,
        r"expected an ONNX file at 'no/such.onnx'",
    ),
    "OnnxSentenceEncoder(tokenizer a dict)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], {"a": 0}),
        TypeError,
        r"expected a WordPieceTokenizer, got dict",
    ),
    "OnnxSentenceEncoder(max_length 2.5)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], f["tokenizer"], max_length=2.5),
        TypeError,
        r"expected max_length as an int, got 2.5",
    ),
    "OnnxSentenceEncoder(max_length 1)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], f["tokenizer"], max_length=1),
        ValueError,
        r"expected max_length >= 2, got 1",
    ),
    "OnnxSentenceEncoder(max_length 17 > max_len)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], f["tokenizer"], max_length=17),
        ValueError,
        r"expected max_length in \[2, 16\], got 17",
    ),
    "OnnxSentenceEncoder(threads True)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], f["tokenizer"], threads=True),
        TypeError,
        r"expected threads as an int, got True",
    ),
    "OnnxSentenceEncoder(threads 0)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], f["tokenizer"], threads=0),
        ValueError,
        r"expected threads >= 1, got 0",
    ),
    "OnnxSentenceEncoder(another vocabulary)": (
        lambda m, f: OnnxSentenceEncoder(f["sentence"], m.tokenizer),
        ValueError,
        r"expected a tokenizer with the model's 8 tokens, got 30522",
    ),
    "OnnxSentenceEncoder(an Encoder's graph)": (
        lambda m, f: OnnxSentenceEncoder(f["encoder"], f["tokenizer"]),
        ValueError,
        r"expected a sentence encoder's graph .*outputs \['last_hidden_state'\]",
    ),
}


def onnx_tiny(f) -> OnnxSentenceEncoder:
    return OnnxSentenceEncoder(f["sentence"], f["tokenizer"])


ENCODE = {
    "encode(a str)": (
        lambda m, f: onnx_tiny(f).encode("a cat"),
        TypeError,
        r"expected a list of str, got a single str; wrap it",
    ),
    "encode(a set)": (
        lambda m, f: onnx_tiny(f).encode({"a cat"}),
        TypeError,
        r"expected an ordered list of str, got a set",
    ),
    "encode(an int item)": (
        lambda m, f: onnx_tiny(f).encode(["a cat", 3]),
        TypeError,
        r"expected a list of str, got int at index 1",
    ),
    "encode(not iterable)": (
        lambda m, f: onnx_tiny(f).encode(3),
        TypeError,
        r"expected a list of str, got int",
    ),
    "encode(batch_size 0)": (
        lambda m, f: onnx_tiny(f).encode(["a cat"], batch_size=0),
        ValueError,
        r"expected batch_size >= 1, got 0",
    ),
    "encode(batch_size 2.0)": (
        lambda m, f: onnx_tiny(f).encode(["a cat"], batch_size=2.0),
        TypeError,
        r"expected batch_size as an int, got 2.0",
    ),
    "encode(normalize 1)": (
        lambda m, f: onnx_tiny(f).encode(["a cat"], normalize=1),
        TypeError,
        r"expected normalize as a bool, got 1",
    ),
}

INT8 = {
    "Int8Weight(a list)": (
        lambda m, f: Int8Weight([[1.0, 2.0]]),
        TypeError,
        r"expected a floating-point weight tensor, got \[\[1.0, 2.0\]\]",
    ),
    "Int8Weight(int64)": (
        lambda m, f: Int8Weight(torch.ones(2, 3, dtype=torch.long)),
        TypeError,
        r"expected a floating-point weight tensor",
    ),
    "Int8Weight(1-D)": (
        lambda m, f: Int8Weight(torch.ones(3)),
        ValueError,
        r"expected a weight of shape \(out, in\), got \(3,\)",
    ),
    "quantize_int8(a function)": (
        lambda m, f: quantize_int8(len),
        TypeError,
        r"expected an nn.Module, got builtin_function_or_method",
    ),
    "quantize_int8(no Linear)": (
        lambda m, f: quantize_int8(nn.Sequential(nn.ReLU())),
        ValueError,
        r"expected a module with nn.Linear layers, got none in Sequential",
    ),
    "quantize_onnx_int8(src 3)": (
        lambda m, f: quantize_onnx_int8(3, "out.onnx"),
        TypeError,
        r"expected src as a file path \(str or Path\), got 3",
    ),
    "quantize_onnx_int8(dst None)": (
        lambda m, f: quantize_onnx_int8(f["sentence"], None),
        TypeError,
        r"expected dst as a file path \(str or Path\), got None",
    ),
    "quantize_onnx_int8(missing src)": (
        lambda m, f: quantize_onnx_int8("no/such.onnx", "out.onnx"),
        FileNotFoundError,
        r"expected an ONNX file at 'no/such.onnx'",
    ),
    "quantize_onnx_int8(dst is src)": (
        lambda m, f: quantize_onnx_int8(f["sentence"], f["sentence"]),
        ValueError,
        r"expected dst to differ from src",
    ),
}

CASES = {**EXPORT, **ONNX_ENCODER, **ENCODE, **INT8}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message, minilm, files):
    with pytest.raises(error, match=message) as info:
        call(minilm, files)
    # The error comes from encoderlib's own checks, not from inside a library.
    assert "encoderlib" in info.traceback[-1].path.as_posix()


def test_without_onnxruntime_the_error_names_the_extra(monkeypatch, minilm, files):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    for call in (
        lambda: export_onnx(minilm, "x.onnx"),
        lambda: OnnxSentenceEncoder(files["sentence"], files["tokenizer"]),
        lambda: quantize_onnx_int8(files["sentence"], "out.onnx"),
    ):
        with pytest.raises(ImportError, match=r"pip install encoderlib\[serving\]"):
            call()


def test_encoderlib_imports_without_onnx():
    import subprocess

    code = (
        "import sys; sys.modules['onnx'] = None; sys.modules['onnxruntime'] = None\n"
        "import encoderlib.serving, encoderlib; print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_empty_and_tiny_inputs_work(files):
    tiny = onnx_tiny(files)
    assert tiny.encode([]).shape == (0, 64)
    vectors = tiny.encode(["", "a cat sat", "cat"], batch_size=2)
    assert vectors.shape == (3, 64)
    assert torch.allclose(vectors.norm(dim=1), torch.ones(3), atol=1e-5)
