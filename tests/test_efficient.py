"""Chapter 16's `encoderlib.efficient`: local attention, Linformer, peak memory.

Reference tests: five implementations of attention (chapter 4's function, SDPA,
`nn.MultiheadAttention`, chapter 5's module, and ours with a window that covers
everything) compute one function; blocked local attention equals chapter 4's
function with the band mask for many lengths, windows and paddings, lengths
that are not a multiple of the window included; Linformer with k = n and
identity projections equals full attention. Property tests (hypothesis): no NaN
for all-padding rows, padding invariance, the reach of stacked local layers.
Memory: the blocked path's measured peak grows linearly in n.
"""

import pytest
import torch
import torch.nn.functional as F
from einops import rearrange
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor, nn

from encoderlib.attention import MultiHeadAttention, scaled_dot_product_attention
from encoderlib.efficient import (
    LinformerSelfAttention,
    LocalSelfAttention,
    blocked_local_attention,
    peak_memory,
    sliding_window_mask,
)
from encoderlib.encoder import Encoder, EncoderConfig, EncoderLayer


def qkv(seed: int, b: int, h: int, n: int, d: int, d_v: int | None = None):
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, b, h, n, d, generator=generator).unbind(0)
    v = torch.randn(b, h, n, d if d_v is None else d_v, generator=generator)
    return q, k, v


def masked_reference(q, k, v, window: int, real: Tensor | None) -> Tensor:
    """Chapter 4's attention with the band (and key padding) as a mask."""
    visible = sliding_window_mask(q.shape[-2], window)
    if real is not None:
        visible = visible & rearrange(real, "b j -> b 1 1 j")
    out, _ = scaled_dot_product_attention(q, k, v, visible)
    return out


def module(d_model: int = 32, n_heads: int = 4, seed: int = 0) -> MultiHeadAttention:
    torch.manual_seed(seed)
    return MultiHeadAttention(d_model, n_heads).eval()


# --- sliding_window_mask -------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 7, 20])
@pytest.mark.parametrize("window", [0, 1, 3, 25])
def test_sliding_window_mask_is_the_band(n, window):
    band = sliding_window_mask(n, window)
    assert band.shape == (n, n) and band.dtype == torch.bool
    expected = torch.tensor(
        [[abs(i - j) <= window for j in range(n)] for i in range(n)], dtype=torch.bool
    ).reshape(n, n)
    assert torch.equal(band, expected)
    w = min(window, max(n - 1, 0))
    assert int(band.sum()) == n * (2 * w + 1) - w * (w + 1)


def test_sliding_window_mask_device_argument():
    assert sliding_window_mask(3, 1, device="cpu").device.type == "cpu"
    assert sliding_window_mask(3, 1, device=torch.device("cpu")).device.type == "cpu"


# --- blocked_local_attention ---------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 16, 31, 33])
@pytest.mark.parametrize("window", [0, 1, 2, 4, 7, 40])
def test_blocked_equals_masked(n, window):
    q, k, v = qkv(n * 100 + window, 2, 3, n, 8)
    real = torch.rand(2, n, generator=torch.Generator().manual_seed(n)) < 0.7
    real[0, 0] = True
    for mask in (None, real):
        expected = masked_reference(q, k, v, window, mask)
        blocked = blocked_local_attention(q, k, v, window, mask)
        assert blocked.shape == expected.shape
        assert (blocked - expected).abs().max() < 1e-5


def test_blocked_value_width_may_differ():
    q, k, v = qkv(0, 2, 2, 11, 8, d_v=5)
    out = blocked_local_attention(q, k, v, 3)
    assert out.shape == (2, 2, 11, 5)
    assert (out - masked_reference(q, k, v, 3, None)).abs().max() < 1e-5


def test_blocked_all_padding_gives_zeros_and_finite_gradients():
    q, k, v = (t.requires_grad_() for t in qkv(1, 2, 2, 10, 4))
    real = torch.ones(2, 10, dtype=torch.bool)
    real[1] = False
    out = blocked_local_attention(q, k, v, 2, real)
    assert torch.equal(out[1], torch.zeros(2, 10, 4))
    out.square().sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()


def test_blocked_query_with_no_key_in_its_window_gives_zeros():
    q, k, v = qkv(2, 1, 1, 9, 4)
    real = torch.zeros(1, 9, dtype=torch.bool)
    real[0, 8] = True  # one real key, far from query 0
    out = blocked_local_attention(q, k, v, 2, real)
    assert torch.equal(out[0, 0, :6], torch.zeros(6, 4))  # queries 0..5 see nothing
    assert (out[0, 0, 6:] - v[0, 0, 8]).abs().max() < 1e-6  # the rest see key 8


def test_blocked_gradients_equal_masked():
    q1, k1, v1 = (t.requires_grad_() for t in qkv(3, 2, 2, 14, 4))
    q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q1, k1, v1))
    real = torch.arange(14) < torch.tensor([[14], [9]])
    blocked_local_attention(q1, k1, v1, 3, real).square().sum().backward()
    masked_reference(q2, k2, v2, 3, real).square().sum().backward()
    for a, b in ((q1, q2), (k1, k2), (v1, v2)):
        assert (a.grad - b.grad).abs().max() < 1e-5


def test_blocked_empty_sequence_and_empty_batch():
    q, k, v = qkv(0, 2, 3, 0, 4)
    assert blocked_local_attention(q, k, v, 2).shape == (2, 3, 0, 4)
    q, k, v = qkv(0, 0, 3, 5, 4)
    assert blocked_local_attention(q, k, v, 2).shape == (0, 3, 5, 4)


def test_blocked_dropout_only_when_asked():
    q, k, v = qkv(4, 1, 2, 12, 4)
    first = blocked_local_attention(q, k, v, 3)
    # one code path, no randomness without dropout: the same bits
    assert torch.equal(first, blocked_local_attention(q, k, v, 3))
    torch.manual_seed(0)
    dropped = blocked_local_attention(q, k, v, 3, dropout_p=0.5)
    assert dropped.shape == first.shape and not torch.allclose(dropped, first)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3),  # b
    st.integers(1, 40),  # n
    st.integers(0, 12),  # window
    st.integers(0, 2**16),  # seed
    st.sampled_from([0.0, 0.4, 0.9, 1.0]),  # share of real tokens
)
def test_blocked_equals_masked_property(b, n, window, seed, p_real):
    q, k, v = qkv(seed, b, 2, n, 4)
    real = torch.rand(b, n, generator=torch.Generator().manual_seed(seed)) < p_real
    blocked = blocked_local_attention(q, k, v, window, real)
    assert torch.isfinite(blocked).all()
    assert (blocked - masked_reference(q, k, v, window, real)).abs().max() < 1e-5


def test_blocked_memory_grows_linearly():
    peaks = []
    for n in (512, 1024):
        q, k, v = qkv(0, 1, 2, n, 16)
        peaks.append(
            peak_memory(lambda q=q, k=k, v=v: blocked_local_attention(q, k, v, 16))
        )
    full = [peak_memory(lambda: scaled_dot_product_attention(*qkv(0, 1, 2, n, 16)))]
    assert 1.5 < peaks[1] / peaks[0] < 2.5
    assert peaks[1] < full[0] / 4


def test_a_window_wider_than_the_sequence_costs_what_the_sequence_costs():
    # The block is clamped to n: memory O(n·min(n, window)), not O(n·window).
    # (Before, n = 16 with window = 512 padded every block to 512 positions.)
    q, k, v = qkv(0, 1, 4, 16, 8)
    as_wide_as_n = peak_memory(lambda: blocked_local_attention(q, k, v, 16))
    for window in (512, 2048):
        peak = peak_memory(lambda w=window: blocked_local_attention(q, k, v, w))
        assert peak <= as_wide_as_n, (window, peak, as_wide_as_n)
        expected = masked_reference(q, k, v, window, None)
        assert (blocked_local_attention(q, k, v, window) - expected).abs().max() < 1e-5
    assert as_wide_as_n < 4 * 16 * (3 * 16) * 4 * 8  # scores are 4 heads of 16 × 48


def test_an_integer_padding_mask_is_read_as_the_boolean_one():
    q, k, v = qkv(1, 2, 3, 9, 4)
    real = torch.arange(9) < torch.tensor([[9], [4]])
    by_bool = blocked_local_attention(q, k, v, 2, real)
    assert torch.equal(blocked_local_attention(q, k, v, 2, real.long()), by_bool)
    mha = module()
    x = torch.randn(2, 9, 32)
    with torch.no_grad():
        for wrapper in (LocalSelfAttention(mha, 2), LinformerSelfAttention(mha, 9, 4)):
            assert torch.equal(wrapper(x, real.int()), wrapper(x, real))


# --- LocalSelfAttention ----------------------------------------------------------


@pytest.mark.parametrize("n", [1, 6, 17])
@pytest.mark.parametrize("window", [0, 2, 5])
def test_local_module_equals_mha_with_band(n, window):
    mha = module()
    local = LocalSelfAttention(mha, window).eval()
    x = torch.randn(3, n, 32, generator=torch.Generator().manual_seed(n + window))
    real = torch.arange(n) < torch.tensor([[n], [max(n - 3, 1)], [0]])  # one empty
    band = sliding_window_mask(n, window) & rearrange(real, "b j -> b 1 1 j")
    with torch.no_grad():
        for mask, visible in ((None, sliding_window_mask(n, window)), (real, band)):
            if visible.dim() == 2:
                visible = rearrange(visible, "i j -> 1 1 i j")
            expected = mha(x, visible)
            assert (local(x, mask) - expected).abs().max() < 1e-5


def test_local_module_with_a_window_over_everything_is_full_attention():
    mha = module()
    x = torch.randn(2, 9, 32)
    with torch.no_grad():
        assert (LocalSelfAttention(mha, 8)(x) - mha(x)).abs().max() < 1e-5


def test_local_module_uses_transform_qk():
    class DoubleQueries(nn.Module):
        def forward(self, q: Tensor, k: Tensor) -> tuple[Tensor, Tensor]:
            return 2 * q, k

    torch.manual_seed(0)
    doubled = MultiHeadAttention(32, 4, qk_transform=DoubleQueries()).eval()
    sharper = MultiHeadAttention(32, 4).eval()
    sharper.load_state_dict(doubled.state_dict())
    with torch.no_grad():
        sharper.q_proj.weight.mul_(2)
        sharper.q_proj.bias.mul_(2)
        x = torch.randn(2, 12, 32)
        a = LocalSelfAttention(doubled, 3)(x)
        b = LocalSelfAttention(sharper, 3)(x)
    assert (a - b).abs().max() < 1e-5


def test_local_module_drops_into_an_encoder_layer():
    torch.manual_seed(0)
    layer = EncoderLayer(32, 4, 64, dropout=0.0, norm_first=True).eval()
    x = torch.randn(2, 10, 32)
    with torch.no_grad():
        expected = layer(x)
        layer.attn = LocalSelfAttention(layer.attn, window=9)  # sees everything
        assert (layer(x) - expected).abs().max() < 1e-5


@pytest.mark.parametrize("kind", ["local", "linformer"])
def test_local_and_linformer_attention_run_in_an_encoder_with_padding(kind):
    # Issue 22: a padded batch took the Encoder's packed path, which reads
    # layer.attn.q_proj (AttributeError); now each sentence of a padded batch
    # gets what it gets alone, and padding positions hold zeros.
    torch.manual_seed(0)
    encoder = Encoder(EncoderConfig.tiny(vocab_size=50, max_len=16)).eval()
    for layer in encoder.layers:
        if kind == "local":
            layer.attn = LocalSelfAttention(layer.attn, window=2)
        else:
            layer.attn = LinformerSelfAttention(layer.attn, max_len=16, k=4)
        assert not layer.attn.training  # the wrapper follows the eval model
    lengths = [9, 5, 1]
    ids = torch.randint(5, 50, (3, 9), generator=torch.Generator().manual_seed(1))
    mask = torch.arange(9) < torch.tensor(lengths)[:, None]
    with torch.no_grad():
        out = encoder(ids, mask.long())
        assert (out[~mask] == 0).all()
        for i, length in enumerate(lengths):
            alone = encoder(ids[i : i + 1, :length])[0]
            assert (out[i, :length] - alone).abs().max() < 1e-5, (kind, i)


def test_local_module_holds_the_attention_and_follows_train_mode():
    mha = module()
    local = LocalSelfAttention(mha, 2)
    assert local.attention is mha and "window=2" in repr(local)
    local.train()
    assert mha.training
    local.eval()
    assert not mha.training


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(0, 2**16))
def test_stacked_local_layers_reach_exactly_layers_times_window(n_layers, window, seed):
    torch.manual_seed(seed)
    layers = []
    for _ in range(n_layers):
        layer = EncoderLayer(8, 2, 16, dropout=0.0, norm_first=True).eval()
        layer.attn = LocalSelfAttention(layer.attn, window)
        layers.append(layer)
    x = torch.randn(1, 30, 8, requires_grad=True)
    h = x
    for layer in layers:
        h = layer(h)
    (gradient,) = torch.autograd.grad(h[0, 0].sum(), x)
    depends = gradient[0].abs().sum(dim=-1) > 0
    assert int(depends.nonzero().max()) == n_layers * window


# --- LinformerSelfAttention ------------------------------------------------------


def test_linformer_with_identity_projections_is_full_attention():
    mha = module()
    x = torch.randn(2, 20, 32)
    linformer = LinformerSelfAttention(mha, max_len=20, k=20).eval()
    with torch.no_grad():
        linformer.key_projection.copy_(torch.eye(20))
        linformer.value_projection.copy_(torch.eye(20))
        assert (linformer(x) - mha(x)).abs().max() < 1e-5


@pytest.mark.parametrize(("n", "k"), [(1, 1), (7, 3), (30, 8), (30, 64)])
def test_linformer_shapes_and_parameters(n, k):
    linformer = LinformerSelfAttention(module(), max_len=30, k=k)
    assert linformer.key_projection.shape == linformer.value_projection.shape == (k, 30)
    out = linformer(torch.randn(2, n, 32))
    assert out.shape == (2, n, 32) and torch.isfinite(out).all()
    assert "max_len=30, k=" in repr(linformer)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(0, 8), st.integers(0, 2**16))
def test_linformer_padding_invariance(length, n_padding, seed):
    torch.manual_seed(seed)
    linformer = LinformerSelfAttention(module(seed=seed), max_len=20, k=5).eval()
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1, length, 32, generator=generator)
    junk = 100 * torch.randn(1, n_padding, 32, generator=generator)
    real = torch.arange(length + n_padding) < length
    with torch.no_grad():
        alone = linformer(x)
        padded = linformer(torch.cat([x, junk], dim=1), rearrange(real, "n -> 1 n"))
    assert (padded[:, :length] - alone).abs().max() < 1e-4


def test_linformer_all_padding_gives_no_nan_and_gradients_reach_e_and_f():
    linformer = LinformerSelfAttention(module(), max_len=10, k=4)
    x = torch.randn(2, 10, 32)
    real = torch.ones(2, 10, dtype=torch.bool)
    real[1] = False
    out = linformer(x, real)
    assert torch.isfinite(out).all()
    out.square().sum().backward()
    assert linformer.key_projection.grad.abs().sum() > 0
    assert linformer.value_projection.grad.abs().sum() > 0


def test_linformer_follows_the_attention_dtype():
    mha = module().double()
    linformer = LinformerSelfAttention(mha, max_len=8, k=2)
    assert linformer.key_projection.dtype == torch.float64
    assert linformer(torch.randn(1, 8, 32, dtype=torch.float64)).dtype == torch.float64


# --- the gallery: five implementations, one function ----------------------------


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
def test_five_implementations_agree():
    mha = module(64, 4)
    torch_mha = nn.MultiheadAttention(64, 4, batch_first=True).eval()
    with torch.no_grad():
        torch_mha.in_proj_weight.copy_(
            torch.cat([mha.q_proj.weight, mha.k_proj.weight, mha.v_proj.weight])
        )
        torch_mha.in_proj_bias.copy_(
            torch.cat([mha.q_proj.bias, mha.k_proj.bias, mha.v_proj.bias])
        )
        torch_mha.out_proj.load_state_dict(mha.out_proj.state_dict())
        x = torch.randn(2, 24, 64)
        real = torch.arange(24) < torch.tensor([[24], [15]])
        q, k, v = (
            rearrange(p(x), "b n (h d) -> b h n d", h=4)
            for p in (mha.q_proj, mha.k_proj, mha.v_proj)
        )
        key_mask = rearrange(real, "b j -> b 1 1 j")

        def merge(context: Tensor) -> Tensor:
            return mha.out_proj(rearrange(context, "b h n d -> b n (h d)"))

        results = {
            "explicit": merge(scaled_dot_product_attention(q, k, v, key_mask)[0]),
            "sdpa": merge(F.scaled_dot_product_attention(q, k, v, attn_mask=key_mask)),
            "torch": torch_mha(x, x, x, key_padding_mask=~real, need_weights=False)[0],
            "ours": mha(x, real),
            "local, window >= n": LocalSelfAttention(mha, 23)(x, real),
        }
        try:
            from torch.nn.attention.flex_attention import flex_attention
        except ImportError:
            flex_attention = None
        if flex_attention is not None:

            def hide_padding(score, batch, head, q_index, kv_index):
                return torch.where(real[batch, kv_index], score, float("-inf"))

            results["flex"] = merge(flex_attention(q, k, v, score_mod=hide_padding))
    for name, result in results.items():
        assert (result - results["explicit"]).abs().max() < 1e-5, name


# --- peak_memory -------------------------------------------------------------------


def test_peak_memory_of_known_allocations():
    mib = 2**20

    def one_after_the_other() -> None:
        first = torch.empty(mib // 4)
        del first
        second = torch.empty(mib // 4)
        del second

    def side_by_side() -> None:
        first, second = torch.empty(mib // 4), torch.empty(mib // 4)
        del first, second

    assert peak_memory(lambda: torch.empty(1000, 1000)) == 4_000_000
    assert peak_memory(one_after_the_other) == mib
    assert peak_memory(side_by_side) == 2 * mib
    assert peak_memory(lambda: None) == 0


def test_peak_memory_of_explicit_attention_is_about_twice_the_weights():
    q, k, v = qkv(0, 1, 4, 256, 16)
    weights_bytes = 4 * 256 * 256 * 4
    peak = peak_memory(lambda: scaled_dot_product_attention(q, k, v))
    assert 1.9 * weights_bytes < peak < 2.3 * weights_bytes
    # The fused kernel's scratch grows with the thread count (with 16 threads it
    # was 1.2 MB, more than this bound): measure it on two, as CI runs.
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        fused = peak_memory(lambda: F.scaled_dot_product_attention(q, k, v))
    finally:
        torch.set_num_threads(threads)
    assert fused < weights_bytes / 2


def test_peak_memory_leaves_stderr_working(capfd):
    import os

    peak_memory(lambda: torch.empty(10))
    os.write(2, b"still here\n")
    assert "still here" in capfd.readouterr().err


def test_no_forward_here_would_wait_on_a_gpu():
    # The checks of chapter 16's attention read no device value: with the CPU
    # treated as a GPU (count_host_reads), a forward makes no host read, with a
    # boolean or a 0/1 integer padding mask.
    from encoderlib.checks import count_host_reads

    mha = module()
    x = torch.randn(2, 9, 32)
    real = torch.arange(9) < torch.tensor([[9], [4]])
    q, k, v = qkv(0, 2, 4, 9, 8)
    with torch.no_grad():
        for mask in (None, real, real.long()):
            with count_host_reads() as reads:
                LocalSelfAttention(mha, 2)(x, mask)
                LinformerSelfAttention(mha, 9, 4)(x, mask)
                blocked_local_attention(q, k, v, 3, mask)
            assert reads == [], reads
