"""Relative positions (chapter 17): T5's bias, ALiBi and RoPE, alone and in an Encoder.

References: Hugging Face `transformers`' own code for each scheme. T5's
`T5Attention._relative_position_bucket` (bidirectional), BLOOM's slopes (read
from its public `build_alibi_tensor`), LLaMA's `apply_rotary_pos_emb` with
`LlamaRotaryEmbedding` (rotate half), and GPT-J's and RoFormer's rotary
functions (interleaved pairs).
Properties (hypothesis): a rotated query and key score the same at every pair
of positions with the same offset, and rotations keep lengths. Inside an
`Encoder`, every scheme gives the same outputs on the padded and the packed
(padding-free) path, also with local layers; every scheme but "none" breaks
permutation equivariance, and "none" keeps it; relative schemes give a
left-padded sentence the outputs of the sentence alone.
"""

import pytest
import torch
from einops import rearrange
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import LlamaConfig
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.gptj.modeling_gptj import (
    apply_rotary_pos_emb as gptj_apply_rotary_pos_emb,
)
from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions
from transformers.models.llama.modeling_llama import (
    LlamaRotaryEmbedding,
)
from transformers.models.llama.modeling_llama import (
    apply_rotary_pos_emb as llama_apply_rotary_pos_emb,
)
from transformers.models.roformer.modeling_roformer import (
    RoFormerSelfAttention,
    RoFormerSinusoidalPositionalEmbedding,
)
from transformers.models.t5.modeling_t5 import T5Attention

from encoderlib import Encoder, EncoderConfig
from encoderlib.checks import count_host_reads
from encoderlib.embeddings import (
    ALiBiBias,
    RotaryEmbedding,
    T5RelativePositionBias,
    alibi_slopes,
    t5_relative_bucket,
)

SCHEMES = ("learned", "sinusoidal", "none", "t5", "alibi", "rope")
RELATIVE = ("t5", "alibi", "rope")


def offsets(n: int) -> torch.Tensor:
    positions = torch.arange(n)
    return rearrange(positions, "j -> 1 j") - rearrange(positions, "i -> i 1")


# --- T5 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_buckets", "max_distance"), [(32, 128), (8, 16), (16, 20), (64, 256), (4, 2)]
)
def test_t5_buckets_equal_transformers(n_buckets, max_distance):
    relative = torch.arange(-1000, 1001)
    ours = t5_relative_bucket(relative, n_buckets, max_distance)
    theirs = T5Attention._relative_position_bucket(
        relative, bidirectional=True, num_buckets=n_buckets, max_distance=max_distance
    )
    assert ours.dtype == torch.int64
    assert torch.equal(ours, theirs)  # integers


def test_t5_buckets_of_a_matrix_keep_its_shape():
    assert torch.equal(
        t5_relative_bucket(offsets(7)).flatten(),
        t5_relative_bucket(offsets(7).flatten()),
    )


def test_t5_bias_is_the_table_looked_up_by_bucket():
    torch.manual_seed(0)
    bias_module = T5RelativePositionBias(n_heads=3, n_buckets=16, max_distance=32)
    bias = bias_module(40)
    assert bias.shape == (3, 40, 40)
    table = bias_module.relative_bias.weight  # (n_buckets, n_heads)
    expected = rearrange(
        table[t5_relative_bucket(offsets(40), 16, 32)], "i j h -> h i j"
    )
    assert torch.equal(bias, expected)  # the same rows, looked up
    # It depends on j - i only: every shorter window of a longer input is the same.
    assert torch.equal(bias_module(60)[:, 11:51, 11:51], bias)
    assert bias_module(0).shape == (3, 0, 0)


def test_t5_bias_gradients_reach_the_buckets_used():
    torch.manual_seed(0)
    bias_module = T5RelativePositionBias(n_heads=2)
    bias_module(5).sum().backward()
    used = set(t5_relative_bucket(offsets(5)).unique().tolist())
    grad = bias_module.relative_bias.weight.grad
    assert {i for i in range(32) if grad[i].abs().sum() > 0} == used


# --- ALiBi -------------------------------------------------------------------


@pytest.mark.parametrize("n_heads", range(1, 33))
def test_alibi_slopes_equal_bloom(n_heads):
    # public in every transformers version: position 1 of two tokens = the slopes
    two_tokens = torch.ones(1, 2, dtype=torch.long)
    theirs = build_alibi_tensor(two_tokens, n_heads, torch.float32)[:, 0, 1]
    ours = alibi_slopes(n_heads)
    assert ours.shape == (n_heads,) and ours.dtype == torch.float32
    assert (ours - theirs).abs().max() < 1e-7


def test_alibi_bias_is_minus_slope_times_distance_on_both_sides():
    bias = ALiBiBias(n_heads=8)(9)
    expected = -rearrange(alibi_slopes(8), "h -> h 1 1") * offsets(9).abs()
    assert torch.equal(bias, expected)
    assert torch.equal(bias, bias.transpose(-1, -2))  # an encoder: symmetric
    assert (bias.diagonal(dim1=-2, dim2=-1) == 0).all()


def test_alibi_has_no_weights():
    module = ALiBiBias(n_heads=4)
    assert list(module.parameters()) == [] and module.state_dict() == {}


# --- RoPE --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d_head", "theta", "n"), [(16, 10000.0, 10), (8, 160000.0, 33)]
)
def test_rope_rotate_half_equals_llama(d_head, theta, n):
    torch.manual_seed(0)
    q, k = torch.randn(2, 3, n, d_head), torch.randn(2, 3, n, d_head)
    config = LlamaConfig(
        hidden_size=3 * d_head,
        num_attention_heads=3,
        rope_parameters={"rope_type": "default", "rope_theta": theta},
    )
    cos, sin = LlamaRotaryEmbedding(config)(q, torch.arange(n)[None])
    theirs_q, theirs_k = llama_apply_rotary_pos_emb(q, k, cos, sin)
    ours_q, ours_k = RotaryEmbedding(d_head, theta)(q, k)
    assert (ours_q - theirs_q).abs().max() < 1e-5
    assert (ours_k - theirs_k).abs().max() < 1e-5


def test_rope_computes_its_angles_once_for_every_layer_that_shares_it(monkeypatch):
    # An Encoder's layers of one base share a RotaryEmbedding, and in one forward
    # they all turn by one positions tensor: cos is computed once for q, k and
    # every later layer, and a new positions tensor (the next forward), another
    # dtype or inference mode computes it again.
    rope, q, k = RotaryEmbedding(8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)
    positions = torch.tensor([4, 0, 1, 2, 3])
    expected = [RotaryEmbedding(8).rotate(t, positions) for t in (q, k)]
    calls = []
    cos = torch.Tensor.cos
    monkeypatch.setattr(torch.Tensor, "cos", lambda t: calls.append(1) or cos(t))
    for _ in range(3):  # three layers
        got = rope(q, k, positions)
        assert all(torch.equal(a, b) for a, b in zip(got, expected, strict=True))
    assert len(calls) == 1
    rope(q, k, positions.clone())
    rope(q.double(), k.double(), positions)
    with torch.inference_mode():
        rope(q, k, positions)
    assert len(calls) == 4
    leaf = q.clone().requires_grad_()  # angles kept from inference mode are not reused
    rope(leaf, k, positions)[0].sum().backward()
    assert leaf.grad is not None and len(calls) == 5
    assert rope(q, k[..., :4, :])[1].shape == (2, 3, 4, 8)  # k of its own length


def test_rope_keeps_the_angles_of_the_padded_rows_too(monkeypatch):
    # On the padded path the rows are 0 .. n - 1: layers sharing the module turn
    # by the angles of the first, until n, the dtype or grad mode changes; while a
    # compiler traces, nothing is kept.
    rope, q, k = RotaryEmbedding(8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)
    expected = [RotaryEmbedding(8).rotate(t) for t in (q, k)]
    calls = []
    cos = torch.Tensor.cos
    monkeypatch.setattr(torch.Tensor, "cos", lambda t: calls.append(1) or cos(t))
    for _ in range(3):
        got = rope(q, k)
        assert all(torch.equal(a, b) for a, b in zip(got, expected, strict=True))
    assert len(calls) == 1
    rope(q[..., :4, :], k[..., :4, :])  # another length
    rope(q, k, torch.arange(5))  # a positions tensor marks other rows
    assert len(calls) == 3
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    rope(q, k)
    rope(q, k)
    assert len(calls) == 5


def test_rope_turns_pairs_as_the_rotation_formula_says():
    # _turn's x·cos + partner·sin is the rotation (a·cos - b·sin, a·sin + b·cos)
    # of each pair (a, b), to the last bit, in both pairing conventions.
    x = torch.randn(2, 7, 8)
    for interleaved, pairs in ((False, "(two m)"), (True, "(m two)")):
        rope = RotaryEmbedding(8, interleaved=interleaved)
        angles = rope.angles(7)
        a, b = rearrange(x, f"h n {pairs} -> two h n m", two=2)
        c, s = angles.cos(), angles.sin()
        turned = torch.stack((a * c - b * s, a * s + b * c))
        expected = rearrange(turned, f"two h n m -> h n {pairs}")
        assert torch.equal(rope.rotate(x), expected)


def test_encoder_layers_of_one_rope_base_share_one_module():
    config = EncoderConfig.tiny(
        positional="rope", n_layers=4, window=2, global_every=2, local_rope_theta=100.0
    )
    transforms = [layer.attn.qk_transform for layer in Encoder(config).layers]
    assert [t.theta for t in transforms] == [config.rope_theta, 100.0] * 2
    assert transforms[0] is transforms[2] and transforms[1] is transforms[3]
    assert transforms[0] is not transforms[1]


def test_rope_interleaved_equals_gptj():
    torch.manual_seed(1)
    q = torch.randn(2, 4, 12, 16)  # (b, h, n, d_head)
    sines, cosines = create_sinusoidal_positions(12, 16)[None].chunk(2, dim=-1)
    theirs = gptj_apply_rotary_pos_emb(
        rearrange(q, "b h n d -> b n h d"), sines, cosines
    )
    ours = RotaryEmbedding(16, interleaved=True).rotate(q)
    assert (ours - rearrange(theirs, "b n h d -> b h n d")).abs().max() < 1e-6


def test_rope_interleaved_equals_roformer():
    torch.manual_seed(2)
    q, k = torch.randn(2, 4, 12, 16), torch.randn(2, 4, 12, 16)
    table = RoFormerSinusoidalPositionalEmbedding(12, 16)
    with torch.no_grad():  # transformers fills the table when it inits a model
        table.weight.copy_(table.create_weight())
    sinusoidal = table(torch.Size([1, 12]))[None, None]  # (1, 1, n, d_head)
    theirs_q, theirs_k = RoFormerSelfAttention.apply_rotary_position_embeddings(
        sinusoidal, q, k
    )
    ours_q, ours_k = RotaryEmbedding(16, interleaved=True)(q, k)
    assert (ours_q - theirs_q).abs().max() < 1e-6
    assert (ours_k - theirs_k).abs().max() < 1e-6


def test_the_two_layouts_differ_by_a_reordering_of_features():
    torch.manual_seed(3)
    q = torch.randn(2, 4, 10, 16)
    reorder = rearrange(torch.arange(16), "(m two) -> (two m)", two=2)
    half, pairs = RotaryEmbedding(16), RotaryEmbedding(16, interleaved=True)
    assert (
        half.rotate(q[..., reorder]) - pairs.rotate(q)[..., reorder]
    ).abs().max() < 1e-6
    assert (half.rotate(q) - pairs.rotate(q)).abs().max() > 0.1  # not the same


@settings(max_examples=40, deadline=None)
@given(
    half_width=st.integers(1, 16),
    p=st.integers(0, 60),
    offset=st.integers(-30, 30),
    shift=st.integers(0, 60),
    interleaved=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_rope_score_depends_on_the_offset_only(
    half_width, p, offset, shift, interleaved, seed
):
    d = 2 * half_width
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(d, generator=generator), torch.randn(d, generator=generator)
    rope = RotaryEmbedding(d, interleaved=interleaved)
    p_key = max(p + offset, 0)
    n = max(p, p_key) + shift + 1
    rotated_q = rope.rotate(q.expand(n, d).double()).double()
    rotated_k = rope.rotate(k.expand(n, d).double()).double()
    here = rotated_q[p] @ rotated_k[p_key]
    there = rotated_q[p + shift] @ rotated_k[p_key + shift]
    assert abs(here - there) < 1e-4 * (1 + q.norm() * k.norm())


@settings(max_examples=30, deadline=None)
@given(half_width=st.integers(1, 32), n=st.integers(0, 50), seed=st.integers(0, 999))
def test_rope_keeps_lengths(half_width, n, seed):
    d = 2 * half_width
    x = torch.randn(3, n, d, generator=torch.Generator().manual_seed(seed))
    for interleaved in (False, True):
        rotated = RotaryEmbedding(d, interleaved=interleaved).rotate(x)
        assert rotated.shape == x.shape
        assert torch.allclose(rotated.norm(dim=-1), x.norm(dim=-1), atol=1e-4)


def test_rope_position_zero_is_unchanged_and_dtype_is_kept():
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    rotated = RotaryEmbedding(8).rotate(x)
    assert rotated.dtype == torch.float64
    assert torch.allclose(rotated[:, 0], x[:, 0])


# --- inside an Encoder -------------------------------------------------------


def batch(seed: int = 0, vocab: int = 1000, n: int = 11):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, vocab, (3, n), generator=generator)
    lengths = torch.tensor([n, n - 4, 2])
    mask = rearrange(torch.arange(n), "n -> 1 n") < rearrange(lengths, "b -> b 1")
    return ids, mask


@pytest.mark.parametrize("positional", SCHEMES)
@pytest.mark.parametrize("window", [None, 2])
def test_padded_equals_packed(positional, window):
    torch.manual_seed(0)
    config = EncoderConfig.tiny(
        positional=positional, n_layers=3, window=window, global_every=2
    )
    encoder = Encoder(config).eval()
    ids, mask = batch()
    with torch.no_grad():
        padded = encoder(ids, mask, output_hidden_states=True)
        packed = encoder(ids, mask)  # padding, no maps or states: the packed path
        packed_states = encoder(ids, mask, output_hidden_states=True)
    assert (padded.last_hidden_state - packed).abs().max() < 1e-5
    for a, b in zip(padded.hidden_states, packed_states.hidden_states, strict=True):
        assert (a - b).abs().max() < 1e-5
    assert (packed[~mask] == 0).all()


@pytest.mark.parametrize("positional", SCHEMES)
def test_each_real_row_equals_the_sentence_alone(positional):
    torch.manual_seed(1)
    encoder = Encoder(EncoderConfig.tiny(positional=positional)).eval()
    ids, mask = batch(1)
    with torch.no_grad():
        together = encoder(ids, mask)
        for row in range(3):
            length = int(mask[row].sum())
            alone = encoder(ids[row : row + 1, :length])
            assert (together[row, :length] - alone[0]).abs().max() < 1e-5


@pytest.mark.parametrize("positional", SCHEMES)
def test_positions_break_permutation_equivariance(positional):
    torch.manual_seed(2)
    encoder = Encoder(EncoderConfig.tiny(positional=positional)).eval()
    ids = torch.randint(1, 1000, (2, 10))
    permutation = torch.randperm(10)
    with torch.no_grad():
        moved = (
            (encoder(ids[:, permutation]) - encoder(ids)[:, permutation]).abs().max()
        )
    if positional == "none":
        assert moved < 1e-5  # a bag of tokens: permuting inputs permutes outputs
    else:  # small at initialisation (weights of 0.02), far above rounding
        assert moved > 1e-4


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12))
def test_without_positions_the_encoder_is_permutation_equivariant(seed, n):
    torch.manual_seed(seed)
    encoder = Encoder(EncoderConfig.tiny(positional="none", n_layers=1)).eval()
    ids = torch.randint(1, 1000, (2, n))
    permutation = torch.randperm(n)
    with torch.no_grad():
        moved = (
            (encoder(ids[:, permutation]) - encoder(ids)[:, permutation]).abs().max()
        )
    assert moved < 1e-5


@pytest.mark.parametrize("positional", RELATIVE)
def test_relative_schemes_ignore_left_padding(positional):
    torch.manual_seed(3)
    encoder = Encoder(EncoderConfig.tiny(positional=positional, window=3)).eval()
    sentence = torch.randint(1, 1000, (1, 8))
    left_padded = torch.cat([torch.zeros(1, 5, dtype=torch.long), sentence], dim=1)
    mask = torch.cat([torch.zeros(1, 5), torch.ones(1, 8)], dim=1).bool()
    with torch.no_grad():
        alone = encoder(sentence)
        padded = encoder(left_padded, mask)
    assert (padded[:, 5:] - alone).abs().max() < 1e-5


def test_learned_positions_do_not_ignore_left_padding():
    torch.manual_seed(3)
    encoder = Encoder(EncoderConfig.tiny(positional="learned")).eval()
    sentence = torch.randint(1, 1000, (1, 8))
    left_padded = torch.cat([torch.zeros(1, 5, dtype=torch.long), sentence], dim=1)
    mask = torch.cat([torch.zeros(1, 5), torch.ones(1, 8)], dim=1).bool()
    with torch.no_grad():
        moved = (encoder(left_padded, mask)[:, 5:] - encoder(sentence)).abs().max()
    assert moved > 0.1


def test_the_encoder_wires_each_scheme_where_it_belongs():
    for positional in SCHEMES:
        encoder = Encoder(EncoderConfig.tiny(positional=positional))
        bias = encoder.position_bias
        rope = encoder.layers[0].attn.qk_transform
        table = encoder.embeddings.position_embeddings
        assert isinstance(bias, T5RelativePositionBias) == (positional == "t5")
        assert isinstance(bias, ALiBiBias) == (positional == "alibi")
        assert isinstance(rope, RotaryEmbedding) == (positional == "rope")
        assert (table is not None) == (positional in ("learned", "sinusoidal"))


def test_position_modules_never_read_values_in_forward():
    # DESIGN.md §2: no forward waits on the GPU. Counted on the CPU with host
    # reads off (encoderlib.checks.count_host_reads), as a GPU run would go.
    t5, alibi, rope = T5RelativePositionBias(4), ALiBiBias(4), RotaryEmbedding(8)
    q = torch.randn(2, 4, 7, 8)
    with count_host_reads() as waits:
        t5(7), alibi(7), rope(q, q), rope.angles(7)
        t5_relative_bucket(torch.arange(-9, 9, dtype=torch.int8))
    assert waits == []
