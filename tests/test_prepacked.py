"""Chapter 19's prepacked weights: oneDNN's layout made once, the same products.

`PrepackedWeight` must give `F.linear`'s result to float32 rounding in every
shape a layer meets (2-D, 3-D, no rows, no bias), fall back to plain float32
products under autograd or without a packed copy, keep one join of q, k and v
(made anew after a write into a part), and survive `copy.deepcopy` and
`torch.save`. `prepack_for_cpu` must leave the original model alone and give
MiniLM's vectors to 1e-5 on padded batches of mixed lengths.
"""

import copy
import io

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from encoderlib import Encoder, EncoderConfig, load_minilm
from encoderlib.prepacked import PrepackedWeight, prepack_for_cpu

SENTENCES = [
    "A cat sat on the mat.",
    "",
    "A prepacked weight is laid out once, at load time, not in every product.",
    "Short.",
    " ".join(["A long text is cut at 256 tokens, [CLS] and [SEP] included."] * 40),
    "oneDNN reads the blocked copy without rearranging it.",
]


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    # float32 rounding of sums taken in another order, relative to the sizes
    return bool((a - b).abs().max() <= 1e-5 * (1 + b.abs().max()))


def test_the_product_is_f_linear_to_rounding_in_every_shape():
    torch.manual_seed(0)
    weight, bias = torch.randn(20, 48), torch.randn(20)
    packed = PrepackedWeight(weight)
    assert packed.packed is not None  # the CI machines' PyTorch has oneDNN
    x = torch.randn(9, 48)
    with torch.no_grad():
        assert close(F.linear(x, packed, bias), F.linear(x, weight, bias))
        assert close(F.linear(x, packed), F.linear(x, weight))
        assert F.linear(x[:0], packed, bias).shape == (0, 20)
        three = x.reshape(3, 3, 48)
        assert close(F.linear(three, packed, bias), F.linear(three, weight, bias))
    with torch.inference_mode():
        assert close(F.linear(x, packed, bias), F.linear(x, weight, bias))
    assert torch.equal(packed, weight)  # as a tensor: the same values
    assert type(packed + 0) is torch.Tensor  # other operations: plain tensors


def test_autograd_and_a_missing_packed_copy_fall_back_to_f_linear():
    torch.manual_seed(0)
    weight = torch.randn(6, 8)
    packed = PrepackedWeight(weight)
    x = torch.randn(5, 8, requires_grad=True)
    F.linear(x, packed).sum().backward()  # autograd records: the plain route
    assert torch.allclose(x.grad, weight.sum(dim=0).expand(5, 8))
    packed.packed = None  # as on a PyTorch built without oneDNN
    with torch.no_grad():
        assert torch.equal(F.linear(x, packed), F.linear(x, weight))


def test_a_write_into_the_weight_packs_it_again():
    torch.manual_seed(0)
    packed, x = PrepackedWeight(torch.randn(6, 8)), torch.randn(4, 8)
    with torch.no_grad():
        before = F.linear(x, packed)
        packed.mul_(2)
        assert close(F.linear(x, packed), 2 * before)
        packed.copy_(torch.zeros(6, 8))
        assert F.linear(x, packed).abs().max() == 0


def test_joins_are_kept_and_made_anew_after_a_write():
    torch.manual_seed(0)
    parts = [PrepackedWeight(torch.randn(4, 8)) for _ in range(3)]
    joined = torch.cat(parts)
    assert type(joined) is PrepackedWeight and torch.equal(joined, torch.cat(
        [p.as_subclass(torch.Tensor) for p in parts]
    ))  # fmt: skip
    assert torch.cat(parts) is joined  # kept: not laid out again
    with torch.no_grad():
        parts[1].add_(1.0)
    rejoined = torch.cat(parts)
    assert rejoined is not joined and torch.equal(rejoined[4:8], parts[1])
    mixed = torch.cat([parts[0], torch.randn(4, 8)])
    assert type(mixed) is torch.Tensor and mixed.shape == (8, 8)


def test_copies_pickles_and_other_devices_or_dtypes():
    torch.manual_seed(0)
    packed, x = PrepackedWeight(torch.randn(6, 8)), torch.randn(3, 8)
    twin = copy.deepcopy(packed)
    assert type(twin) is PrepackedWeight and torch.equal(twin, packed)
    assert twin.data_ptr() != packed.data_ptr()
    buffer = io.BytesIO()
    torch.save(packed, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    assert type(loaded) is PrepackedWeight and torch.equal(loaded, packed)
    with torch.no_grad():
        assert close(F.linear(x, loaded), F.linear(x, packed))
    assert type(packed.double()) is torch.Tensor


def test_prepack_for_cpu_gives_minilm_vectors_and_leaves_it_alone():
    minilm = load_minilm()
    prepacked = prepack_for_cpu(minilm)
    assert type(minilm.model.layers[0].attn.q_proj.weight) is nn.Parameter
    linears = [m for m in prepacked.modules() if isinstance(m, nn.Linear)]
    assert len(linears) == 6 * 6
    assert all(type(m.weight) is PrepackedWeight for m in linears)
    ours = minilm.encode(SENTENCES, batch_size=3)  # padded batches: chapter 8's path
    assert (prepacked.encode(SENTENCES, batch_size=3) - ours).abs().max() < 1e-5
    alone = prepacked.encode(["One sentence alone."])  # no padding: the plain path
    assert (alone - minilm.encode(["One sentence alone."])).abs().max() < 1e-5


@pytest.mark.parametrize("norm_first", [False, True])
def test_prepack_for_cpu_on_an_encoder_with_and_without_padding(norm_first):
    torch.manual_seed(0)
    config = EncoderConfig.tiny(norm_first=norm_first)
    encoder = Encoder(config).eval()
    prepacked = prepack_for_cpu(encoder)
    ids = torch.randint(5, config.vocab_size, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.long)
    mask[1, 4:] = 0
    mask[2, 1:] = 0
    with torch.inference_mode():
        for m in (mask, torch.ones_like(mask)):
            assert (prepacked(ids, m) - encoder(ids, m)).abs().max() < 1e-5


def test_a_compiled_prepacked_encoder_multiplies_as_the_compiler_chooses():
    # A tracer sees plain F.linear products (inductor makes its own layout); the
    # prepacked product inside its graph failed to lower under torch.no_grad.
    torch.manual_seed(0)
    encoder = Encoder(EncoderConfig.tiny(n_layers=1)).eval()
    ids = torch.randint(5, encoder.config.vocab_size, (2, 6))
    mask = torch.tensor([[1] * 6, [1] * 3 + [0] * 3])
    torch._dynamo.reset()
    compiled = torch.compile(prepack_for_cpu(encoder), fullgraph=True)
    with torch.no_grad():
        assert close(compiled(ids, mask), encoder(ids, mask))
