"""Chapter 4's kernel choice: `linear` is `F.linear` on either matrix library.

`linear` must give `F.linear`'s product to float32 rounding on oneDNN and bit
for bit on "torch", in every shape a layer meets (2-D, 3-D, strided, no rows,
no bias); send a product to oneDNN only in inference on plain float32 CPU
tensors (never under autograd, never for chapter 19's int8 and prepacked
weights); and `Linear` must stay an `nn.Linear` in everything but its kernel.
An encoder gives the same outputs on both kernels, on the padded and the
padding-free path, and choosing the kernel draws no random number.
"""

import os

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile

from encoderlib import Encoder, EncoderConfig, kernels
from encoderlib.kernels import Linear, cpu_linear_kernel, linear, set_cpu_linear_kernel
from encoderlib.prepacked import PrepackedWeight
from encoderlib.quantization import Int8Weight

ONEDNN = kernels._onednn_works()
needs_onednn = pytest.mark.skipif(not ONEDNN, reason="this PyTorch has no oneDNN")


@pytest.fixture(autouse=True)
def auto_kernel(monkeypatch):
    # Every product of these small tests counts as large enough for oneDNN, except
    # in the test of the threshold itself.
    monkeypatch.setattr(kernels, "ONEDNN_MIN_WORK", 0)
    yield
    set_cpu_linear_kernel("auto")


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    # float32 rounding of sums taken in another order, relative to the sizes
    if b.numel() == 0:
        return a.shape == b.shape
    return bool((a - b).abs().max() <= 1e-5 * (1 + b.abs().max()))


def kernel_ops(call) -> set[str]:
    """The linear maps' operators `call()` runs: F.linear's, oneDNN's, or both."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        call()
    names = {event.key for event in prof.key_averages()}
    return names & {"aten::linear", "mkldnn::_linear_pointwise"}


def shapes() -> dict[str, tuple]:
    torch.manual_seed(0)
    weight, bias = torch.randn(20, 48), torch.randn(20)
    return {
        "2-D": (torch.randn(7, 48), weight, bias),
        "3-D": (torch.randn(2, 5, 48), weight, bias),
        "strided": (torch.randn(48, 7).t(), weight, bias),
        "no rows": (torch.randn(0, 48), weight, bias),
        "no bias": (torch.randn(7, 48), weight, None),
        "a view of rows": (torch.randn(7, 48), torch.randn(60, 48)[20:40], bias),
    }


@needs_onednn
@pytest.mark.parametrize("case", list(shapes()))
def test_onednn_gives_f_linear_to_rounding_and_torch_bit_for_bit(case):
    x, weight, bias = shapes()[case]
    expected = F.linear(x, weight, bias)
    for kernel in ("onednn", "torch"):
        set_cpu_linear_kernel(kernel)
        with torch.inference_mode():
            got = linear(x, weight, bias)
        assert got.shape == expected.shape
        assert close(got, expected)
        if kernel == "torch":
            assert torch.equal(got, expected)


@needs_onednn
def test_only_plain_float32_inference_products_go_to_onednn():
    set_cpu_linear_kernel("onednn")
    torch.manual_seed(0)
    layer = Linear(16, 8)
    x = torch.randn(4, 16)
    with torch.inference_mode():
        assert kernel_ops(lambda: layer(x)) == {"mkldnn::_linear_pointwise"}
    with torch.no_grad():
        assert kernel_ops(lambda: layer(x)) == {"mkldnn::_linear_pointwise"}
    # Autograd records: F.linear, and the gradients arrive.
    assert kernel_ops(lambda: layer(x)) == {"aten::linear"}
    layer(x).sum().backward()
    assert layer.weight.grad is not None
    with torch.inference_mode():  # float64 and bfloat16 stay with F.linear
        assert "mkldnn::_linear_pointwise" not in kernel_ops(
            lambda: Linear(16, 8).double()(x.double())
        )
    set_cpu_linear_kernel("torch")
    with torch.inference_mode():
        assert kernel_ops(lambda: layer(x)) == {"aten::linear"}


@needs_onednn
def test_products_below_the_threshold_stay_with_f_linear(monkeypatch):
    monkeypatch.setattr(kernels, "ONEDNN_MIN_WORK", 16 * 8 * 4)
    set_cpu_linear_kernel("onednn")
    layer = Linear(16, 8)
    with torch.inference_mode():
        assert kernel_ops(lambda: layer(torch.randn(3, 16))) == {"aten::linear"}
        assert kernel_ops(lambda: layer(torch.randn(4, 16))) == {
            "mkldnn::_linear_pointwise"
        }


@needs_onednn
def test_int8_and_prepacked_weights_keep_their_own_products():
    set_cpu_linear_kernel("onednn")
    torch.manual_seed(0)
    weight, bias, x = torch.randn(8, 16), torch.randn(8), torch.randn(4, 16)
    with torch.inference_mode():
        for special in (PrepackedWeight(weight), Int8Weight(weight)):
            assert torch.equal(linear(x, special, bias), F.linear(x, special, bias))


def test_linear_is_an_nn_linear_in_all_but_its_kernel():
    torch.manual_seed(0)
    ours = Linear(6, 4)
    theirs = nn.Linear(6, 4)
    theirs.load_state_dict(ours.state_dict())
    assert isinstance(ours, nn.Linear)
    assert (
        repr(ours) == repr(theirs) == "Linear(in_features=6, out_features=4, bias=True)"
    )
    assert list(ours.state_dict()) == ["weight", "bias"]
    seen = []
    ours.register_forward_hook(lambda module, inputs, output: seen.append(output))
    x = torch.randn(3, 6)
    with torch.inference_mode():
        out = ours(x)
        assert close(out, theirs(x))
    assert len(seen) == 1 and seen[0] is out


@needs_onednn
@pytest.mark.parametrize("kind", ["bert", "modernbert"])
def test_an_encoder_gives_the_same_outputs_on_both_kernels(kind):
    torch.manual_seed(0)
    options = dict(
        vocab_size=60, d_model=32, n_heads=4, n_layers=2, d_ff=48, max_len=24
    )
    if kind == "modernbert":
        options.update(
            norm_first=True,
            positional="rope",
            activation="geglu",
            bias=False,
            window=4,
            global_every=2,
        )
    encoder = Encoder(EncoderConfig(**options)).eval()
    ids = torch.randint(0, 60, (3, 10))
    padded = torch.ones(3, 10, dtype=torch.bool)  # one batch takes the padded path
    mask = padded.clone()
    mask[1, 6:], mask[2, 2:] = False, False  # the other the padding-free one
    outputs = {}
    for kernel in ("torch", "onednn"):
        set_cpu_linear_kernel(kernel)
        with torch.inference_mode():
            outputs[kernel] = (encoder(ids, padded), encoder(ids, mask))
        if kernel == "onednn":
            with torch.inference_mode():
                ops = kernel_ops(lambda: encoder(ids, mask))
            assert ops == {"mkldnn::_linear_pointwise"}
    for a, b in zip(outputs["torch"], outputs["onednn"], strict=True):
        assert close(a, b)


def test_the_auto_choice_reads_no_random_number():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    kernels._mkl_runs_generic_code()  # the probe that import ran
    assert torch.equal(torch.rand(3), expected)


def test_auto_means_onednn_only_on_avx512_cpus_not_made_by_intel(monkeypatch):
    decided = kernels._mkl_runs_generic_code()
    assert cpu_linear_kernel() == ("onednn" if decided else "torch")
    vendor = open("/proc/cpuinfo").read() if os.path.isfile("/proc/cpuinfo") else ""
    if "GenuineIntel" in vendor or not ONEDNN:
        assert not decided
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert not kernels._mkl_runs_generic_code()  # MKL runs AVX2 well on every vendor
    set_cpu_linear_kernel("torch")
    assert cpu_linear_kernel() == "torch"
    if ONEDNN:
        set_cpu_linear_kernel("onednn")
        assert cpu_linear_kernel() == "onednn"
