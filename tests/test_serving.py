"""Chapter 19's serving module: ONNX export, ONNX Runtime, int8 in both runtimes.

The exported graph must give encoderlib's own vectors (to 1e-5 in fp32, on padded
batches that mix lengths), for a `SentenceEncoder` and for a bare `Encoder`; the
int8 versions must stay within stated bounds of fp32: a cosine bound on every
vector, and, when the STS Benchmark test split is on the machine, a Spearman × 100
within 0.5 points of fp32 on all 1,379 pairs (the bound the chapter quotes).
"""

import copy
import io
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from encoderlib import Encoder, EncoderConfig, load_minilm
from encoderlib.quantization import Int8Weight, quantize_int8
from encoderlib.serving import OnnxSentenceEncoder, export_onnx, quantize_onnx_int8

ROOT = Path(__file__).resolve().parent.parent
STS_FILE = ROOT.parent / "shared/data/stsbenchmark/sts-test.csv"
SENTENCES = [
    "A cat sat on the mat.",
    "",
    "Serving needs one function, called millions of times.",
    "Short.",
    " ".join(["A long text is cut at 256 tokens, [CLS] and [SEP] included."] * 40),
    "ONNX Runtime runs the graph with its own kernels.",
    "Tokens, then vectors, then one vector per sentence.",
]


@pytest.fixture(scope="module")
def minilm():
    return load_minilm()


@pytest.fixture(scope="module")
def onnx_files(minilm, tmp_path_factory):
    folder = tmp_path_factory.mktemp("serving")
    fp32 = export_onnx(minilm, folder / "minilm.onnx")
    return fp32, quantize_onnx_int8(fp32, folder / "minilm-int8.onnx")


def test_onnx_vectors_equal_encoderlib_on_padded_batches(minilm, onnx_files):
    onnx_minilm = OnnxSentenceEncoder(onnx_files[0], minilm.tokenizer)
    for batch_size in (1, 3, 32):  # 3 mixes lengths in every batch
        ours = minilm.encode(SENTENCES, batch_size=batch_size)
        theirs = onnx_minilm.encode(SENTENCES, batch_size=batch_size)
        assert theirs.shape == (7, 384) and theirs.dtype == torch.float32
        assert torch.allclose(theirs, ours, atol=1e-5)
    raw = onnx_minilm.encode(SENTENCES, normalize=False)
    assert torch.allclose(raw, minilm.encode(SENTENCES, normalize=False), atol=1e-5)
    assert onnx_minilm.encode([]).shape == (0, 384)
    assert onnx_minilm.dim == 384


def test_export_keeps_the_modules_modes_and_writes_metadata(minilm, onnx_files):
    import onnx

    model = onnx.load(onnx_files[0], load_external_data=False)
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["encoderlib.output"] == "sentence_embedding"
    assert (
        meta["encoderlib.vocab_size"] == "30522" and meta["encoderlib.max_len"] == "512"
    )
    assert not minilm.model.training  # load_minilm's eval mode, left as it was
    # No node keeps the exporter's notes: they hold this machine's file paths and
    # made the file's size vary between runs.
    assert not any(node.metadata_props for node in model.graph.node)
    assert str(ROOT).encode() not in onnx_files[0].read_bytes()


@pytest.mark.parametrize(
    "changes",
    [
        # Each export takes the exporter 10-25 s, so two cover the paths: pre-norm
        # with a final norm, RoPE as a qk_transform and a window as a score bias;
        # post-norm with T5's learned bias (ALiBi's bias takes the same path).
        dict(positional="rope", window=2, global_every=2),
        dict(positional="t5", norm_first=False),
    ],
    ids=["rope+window", "t5 post-norm"],
)
def test_encoder_export_gives_last_hidden_state(tmp_path, changes):
    import onnxruntime

    torch.manual_seed(0)
    config = EncoderConfig.tiny(max_len=16, dropout=0.1, **changes)
    encoder = Encoder(config)  # training mode
    path = export_onnx(encoder, tmp_path / "tiny.onnx")
    assert encoder.training  # the exporter's eval mode was undone
    session = onnxruntime.InferenceSession(str(path))
    assert [o.name for o in session.get_outputs()] == ["last_hidden_state"]
    encoder.eval()
    for b, n in ((1, 2), (3, 16), (4, 7)):
        ids = torch.randint(0, config.vocab_size, (b, n))
        mask = torch.ones(b, n, dtype=torch.long)
        mask[-1, max(1, n // 2) :] = 0  # the last row padded
        feed = {"input_ids": ids.numpy(), "attention_mask": mask.numpy()}
        theirs = torch.from_numpy(session.run(None, feed)[0])
        with torch.no_grad():
            ours = encoder(ids, mask)  # chapter 8's padding-free path
        assert torch.allclose(theirs, ours, atol=1e-5)
        assert (theirs[mask == 0] == 0).all()


@pytest.mark.parametrize(
    ("pooling", "changes"),
    [
        # RoBERTa's positions counted from pad_token_id + 1 and ELECTRA's narrower
        # embeddings, projected, in one export; max pooling in the other.
        ("cls", dict(position_offset=2, d_embed=16)),
        ("max", dict(norm_first=True)),
    ],
    ids=["cls, offset, projection", "max, pre-norm"],
)
def test_sentence_export_keeps_positions_projection_and_pooling(
    tmp_path, pooling, changes
):
    import onnx

    from encoderlib import SentenceEncoder, WordPieceTokenizer

    words = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]  # RoBERTa's: pad id 1
    tokenizer = WordPieceTokenizer([*words, *(f"w{i}" for i in range(40))])
    pad = {"pad_token_id": tokenizer.pad_token_id}
    config = EncoderConfig.tiny(vocab_size=64, max_len=16, **{**pad, **changes})
    torch.manual_seed(0)
    ours = SentenceEncoder(tokenizer, Encoder(config).eval(), pooling=pooling)
    path = export_onnx(ours, tmp_path / "tiny.onnx")
    meta = {p.key: p.value for p in onnx.load(path).metadata_props}
    usable = config.max_len - config.position_offset
    assert meta["encoderlib.max_len"] == str(usable)
    theirs = OnnxSentenceEncoder(path, tokenizer)  # fewer tokens than the model
    texts = ["w1 w2 w3", "w4", " ".join(f"w{i}" for i in range(usable + 4))]
    for normalize in (True, False):
        expected = ours.encode(texts, batch_size=3, normalize=normalize)
        got = theirs.encode(texts, batch_size=3, normalize=normalize)
        assert (got - expected).abs().max() <= 1e-5


def test_int8_linear_is_the_exact_int8_product():
    torch.manual_seed(0)
    x, weight, bias = torch.randn(9, 48), torch.randn(20, 48), torch.randn(20)
    w8 = Int8Weight(weight)
    s_x = x.abs().amax(dim=1, keepdim=True) / 127
    q_x = torch.round(x / s_x)
    expected = (q_x @ w8.int8.double().T.float()) * s_x * w8.scale.T + bias
    with torch.no_grad():
        assert torch.allclose(F.linear(x, w8, bias), expected, atol=1e-4)
        assert torch.allclose(F.linear(x, w8), expected - bias, atol=1e-4)
        assert F.linear(x[:0], w8, bias).shape == (0, 20)
        assert F.linear(x.reshape(3, 3, 48), w8, bias).shape == (3, 3, 20)
    assert w8.int8.dtype == torch.int8 and w8.int8.abs().amax(dim=1).eq(127).all()
    assert ((weight - w8).abs() <= w8.scale / 2 + 1e-6).all()  # half a step at most
    assert type(w8 + 0) is torch.Tensor  # other operations: plain float tensors


@pytest.mark.parametrize("inputs", [48, 1024, 1536, 3072])
def test_both_integer_products_give_the_same_bits(monkeypatch, inputs):
    # torch._int_mm where it is fast, float32 slices of the same integers where it
    # is not (AVX2 alone): the sums are exact either way, so the outputs are equal.
    # 3,072 inputs (BERT-base's fc2) take three slices.
    from encoderlib import quantization

    torch.manual_seed(0)
    x, weight, bias = torch.randn(7, inputs), torch.randn(16, inputs), torch.randn(16)
    outputs = {}
    for fast in (True, False):
        monkeypatch.setitem(quantization._INT_MM, "fast", fast)
        w8 = Int8Weight(weight)
        assert w8._int8_t.dtype == (torch.int8 if fast else torch.float32)
        with torch.no_grad():
            outputs[fast] = F.linear(x, w8, bias)
    assert torch.equal(outputs[True], outputs[False])
    extreme = torch.full((2, inputs), -127, dtype=torch.int8)  # the largest sums
    right = torch.full((inputs, 3), 127, dtype=torch.int8)
    by_floats = quantization._integer_product(extreme, right.float())
    assert torch.equal(by_floats.long(), torch._int_mm(extreme, right).long())
    assert by_floats.long().eq(-(127**2) * inputs).all()


def test_the_int_mm_timing_decides_once():
    from encoderlib import quantization

    first = quantization._int_mm_is_fast()
    assert quantization._INT_MM == {"fast": first}
    assert quantization._int_mm_is_fast() is first


def test_int8_weight_joins_copies_pickles_and_falls_back_for_autograd():
    torch.manual_seed(0)
    parts = [Int8Weight(torch.randn(4, 8)) for _ in range(3)]
    joined = torch.cat(parts)
    assert type(joined) is Int8Weight and joined.int8.shape == (12, 8)
    assert torch.equal(joined.int8, torch.cat([p.int8 for p in parts]))  # int8: exact
    mixed = torch.cat([parts[0], torch.randn(4, 8)])
    assert type(mixed) is torch.Tensor and mixed.shape == (8, 8)
    twin = copy.deepcopy(parts[0])
    assert type(twin) is Int8Weight and torch.equal(twin.int8, parts[0].int8)
    buffer = io.BytesIO()
    torch.save(parts[0], buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    assert type(loaded) is Int8Weight and torch.equal(loaded.int8, parts[0].int8)
    x = torch.randn(5, 8, requires_grad=True)
    y = F.linear(x, parts[0])  # autograd records: the float route, with gradients
    y.sum().backward()
    assert torch.allclose(x.grad, parts[0].sum(dim=0).expand(5, 8).detach())


def test_an_int8_copy_computes_with_the_weights_written_into_it():
    # load_state_dict and in-place writes change the float view; the int8 values
    # must follow, on the padded path and the packed one (joined q, k, v).
    torch.manual_seed(0)
    first = Encoder(EncoderConfig.tiny(vocab_size=50)).eval()
    second = copy.deepcopy(first)
    with torch.no_grad():
        for p in second.parameters():
            p.add_(0.05 * torch.randn_like(p))
    ids = torch.randint(5, 50, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.long)
    mask[2, 4:] = 0  # padding: the packed path
    ours, theirs = quantize_int8(first), quantize_int8(second)
    with torch.no_grad():
        ours(ids, mask), ours(ids)  # the int8 values and joins, made and kept
        ours.load_state_dict(theirs.state_dict())
        for m in (mask, None):
            assert torch.equal(ours(ids, m), theirs(ids, m))
        ours.layers[0].ffn.fc1.weight.mul_(0)
        second.layers[0].ffn.fc1.weight.mul_(0)
        expected = quantize_int8(second)(ids, mask)
        assert torch.equal(ours(ids, mask), expected)
        assert torch.equal(copy.deepcopy(ours)(ids, mask), expected)


def test_quantize_int8_changes_weights_not_modules(minilm):
    quantized = quantize_int8(minilm)
    assert type(minilm.model.layers[0].attn.q_proj.weight) is nn.Parameter
    linears = [m for m in quantized.modules() if isinstance(m, nn.Linear)]
    assert len(linears) == 6 * 6 and all(type(m.weight) is Int8Weight for m in linears)
    ours = minilm.encode(SENTENCES, batch_size=3)
    int8 = quantized.encode(SENTENCES, batch_size=3)
    assert (int8 * ours).sum(dim=1).min() > 0.98  # the bound the chapter states
    # Without padding the layers take the padded path (three projections, not a
    # joined weight); both paths must run int8 and agree.
    same = quantized.encode(["One sentence alone."])
    assert (same * minilm.encode(["One sentence alone."])).sum() > 0.98


def test_quantize_int8_on_any_module_with_tied_weights():
    torch.manual_seed(0)
    embedding = nn.Embedding(10, 6)
    head = nn.Linear(6, 10, bias=False)
    head.weight = embedding.weight  # tied, as an MLM decoder is
    model = nn.Sequential(nn.Linear(6, 6), nn.GELU(), head)
    quantized = quantize_int8(model)
    assert type(quantized[2].weight) is Int8Weight
    with torch.no_grad():
        x = torch.randn(3, 6)
        assert torch.allclose(quantized(x), model(x), atol=0.05)
    assert type(model[2].weight) is nn.Parameter  # the original keeps its tie


def test_onnx_int8_stays_close_to_fp32(minilm, onnx_files):
    quantized = OnnxSentenceEncoder(onnx_files[1], minilm.tokenizer)
    int8 = quantized.encode(SENTENCES, batch_size=3)
    assert (int8 * minilm.encode(SENTENCES)).sum(dim=1).min() > 0.95
    assert onnx_files[1].stat().st_size < 0.7 * onnx_files[0].stat().st_size


@pytest.mark.skipif(
    not STS_FILE.is_file(),
    reason="the STS Benchmark file of ../shared/data is not on this machine",
)
def test_int8_sts_benchmark_within_half_a_point_of_fp32(minilm, onnx_files):
    from encoderlib import load_sts_benchmark, sts_spearman

    sts = load_sts_benchmark(STS_FILE)
    # fp32 scores 82.03, encoderlib and Hugging Face alike, as
    # benchmarks/minilm_speed.py measures it; encoding the 2,758 sentences once
    # more in fp32 would cost this test half a minute.
    fp32 = 82.03
    for int8 in (
        quantize_int8(minilm),
        OnnxSentenceEncoder(onnx_files[1], minilm.tokenizer),
    ):
        score = sts_spearman(int8.encode, sts.first, sts.second, sts.scores)
        assert abs(score - fp32) < 0.5, (type(int8).__name__, score, fp32)


def test_providers_default_to_cuda_where_offered_then_the_cpu(
    minilm, onnx_files, monkeypatch
):
    import onnxruntime

    session = OnnxSentenceEncoder(onnx_files[0], minilm.tokenizer)
    offered = onnxruntime.get_available_providers()
    expected = [
        name
        for name in ("CUDAExecutionProvider", "CPUExecutionProvider")
        if name in offered
    ]
    assert session.providers == expected
    chosen = OnnxSentenceEncoder(
        onnx_files[0], minilm.tokenizer, providers=("CPUExecutionProvider",)
    )
    assert chosen.providers == ["CPUExecutionProvider"]
    assert torch.allclose(
        chosen.encode(SENTENCES[:3]), session.encode(SENTENCES[:3]), atol=1e-5
    )

    # Where onnxruntime-gpu offers CUDA, None asks for it first.
    asked = []

    class Stop(Exception):
        pass

    def fake_session(path, options, providers):
        asked.append(providers)
        raise Stop

    monkeypatch.setattr(
        onnxruntime,
        "get_available_providers",
        lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"],
    )
    monkeypatch.setattr(onnxruntime, "InferenceSession", fake_session)
    with pytest.raises(Stop):
        OnnxSentenceEncoder(onnx_files[0], minilm.tokenizer)
    assert asked == [["CUDAExecutionProvider", "CPUExecutionProvider"]]
