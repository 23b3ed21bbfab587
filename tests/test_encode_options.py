"""`SentenceEncoder.encode`'s options, against sentence-transformers' own `encode`.

A small random BERT-shaped encoder is written with `save_pretrained` for each
pooling (cls, mean, max) with and without `Normalize`, and read by
`sentence_transformers.SentenceTransformer`: our vectors, with `truncate_dim`
(first k features, then normalised), must equal its
`encode(truncate_dim=k, normalize_embeddings=...)` to 1e-5 on padded batches.
`load_minilm` reads the pooling and normalisation back. Then the other options:
numpy output, bfloat16 autocast (close to float32, output float32), a device,
the progress bar, and the encoder's `normalize` as the default.
"""

import warnings

import numpy as np
import pytest
import torch
from tiny_bert import TINY_BERT, TINY_VOCAB

from encoderlib.converters import config_from_bert
from encoderlib.encoder import Encoder
from encoderlib.sentence import SentenceEncoder, load_minilm
from encoderlib.tokenization import WordPieceTokenizer

TEXTS = ["the cat sat on the mat.", "a dog ran", "x", "the the the cat sat, zzz", ""]
TOLERANCE = 1e-5


def sentence_encoder(**options) -> SentenceEncoder:
    torch.manual_seed(0)
    model = Encoder(config_from_bert(TINY_BERT)).eval()
    tokenizer = WordPieceTokenizer(TINY_VOCAB)
    return SentenceEncoder(tokenizer, model, max_length=64, **options)


@pytest.mark.parametrize(
    ("pooling", "normalize"), [("cls", True), ("mean", False), ("max", True)]
)
def test_equal_to_sentence_transformers(tmp_path, pooling, normalize):
    st = pytest.importorskip("sentence_transformers")
    ours = sentence_encoder(pooling=pooling, normalize=normalize)
    folder = ours.save_pretrained(tmp_path / "st")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = st.SentenceTransformer(
            str(folder), device="cpu", local_files_only=True
        )
    for k in (None, 8):
        expected = theirs.encode(
            TEXTS,
            batch_size=2,
            truncate_dim=k,
            normalize_embeddings=normalize,
            convert_to_tensor=True,
        )
        got = ours.encode(TEXTS, batch_size=3, truncate_dim=k)
        options = dict(normalize_embeddings=normalize, convert_to_tensor=True)
        assert torch.equal(ours.encode(TEXTS, 3, truncate_dim=k, **options), got)
        assert got.shape == (len(TEXTS), k or 32)
        assert (got - expected).abs().max() <= TOLERANCE
    back = load_minilm(folder)
    assert (back.pooling, back.normalize) == (pooling, normalize)
    assert torch.equal(back.encode(TEXTS), ours.encode(TEXTS))


def test_truncate_dim_cuts_then_normalises():
    ours = sentence_encoder()
    full = ours.encode(TEXTS, normalize=False)
    cut = ours.encode(TEXTS, truncate_dim=4)
    expected = torch.nn.functional.normalize(full[:, :4], dim=-1)
    assert (cut - expected).abs().max() <= TOLERANCE
    assert torch.allclose(cut.norm(dim=-1), torch.ones(len(TEXTS)), atol=1e-5)
    assert ours.encode([], truncate_dim=4).shape == (0, 4)
    # normalisation off: the first 4 features as the encoder gives them, unscaled
    assert torch.equal(ours.encode(TEXTS, truncate_dim=4, normalize=False), full[:, :4])


def test_normalize_none_takes_the_encoders_setting():
    plain = sentence_encoder(normalize=False)
    lengths = plain.encode(TEXTS).norm(dim=-1)
    assert not torch.allclose(lengths, torch.ones(len(TEXTS)))
    unit = plain.encode(TEXTS, normalize=True).norm(dim=-1)
    assert torch.allclose(unit, torch.ones(len(TEXTS)), atol=1e-5)


def test_numpy_output():
    ours = sentence_encoder()
    array = ours.encode(TEXTS, convert_to_numpy=True)
    assert isinstance(array, np.ndarray) and array.dtype == np.float32
    assert np.allclose(array, ours.encode(TEXTS).numpy(), atol=0)


def test_bfloat16_autocast_is_close_and_float32():
    ours = sentence_encoder()
    low = ours.encode(TEXTS, precision="bfloat16")
    assert low.dtype == torch.float32
    assert (low - ours.encode(TEXTS)).abs().max() < 0.05  # bf16 keeps 8 bits
    assert next(ours.model.parameters()).dtype == torch.float32  # weights untouched


def test_device_moves_the_model_and_the_progress_bar_prints(capsys, monkeypatch):
    monkeypatch.setenv("ENCODERLIB_PROGRESS", "1")
    ours = sentence_encoder()
    out = ours.encode(TEXTS, batch_size=2, device="cpu", show_progress_bar=True)
    assert out.device.type == "cpu"
    assert "Batches" in capsys.readouterr().out  # 3 batches of at most 2
    ours.encode(TEXTS)
    assert "Batches" not in capsys.readouterr().out  # off by default


def test_modes_are_restored():
    ours = sentence_encoder()
    ours.model.train()
    ours.encode(TEXTS, precision="bfloat16")
    assert all(module.training for module in ours.model.modules())


@pytest.mark.cuda
@pytest.mark.parametrize("precision", ["float16", "bfloat16"])
def test_half_precision_on_a_gpu(precision):
    ours = sentence_encoder()
    reference = ours.encode(TEXTS)
    out = ours.encode(TEXTS, device="cuda", precision=precision)
    assert out.device.type == "cuda" and out.dtype == torch.float32
    assert (out.cpu() - reference).abs().max() < 0.05
    assert next(ours.model.parameters()).device.type == "cuda"  # moved, and stays


def test_sentence_transformers_options_mean_what_they_mean_there():
    # normalize_embeddings=True normalises; False leaves the encoder's setting,
    # as sentence-transformers keeps a model's Normalize module.
    plain, unit = sentence_encoder(normalize=False), sentence_encoder()
    assert torch.equal(
        plain.encode(TEXTS, normalize_embeddings=True),
        plain.encode(TEXTS, normalize=True),
    )
    assert torch.equal(
        unit.encode(TEXTS, normalize_embeddings=False), unit.encode(TEXTS)
    )
    assert not torch.equal(
        plain.encode(TEXTS, normalize_embeddings=False), unit.encode(TEXTS)
    )
    with pytest.raises(ValueError, match="normalize=False or normalize_embeddings"):
        plain.encode(TEXTS, normalize=False, normalize_embeddings=True)
    with pytest.raises(TypeError, match="normalize_embeddings"):
        plain.encode(TEXTS, normalize_embeddings="yes")
    both = plain.encode(TEXTS, convert_to_numpy=True, convert_to_tensor=True)
    assert isinstance(both, torch.Tensor) and torch.equal(both, plain.encode(TEXTS))
    with pytest.raises(TypeError, match="convert_to_tensor"):
        plain.encode(TEXTS, convert_to_tensor=1)
