"""encoderlib.pooling (cls, mean, max, attention pooling) and encoderlib.heads."""

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from encoderlib.checks import count_host_reads
from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.heads import (
    ClassificationHead,
    EncoderClassifier,
    MaskedLMHead,
    register_holder,
)
from encoderlib.pooling import AttentionPool, cls_pool, max_pool, mean_pool
from encoderlib.utils import count_parameters


def attention_pool_with_weights(d: int, seed: int = 0) -> AttentionPool:
    """An AttentionPool whose scorer is random, so the weights are not uniform."""
    torch.manual_seed(seed)
    pool = AttentionPool(d)
    with torch.no_grad():
        pool.score.weight.normal_()
        pool.score.bias.normal_()
    return pool


POOLS = {
    "cls": cls_pool,
    "mean": mean_pool,
    "max": max_pool,
    "attention": attention_pool_with_weights(8),
}


def reference_pool(name: str, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Each pooling written as a loop over rows, on the real tokens only (float64)."""
    out = torch.zeros(h.shape[0], h.shape[-1], dtype=torch.float64)
    for row in range(h.shape[0]):
        real = h[row, mask[row]].double()
        if len(real) == 0:
            continue
        if name == "cls":
            out[row] = real[0]
        elif name == "mean":
            out[row] = real.mean(0)
        elif name == "max":
            out[row] = real.amax(0)
        else:
            pool = POOLS["attention"]
            scores = real @ pool.score.weight.double()[0] + pool.score.bias.double()
            out[row] = scores.softmax(0) @ real
    return out


@st.composite
def padded_batches(draw):
    """h (b, n, 8), a boolean mask (empty rows allowed), and a padding filler."""
    b, n = draw(st.integers(1, 4)), draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**16))
    generator = torch.Generator().manual_seed(seed)
    h = 3 * torch.randn(b, n, 8, generator=generator)
    mask = torch.rand(b, n, generator=generator) < draw(st.floats(0.0, 1.0))
    if draw(st.booleans()):  # right padding, as tokenizers make it
        lengths = torch.randint(0, n + 1, (b,), generator=generator)
        mask = torch.arange(n)[None, :] < lengths[:, None]
    filler = draw(
        st.sampled_from([0.0, 1e4, -1e30, math.inf, -math.inf, math.nan, "random"])
    )
    return h, mask, filler


# Pooling: padding invariance, empty rows, masks ------------------------------------


@settings(max_examples=60, deadline=None)
@given(batch=padded_batches(), name=st.sampled_from(sorted(POOLS)))
def test_pooling_ignores_padding_and_empty_rows_give_zeros(batch, name):
    h, mask, filler = batch
    pool = POOLS[name]
    garbage = h.clone()
    if filler == "random":
        garbage[~mask] = 100 * torch.randn(int((~mask).sum()), 8)
    else:
        garbage[~mask] = filler
    expected = pool(h, mask)
    assert torch.equal(pool(garbage, mask), expected)
    assert torch.isfinite(expected).all()
    assert torch.equal(
        expected[~mask.any(1)], torch.zeros(int((~mask.any(1)).sum()), 8)
    )
    reference = reference_pool(name, h, mask).float()
    assert torch.allclose(expected, reference, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(batch=padded_batches(), name=st.sampled_from(sorted(POOLS)))
def test_integer_and_boolean_masks_give_the_same_result(batch, name):
    h, mask, _ = batch
    pool = POOLS[name]
    expected = pool(h, mask)
    for dtype in (torch.int64, torch.int32, torch.uint8):
        assert torch.equal(pool(h, mask.to(dtype)), expected)


@pytest.mark.parametrize("name", sorted(POOLS))
def test_no_mask_means_every_token_is_real(name):
    h = torch.randn(3, 5, 8)
    pool = POOLS[name]
    assert torch.equal(pool(h), pool(h, torch.ones(3, 5, dtype=torch.bool)))


@pytest.mark.parametrize("name", sorted(POOLS))
def test_left_and_right_padding_agree(name):
    torch.manual_seed(1)
    lengths = [5, 2, 3]
    right, left = torch.zeros(3, 6, 8), torch.zeros(3, 6, 8)
    right_mask, left_mask = torch.zeros(3, 6, dtype=torch.bool), None
    for row, length in enumerate(lengths):
        tokens = torch.randn(length, 8)
        right[row, :length], left[row, 6 - length :] = tokens, tokens
        right_mask[row, :length] = True
    left_mask = right_mask.flip(1)
    pool = POOLS[name]
    assert torch.allclose(pool(right, right_mask), pool(left, left_mask), atol=1e-6)


@pytest.mark.parametrize("name", sorted(POOLS))
def test_gradients_are_finite_with_empty_rows_and_skip_padding(name):
    h = torch.randn(2, 4, 8, requires_grad=True)
    mask = torch.tensor([[True, True, False, False], [False] * 4])
    POOLS[name](h, mask).sum().backward()
    assert torch.isfinite(h.grad).all()
    assert torch.equal(h.grad[~mask], torch.zeros(6, 8))


def test_mean_pool_equals_the_sentence_transformers_formula():
    """The formula on the all-MiniLM-L6-v2 model card, with an int64 mask."""
    torch.manual_seed(2)
    h = torch.randn(4, 9, 384)
    attention_mask = (
        torch.arange(9)[None, :] < torch.tensor([[9], [1], [4], [6]])
    ).long()
    expanded = attention_mask.unsqueeze(-1).expand(h.size()).float()
    card = torch.sum(h * expanded, 1) / torch.clamp(expanded.sum(1), min=1e-9)
    assert torch.allclose(mean_pool(h, attention_mask), card, atol=1e-6)


def test_attention_pool_starts_as_mean_pool_and_returns_weights():
    h = torch.randn(3, 6, 8)
    mask = torch.tensor([[1, 1, 1, 0, 0, 0], [1] * 6, [0] * 6])
    untrained = AttentionPool(8)
    assert torch.allclose(untrained(h, mask), mean_pool(h, mask), atol=1e-6)
    pooled, weights = POOLS["attention"](h, mask, return_weights=True)
    assert weights.shape == (3, 6) and torch.equal(pooled, POOLS["attention"](h, mask))
    assert torch.allclose(weights.sum(1), torch.tensor([1.0, 1.0, 0.0]))
    assert torch.equal(weights[mask == 0], torch.zeros(int((mask == 0).sum())))


@pytest.mark.parametrize("name", sorted(POOLS))
def test_poolings_never_read_device_values(name):
    # As on a GPU (checks.HOST_READ_DEVICES emptied): the 0/1 mask is checked on
    # the device, nothing is read back, so the GPU never waits for a pooling.
    h, mask = torch.randn(3, 6, 8), torch.tensor([[1, 1, 1, 0, 0, 0], [1] * 6, [0] * 6])
    with count_host_reads() as waits:
        POOLS[name](h, mask)
        POOLS[name](h, None)
    assert waits == []


# Heads --------------------------------------------------------------------------


def tiny_encoder(seed: int = 0, vocab_size: int = 50) -> Encoder:
    torch.manual_seed(seed)
    return Encoder(EncoderConfig.tiny(vocab_size=vocab_size, dropout=0.0))


def test_classification_head_shapes_and_init():
    head = ClassificationHead(64, 5)
    assert head(torch.randn(3, 64)).shape == (3, 5)
    assert torch.equal(head.classifier.bias, torch.zeros(5))
    assert 0.015 < head.dense.weight.std().item() < 0.025
    probe = ClassificationHead(64, 5, dropout=0.0, hidden_layer=False)
    assert probe.dense is None and count_parameters(probe) == 64 * 5 + 5


def test_classification_head_equals_bert_pooler_and_classifier():
    modeling_bert = pytest.importorskip("transformers.models.bert.modeling_bert")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(4)
    pooler = modeling_bert.BertPooler(transformers.BertConfig(hidden_size=32)).eval()
    classifier = nn.Linear(32, 3)
    head = ClassificationHead(32, 3).eval()
    head.dense.load_state_dict(pooler.dense.state_dict())
    head.classifier.load_state_dict(classifier.state_dict())
    h = torch.randn(4, 6, 32)
    assert torch.allclose(head(cls_pool(h)), classifier(pooler(h)), atol=1e-6)


def test_classification_head_refuses_token_vectors():
    """Forgetting to pool must fail: (b, n, d) would give per-token scores."""
    head = ClassificationHead(768, 2)
    with pytest.raises(ValueError) as info:
        head(torch.randn(2, 5, 768))
    assert "expected pooled of shape (b, d) = (*, 768), got (2, 5, 768)" in str(
        info.value
    )
    assert "pool the token vectors first" in str(info.value)
    assert head(cls_pool(torch.randn(2, 5, 768))).shape == (2, 2)


@pytest.mark.parametrize("pooling", ["cls", "mean", "max", "attention"])
def test_encoder_classifier_shapes_gradients_and_batch_independence(pooling):
    model = EncoderClassifier(tiny_encoder(), 3, pooling=pooling).eval()
    ids = torch.tensor([[2, 11, 12, 13, 0, 0], [2, 21, 22, 23, 24, 25]])
    mask = (ids != 0).long()
    logits = model(ids, mask, token_type_ids=torch.zeros_like(ids))
    assert logits.shape == (2, 3)
    assert model.embed(ids, mask).shape == (2, 64)
    alone = model(ids[:1, :4])
    assert torch.allclose(alone[0], logits[0], atol=1e-5)
    assert torch.allclose(model(ids, mask.bool()), logits, atol=1e-6)
    logits.logsumexp(-1).sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name
    assert (model.attention_pool is not None) == (pooling == "attention")


def test_masked_lm_head_is_tied_to_the_token_embeddings():
    encoder = tiny_encoder(vocab_size=100)
    head = MaskedLMHead.from_encoder(encoder)
    table = encoder.embeddings.token_embeddings.weight
    assert (
        head.decoder.weight is table
        and head.decoder.weight.data_ptr() == table.data_ptr()
    )
    assert head.norm.eps == encoder.config.eps
    both = nn.ModuleList([encoder, head])
    d, vocab = 64, 100
    assert (
        count_parameters(both) == count_parameters(encoder) + d * d + d + 2 * d + vocab
    )
    optimizer = torch.optim.SGD(both.parameters(), lr=0.5)
    before = table.detach().clone()
    ids = torch.randint(5, vocab, (2, 7))
    logits = head(encoder(ids))
    assert logits.shape == (2, 7, vocab)
    F.cross_entropy(logits.flatten(0, 1), torch.randint(5, vocab, (14,))).backward()
    optimizer.step()
    assert not torch.equal(table.detach(), before)
    assert head.decoder.weight is table and torch.equal(head.decoder.weight, table)


def test_tied_gradient_is_the_sum_of_the_input_and_output_gradients():
    encoder = tiny_encoder(vocab_size=60)
    head = MaskedLMHead.from_encoder(encoder)
    table = encoder.embeddings.token_embeddings.weight
    ids, targets = torch.randint(5, 60, (2, 5)), torch.randint(5, 60, (10,))

    def loss_with(x, weight):
        logits = F.linear(x, weight, head.decoder.bias)
        return F.cross_entropy(logits.flatten(0, 1), targets)

    x = head.norm(F.gelu(head.dense(encoder(ids))))
    (total,) = torch.autograd.grad(loss_with(x, table), table, retain_graph=True)
    (output_part,) = torch.autograd.grad(loss_with(x.detach(), table), table)
    (input_part,) = torch.autograd.grad(loss_with(x, table.detach()), table)
    assert torch.allclose(total, output_part + input_part, atol=1e-7)
    assert input_part.abs().sum() > 0 and output_part.abs().sum() > 0


def test_masked_lm_head_equals_bert_lm_prediction_head():
    transformers = pytest.importorskip("transformers")
    modeling_bert = pytest.importorskip("transformers.models.bert.modeling_bert")
    embeddings = nn.Embedding(120, 32)
    head = MaskedLMHead(embeddings, eps=1e-12).eval()
    config = transformers.BertConfig(vocab_size=120, hidden_size=32, hidden_act="gelu")
    theirs = modeling_bert.BertLMPredictionHead(config).eval()
    theirs.decoder.weight = embeddings.weight
    with torch.no_grad():
        head.decoder.bias.normal_()
        head.norm.weight.normal_(1.0, 0.1)
        head.norm.bias.normal_(0.0, 0.1)
        theirs.transform.dense.load_state_dict(head.dense.state_dict())
        theirs.transform.LayerNorm.load_state_dict(head.norm.state_dict())
        theirs.decoder.bias.copy_(head.decoder.bias)
    h = torch.randn(3, 5, 32)
    assert torch.allclose(head(h), theirs(h), atol=1e-5)
    assert head(h[0]).shape == (5, 120)  # any (..., d)


def test_docstring_examples_run():
    import doctest

    import encoderlib.heads
    import encoderlib.pooling

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for module, names in [
        (encoderlib.pooling, ["cls_pool", "mean_pool", "max_pool", "AttentionPool"]),
        (
            encoderlib.heads,
            [
                "ClassificationHead",
                "EncoderClassifier",
                "MaskedLMHead",
                "register_holder",
            ],
        ),
    ]:
        globs = vars(module) | {"EncoderConfig": EncoderConfig, "nn": nn}
        for name in names:
            for test in finder.find(getattr(module, name), globs=globs):
                runner.run(test)
    assert runner.tries >= 14 and runner.failures == 0


def test_pooling_is_required_and_the_error_lists_the_choices():
    import inspect

    parameter = inspect.signature(EncoderClassifier).parameters["pooling"]
    assert parameter.default is inspect.Parameter.empty
    assert list(inspect.signature(EncoderClassifier).parameters)[:3] == [
        "encoder",
        "n_classes",
        "pooling",
    ]
    for call in (
        lambda: EncoderClassifier(tiny_encoder(), 2),
        lambda: EncoderClassifier(tiny_encoder(), n_classes=2, dropout=0.0),
    ):
        with pytest.raises(TypeError) as info:
            call()
        for choice in ("'cls'", "'mean'", "'max'", "'attention'"):
            assert choice in str(info.value)
    assert EncoderClassifier(tiny_encoder(), 2, "mean").pooling == "mean"
    assert EncoderClassifier(tiny_encoder(), 2, pooling="max").pooling == "max"


def test_the_classifier_holds_the_very_encoder_it_is_given():
    encoder = tiny_encoder()
    ids = torch.tensor([[2, 11, 12, 13], [2, 21, 22, 0]])
    mask = (ids != 0).long()

    def vectors() -> torch.Tensor:  # what a SentenceEncoder built on it would give
        with torch.no_grad():
            return mean_pool(encoder(ids, mask), mask)

    def one_step(model: EncoderClassifier) -> None:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        F.cross_entropy(model(ids, mask), torch.tensor([0, 1])).backward()
        optimizer.step()

    before = vectors()
    kept = EncoderClassifier(copy.deepcopy(encoder), 2, "mean", dropout=0.0)
    one_step(kept)
    assert kept.encoder is not encoder and torch.equal(vectors(), before)
    shared = EncoderClassifier(encoder, 2, "mean", dropout=0.0)
    one_step(shared)
    assert shared.encoder is encoder and not torch.allclose(vectors(), before)


def _step(classifier: EncoderClassifier) -> None:
    ids, mask = torch.tensor([[2, 5, 7, 0]]), torch.tensor([[1, 1, 1, 0]])
    optimizer = torch.optim.SGD(classifier.parameters(), lr=0.5)
    F.cross_entropy(classifier(ids, mask), torch.tensor([1])).backward()
    optimizer.step()


def test_copy_true_trains_a_copy_and_copy_false_shares():
    torch.manual_seed(0)
    encoder = tiny_encoder()
    before = copy.deepcopy(encoder.state_dict())
    on_a_copy = EncoderClassifier(encoder, 2, "mean", dropout=0.0, copy=True)
    assert on_a_copy.encoder is not encoder
    _step(on_a_copy)
    assert all(torch.equal(before[k], v) for k, v in encoder.state_dict().items())
    shared = EncoderClassifier(encoder, 2, "mean", dropout=0.0, copy=False)
    assert shared.encoder is encoder
    _step(shared)
    assert not all(torch.equal(before[k], v) for k, v in encoder.state_dict().items())


def test_copy_consumes_no_random_numbers():
    # copy=True and a deepcopy by hand give the same head: recorded runs repeat
    encoder = tiny_encoder()
    torch.manual_seed(3)
    a = EncoderClassifier(encoder, 2, "mean", copy=True)
    torch.manual_seed(3)
    b = EncoderClassifier(copy.deepcopy(encoder), 2, "mean", copy=False)
    for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True):
        assert torch.equal(x, y)


def test_a_shared_encoder_warns_once_and_only_when_copy_is_not_said(recwarn):
    import warnings

    encoder = tiny_encoder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = EncoderClassifier(encoder, 2, "mean")  # nobody else: no warning
        EncoderClassifier(encoder, 2, "mean", copy=False)  # said: no warning
        EncoderClassifier(encoder, 2, "mean", copy=True)  # a copy: no warning
        assert not caught
        EncoderClassifier(encoder, 2, "mean")  # `first` holds it: a warning
        EncoderClassifier(encoder, 2, "cls")  # the same encoder: no second one
    assert len(caught) == 1 and caught[0].category is UserWarning
    message = str(caught[0].message)
    assert "EncoderClassifier" in message and "copy=True" in message
    assert caught[0].filename == __file__  # points at the caller's line
    assert first.encoder is encoder


def test_registered_holders_count_while_they_live():
    import gc
    import warnings

    encoder, other = tiny_encoder(), tiny_encoder()
    holder = nn.Sequential(encoder)
    register_holder(encoder, holder)
    register_holder(other, nn.Sequential(other))  # garbage at once
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        EncoderClassifier(other, 2, "mean")
        assert not caught
        EncoderClassifier(encoder, 2, "mean")
    assert len(caught) == 1 and "(Sequential)" in str(caught[0].message)


def test_a_failed_construction_neither_warns_nor_registers():
    import warnings

    encoder = tiny_encoder()
    EncoderClassifier(encoder, 2, "mean")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError):
            EncoderClassifier(encoder, 2, "mean", dropout=1.5)
    assert not caught
