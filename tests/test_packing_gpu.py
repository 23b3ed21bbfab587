"""The packed path with sentence boundaries (chapter 8), on the CPU and on a GPU.

`Encoder.forward` packs a batch whenever its mask is on the CPU. On a GPU the
attention core then runs `varlen_attention` (FlashAttention or the
memory-efficient kernel, given each sentence's start), RoPE turns each token by
its place in its own sentence, and a local layer's window goes to the kernel.
The GPU tests compare that path with the padded one (the same model given the
mask on the GPU) and count host-device synchronisations; they are skipped
without CUDA. The CPU tests check the pieces the GPU path is built from.
"""

import pytest
import torch

from encoderlib import Encoder, EncoderConfig
from encoderlib.checks import count_host_reads
from encoderlib.embeddings import RotaryEmbedding
from encoderlib.packing import plan_packing, window_bias

CONFIGS = {
    "post-norm, learned positions": EncoderConfig.tiny(norm_first=False, dropout=0.0),
    "ModernBERT-like": EncoderConfig.tiny(
        positional="rope",
        activation="geglu",
        bias=False,
        window=4,
        global_every=2,
        n_layers=3,
        dropout=0.0,
    ),
}


def padded_batch(lengths=(23, 17, 9, 9, 1), seed=0):
    """Token ids and a CPU mask for sentences of `lengths` real tokens."""
    generator = torch.Generator().manual_seed(seed)
    n = max(lengths)
    ids = torch.randint(5, 1000, (len(lengths), n), generator=generator)
    mask = torch.arange(n) < torch.tensor(lengths)[:, None]
    return ids * mask, mask


def test_plan_marks_each_sentence_and_position():
    _, mask = padded_batch((3, 1, 2))  # packed longest first: sentences 0, 2, 1
    plan = plan_packing(mask, torch.device("cpu"))
    assert plan.lengths == [3, 2, 1]
    assert plan.cu_seqlens.tolist() == [0, 3, 5, 6]
    assert plan.positions.tolist() == [0, 1, 2, 0, 1, 0]
    assert plan.index.tolist() == [0, 1, 2, 6, 7, 3]


def test_plan_keeps_a_batch_sorted_as_encode_sorts_it():
    _, mask = padded_batch((3, 2, 2, 1))  # longest first, ties in batch order
    plan = plan_packing(mask, torch.device("cpu"))
    assert plan.index.tolist() == mask.flatten().nonzero().squeeze(1).tolist()
    assert plan.lengths == [3, 2, 2, 1]


def test_an_unsorted_batch_runs_attention_once_per_length(monkeypatch):
    # Sentences of equal length that are not neighbours in the batch still
    # share one fused-attention call: 3 lengths, 2 layers, 6 calls.
    import encoderlib.packing as packing

    calls = []
    sdpa = packing.F.scaled_dot_product_attention

    def counted(q, *args, **kwargs):
        calls.append(tuple(q.shape))
        return sdpa(q, *args, **kwargs)

    monkeypatch.setattr(packing.F, "scaled_dot_product_attention", counted)
    model = Encoder(EncoderConfig.tiny(dropout=0.0)).eval()
    ids, mask = padded_batch((9, 1, 23, 9, 1))
    with torch.no_grad():
        model(ids, mask)
    assert calls == [(1, 4, 23, 16), (2, 4, 9, 16), (2, 4, 1, 16)] * 2


def test_rope_at_given_positions_equals_rope_of_the_padded_rows():
    rope = RotaryEmbedding(d_head=16)
    _, mask = padded_batch((5, 3))
    x = torch.randn(2, 4, 5, 16)  # (b, h, n, e)
    whole = rope.rotate(x)  # positions 0 .. n - 1 in every sentence
    packed = x.permute(1, 0, 2, 3)[:, mask]  # (h, t, e)
    positions = plan_packing(mask, torch.device("cpu")).positions
    torch.testing.assert_close(
        rope.rotate(packed, positions), whole.permute(1, 0, 2, 3)[:, mask]
    )
    with pytest.raises(ValueError, match=r"positions of shape \(n\) = \(8\), got"):
        rope.rotate(packed, positions[:7])


def test_window_bias_hides_keys_beyond_the_window():
    band = window_bias(5, 1, torch.device("cpu"), torch.float32)[0]
    assert torch.isinf(band).sum() == 5 * 5 - (5 + 2 * 4)
    assert band[2, 1] == band[2, 3] == 0.0 and torch.isinf(band[2, 0])


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize(
    "lengths", [(23, 17, 9, 9, 1), (9, 1, 23, 9, 17)], ids=["sorted", "unsorted"]
)
def test_packed_equals_padded_on_the_cpu(name, lengths):
    torch.manual_seed(0)
    model = Encoder(CONFIGS[name]).eval()
    ids, mask = padded_batch(lengths)
    with torch.no_grad():
        packed = model(ids, mask)
        padded = model(ids, mask, output_attentions=True).last_hidden_state
    torch.testing.assert_close(packed, padded, atol=1e-5, rtol=1e-5)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize(
    "lengths",
    [(23, 17, 9, 9, 1), (5, 4, 2), (9, 1, 23, 9, 17)],
    ids=["past the window", "in it", "unsorted"],
)
def test_varlen_path_equals_padded_path_on_cuda(name, dtype, lengths):
    # Sentences inside ModernBERT-like's window (4) take the kernels of global
    # layers in every layer, float32 included; longer ones need the window.
    torch.manual_seed(0)
    model = Encoder(CONFIGS[name]).eval().cuda().to(dtype)
    ids, mask = padded_batch(lengths)
    ids = ids.cuda()
    with torch.no_grad():
        padded = model(ids, mask.cuda())  # mask on the GPU: the padded path
        model(ids, mask)
        with count_host_reads(as_on_a_gpu=False) as reads:
            packed = model(ids, mask)  # mask on the CPU: packed, varlen kernels
    assert [r for r in reads if r.startswith("CUDA")] == []
    tolerance = 1e-5 if dtype == torch.float32 else 2e-2
    torch.testing.assert_close(
        packed.float(), padded.float(), atol=tolerance, rtol=tolerance
    )


@pytest.mark.cuda
@pytest.mark.parametrize("name", CONFIGS)
def test_varlen_path_trains_like_the_padded_path(name):
    torch.manual_seed(0)
    model = Encoder(CONFIGS[name]).cuda()
    ids, mask = padded_batch()
    ids = ids.cuda()
    grads = []
    for given in (mask.cuda(), mask):  # padded path, then the packed one
        model.zero_grad()
        model(ids, given).pow(2).sum().backward()
        grads.append([p.grad.clone() for p in model.parameters() if p.grad is not None])
    for padded, packed in zip(*grads, strict=True):
        torch.testing.assert_close(packed, padded, atol=1e-4, rtol=1e-4)
