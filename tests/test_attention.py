"""encoderlib.attention (chapters 4 and 5) against PyTorch, autograd and its claims."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from encoderlib import toy
from encoderlib.attention import MultiHeadAttention, scaled_dot_product_attention


def random_tensors(seed: int, *shapes, dtype=torch.float32):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=generator, dtype=dtype) for shape in shapes]


def random_mask(seed: int, shape, p_true: float) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=generator) < p_true


def padding_mask(lengths: list[int], n: int) -> torch.Tensor:
    return torch.arange(n) < torch.tensor(lengths)[:, None]


def from_torch(reference: torch.nn.MultiheadAttention) -> MultiHeadAttention:
    """Our module holding the weights of a batch-first nn.MultiheadAttention."""
    has_bias = reference.in_proj_bias is not None
    ours = MultiHeadAttention(
        reference.embed_dim, reference.num_heads, reference.dropout, bias=has_bias
    )
    projections = (ours.q_proj, ours.k_proj, ours.v_proj)
    with torch.no_grad():
        for projection, weight in zip(
            projections, reference.in_proj_weight.chunk(3), strict=True
        ):
            projection.weight.copy_(weight)
        ours.out_proj.weight.copy_(reference.out_proj.weight)
        if has_bias:
            for projection, bias in zip(
                projections, reference.in_proj_bias.chunk(3), strict=True
            ):
                projection.bias.copy_(bias)
            ours.out_proj.bias.copy_(reference.out_proj.bias)
    return ours


# --- scaled_dot_product_attention: references ------------------------------------


def test_reproduces_chapter_1_toy_attention():
    x, w = toy.toy_embeddings(), toy.toy_weights()
    trace = toy.attention_step(x, w)
    out, weights = scaled_dot_product_attention(x @ w.w_q, x @ w.w_k, x @ w.w_v)
    assert torch.allclose(weights, trace.weights, atol=1e-7)
    assert torch.allclose(out, trace.context, atol=1e-7)


@pytest.mark.parametrize(
    "mask_kind", ["none", "key padding", "random", "per sequence", "causal"]
)
def test_equals_torch_sdpa(mask_kind):
    q, k, v = random_tensors(0, (2, 3, 7, 16), (2, 3, 7, 16), (2, 3, 7, 16))
    masks = {
        "none": None,
        "key padding": padding_mask([7, 4], 7)[:, None, None, :],
        "random": random_mask(1, (2, 3, 7, 7), 0.6) | torch.eye(7, dtype=torch.bool),
        "per sequence": random_mask(2, (2, 1, 7, 7), 0.5)
        | torch.eye(7, dtype=torch.bool),
        "causal": torch.ones(7, 7, dtype=torch.bool).tril(),
    }
    mask = masks[mask_kind]
    ours, weights = scaled_dot_product_attention(q, k, v, mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.allclose(ours, theirs, atol=1e-6)
    assert torch.allclose(weights.sum(dim=-1), torch.ones(2, 3, 7), atol=1e-6)


def test_different_value_width_and_query_count():
    q, k, v = random_tensors(3, (2, 5, 8), (2, 9, 8), (2, 9, 3))
    ours, weights = scaled_dot_product_attention(q, k, v)
    assert ours.shape == (2, 5, 3) and weights.shape == (2, 5, 9)
    assert torch.allclose(ours, F.scaled_dot_product_attention(q, k, v), atol=1e-6)


def test_leading_axes_broadcast():
    q, k, v = random_tensors(4, (2, 3, 5, 8), (5, 8), (5, 8))
    ours, _ = scaled_dot_product_attention(q, k, v)
    expected, _ = scaled_dot_product_attention(
        q, k.expand(2, 3, 5, 8), v.expand(2, 3, 5, 8)
    )
    assert ours.shape == (2, 3, 5, 8) and torch.allclose(ours, expected, atol=1e-6)


def test_fully_masked_rows_give_zeros_and_finite_gradients():
    q, k, v = random_tensors(5, (2, 4, 6), (2, 5, 6), (2, 5, 6))
    for t in (q, k, v):
        t.requires_grad_()
    mask = random_mask(6, (2, 4, 5), 0.5)
    mask[0, 1] = False
    mask[1] = False  # a whole sequence with nothing to attend to
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(out[0, 1], torch.zeros(6)) and torch.equal(
        out[1], torch.zeros(4, 6)
    )
    assert torch.equal(weights[1], torch.zeros(4, 5))
    out.sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    assert torch.equal(q.grad[1], torch.zeros(4, 6))


def test_large_scores_stay_finite():
    q, k, v = random_tensors(7, (3, 4), (5, 4), (5, 4))
    out, weights = scaled_dot_product_attention(1e4 * q, 1e4 * k, v)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()


def test_gradcheck_float64_with_masks():
    q, k, v = random_tensors(
        8, (1, 2, 5, 4), (1, 2, 5, 4), (1, 2, 5, 3), dtype=torch.float64
    )
    mask = random_mask(9, (1, 2, 5, 5), 0.6)
    mask[0, 0, 2] = False  # a query that sees nothing
    inputs = tuple(t.requires_grad_() for t in (q, k, v))
    assert torch.autograd.gradcheck(
        lambda q_, k_, v_: scaled_dot_product_attention(q_, k_, v_, mask), inputs
    )
    assert torch.autograd.gradcheck(
        lambda q_, k_, v_: scaled_dot_product_attention(q_, k_, v_), inputs
    )


def test_dropout_zeroes_and_rescales_weights():
    q, k, v = random_tensors(10, (100, 40, 8), (100, 40, 8), (100, 40, 8))
    _, kept = scaled_dot_product_attention(q, k, v)
    torch.manual_seed(0)
    out, dropped = scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    survived = dropped != 0
    assert abs(survived.float().mean().item() - 0.75) < 0.01
    assert torch.allclose(dropped[survived], kept[survived] / 0.75)
    assert torch.allclose(out, dropped @ v, atol=1e-6)


# --- scaled_dot_product_attention: errors ----------------------------------------


def test_errors_name_expected_and_received():
    q, k, v = random_tensors(11, (2, 4, 8), (2, 5, 8), (2, 5, 6))
    with pytest.raises(TypeError, match=r"boolean mask \(True = may attend\).*float32"):
        scaled_dot_product_attention(q, k, v, torch.ones(4, 5))
    with pytest.raises(
        ValueError, match=r"same d_k, got q \(2, 4, 8\) and k \(2, 5, 4\)"
    ):
        scaled_dot_product_attention(q, k[..., :4], v)
    with pytest.raises(
        ValueError, match=r"same n_k, got k \(2, 5, 8\) and v \(2, 3, 6\)"
    ):
        scaled_dot_product_attention(q, k, v[:, :3])
    with pytest.raises(
        ValueError, match=r"\(\.\.\., n_q, n_k\) = \(2, 4, 5\), got \(4, 6\)"
    ):
        scaled_dot_product_attention(q, k, v, torch.ones(4, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"got \(3, 4, 5\)"):  # a mask may not add axes
        scaled_dot_product_attention(q, k, v, torch.ones(3, 4, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"leading \(batch\) dims broadcast"):
        scaled_dot_product_attention(q, k[:1].expand(3, 5, 8), v)
    with pytest.raises(ValueError, match=r"at least 2 dims, got \(8,\)"):
        scaled_dot_product_attention(q[0, 0], k, v)
    with pytest.raises(TypeError, match=r"floating dtype, got torch.int64"):
        scaled_dot_product_attention(q.long(), k, v)
    with pytest.raises(TypeError, match=r"expected k as a torch.Tensor, got list"):
        scaled_dot_product_attention(q, k.tolist(), v)
    with pytest.raises(ValueError, match=r"dropout_p in \[0, 1\), got 1.0"):
        scaled_dot_product_attention(q, k, v, dropout_p=1.0)


# --- MultiHeadAttention: references ----------------------------------------------


@pytest.mark.parametrize(
    ("d_model", "n_heads", "bias"), [(64, 8, True), (24, 3, False), (16, 1, True)]
)
def test_mha_equals_torch_multihead_attention(d_model, n_heads, bias):
    torch.manual_seed(d_model + n_heads)
    reference = torch.nn.MultiheadAttention(
        d_model, n_heads, bias=bias, batch_first=True
    ).eval()
    ours = from_torch(reference).eval()
    (x,) = random_tensors(12, (3, 9, d_model))
    real = padding_mask([9, 5, 1], 9)
    with torch.no_grad():
        expected, expected_weights = reference(
            x, x, x, key_padding_mask=~real, average_attn_weights=False
        )
        out, weights = ours(x, real, return_weights=True)
        out_fast = ours(x, real)
    assert torch.allclose(out, expected, atol=1e-5)
    assert torch.allclose(out_fast, expected, atol=1e-5)
    assert torch.allclose(weights, expected_weights, atol=1e-5)


def test_mha_equals_torch_without_mask_and_with_causal_mask():
    torch.manual_seed(1)
    reference = torch.nn.MultiheadAttention(32, 4, batch_first=True).eval()
    ours = from_torch(reference).eval()
    (x,) = random_tensors(13, (2, 6, 32))
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    with torch.no_grad():
        expected, _ = reference(x, x, x)
        expected_causal, _ = reference(x, x, x, attn_mask=~causal)
        assert torch.allclose(ours(x), expected, atol=1e-5)
        assert torch.allclose(ours(x, causal[None, None]), expected_causal, atol=1e-5)
        assert torch.allclose(ours(x, causal[None]), expected_causal, atol=1e-5)


def test_mha_all_padding_sequence_gives_bias_not_nan():
    for bias in (True, False):
        torch.manual_seed(2)
        mha = MultiHeadAttention(16, 4, bias=bias)
        (x,) = random_tensors(14, (2, 5, 16))
        x.requires_grad_()
        real = padding_mask([5, 0], 5)
        fast = mha(x, real)
        explicit, weights = mha(x, real, return_weights=True)
        expected = mha.out_proj.bias if bias else torch.zeros(16)
        for out in (fast, explicit):
            assert torch.isfinite(out).all()
            assert torch.allclose(out[1], expected.expand(5, 16))
        assert torch.equal(weights[1], torch.zeros(4, 5, 5))
        (fast.sum() + explicit.sum()).backward()
        assert torch.isfinite(x.grad).all()
        assert all(torch.isfinite(p.grad).all() for p in mha.parameters())


def test_mha_dropout_acts_only_in_training():
    torch.manual_seed(3)
    mha = MultiHeadAttention(32, 4, dropout=0.5)
    (x,) = random_tensors(15, (2, 8, 32))
    mha.eval()
    _, eval_weights = mha(x, return_weights=True)
    assert torch.allclose(eval_weights.sum(dim=-1), torch.ones(2, 4, 8), atol=1e-6)
    assert torch.allclose(mha(x), mha(x))
    mha.train()
    _, train_weights = mha(x, return_weights=True)
    assert (train_weights == 0).float().mean() > 0.3
    assert not torch.allclose(mha(x), mha.eval()(x))


# --- MultiHeadAttention: properties (hypothesis) ---------------------------------

sizes = st.tuples(
    st.integers(1, 3),  # b
    st.integers(1, 6),  # n
    st.sampled_from([1, 2, 4]),  # n_heads
    st.integers(1, 4),  # d_head
    st.integers(0, 2**16),  # seed
)


def make_module(n_heads: int, d_head: int, seed: int) -> MultiHeadAttention:
    torch.manual_seed(seed)
    return MultiHeadAttention(n_heads * d_head, n_heads).eval()


@settings(max_examples=40, deadline=None)
@given(sizes)
def test_permutation_equivariance_without_masks(size):
    b, n, n_heads, d_head, seed = size
    mha = make_module(n_heads, d_head, seed)
    (x,) = random_tensors(seed, (b, n, n_heads * d_head))
    permutation = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        for return_weights in (False, True):
            out = mha(x, return_weights=return_weights)
            permuted = mha(x[:, permutation], return_weights=return_weights)
            if return_weights:
                (out, weights), (permuted, permuted_weights) = out, permuted
                assert torch.allclose(
                    permuted_weights,
                    weights[:, :, permutation][..., permutation],
                    atol=1e-5,
                )
            assert torch.allclose(permuted, out[:, permutation], atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(sizes, st.integers(1, 4))
def test_padding_invariance(size, n_padding):
    b, n, n_heads, d_head, seed = size
    mha = make_module(n_heads, d_head, seed)
    d_model = n_heads * d_head
    x, junk = random_tensors(seed, (b, n, d_model), (b, n_padding, d_model))
    padded = torch.cat([x, 100 * junk], dim=1)
    real = torch.arange(n + n_padding) < n
    real = real.expand(b, -1)
    with torch.no_grad():
        for return_weights in (False, True):
            alone = mha(x, return_weights=return_weights)
            with_padding = mha(padded, real, return_weights=return_weights)
            if return_weights:
                (alone, _), (with_padding, weights) = alone, with_padding
                assert torch.equal(weights[..., n:], torch.zeros_like(weights[..., n:]))
            assert torch.allclose(with_padding[:, :n], alone, atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(sizes, st.sampled_from([0.0, 0.2, 0.6, 1.0]), st.sampled_from([2, 3, 4]))
def test_fast_path_equals_explicit_path_and_no_nan(size, p_true, mask_dims):
    b, n, n_heads, d_head, seed = size
    mha = make_module(n_heads, d_head, seed)
    (x,) = random_tensors(seed, (b, n, n_heads * d_head))
    shape = {2: (b, n), 3: (b, n, n), 4: (b, n_heads, n, n)}[mask_dims]
    mask = random_mask(seed + 1, shape, p_true)
    with torch.no_grad():
        fast = mha(x, mask)
        explicit, weights = mha(x, mask, return_weights=True)
    assert torch.isfinite(fast).all() and torch.isfinite(explicit).all()
    assert torch.isfinite(weights).all()
    assert torch.allclose(fast, explicit, atol=1e-5)
    # Rows with no visible key get zero weights; the others sum to 1.
    full = torch.broadcast_to(
        {2: mask[:, None, None, :], 3: mask[:, None], 4: mask}[mask_dims], weights.shape
    )
    has_key = full.any(dim=-1)
    sums = weights.sum(dim=-1)
    assert torch.allclose(sums[has_key], torch.ones_like(sums[has_key]), atol=1e-5)
    assert torch.equal(sums[~has_key], torch.zeros_like(sums[~has_key]))


@settings(max_examples=40, deadline=None)
@given(sizes, st.sampled_from([0.0, 0.3, 1.0]))
def test_function_never_returns_nan(size, p_true):
    b, n, n_heads, d_head, seed = size
    q, k, v = random_tensors(
        seed, (b, n_heads, n, d_head), (b, n_heads, n, d_head), (b, n_heads, n, d_head)
    )
    mask = random_mask(seed, (b, n_heads, n, n), p_true)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    empty = ~mask.any(dim=-1)
    assert torch.equal(out[empty], torch.zeros_like(out[empty]))


# --- MultiHeadAttention: errors --------------------------------------------------


def test_mha_errors_name_expected_and_received():
    with pytest.raises(
        ValueError, match=r"^d_model=100 is not divisible by n_heads=12$"
    ):
        MultiHeadAttention(100, 12)
    with pytest.raises(ValueError, match=r"n_heads as a positive int, got 0"):
        MultiHeadAttention(64, 0)
    with pytest.raises(ValueError, match=r"dropout in \[0, 1\), got 1.5"):
        MultiHeadAttention(64, 8, dropout=1.5)
    mha = MultiHeadAttention(64, 8)
    with pytest.raises(
        ValueError, match=r"expected x of shape \(b, n, 64\), got \(10, 64\)"
    ):
        mha(torch.randn(10, 64))
    with pytest.raises(
        ValueError, match=r"expected x of shape \(b, n, 64\), got \(2, 10, 32\)"
    ):
        mha(torch.randn(2, 10, 32))
    with pytest.raises(TypeError, match=r"expected x as a torch.Tensor, got list"):
        mha([[0.0] * 64])
    x = torch.randn(2, 10, 64)
    with pytest.raises(TypeError, match=r"boolean mask .* got dtype torch.float32"):
        mha(x, torch.ones(2, 10))
    with pytest.raises(
        ValueError, match=r"\(b, n\) = \(2, 10\) for key padding.*got \(2, 12\)"
    ):
        mha(x, torch.ones(2, 12, dtype=torch.bool))
    with pytest.raises(
        ValueError, match=r"\(b, h, n, n\) = \(2, 8, 10, 10\); got \(2, 3, 10, 10\)"
    ):
        mha(x, torch.ones(2, 3, 10, 10, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"got \(10,\)"):
        mha(x, torch.ones(10, dtype=torch.bool))


def test_mha_attributes_follow_the_contract():
    mha = MultiHeadAttention(48, 6, dropout=0.1, bias=False)
    for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
        layer = getattr(mha, name)
        assert isinstance(layer, torch.nn.Linear)
        assert (layer.in_features, layer.out_features) == (48, 48)
        assert layer.bias is None
    assert (mha.d_model, mha.n_heads, mha.d_head, mha.dropout) == (48, 6, 8, 0.1)
    assert sum(p.numel() for p in MultiHeadAttention(48, 6).parameters()) == 4 * (
        48 * 48 + 48
    )


# ---- the score-bias and q/k hooks (chapters 4 and 5, for chapters 16 and 17)


@pytest.mark.parametrize("mask_kind", ["none", "padding", "random"])
def test_score_bias_equals_torch_sdpa_float_mask(mask_kind):
    q, k, v = random_tensors(7, (2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 5))
    bias = torch.randn(3, 6, 6, generator=torch.Generator().manual_seed(8))
    bias.requires_grad_()
    mask = {
        "none": None,
        "padding": padding_mask([6, 3], 6)[:, None, None, :],
        "random": random_mask(9, (2, 3, 6, 6), 0.7) | torch.eye(6, dtype=torch.bool),
    }[mask_kind]
    ours, _ = scaled_dot_product_attention(q, k, v, mask, score_bias=bias)
    float_mask = bias if mask is None else bias.masked_fill(~mask, float("-inf"))
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    assert (ours - theirs).abs().max() < 1e-6
    (g_ours,) = torch.autograd.grad(ours.square().sum(), bias)
    (g_theirs,) = torch.autograd.grad(theirs.square().sum(), bias)
    assert (g_ours - g_theirs).abs().max() < 1e-5


def test_zero_score_bias_changes_nothing():
    q, k, v = random_tensors(3, (2, 4, 7, 8), (2, 4, 7, 8), (2, 4, 7, 8))
    mask = padding_mask([7, 2], 7)[:, None, None, :]
    plain, plain_weights = scaled_dot_product_attention(q, k, v, mask)
    biased, biased_weights = scaled_dot_product_attention(
        q, k, v, mask, score_bias=torch.zeros(7, 7)
    )
    assert (plain - biased).abs().max() < 1e-7
    assert (plain_weights - biased_weights).abs().max() < 1e-7


def test_gradcheck_score_bias_float64():
    q, k, v, bias = random_tensors(
        5, (1, 2, 4, 3), (1, 2, 4, 3), (1, 2, 4, 3), (2, 4, 4), dtype=torch.float64
    )
    mask = random_mask(6, (1, 2, 4, 4), 0.6)
    mask[0, 0, 1] = False  # one query with no key
    inputs = tuple(t.requires_grad_() for t in (q, k, v, bias))
    assert torch.autograd.gradcheck(
        lambda q, k, v, b: scaled_dot_product_attention(q, k, v, mask, score_bias=b)[0],
        inputs,
    )


@settings(max_examples=30, deadline=None)
@given(sizes, st.sampled_from([0.3, 1.0]), st.sampled_from([1, 2, 3]))
def test_mha_score_bias_fast_path_equals_explicit_path(size, p_true, bias_dims):
    b, n, h, d_head, seed = size
    module = make_module(h, d_head, seed)
    x, bias = random_tensors(seed, (b, n, h * d_head), (h, n, n)[3 - bias_dims :])
    hidden = torch.rand(bias.shape, generator=torch.Generator().manual_seed(seed))
    bias = bias.masked_fill(hidden > p_true, float("-inf"))
    mask = random_mask(seed + 1, (b, n), 0.8)
    with torch.no_grad():
        fast = module(x, mask, score_bias=bias)
        explicit, weights = module(x, mask, return_weights=True, score_bias=bias)
    assert torch.isfinite(fast).all() and torch.isfinite(explicit).all()
    assert (fast - explicit).abs().max() < 1e-5
    sums = weights.sum(dim=-1)
    has_key = sums > 0
    assert torch.allclose(sums[has_key], torch.ones_like(sums[has_key]), atol=1e-5)


class _ScaleQueries(torch.nn.Module):
    """Multiplies every query by a constant: every score scales with it."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, q, k):
        return self.factor * q, k


@pytest.mark.parametrize("return_weights", [False, True])
def test_qk_transform_runs_on_both_paths(return_weights):
    torch.manual_seed(0)
    plain = MultiHeadAttention(16, 4).eval()
    scaled = MultiHeadAttention(16, 4, qk_transform=_ScaleQueries(3.0)).eval()
    scaled.load_state_dict(plain.state_dict())
    with torch.no_grad():
        plain.q_proj.weight.mul_(3.0)
        plain.q_proj.bias.mul_(3.0)
        x = torch.randn(2, 5, 16)
        mask = padding_mask([5, 3], 5)
        ours = scaled(x, mask, return_weights)
        theirs = plain(x, mask, return_weights)
    ours, theirs = (o[0] if return_weights else o for o in (ours, theirs))
    assert (ours - theirs).abs().max() < 1e-5


def test_transform_qk_is_the_identity_by_default_and_state_dict_unchanged():
    module = MultiHeadAttention(8, 2)
    q, k = torch.randn(2, 1, 2, 3, 4)
    same_q, same_k = module.transform_qk(q, k)
    assert same_q is q and same_k is k
    assert (
        sorted(module.state_dict())
        == sorted(f"{p}_proj.{w}" for p in "qkvout"[:3] for w in ("weight", "bias"))
        + []
        or True
    )
    assert set(module.state_dict()) == {
        f"{name}.{w}"
        for name in ("q_proj", "k_proj", "v_proj", "out_proj")
        for w in ("weight", "bias")
    }
