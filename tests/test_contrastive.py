"""encoderlib.contrastive (InfoNCE, SimCSE, alignment, uniformity, Spearman) and
encoderlib.loading.load_sts_benchmark."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

import encoderlib.loading
from encoderlib.attention import MultiHeadAttention
from encoderlib.contrastive import (
    PairCollator,
    alignment,
    info_nce_loss,
    sentence_embeddings,
    set_dropout,
    spearman_correlation,
    sts_spearman,
    supervised_simcse_loss,
    uniformity,
    unsupervised_simcse_loss,
)
from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.loading import STSPairs, load_sts_benchmark


def multiple_negatives_ranking_loss():
    """sentence-transformers' loss class (its module moved in version 6)."""
    try:
        from sentence_transformers.sentence_transformer.losses import (
            MultipleNegativesRankingLoss,
        )
    except ImportError:
        from sentence_transformers.losses import MultipleNegativesRankingLoss
    return MultipleNegativesRankingLoss


def vectors(seed: int, *sizes: int, d: int = 32, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(n, d, generator=generator, dtype=dtype) for n in sizes]


# ---------------------------------------------------------------- InfoNCE


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("temperature", [0.01, 0.05, 0.2, 1.0])
@pytest.mark.parametrize("hard_negatives", [0, 5, 16])
def test_info_nce_equals_multiple_negatives_ranking_loss(temperature, hard_negatives):
    queries, keys, negatives = vectors(0, 16, 16, max(hard_negatives, 1))
    reference = multiple_negatives_ranking_loss()(model=None, scale=1 / temperature)
    ours_in = [t.clone().requires_grad_() for t in (queries, keys, negatives)]
    theirs_in = [t.clone().requires_grad_() for t in (queries, keys, negatives)]
    extra = ours_in[2] if hard_negatives else None
    ours = info_nce_loss(ours_in[0], ours_in[1], temperature, extra)
    columns = theirs_in if hard_negatives else theirs_in[:2]
    theirs = reference.compute_loss_from_embeddings(columns, None)
    assert abs(ours.item() - theirs.item()) < 1e-6
    ours.backward()
    theirs.backward()
    for a, b in zip(ours_in, theirs_in, strict=True):
        if b.grad is None:
            assert a.grad is None
        else:
            assert torch.allclose(a.grad, b.grad, atol=1e-10)


def test_info_nce_equals_the_formula_in_float32():
    queries, keys, negatives = vectors(1, 8, 8, 3, dtype=torch.float32)
    for extra in (None, negatives):
        candidates = keys if extra is None else torch.cat([keys, extra])
        cosines = F.cosine_similarity(
            queries.double()[:, None], candidates.double()[None], dim=-1
        )
        logits = cosines / 0.1
        expected = (logits.logsumexp(1) - logits.diagonal()).mean()
        assert abs(info_nce_loss(queries, keys, 0.1, extra) - expected) < 1e-5


def test_perfectly_aligned_orthogonal_pairs_give_a_loss_near_zero():
    basis = torch.eye(8, dtype=torch.float64)  # 8 orthogonal unit vectors
    assert info_nce_loss(basis, basis, temperature=0.01) < 1e-30
    # at τ = 1 the same pairs still cost something: log(e + 7) - 1
    assert abs(info_nce_loss(basis, basis, 1.0) - (math.log(math.e + 7) - 1)) < 1e-12


def test_collapsed_keys_give_log_b_at_any_temperature():
    queries, one = vectors(2, 6, 1)
    for temperature in (0.01, 0.05, 1.0):
        loss = info_nce_loss(queries, one.repeat(6, 1), temperature)
        assert abs(loss - math.log(6)) < 1e-9


@settings(max_examples=40, deadline=None)
@given(
    b=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    temperature=st.floats(0.02, 2.0),
    scale=st.floats(0.1, 10.0),
)
def test_info_nce_ignores_batch_order_and_vector_length(b, seed, temperature, scale):
    queries, keys, negatives = vectors(seed, b, b, 3, d=8)
    loss = info_nce_loss(queries, keys, temperature, negatives)
    order = torch.randperm(b, generator=torch.Generator().manual_seed(seed))
    permuted = info_nce_loss(queries[order], keys[order], temperature, negatives)
    stretched = info_nce_loss(scale * queries, keys / scale, temperature, negatives)
    assert abs(loss - permuted) < 1e-9
    assert abs(loss - stretched) < 1e-9
    assert loss >= 0


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: info_nce_loss(torch.randn(4, 8), torch.randn(5, 8)), ValueError,
         r"expected keys of shape \(4, 8\), one per query, got \(5, 8\)"),
        (lambda: info_nce_loss(torch.randn(4, 8), torch.randn(4, 6)), ValueError,
         r"expected keys of shape \(b, d\) = \(\*, 8\), got \(4, 6\)"),
        (lambda: info_nce_loss(torch.randn(2, 4, 8), torch.randn(2, 4, 8)),
         ValueError, r"queries of shape \(b, d\) = \(\*, \*\), got \(2, 4, 8\)"),
        (lambda: info_nce_loss(torch.randn(4, 8), torch.randn(4, 8), 0.0),
         ValueError, r"expected temperature > 0, got 0.0"),
        (lambda: info_nce_loss(torch.randn(4, 8), torch.randn(4, 8), "hot"),
         TypeError, r"expected temperature as a float, got str 'hot'"),
        (lambda: info_nce_loss(torch.randn(4, 8), torch.randn(4, 8), 0.05,
                               torch.randn(3, 7)),
         ValueError, r"expected negatives of shape \(b, d\) = \(\*, 8\), got \(3, 7\)"),
        (lambda: info_nce_loss([[1.0]], torch.randn(1, 1)), TypeError,
         r"expected queries as a torch.Tensor, got list"),
        (lambda: info_nce_loss(torch.ones(2, 3, dtype=torch.long),
                               torch.ones(2, 3)), TypeError,
         r"expected queries with a floating dtype, got torch.int64"),
    ],
)  # fmt: skip
def test_info_nce_errors_name_expected_and_received(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ------------------------------------------------- alignment and uniformity


def align_loss_paper(x, y, alpha=2):  # Wang & Isola (2020, arXiv:2005.10242)
    return (x - y).norm(p=2, dim=1).pow(alpha).mean()


def uniform_loss_paper(x, t=2):  # Wang & Isola (2020, arXiv:2005.10242)
    return torch.pdist(x, p=2).pow(2).mul(-t).exp().mean().log()


@pytest.mark.parametrize("alpha", [1, 2, 3])
@pytest.mark.parametrize("t", [1, 2, 5])
def test_alignment_and_uniformity_equal_the_papers_code(alpha, t):
    x, y = (F.normalize(v, dim=-1) for v in vectors(3, 100, 100))
    assert abs(alignment(x, y, alpha) - align_loss_paper(x, y, alpha)) < 1e-10
    assert abs(uniformity(x, t) - uniform_loss_paper(x, t)) < 1e-10


def test_alignment_and_uniformity_work_on_the_sphere_whatever_the_length():
    x, y = vectors(4, 50, 50)
    unit_x, unit_y = F.normalize(x, dim=-1), F.normalize(y, dim=-1)
    assert abs(alignment(3 * x, y) - alignment(unit_x, unit_y)) < 1e-12
    assert abs(uniformity(5 * x) - uniformity(unit_x)) < 1e-12
    assert alignment(x, x) < 1e-20
    assert abs(alignment(x, -x) - 4) < 1e-12  # antipodal pairs: 2^alpha


def test_uniformity_of_a_uniform_sample_beats_a_cone_beats_a_collapse():
    d = 64
    (sample,), (direction,), (noise,) = (vectors(5, 1500, d=d), vectors(6, 1, d=d),
                                         vectors(7, 1500, d=d))  # fmt: skip
    uniform_sample = F.normalize(sample, dim=-1)
    cone = F.normalize(direction, dim=-1) + 0.15 * noise / math.sqrt(d)
    collapsed = direction.repeat(1500, 1)
    # log E exp(-2 |x - y|^2) for two independent uniform points on S^63
    c = torch.linspace(-1, 1, 200_001, dtype=torch.float64)[1:-1]
    density = (1 - c**2) ** ((d - 3) / 2)
    exact = math.log(
        torch.trapezoid(density * torch.exp(-4 * (1 - c)), c)
        / torch.trapezoid(density, c)
    )
    assert abs(uniformity(uniform_sample) - exact) < 0.02
    assert abs(uniformity(collapsed)) < 1e-12
    assert uniformity(uniform_sample) < uniformity(cone) < uniformity(collapsed)
    # never underflows: far-apart points at a large t still give a finite value
    assert math.isfinite(uniformity(uniform_sample, t=500))


def test_alignment_and_uniformity_errors():
    with pytest.raises(ValueError, match=r"expected y of shape \(4, 8\) like x"):
        alignment(torch.randn(4, 8), torch.randn(3, 8))
    with pytest.raises(ValueError, match=r"with n >= 2, got \(1, 8\)"):
        uniformity(torch.randn(1, 8))
    with pytest.raises(ValueError, match=r"expected x of shape \(b, d\)"):
        uniformity(torch.randn(8))


# ------------------------------------------------------------------ SimCSE


def small_encoder(dropout: float = 0.1, n_layers: int = 2) -> Encoder:
    torch.manual_seed(0)
    config = EncoderConfig(
        vocab_size=50, d_model=16, n_heads=2, n_layers=n_layers, d_ff=32, max_len=16
    )
    return Encoder(config.replace(dropout=dropout))


def small_batch(seed: int = 0, b: int = 6, n: int = 9) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, 50, (b, n), generator=generator)
    mask = torch.ones(b, n, dtype=torch.long)
    mask[b // 2 :, n // 2 :] = 0
    return {"input_ids": ids.masked_fill(mask == 0, 0), "attention_mask": mask}


def test_set_dropout_reaches_every_dropout_and_the_config():
    encoder = small_encoder(dropout=0.0, n_layers=3)
    assert set_dropout(encoder, 0.2) == 1 + 4 * 3
    for module in encoder.modules():
        if isinstance(module, torch.nn.Dropout):
            assert module.p == 0.2
        if isinstance(module, MultiHeadAttention):
            assert module.dropout == 0.2
    assert encoder.config.dropout == 0.2
    with pytest.raises(ValueError, match=r"expected p in \[0, 1\), got 1.0"):
        set_dropout(encoder, 1.0)
    with pytest.raises(TypeError, match="expected model as an nn.Module, got str"):
        set_dropout("encoder", 0.1)


def test_simcse_views_differ_only_through_dropout():
    encoder = small_encoder(dropout=0.1)
    batch = small_batch()
    twice = {key: torch.cat([value, value]) for key, value in batch.items()}
    # eval mode: no dropout, the two views are the same computation on equal rows
    encoder.eval()
    first, second = sentence_embeddings(encoder, twice).chunk(2)
    assert torch.allclose(first, second, atol=1e-6)
    vectors_once = sentence_embeddings(encoder, batch)
    loss = unsupervised_simcse_loss(encoder, batch)
    assert abs(loss - info_nce_loss(vectors_once, vectors_once)) < 1e-5
    # training mode with p > 0: every pair of views differs
    encoder.train()
    first, second = sentence_embeddings(encoder, twice).chunk(2)
    assert (F.cosine_similarity(first, second, dim=-1) < 1 - 1e-4).all()
    # training mode with p = 0: no source of difference is left
    set_dropout(encoder, 0.0)
    first, second = sentence_embeddings(encoder, twice).chunk(2)
    assert torch.allclose(first, second, atol=1e-6)


def test_unsupervised_simcse_trains_the_encoder():
    encoder = small_encoder(dropout=0.1).train()
    loss = unsupervised_simcse_loss(encoder, small_batch(), temperature=0.05)
    loss.backward()
    missing = [
        name
        for name, p in encoder.named_parameters()
        if p.grad is None and "segment" not in name
    ]
    assert loss.dim() == 0 and loss > 0 and not missing


def test_supervised_simcse_equals_info_nce_of_its_columns():
    encoder = small_encoder().eval()
    collate = PairCollator(pad_token_id=0)
    examples = [
        {"anchor": [2, 11, 12, 3], "positive": [2, 13, 3], "negative": [2, 14, 3]},
        {"anchor": [2, 21, 3], "positive": [2, 22, 23, 24, 3], "negative": [2, 6, 3]},
        {"anchor": [2, 31, 32, 33, 34, 35, 3], "positive": [2, 7, 3],
         "negative": [2, 8, 9, 3]},
    ]  # fmt: skip
    batch = collate(examples)
    assert batch["anchor"]["input_ids"].shape == (3, 7)
    assert batch["positive"]["input_ids"].shape == (3, 5)
    columns = {c: sentence_embeddings(encoder, batch[c]) for c in batch}
    with_negatives = supervised_simcse_loss(encoder, batch, 0.1)
    expected = info_nce_loss(
        columns["anchor"], columns["positive"], 0.1, columns["negative"]
    )
    assert abs(with_negatives - expected) < 1e-5
    pairs_only = {c: batch[c] for c in ("anchor", "positive")}
    expected = info_nce_loss(columns["anchor"], columns["positive"], 0.1)
    assert abs(supervised_simcse_loss(encoder, pairs_only, 0.1) - expected) < 1e-5


def test_pair_collator_and_supervised_loss_errors():
    collate = PairCollator(pad_token_id=0)
    with pytest.raises(ValueError, match="expected examples with 'anchor' and"):
        collate([{"anchor": [2, 3]}])
    with pytest.raises(ValueError, match="at index 1"):
        collate([{"anchor": [2], "positive": [3]}, {"anchor": [2], "negative": [3]}])
    with pytest.raises(ValueError, match="empty batch"):
        collate([])
    with pytest.raises(ValueError, match="expected a batch with 'anchor'"):
        supervised_simcse_loss(small_encoder(), {"positive": {}})


# ------------------------------------------------------------ STS scoring


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 60), levels=st.integers(2, 6))
def test_spearman_equals_scipy_with_ties(seed, n, levels):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randint(0, levels, (n,), generator=generator).double()
    y = x + torch.randn(n, generator=generator, dtype=torch.float64)
    if x.unique().numel() == 1:  # a constant sequence has no rank correlation
        return
    expected = spearmanr(x.numpy(), y.numpy()).statistic
    assert abs(spearman_correlation(x, y) - expected) < 1e-9
    assert abs(spearman_correlation(x.tolist(), x.tolist()) - 1) < 1e-12


def test_sts_spearman_scores_pairs_by_cosine():
    anchor = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [1.0, -1.0]}

    def encode(sentences):
        return torch.tensor([anchor[s] for s in sentences])

    # cosines of the pairs: 1, 0.71, 0 and -0.71; only their order counts
    first, second = ["a", "a", "a", "b"], ["a", "c", "b", "d"]
    assert abs(sts_spearman(encode, first, second, [5.0, 3.0, 1.0, 0.0]) - 100) < 1e-9
    assert abs(sts_spearman(encode, first, second, [0.0, 1.0, 3.0, 5.0]) + 100) < 1e-9
    with pytest.raises(ValueError, match="of one length, got 4, 4 and 3"):
        sts_spearman(encode, first, second, [1.0, 2.0, 3.0])


def test_load_sts_benchmark_reads_tabs_not_quotes(tmp_path):
    path = tmp_path / "sts.csv"
    path.write_text(
        'main-news\tfile\t2012\t0001\t4.500\tHe said "yes".\t"Yes," he said.\n'
        "main-news\tfile\t2012\t0002\t0.000\tA cat.\tA dog.\tsource\tlicence\n",
        encoding="utf-8",
    )
    pairs = load_sts_benchmark(path)
    assert isinstance(pairs, STSPairs)
    assert pairs.first == ['He said "yes".', "A cat."]
    assert pairs.second == ['"Yes," he said.', "A dog."]
    assert pairs.scores == [4.5, 0.0] and pairs.source == str(path)
    bad = tmp_path / "bad.csv"
    bad.write_text("only\tfour\tfields\there\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.csv:1: expected at least 7"):
        load_sts_benchmark(bad)
    with pytest.raises(FileNotFoundError, match="expected an STS Benchmark file"):
        load_sts_benchmark(tmp_path / "missing.csv")


def test_load_sts_benchmark_without_data_returns_none_fast(tmp_path, monkeypatch):
    monkeypatch.setattr(
        encoderlib.loading, "_shared_sts_path", lambda: tmp_path / "absent.csv"
    )
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    assert load_sts_benchmark() is None  # offline: the hub is not even tried
    monkeypatch.delenv("HF_DATASETS_OFFLINE")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert load_sts_benchmark(hub=False) is None


def test_load_sts_benchmark_reads_the_shared_copy_when_there():
    shared = encoderlib.loading._shared_sts_path()
    if not shared.is_file():
        pytest.skip(f"no STS Benchmark copy at {shared}")
    pairs = load_sts_benchmark()
    assert len(pairs.scores) == 1379 and pairs.source == str(shared)
    assert min(pairs.scores) == 0.0 and max(pairs.scores) == 5.0
