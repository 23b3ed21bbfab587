"""encoderlib.layers (LayerNorm, FeedForward) and encoderlib.utils.count_parameters."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from encoderlib.layers import FeedForward, LayerNorm
from encoderlib.utils import count_parameters

ACTIVATIONS = ["gelu", "gelu_tanh", "relu", "swiglu", "geglu"]


def layer_norm_formula(x, weight, bias, eps):
    """(x − mean) / √(biased var + eps) · weight + bias on the last axis, float64."""
    x = x.double()
    mean = x.mean(dim=-1, keepdim=True)
    variance = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(variance + eps) * weight.double() + bias.double()


def gelu_erf(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def linear(x, layer):
    out = x @ layer.weight.T
    return out if layer.bias is None else out + layer.bias


def manual_feed_forward(ffn, x):
    """The feed-forward network written out with the module's weights."""
    hidden = linear(x, ffn.fc1)
    if ffn.activation == "gelu":
        hidden = gelu_erf(hidden)
    elif ffn.activation == "gelu_tanh":
        hidden = gelu_tanh(hidden)
    elif ffn.activation == "relu":
        hidden = hidden.clamp(min=0)
    elif ffn.activation == "swiglu":
        gate = linear(x, ffn.gate)
        hidden = gate * torch.sigmoid(gate) * hidden
    else:  # geglu: the gate through the exact GELU, as ModernBERT computes it
        hidden = gelu_erf(linear(x, ffn.gate)) * hidden
    return linear(hidden, ffn.fc2)


# LayerNorm ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    leading=st.lists(st.integers(1, 4), min_size=0, max_size=2),
    d=st.integers(1, 48),
    eps=st.floats(1e-12, 1e-1),
    scale=st.floats(0.1, 10.0),
    offset=st.floats(-5.0, 5.0),
    seed=st.integers(0, 2**16),
)
def test_layer_norm_equals_torch_in_values_and_gradients(
    leading, d, eps, scale, offset, seed
):
    torch.manual_seed(seed)
    ours, theirs = LayerNorm(d, eps=eps), nn.LayerNorm(d, eps=eps)
    with torch.no_grad():
        theirs.weight.normal_(1.0, 0.2)
        theirs.bias.normal_(0.0, 0.2)
    ours.load_state_dict(theirs.state_dict())
    x = scale * torch.randn(*leading, d) + offset
    upstream = torch.randn(*leading, d)
    x_ours, x_theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    y_ours, y_theirs = ours(x_ours), theirs(x_theirs)
    (y_ours * upstream).sum().backward()
    (y_theirs * upstream).sum().backward()
    close = {"atol": 1e-5, "rtol": 1e-5}
    assert y_ours.shape == x.shape
    assert torch.allclose(y_ours, y_theirs, **close)
    assert torch.allclose(x_ours.grad, x_theirs.grad, **close)
    assert torch.allclose(ours.weight.grad, theirs.weight.grad, **close)
    assert torch.allclose(ours.bias.grad, theirs.bias.grad, **close)
    expected = layer_norm_formula(x, ours.weight.detach(), ours.bias.detach(), eps)
    assert torch.allclose(y_ours.double(), expected, atol=1e-4)


def test_layer_norm_gradient_matches_the_closed_form():
    torch.manual_seed(0)
    x = (2 * torch.randn(3, 5, 32) + 1).double().requires_grad_()
    norm = LayerNorm(32).double()
    upstream = torch.randn(3, 5, 32, dtype=torch.double)
    (norm(x) * upstream).sum().backward()
    mean = x.detach().mean(-1, keepdim=True)
    std = torch.sqrt(((x.detach() - mean) ** 2).mean(-1, keepdim=True) + norm.eps)
    x_hat = (x.detach() - mean) / std
    g = upstream  # weight is 1 at initialisation
    expected = (
        g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)
    ) / std
    assert torch.allclose(x.grad, expected, atol=1e-10)


def test_layer_norm_parameters_and_state_dict_match_torch():
    ours = LayerNorm(384)
    assert torch.equal(ours.weight, torch.ones(384))
    assert torch.equal(ours.bias, torch.zeros(384))
    assert ours.eps == 1e-5 and ours.d == 384
    assert list(ours.state_dict()) == list(nn.LayerNorm(384).state_dict())
    theirs = nn.LayerNorm(384, eps=1e-12)
    with torch.no_grad():
        ours.weight.uniform_()
    theirs.load_state_dict(ours.state_dict())
    assert torch.equal(theirs.weight, ours.weight)
    assert repr(LayerNorm(8, eps=1e-12)) == "LayerNorm(8, eps=1e-12)"


def test_layer_norm_output_has_mean_zero_and_length_sqrt_d():
    torch.manual_seed(0)
    y = LayerNorm(384)(5 * torch.randn(100, 384) + 3)
    assert y.mean(dim=-1).abs().max() < 1e-5
    assert torch.allclose(y.norm(dim=-1), torch.full((100,), math.sqrt(384)), atol=1e-3)


def test_layer_norm_is_independent_of_other_tokens_and_padding():
    torch.manual_seed(0)
    norm = LayerNorm(16)
    x = torch.randn(2, 5, 16)
    padded = torch.cat([x, torch.zeros(2, 7, 16)], dim=1)
    assert torch.equal(norm(padded)[:, :5], norm(x))
    assert not torch.isnan(norm(padded)).any()  # all-zero rows give bias, not NaN


@pytest.mark.parametrize(
    "make, x, error, message",
    [
        (
            lambda: LayerNorm(384),
            torch.randn(2, 5, 256),
            ValueError,
            r"expected last dimension 384, got 256 \(x of shape \(2, 5, 256\)\)",
        ),
        (lambda: LayerNorm(4), torch.tensor(1.0), ValueError, "got a 0-d tensor"),
        (lambda: LayerNorm(4), [[1.0] * 4], TypeError, "got list"),
    ],
)
def test_layer_norm_rejects_bad_input(make, x, error, message):
    with pytest.raises(error, match=message):
        make()(x)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"d": 0}, ValueError, "expected d as a positive int, got 0"),
        ({"d": 3.0}, TypeError, "expected d as a positive int, got float 3.0"),
        ({"d": True}, TypeError, "expected d as a positive int, got bool True"),
        ({"d": 4, "eps": 0.0}, ValueError, "expected eps > 0, got 0.0"),
    ],
)
def test_layer_norm_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        LayerNorm(**kwargs)


# FeedForward -------------------------------------------------------------------------


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_feed_forward_equals_the_manual_computation(activation):
    torch.manual_seed(0)
    ffn = FeedForward(24, 96, activation=activation)
    x = 2 * torch.randn(3, 7, 24)
    with torch.no_grad():
        out = ffn(x)
    assert out.shape == (3, 7, 24)
    assert torch.allclose(out, manual_feed_forward(ffn, x), atol=1e-5)


@pytest.mark.parametrize(
    "activation, torch_activation",
    [
        ("gelu", lambda h: F.gelu(h)),
        ("gelu_tanh", lambda h: F.gelu(h, approximate="tanh")),
        ("relu", F.relu),
    ],
)
def test_feed_forward_activation_is_torchs(activation, torch_activation):
    torch.manual_seed(1)
    ffn = FeedForward(16, 64, activation=activation)
    x = 3 * torch.randn(4, 16)
    with torch.no_grad():
        expected = ffn.fc2(torch_activation(ffn.fc1(x)))
        assert torch.allclose(ffn(x), expected, atol=1e-6)


def test_gelu_formulas_equal_torch_and_differ_from_each_other():
    x = torch.linspace(-6, 6, 120_001, dtype=torch.float64)
    assert torch.allclose(gelu_erf(x), F.gelu(x), atol=1e-12)
    assert torch.allclose(gelu_tanh(x), F.gelu(x, approximate="tanh"), atol=1e-12)
    gap = (F.gelu(x) - F.gelu(x, approximate="tanh")).abs().max().item()
    assert 4.7e-4 < gap < 4.8e-4


def test_gelu_and_gelu_tanh_are_different_networks():
    torch.manual_seed(2)
    exact, approximate = FeedForward(64, 256), FeedForward(64, 256, "gelu_tanh")
    approximate.load_state_dict(exact.state_dict())
    x = 3 * torch.randn(10, 64)
    with torch.no_grad():
        assert (exact(x) - approximate(x)).abs().max() > 1e-5


def test_feed_forward_submodules():
    ffn = FeedForward(384, 1536)
    assert ffn.fc1.weight.shape == (1536, 384) and ffn.fc2.weight.shape == (384, 1536)
    assert not hasattr(ffn, "gate")
    assert set(ffn.state_dict()) == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    swiglu = FeedForward(384, 1024, activation="swiglu")
    assert swiglu.gate.weight.shape == (1024, 384)


def test_feed_forward_dropout_sits_after_the_activation_as_in_torch():
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(
        32, 4, dim_feedforward=128, dropout=0.3, activation="gelu", batch_first=True
    ).train()
    ffn = FeedForward(32, 128, dropout=0.3).train()
    with torch.no_grad():
        ffn.fc1.weight.copy_(layer.linear1.weight)
        ffn.fc1.bias.copy_(layer.linear1.bias)
        ffn.fc2.weight.copy_(layer.linear2.weight)
        ffn.fc2.bias.copy_(layer.linear2.bias)
    x = torch.randn(2, 6, 32)
    with torch.no_grad():
        torch.manual_seed(9)
        ours = ffn(x)
        torch.manual_seed(9)
        theirs = layer.linear2(layer.dropout(layer.activation(layer.linear1(x))))
        assert torch.allclose(ours, theirs, atol=1e-6)
        ffn.eval()
        assert torch.allclose(ffn(x), manual_feed_forward(ffn, x), atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 8),
    activation=st.sampled_from(ACTIVATIONS),
    seed=st.integers(0, 2**16),
)
def test_feed_forward_treats_every_token_alone(n, activation, seed):
    torch.manual_seed(seed)
    ffn = FeedForward(8, 16, activation=activation)
    x = torch.randn(2, n, 8)
    order = torch.randperm(n)
    with torch.no_grad():
        assert torch.allclose(ffn(x[:, order]), ffn(x)[:, order], atol=1e-6)
        assert torch.allclose(ffn(x[:, :1]), ffn(x)[:, :1], atol=1e-6)


def test_feed_forward_rejects_bad_input():
    with pytest.raises(ValueError, match=r"expected last dimension 32, got 64"):
        FeedForward(32, 128)(torch.randn(5, 64))
    with pytest.raises(TypeError, match="got ndarray|got list"):
        FeedForward(4, 8)([[1.0] * 4])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"activation": "tanh"},
            ValueError,
            "expected activation as one of 'gelu', 'gelu_tanh', 'relu', 'swiglu', "
            "'geglu', got 'tanh'",
        ),
        ({"d_model": 0}, ValueError, "expected d_model as a positive int, got 0"),
        ({"d_ff": 2.5}, TypeError, "expected d_ff as a positive int, got float 2.5"),
        ({"dropout": 1.0}, ValueError, r"expected dropout in \[0, 1\), got 1.0"),
    ],
)
def test_feed_forward_rejects_bad_arguments(kwargs, error, message):
    arguments = {"d_model": 8, "d_ff": 16, **kwargs}
    with pytest.raises(error, match=message):
        FeedForward(**arguments)


# count_parameters --------------------------------------------------------------------


@pytest.mark.parametrize(
    "module, expected",
    [
        (nn.Linear(3, 5), 20),
        (nn.Linear(3, 5, bias=False), 15),
        (LayerNorm(384), 768),
        (nn.BatchNorm1d(16), 32),  # running statistics are buffers, not parameters
        (nn.MultiheadAttention(64, 4), 4 * 64 * 64 + 4 * 64),
        (FeedForward(64, 256), 2 * 64 * 256 + 256 + 64),
        (FeedForward(64, 170, "swiglu"), 3 * 64 * 170 + 2 * 170 + 64),
        (nn.TransformerEncoderLayer(512, 8, 2048), 3_152_384),
    ],
)
def test_count_parameters_on_known_modules(module, expected):
    assert count_parameters(module) == expected


def test_count_parameters_counts_tied_weights_once_and_skips_frozen_ones():
    tied = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
    tied[1].weight = tied[0].weight
    assert count_parameters(tied) == 40
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    model[0].requires_grad_(False)
    assert count_parameters(model) == 20 + 10
    assert count_parameters(model, trainable_only=True) == 10


def test_count_parameters_rejects_non_modules():
    with pytest.raises(
        TypeError, match="expected module as an nn.Module, got a Tensor"
    ):
        count_parameters(torch.ones(3))


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "relu", "swiglu"])
def test_feed_forward_in_place_inference_equals_autograd_path(activation):
    # Without autograd the activation runs in place; the values must not change.
    torch.manual_seed(0)
    ffn = FeedForward(16, 32, activation=activation)
    x = torch.randn(3, 5, 16)
    with torch.inference_mode():
        inference = ffn(x)
    with torch.no_grad():
        no_grad = ffn(x)
    recorded = ffn(x.clone().requires_grad_())
    recorded.sum().backward()
    assert torch.equal(inference, recorded.detach())
    assert torch.equal(no_grad, recorded.detach())


def test_layer_norm_default_eps_is_pytorchs_and_the_docstring_explains_bert_s():
    # encoderlib keeps PyTorch's 1e-5; BERT checkpoints bring 1e-12 in their config.
    assert LayerNorm(4).eps == nn.LayerNorm(4).eps == 1e-5
    assert nn.TransformerEncoderLayer(8, 2).norm1.eps == 1e-5
    doc = " ".join(LayerNorm.__doc__.split())
    assert "defaults to 1e-5" in doc and "1e-12" in doc and "layer_norm_eps" in doc


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_feed_forward_without_biases(activation):
    torch.manual_seed(2)
    ffn = FeedForward(16, 32, activation=activation, bias=False)
    assert [name for name, _ in ffn.named_parameters() if "bias" in name] == []
    x = torch.randn(3, 16)
    with torch.no_grad():
        torch.testing.assert_close(
            ffn(x), manual_feed_forward(ffn, x), atol=1e-5, rtol=0
        )


def test_layer_norm_without_bias_equals_torchs():
    torch.manual_seed(3)
    ours, theirs = LayerNorm(12, bias=False), nn.LayerNorm(12, bias=False)
    with torch.no_grad():
        ours.weight.normal_()
        theirs.weight.copy_(ours.weight)
    x = torch.randn(4, 12)
    assert ours.bias is None and list(ours.state_dict()) == list(theirs.state_dict())
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-6, rtol=0)
