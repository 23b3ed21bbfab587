"""`GraphedEncoder` (chapter 19): an encoder's forward replayed from CUDA graphs.

A graph replays the padded path on a batch padded to a bucket, so two things
must hold: padding to the bucket leaves the real tokens' states as they were
(checked here on the CPU, on the padded path a GPU takes), and a replay gives
the eager forward's result, also after other buckets were captured and after a
longer batch left its values in the buffers (checked on a GPU; skipped
without CUDA). Off the GPU, in training or with autograd on, the wrapper is the
encoder itself. `GraphedSentenceEncoder` is `SentenceEncoder.encode` with each
batch's forward through a `GraphedEncoder`: on the CPU the same vectors bit for
bit, the weights listed once and the same folder saved; on a GPU the vectors of
the eager `encode`, replayed, with no more waits.
"""

import pytest
import torch
from test_encode_options import TEXTS, sentence_encoder  # a tiny BERT, its texts
from test_packing_gpu import CONFIGS  # post-norm BERT-like and ModernBERT-like

from encoderlib import Encoder, GraphedEncoder, GraphedSentenceEncoder
from encoderlib.checks import count_host_reads
from encoderlib.sentence import SentenceEncoder, load_minilm


def batch(lengths, seed=0, vocab=1000):
    """Token ids and a bool mask for sentences of `lengths` real tokens."""
    generator = torch.Generator().manual_seed(seed)
    n = max(lengths)
    ids = torch.randint(5, vocab, (len(lengths), n), generator=generator)
    mask = torch.arange(n) < torch.tensor(lengths)[:, None]
    return ids * mask, mask


def model(name, device="cpu", dtype=torch.float32):
    torch.manual_seed(0)
    return Encoder(CONFIGS[name]).to(device, dtype).eval()


def test_buckets_round_rows_to_powers_of_two_and_tokens_to_the_step():
    graphed = GraphedEncoder(model("post-norm, learned positions"), step=8)
    usable = graphed.config.max_len - graphed.config.position_offset
    assert graphed.bucket(1, 1) == (1, 8)
    assert graphed.bucket(3, 17) == (4, 24)
    assert graphed.bucket(32, 16) == (32, 16)
    assert graphed.bucket(33, 16) == (64, 16)
    assert graphed.bucket(2, usable - 1) == (2, usable)  # never past the positions


@pytest.mark.parametrize("name", CONFIGS)
def test_off_the_gpu_it_is_the_encoder(name):
    encoder = model(name)
    graphed = GraphedEncoder(encoder)
    ids, mask = batch((7, 3, 5))
    with torch.inference_mode():
        assert torch.equal(graphed(ids, mask), encoder(ids, mask))
    assert not graphed.replays(ids) and graphed.graphs == {}


@pytest.mark.parametrize("name", CONFIGS)
def test_padding_to_the_bucket_leaves_the_real_tokens_as_they_were(name):
    # What a replay computes, on the CPU: the padded path (the mask as on a GPU)
    # on the batch padded to its bucket, cut back to the real rows and tokens.
    encoder = model(name)
    graphed = GraphedEncoder(encoder)
    ids, mask = batch((11, 3, 6))
    rows, cols = graphed.bucket(*ids.shape)
    big_ids = torch.zeros(rows, cols, dtype=ids.dtype)
    big_mask = torch.zeros(rows, cols, dtype=torch.bool)
    big_ids[:3, :11], big_mask[:3, :11] = ids, mask
    with torch.inference_mode(), count_host_reads(as_on_a_gpu=True):
        whole = encoder(big_ids, big_mask)
        plain = encoder(ids, mask)
    torch.testing.assert_close(whole[:3, :11], plain, atol=1e-5, rtol=1e-5)
    assert not whole[3:].any()  # rows of padding alone: zeros, not NaN


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", CONFIGS)
def test_a_replay_gives_the_eager_forward(name, dtype):
    encoder = model(name, "cuda", dtype)
    graphed = GraphedEncoder(encoder)
    batches = [batch((20, 13, 2)), batch((5, 4)), batch((9, 9, 9, 1), seed=1)]
    tolerance = {"atol": 1e-5, "rtol": 1e-5}  # float32; bfloat16: its rounding
    if dtype == torch.bfloat16:
        tolerance = {"atol": 5e-2, "rtol": 5e-2}
    with torch.inference_mode():
        for _ in range(2):  # the second round replays graphs captured before
            for ids, mask in batches:
                ids_gpu, mask_gpu = ids.cuda(), mask.cuda()
                replayed = graphed(ids_gpu, mask)  # the mask on the host
                on_device = graphed(ids_gpu, mask_gpu)  # or on the GPU
                eager = encoder(ids_gpu, mask)
                torch.testing.assert_close(replayed, eager, **tolerance)
                torch.testing.assert_close(on_device, eager, **tolerance)
        shorter = batch((18, 3, 2), seed=2)  # the bucket the (20, 13, 2) batch filled
        ids = shorter[0].cuda()
        assert graphed.bucket(*ids.shape) == graphed.bucket(3, 20) == (4, 32)
        torch.testing.assert_close(
            graphed(ids, shorter[1]), encoder(ids, shorter[1]), **tolerance
        )
    assert len(graphed.graphs) == 3  # buckets (4, 32), (2, 16), (4, 16)


@pytest.mark.cuda
def test_replays_wait_for_nothing_and_moving_the_encoder_recaptures():
    encoder = model("post-norm, learned positions", "cuda")
    graphed = GraphedEncoder(encoder)
    ids, mask = (t.cuda() for t in batch((6, 4)))
    with torch.inference_mode():
        graphed(ids, mask)  # capture
        torch.cuda.set_sync_debug_mode("error")
        try:
            out = graphed(ids, mask)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        assert len(graphed.graphs) == 1
        graphed.to(torch.bfloat16)
        half = graphed(ids, mask)
    assert half.dtype == torch.bfloat16 and len(graphed.graphs) == 1
    torch.testing.assert_close(half.float(), out, atol=0.1, rtol=0.1)
    with torch.no_grad():  # not inference mode: a plain tensor comes back
        plain = graphed(ids, None)
    assert not plain.is_inference() and plain.shape == (2, 6, 64)


@pytest.mark.cuda
def test_training_and_autograd_call_the_encoder():
    graphed = GraphedEncoder(model("post-norm, learned positions", "cuda"))
    ids, mask = (t.cuda() for t in batch((6, 4)))
    out = graphed(ids, mask)  # autograd on
    assert out.requires_grad and graphed.graphs == {}
    graphed.train()
    with torch.inference_mode():
        graphed(ids, mask)
    assert graphed.graphs == {}


def test_graphed_encode_off_the_gpu_is_encode(tmp_path):
    plain = sentence_encoder()
    plain.pooling, plain.normalize = "max", False  # settings are carried over
    fast = GraphedSentenceEncoder(plain, step=8)
    assert fast.model is plain.model and fast.graphed.encoder is plain.model
    assert (fast.pooling, fast.normalize, fast.max_length) == ("max", False, 64)
    for batch_size in (1, 2, 32):
        expected = plain.encode(TEXTS, batch_size=batch_size)
        assert torch.equal(fast.encode(TEXTS, batch_size=batch_size), expected)
    assert fast.graphed.graphs == {} and fast.graphed.step == 8
    # The wrapper is no submodule: each weight once, the same folder saved.
    assert fast.state_dict().keys() == plain.state_dict().keys()
    assert len(list(fast.parameters())) == len(list(plain.parameters()))
    assert "graphed" not in dict(fast.named_children())
    back = load_minilm(fast.save_pretrained(tmp_path / "fast"))
    assert torch.equal(back.encode(TEXTS), plain.encode(TEXTS))


def test_a_copy_or_a_pickle_leaves_the_graphs_behind():
    # Captured graphs hold CUDA memory that neither copy nor pickle can take; a
    # stand-in that cannot be pickled takes their place off the GPU.
    import copy
    import pickle

    fast = GraphedSentenceEncoder(sentence_encoder(), step=8)
    fast.graphed.graphs[(4, 16, False)] = (lambda: None,)
    fast.graphed.pool, fast.graphed.weights = object(), (1, torch.float32)
    for twin in (copy.deepcopy(fast), pickle.loads(pickle.dumps(fast))):
        assert twin.graphed.graphs == {} and twin.graphed.pool is None
        assert twin.graphed.encoder is twin.model is not fast.model
        assert twin.graphed.step == 8
        assert torch.equal(twin.encode(TEXTS), fast.encode(TEXTS))
    assert len(fast.graphed.graphs) == 1  # the original keeps its own


@pytest.mark.cuda
def test_a_copy_captures_its_own_graphs():
    import copy

    graphed = GraphedEncoder(model("post-norm, learned positions", "cuda"))
    ids, mask = (t.cuda() for t in batch((6, 4)))
    with torch.inference_mode():
        out = graphed(ids, mask)  # capture
        twin = copy.deepcopy(graphed)
        assert twin.graphs == {}
        torch.testing.assert_close(twin(ids, mask), out, atol=1e-5, rtol=1e-5)
    assert len(twin.graphs) == 1 and len(graphed.graphs) == 1


def test_encode_runs_every_batch_through_run_model():
    calls = []

    class Counting(SentenceEncoder):
        def run_model(self, input_ids, attention_mask):
            calls.append(tuple(input_ids.shape))
            return super().run_model(input_ids, attention_mask)

    plain = sentence_encoder()
    counting = Counting(plain.tokenizer, plain.model, max_length=64)
    assert torch.equal(counting.encode(TEXTS, batch_size=2), plain.encode(TEXTS, 2))
    assert len(calls) == 3 and [b for b, _ in calls] == [2, 2, 1]


@pytest.mark.cuda
def test_graphed_encode_on_cuda_gives_the_eager_vectors_and_waits_no_more():
    plain = sentence_encoder().to("cuda")
    fast = GraphedSentenceEncoder(plain)
    for batch_size in (1, 3):
        eager = plain.encode(TEXTS, batch_size=batch_size)
        replayed = fast.encode(TEXTS, batch_size=batch_size)  # captures
        again = fast.encode(TEXTS, batch_size=batch_size)  # replays
        torch.testing.assert_close(replayed, eager, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(again, eager, atol=1e-5, rtol=1e-5)
    assert fast.graphed.graphs  # it replayed, not only fell back
    waits = {}
    for name, encoder in (("eager", plain), ("graphed", fast)):
        with count_host_reads(as_on_a_gpu=False) as reads:
            encoder.encode(TEXTS, batch_size=2).cpu()
        waits[name] = [r for r in reads if r.startswith("CUDA")]
    assert len(waits["graphed"]) <= len(waits["eager"]), waits
    # Autocast is not replayed: the eager forward under it, the same vectors.
    captured = len(fast.graphed.graphs)
    torch.testing.assert_close(
        fast.encode(TEXTS, precision="bfloat16"),
        plain.encode(TEXTS, precision="bfloat16"),
    )
    assert len(fast.graphed.graphs) == captured
    plain.model.to(torch.bfloat16)  # a 16-bit model: graphs in bf16, captured anew
    half = fast.encode(TEXTS, batch_size=3)
    assert half.dtype == torch.float32 and len(fast.graphed.graphs) >= 1
    assert (half - eager).abs().max() < 0.05
