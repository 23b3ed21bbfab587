"""One matrix product for linear maps on one input (`join_linears`, `joined_view`).

`MultiHeadAttention` keeps q, k and v, and a gated `FeedForward` its gate and fc1,
as neighbouring rows of one tensor, so that inference runs them as one product
with no copy. These tests hold the layout through what changes a model's memory
(`.to()`, loading, an optimizer step, a copy) and check that the joined product
computes what the maps compute one by one.
"""

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from encoderlib import (
    Encoder,
    EncoderConfig,
    FeedForward,
    MultiHeadAttention,
    RotaryEmbedding,
)
from encoderlib.attention import join_linears, joined_view


def qkv(module: MultiHeadAttention) -> tuple[nn.Linear, nn.Linear, nn.Linear]:
    return module.q_proj, module.k_proj, module.v_proj


def view_of(*linears: nn.Linear) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    with torch.inference_mode():
        return joined_view(*linears)


def test_attention_weights_are_one_tensor_from_the_start():
    module = MultiHeadAttention(16, 4)
    weight, bias = view_of(*qkv(module))
    assert weight.shape == (48, 16) and bias.shape == (48,)
    assert weight.data_ptr() == module.q_proj.weight.data_ptr()
    for i, linear in enumerate(qkv(module)):
        assert torch.equal(weight[16 * i : 16 * (i + 1)], linear.weight)
        assert torch.equal(bias[16 * i : 16 * (i + 1)], linear.bias)


def test_the_joined_product_is_the_three_products():
    torch.manual_seed(0)
    module = MultiHeadAttention(32, 4)
    x = torch.randn(3, 5, 32)
    with torch.inference_mode():
        parts = F.linear(x, *joined_view(*qkv(module))).chunk(3, dim=-1)
        for part, linear in zip(parts, qkv(module), strict=True):
            torch.testing.assert_close(part, linear(x), rtol=0, atol=1e-6)


def test_no_view_under_autograd_or_with_a_hook():
    module = MultiHeadAttention(16, 4)
    assert joined_view(*qkv(module)) is None  # autograd records here
    handle = module.k_proj.register_forward_hook(lambda *args: None)
    assert view_of(*qkv(module)) is None
    handle.remove()
    assert view_of(*qkv(module)) is not None


def test_without_biases_the_view_has_none():
    weight, bias = view_of(*qkv(MultiHeadAttention(16, 4, bias=False)))
    assert weight.shape == (48, 16) and bias is None


@pytest.mark.parametrize("convert", ["double", "half", "to_bfloat16"])
def test_conversions_join_the_weights_again(convert):
    module = MultiHeadAttention(16, 4)
    before = [linear.weight.detach().clone() for linear in qkv(module)]
    if convert == "to_bfloat16":
        module.to(torch.bfloat16)
    else:
        getattr(module, convert)()
    weight, _ = view_of(*qkv(module))
    assert weight.dtype == module.q_proj.weight.dtype != torch.float32
    for i, old in enumerate(before):
        assert torch.equal(weight[16 * i : 16 * (i + 1)], old.to(weight.dtype))


def test_loading_and_training_keep_the_layout_and_the_values():
    torch.manual_seed(0)
    module = MultiHeadAttention(16, 4)
    state = {name: torch.randn_like(t) for name, t in module.state_dict().items()}
    module.load_state_dict(state)
    weight, bias = view_of(*qkv(module))
    assert torch.equal(weight[16:32], state["k_proj.weight"])
    assert torch.equal(bias[32:], state["v_proj.bias"])
    optimizer = torch.optim.AdamW(module.parameters(), lr=0.1)
    module(torch.randn(2, 5, 16)).square().mean().backward()
    assert all(linear.weight.grad.shape == (16, 16) for linear in qkv(module))
    optimizer.step()
    weight, _ = view_of(*qkv(module))
    assert torch.equal(weight[16:32], module.k_proj.weight)
    assert not torch.equal(weight[16:32], state["k_proj.weight"])  # it did move


def test_a_deep_copy_falls_back_until_converted():
    module = copy.deepcopy(MultiHeadAttention(16, 4))
    assert view_of(*qkv(module)) is None  # each weight copied on its own
    module.float()
    assert view_of(*qkv(module)) is not None


def test_neighbours_in_memory_from_different_tensors_are_not_joined():
    a, b = nn.Linear(4, 2, bias=False), nn.Linear(4, 2, bias=False)
    storage = torch.zeros(16)
    with torch.no_grad():  # b's weight in memory of its own, a's in a larger tensor
        a.weight.data = storage[:8].view(2, 4)
        b.weight.data = storage[8:].clone().view(2, 4)
    assert view_of(a, b) is None
    join_linears(a, b)
    assert view_of(a, b) is not None


def test_gated_feed_forward_runs_one_product_in_inference():
    torch.manual_seed(0)
    ffn = FeedForward(32, 48, "geglu", bias=False)
    x = torch.randn(2, 7, 32)
    recorded = ffn(x)  # autograd: gate and fc1 one by one
    counted = []
    handle = ffn.fc1.register_forward_pre_hook(lambda *args: counted.append(1))
    with torch.inference_mode():
        hooked = ffn(x)  # a hook on fc1: called one by one, so the hook sees it
        handle.remove()
        joined = ffn(x)
    assert counted == [1]
    torch.testing.assert_close(hooked, recorded, rtol=0, atol=1e-6)
    torch.testing.assert_close(joined, recorded, rtol=0, atol=1e-6)


def test_saving_and_copying_a_joined_encoder(tmp_path):
    config = EncoderConfig(
        vocab_size=50, d_model=16, n_heads=4, n_layers=2, d_ff=24, max_len=16
    )
    encoder = Encoder(config).eval()
    ids = torch.randint(0, 50, (2, 6))
    with torch.inference_mode():
        expected = encoder(ids)
    path = tmp_path / "encoder.pt"
    torch.save(encoder.state_dict(), path)
    fresh = Encoder(config).eval()
    fresh.load_state_dict(torch.load(path, weights_only=True))
    attn = fresh.layers[0].attn
    assert view_of(*qkv(attn)) is not None
    with torch.inference_mode():
        torch.testing.assert_close(fresh(ids), expected, rtol=0, atol=0)


class Calls(torch.overrides.TorchFunctionMode):
    """Counts the torch function calls for which `counts(func, args)` is true."""

    def __init__(self, counts) -> None:
        super().__init__()
        self.counts, self.n = counts, 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.n += bool(self.counts(func, args))
        return func(*args, **(kwargs or {}))


def weight_copies() -> Calls:
    """Counts `torch.cat` calls that join Parameters (copies of weights)."""
    return Calls(
        lambda func, args: (
            func is torch.cat and any(isinstance(t, nn.Parameter) for t in args[0])
        )
    )


def linear_calls() -> Calls:
    """Counts matrix products: `F.linear`, or oneDNN's where `linear` chose it."""
    onednn = torch.ops.mkldnn._linear_pointwise
    return Calls(lambda func, args: func in (F.linear, onednn, onednn.default))


def test_the_packed_path_copies_no_weight_in_inference():
    config = EncoderConfig(
        vocab_size=50, d_model=16, n_heads=4, n_layers=2, d_ff=24, max_len=16
    )
    encoder = Encoder(config).eval()
    ids = torch.randint(0, 50, (3, 6))
    mask = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] * 2 + [0] * 4])
    with weight_copies() as training_like:
        expected = encoder(ids, mask)  # autograd on: q, k, v joined by a copy
    with torch.inference_mode(), weight_copies() as inference:
        packed = encoder(ids, mask)
    assert training_like.n == 2 * config.n_layers  # weights and biases, per layer
    assert inference.n == 0
    torch.testing.assert_close(packed, expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("rope", [False, True])
@pytest.mark.parametrize("return_weights", [False, True])
def test_the_padded_path_runs_one_product_for_q_k_v_in_inference(return_weights, rope):
    # With RoPE, q and k also turn as one tensor.
    torch.manual_seed(0)
    turn = RotaryEmbedding(8) if rope else None
    module = MultiHeadAttention(32, 4, qk_transform=turn).eval()
    apart = copy.deepcopy(module)  # not joined: three products
    x = torch.randn(3, 6, 32)
    mask = torch.ones(3, 6, dtype=torch.bool)
    mask[1, 4:] = False
    with torch.inference_mode():
        with linear_calls() as joined_calls:
            joined = module(x, mask, return_weights=return_weights)
        with linear_calls() as apart_calls:
            expected = apart(x, mask, return_weights=return_weights)
    assert (joined_calls.n, apart_calls.n) == (2, 4)  # q, k, v as one; out_proj
    torch.testing.assert_close(joined, expected, rtol=0, atol=1e-6)
    if rope:  # q and k turned as one tensor, or one by one
        with torch.inference_mode():
            q, k, _ = module.heads(x)
            q_apart, k_apart, _ = apart.heads(x)
        torch.testing.assert_close((q, k), (q_apart, k_apart), rtol=0, atol=1e-6)


def test_the_view_is_kept_until_a_weight_is_written_or_moved():
    module = MultiHeadAttention(16, 4)
    first, again = view_of(*qkv(module)), view_of(*qkv(module))
    assert again is first  # kept: one call per layer costs microseconds
    with torch.no_grad():
        module.k_proj.weight.mul_(2)  # a write outside inference mode
    written = view_of(*qkv(module))
    assert written is not first
    assert torch.equal(written[0][16:32], module.k_proj.weight)
    with torch.no_grad():  # k's weight moved to memory of its own
        module.k_proj.weight.data = module.k_proj.weight.detach().clone()
    assert view_of(*qkv(module)) is None
    module.float()  # joined again
    assert view_of(*qkv(module)) is not None


def test_weights_made_in_inference_mode_are_joined_too():
    with torch.inference_mode():  # a model converted here has inference weights
        module = MultiHeadAttention(16, 4).double()
        x = torch.randn(2, 3, 16, dtype=torch.float64)
        assert module.q_proj.weight.is_inference()
        weight, bias = joined_view(*qkv(module))
        parts = F.linear(x, weight, bias).chunk(3, dim=-1)
        for part, linear in zip(parts, qkv(module), strict=True):
            torch.testing.assert_close(part, linear(x), rtol=0, atol=1e-12)
