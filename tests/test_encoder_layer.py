"""encoderlib.encoder.EncoderLayer (chapter 7): PyTorch parity, properties, errors."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from encoderlib.encoder import Encoder, EncoderConfig, EncoderLayer
from encoderlib.utils import count_parameters

ARRANGEMENTS = [False, True]  # norm_first: post-norm, pre-norm


def torch_layer(
    d_model=32, n_heads=4, d_ff=64, norm_first=False, activation="gelu", dropout=0.1
):
    """A PyTorch encoder layer with non-trivial LayerNorm parameters, in eval mode."""
    layer = nn.TransformerEncoderLayer(
        d_model,
        n_heads,
        dim_feedforward=d_ff,
        dropout=dropout,
        activation=activation,
        batch_first=True,
        norm_first=norm_first,
    )
    with torch.no_grad():
        for norm in (layer.norm1, layer.norm2):
            norm.weight.normal_(1.0, 0.2)
            norm.bias.normal_(0.0, 0.2)
    return layer.eval()


def padding_mask(lengths, n):
    """(b, n) boolean mask, True for the first `length` tokens of each row."""
    return torch.arange(n)[None, :] < torch.tensor(lengths)[:, None]


# Reference: torch.nn.TransformerEncoderLayer -----------------------------------------


@pytest.mark.parametrize("norm_first", ARRANGEMENTS)
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("padded", [False, True], ids=["no-mask", "padding"])
def test_equals_torch_encoder_layer_in_eval_mode(norm_first, activation, padded):
    torch.manual_seed(0)
    theirs = torch_layer(norm_first=norm_first, activation=activation)
    ours = EncoderLayer.from_torch(theirs)
    assert not ours.training and ours.norm_first == norm_first
    x = torch.randn(3, 7, 32)
    mask = padding_mask([7, 4, 1], 7) if padded else None
    with torch.no_grad():
        expected = theirs(x, src_key_padding_mask=None if mask is None else ~mask)
        result = ours(x, mask)
    real = torch.ones(3, 7, dtype=torch.bool) if mask is None else mask
    # PyTorch promises nothing at padding positions: compare real tokens only.
    assert torch.allclose(result[real], expected[real], atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(
    norm_first=st.booleans(),
    activation=st.sampled_from(["relu", "gelu"]),
    n_heads=st.sampled_from([1, 2, 4, 8]),
    lengths=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_equals_torch_for_random_sizes_and_padding(
    norm_first, activation, n_heads, lengths, seed
):
    torch.manual_seed(seed)
    theirs = torch_layer(16, n_heads, 40, norm_first, activation)
    ours = EncoderLayer.from_torch(theirs)
    mask = padding_mask(lengths, max(lengths))
    x = 2 * torch.randn(len(lengths), max(lengths), 16)
    with torch.no_grad():
        expected = theirs(x, src_key_padding_mask=~mask)
        result = ours(x, mask)
    assert torch.allclose(result[mask], expected[mask], atol=1e-5)


@pytest.mark.parametrize("norm_first", ARRANGEMENTS)
def test_gradients_equal_torch_in_train_mode_without_dropout(norm_first):
    torch.manual_seed(1)
    theirs = torch_layer(norm_first=norm_first, dropout=0.0).train()
    ours = EncoderLayer.from_torch(theirs)
    assert ours.training
    x = torch.randn(2, 6, 32)
    mask = padding_mask([6, 3], 6)
    upstream = torch.randn(2, 6, 32)
    x_ours, x_theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    (ours(x_ours, mask) * upstream).sum().backward()
    (theirs(x_theirs, src_key_padding_mask=~mask) * upstream).sum().backward()
    grads = {name: p.grad for name, p in ours.named_parameters()}
    in_proj = torch.cat([grads[f"attn.{p}_proj.weight"] for p in "qkv"])
    in_bias = torch.cat([grads[f"attn.{p}_proj.bias"] for p in "qkv"])
    pairs = [
        (x_ours.grad, x_theirs.grad),
        (in_proj, theirs.self_attn.in_proj_weight.grad),
        (in_bias, theirs.self_attn.in_proj_bias.grad),
        (grads["attn.out_proj.weight"], theirs.self_attn.out_proj.weight.grad),
        (grads["attn.out_proj.bias"], theirs.self_attn.out_proj.bias.grad),
        (grads["ffn.fc1.weight"], theirs.linear1.weight.grad),
        (grads["ffn.fc1.bias"], theirs.linear1.bias.grad),
        (grads["ffn.fc2.weight"], theirs.linear2.weight.grad),
        (grads["ffn.fc2.bias"], theirs.linear2.bias.grad),
        (grads["norm1.weight"], theirs.norm1.weight.grad),
        (grads["norm1.bias"], theirs.norm1.bias.grad),
        (grads["norm2.weight"], theirs.norm2.weight.grad),
        (grads["norm2.bias"], theirs.norm2.bias.grad),
    ]
    for ours_grad, theirs_grad in pairs:
        assert torch.allclose(ours_grad, theirs_grad, atol=1e-5)


def test_from_torch_copies_sizes_and_settings():
    theirs = nn.TransformerEncoderLayer(
        48,
        6,
        dim_feedforward=96,
        dropout=0.2,
        activation="relu",
        layer_norm_eps=1e-12,
        batch_first=True,
        norm_first=True,
    )
    ours = EncoderLayer.from_torch(theirs)
    assert ours.attn.n_heads == 6 and ours.attn.d_model == 48
    assert ours.ffn.d_ff == 96 and ours.ffn.activation == "relu"
    assert ours.norm1.eps == 1e-12 and ours.norm_first
    assert ours.dropout1.p == ours.dropout2.p == ours.attn.dropout == 0.2
    assert ours.training  # a fresh PyTorch layer is in training mode
    assert count_parameters(ours) == count_parameters(theirs)


def test_from_torch_reads_activation_modules():
    exact = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(), batch_first=True)
    tanh = nn.TransformerEncoderLayer(
        8, 2, 16, activation=nn.GELU(approximate="tanh"), batch_first=True
    )
    relu = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.ReLU(), batch_first=True)
    assert EncoderLayer.from_torch(exact).ffn.activation == "gelu"
    assert EncoderLayer.from_torch(tanh).ffn.activation == "gelu_tanh"
    assert EncoderLayer.from_torch(relu).ffn.activation == "relu"


# Structure and dropout ----------------------------------------------------------------


def test_submodules_and_defaults():
    layer = EncoderLayer(64, 4, 256)
    assert layer.norm_first is False and layer.ffn.activation == "gelu"
    assert layer.dropout1.p == layer.dropout2.p == layer.attn.dropout == 0.1
    assert layer.ffn.dropout.p == 0.1 and layer.norm1.eps == 1e-5
    names = {name for name, _ in layer.named_children()}
    assert names == {"attn", "ffn", "norm1", "norm2", "dropout1", "dropout2"}
    assert "norm_first=False" in repr(layer)


@pytest.mark.parametrize("norm_first", ARRANGEMENTS)
def test_forward_is_the_formula_of_its_arrangement(norm_first):
    torch.manual_seed(2)
    layer = EncoderLayer(24, 3, 48, norm_first=norm_first).eval()
    x = torch.randn(2, 5, 24)
    mask = padding_mask([5, 2], 5)
    with torch.no_grad():
        a, f, n1, n2 = layer.attn, layer.ffn, layer.norm1, layer.norm2
        if norm_first:
            h = x + a(n1(x), mask)
            expected = h + f(n2(h))
        else:
            h = n1(x + a(x, mask))
            expected = n2(h + f(h))
        out, weights = layer(x, mask, return_weights=True)
        assert torch.allclose(layer(x, mask), expected, atol=1e-6)
    assert torch.allclose(out, expected, atol=1e-5)
    assert weights.shape == (2, 3, 5, 5)
    assert torch.all(weights[1, :, :, 2:] == 0)  # padding keys get no attention


@pytest.mark.parametrize("norm_first", ARRANGEMENTS)
def test_dropout_only_in_training_mode(norm_first):
    torch.manual_seed(3)
    layer = EncoderLayer(32, 4, 64, dropout=0.3, norm_first=norm_first)
    plain = EncoderLayer(32, 4, 64, dropout=0.0, norm_first=norm_first)
    plain.load_state_dict(layer.state_dict())
    x = torch.randn(2, 8, 32)
    with torch.no_grad():
        layer.eval()
        assert torch.equal(layer(x), layer(x))
        assert torch.allclose(layer(x), plain.eval()(x), atol=1e-6)
        layer.train()
        assert not torch.allclose(layer(x), layer(x))


def test_dropout_acts_in_four_places_at_rate_p():
    torch.manual_seed(4)
    layer = EncoderLayer(64, 4, 256, dropout=0.2).train()
    zeros = {}

    def record(name):
        def hook(module, inputs, output):
            zeros[name] = (output == 0).float().mean().item()

        return hook

    for name in ("dropout1", "dropout2"):
        getattr(layer, name).register_forward_hook(record(name))
    layer.ffn.dropout.register_forward_hook(record("ffn"))
    _, weights = layer(torch.randn(4, 32, 64), return_weights=True)
    zeros["attention"] = (weights == 0).float().mean().item()
    assert set(zeros) == {"dropout1", "dropout2", "ffn", "attention"}
    for name, fraction in zeros.items():
        assert abs(fraction - 0.2) < 0.02, name


class DropoutCalls(torch.overrides.TorchFunctionMode):
    """Counts `F.dropout` calls (an `nn.Dropout` module makes one per call)."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.n += func is F.dropout
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("packed", [False, True], ids=["EncoderLayer", "packed"])
def test_idle_dropout_modules_are_skipped_and_hooked_ones_still_called(packed):
    # Out of training (or at p = 0) a dropout returns its input: the layer skips
    # its three module calls, unless a hook watches one.
    torch.manual_seed(5)
    model = Encoder(
        EncoderConfig(vocab_size=30, d_model=16, n_heads=2, n_layers=1, d_ff=32)
    )
    layer = model.layers[0]
    ids, mask = torch.randint(1, 30, (2, 6)), padding_mask([6, 4], 6)

    def dropout_calls(training: bool) -> int:
        model.train(training)
        with DropoutCalls() as calls:
            model(ids, mask) if packed else layer(torch.randn(2, 6, 16), mask)
        return calls.n

    # The packed count holds the embeddings' dropout, which is always called.
    assert dropout_calls(training=True) == 3 + packed
    assert dropout_calls(training=False) == 0 + packed
    seen = []
    layer.dropout1.register_forward_hook(lambda *_: seen.append("dropout1"))
    layer.ffn.dropout.register_forward_pre_hook(lambda *_: seen.append("ffn"))
    assert dropout_calls(training=False) == 2 + packed
    assert sorted(seen) == ["dropout1", "ffn"]
    for module in layer.modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.0
    seen.clear()
    assert dropout_calls(training=True) == 2 + packed  # p = 0: idle unless hooked


# Properties --------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(
    norm_first=st.booleans(),
    n=st.integers(1, 7),
    with_mask=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_permutation_equivariance_without_positions(norm_first, n, with_mask, seed):
    torch.manual_seed(seed)
    layer = EncoderLayer(16, 2, 32, norm_first=norm_first).eval()
    x = torch.randn(2, n, 16)
    mask = torch.rand(2, n) < 0.7 if with_mask else None
    order = torch.randperm(n)
    with torch.no_grad():
        out = layer(x, mask)
        permuted = layer(x[:, order], None if mask is None else mask[:, order])
    assert torch.allclose(permuted, out[:, order], atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(
    norm_first=st.booleans(),
    lengths=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    extra=st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_appending_padding_does_not_change_real_tokens(
    norm_first, lengths, extra, seed
):
    torch.manual_seed(seed)
    layer = EncoderLayer(16, 4, 32, norm_first=norm_first).eval()
    n = max(lengths)
    x = torch.randn(len(lengths), n, 16)
    mask = padding_mask(lengths, n)
    junk = 10 * torch.randn(len(lengths), extra, 16)  # padding vectors are arbitrary
    x_long = torch.cat([x, junk], dim=1)
    mask_long = torch.cat([mask, torch.zeros(len(lengths), extra, dtype=torch.bool)], 1)
    with torch.no_grad():
        short, long = layer(x, mask), layer(x_long, mask_long)
    assert torch.allclose(long[:, :n][mask], short[mask], atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(norm_first=st.booleans(), n=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_all_padding_rows_give_finite_values_and_gradients(norm_first, n, seed):
    torch.manual_seed(seed)
    layer = EncoderLayer(16, 4, 32, norm_first=norm_first, dropout=0.0)
    x = torch.randn(2, n, 16, requires_grad=True)
    mask = torch.zeros(2, n, dtype=torch.bool)
    mask[0] = True  # the first sequence is all real, the second all padding
    out = layer(x, mask)
    out.sum().backward()
    assert torch.isfinite(out).all() and torch.isfinite(x.grad).all()
    assert all(torch.isfinite(p.grad).all() for p in layer.parameters())
    with torch.no_grad():
        assert torch.allclose(out[0], layer(x[:1], mask[:1])[0], atol=1e-6)


def test_pytorch_gives_nan_where_we_give_finite_values():
    torch.manual_seed(5)
    theirs = torch_layer()
    ours = EncoderLayer.from_torch(theirs)
    x = torch.randn(2, 4, 32)
    mask = torch.tensor([[True, True, False, False], [False] * 4])
    with torch.no_grad():
        assert torch.isnan(theirs(x, src_key_padding_mask=~mask)[1]).all()
        assert torch.isfinite(ours(x, mask)).all()


def test_layer_runs_on_meta_device_for_counting():
    with torch.device("meta"):
        layer = EncoderLayer(384, 12, 1536)
    assert count_parameters(layer) == 1_774_464


# Errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, error, message",
    [
        (
            torch.randn(5, 32),
            ValueError,
            r"expected x of shape \(b, n, 32\), got \(5, 32\)",
        ),
        (
            torch.randn(2, 5, 16),
            ValueError,
            r"expected x of shape \(b, n, 32\), got \(2, 5, 16\)",
        ),
        ([[0.0] * 32], TypeError, "expected x as a torch.Tensor, got list"),
        (torch.ones(2, 5, 32, dtype=torch.long), TypeError, "floating dtype"),
    ],
)
@pytest.mark.parametrize("norm_first", ARRANGEMENTS)
def test_bad_input_names_expected_and_received(x, error, message, norm_first):
    layer = EncoderLayer(32, 4, 64, norm_first=norm_first)
    with pytest.raises(error, match=message):
        layer(x)


def test_bad_mask_is_rejected_clearly():
    layer = EncoderLayer(32, 4, 64)
    x = torch.randn(2, 5, 32)
    with pytest.raises(TypeError, match="expected a boolean mask"):
        layer(x, torch.ones(2, 5, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"expected a mask of shape \(b, n\) = \(2, 5\)"
    ):
        layer(x, torch.ones(2, 7, dtype=torch.bool))


@pytest.mark.parametrize("norm_first", [1, "yes", None, 0.0])
def test_norm_first_must_be_a_bool(norm_first):
    with pytest.raises(TypeError, match="expected norm_first as a bool, got"):
        EncoderLayer(32, 4, 64, norm_first=norm_first)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_heads": 5}, "d_model=32 is not divisible by n_heads=5"),
        ({"activation": "tanh"}, "activation as one of .*, got 'tanh'"),
        ({"dropout": 1.0}, r"expected dropout in \[0, 1\), got 1.0"),
        ({"d_ff": 0}, "expected d_ff as a positive int, got 0"),
        ({"eps": 0.0}, "expected eps > 0, got 0.0"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, message):
    arguments = {"d_model": 32, "n_heads": 4, "d_ff": 64, **kwargs}
    with pytest.raises(ValueError, match=message):
        EncoderLayer(**arguments)


def test_from_torch_rejects_other_modules_and_layouts():
    with pytest.raises(TypeError, match="expected a torch.nn.TransformerEncoderLayer"):
        EncoderLayer.from_torch(nn.Linear(4, 4))
    with pytest.raises(TypeError, match="got EncoderLayer"):
        EncoderLayer.from_torch(EncoderLayer(8, 2, 16))
    sequence_first = nn.TransformerEncoderLayer(8, 2, 16)  # batch_first=False
    with pytest.raises(
        ValueError, match="expected a layer built with batch_first=True"
    ):
        EncoderLayer.from_torch(sequence_first)
    no_bias = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False)
    with pytest.raises(ValueError, match="expected a layer with biases"):
        EncoderLayer.from_torch(no_bias)
    silu = nn.TransformerEncoderLayer(8, 2, 16, activation=F.silu, batch_first=True)
    with pytest.raises(ValueError, match="expected a relu or gelu activation"):
        EncoderLayer.from_torch(silu)


def test_docstring_examples_run():
    import doctest

    import encoderlib.encoder as module

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for obj in (EncoderLayer, EncoderLayer.from_torch):
        # the examples assume `import torch`, as a reader's session has
        for test in finder.find(obj, globs={"torch": torch, **vars(module)}):
            runner.run(test)
    assert runner.tries >= 2 and runner.failures == 0


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_from_torch_keeps_the_dtype_and_the_mode(dtype):
    theirs = torch_layer(norm_first=True).to(dtype).train()
    ours = EncoderLayer.from_torch(theirs)
    assert ours.training and {p.dtype for p in ours.parameters()} == {dtype}
    x = torch.randn(2, 4, 32, dtype=dtype)
    theirs.eval(), ours.eval()
    with torch.no_grad():
        gap = (ours(x) - theirs(x)).abs().max().item()
    assert gap < (1e-12 if dtype == torch.float64 else 1e-5)
