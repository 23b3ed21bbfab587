"""encoderlib.mlm: BERT's masking, the MLM collator, MaskedLanguageModel, mlm_loss.

The masking is random, so its shares are tested statistically: a fair sampler lands
outside five standard errors of a binomial share about once in 1.7 million checks,
and every draw here comes from a seeded generator, so a failure repeats. The exact
rules (what may be chosen, what the labels hold) are tested as properties over many
random batches. The model is checked against F.cross_entropy and against Hugging
Face's BertForMaskedLM with copied weights.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from tiny_bert import DuckTokenizer

from encoderlib.checks import count_host_reads
from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.mlm import (
    IGNORE_INDEX,
    MaskedLanguageModel,
    MLMCollator,
    MLMOutput,
    mask_tokens,
    mlm_loss,
)
from encoderlib.tokenization import WordPieceTokenizer

SPECIALS = {0, 1, 2, 3, 4}  # [PAD] [UNK] [CLS] [SEP] [MASK] in the tiny vocabulary
MASK_ID = 4
TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat"]
TINY_VOCAB += ["on", "mat", "dog", "ran", "##s", "a"]


def padded_batch(b: int, n: int, vocab_size: int, seed: int):
    """[CLS] words [SEP] [PAD]...: (ids, 0/1 attention mask), words non-special."""
    generator = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, n - 1, (b,), generator=generator)
    ids = torch.randint(len(SPECIALS), vocab_size, (b, n), generator=generator)
    positions = torch.arange(n).expand(b, n)
    ids[:, 0] = 2
    ids[positions == lengths[:, None] + 1] = 3
    mask = positions <= lengths[:, None] + 1
    return ids.masked_fill(~mask, 0), mask.long()


def within(share: float, expected: float, n: int, sigmas: float = 5.0) -> bool:
    return abs(share - expected) <= sigmas * math.sqrt(expected * (1 - expected) / n)


def candidates_of(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return mask.bool() & ~torch.isin(ids, torch.tensor(sorted(SPECIALS)))


# --- mask_tokens: exact rules, as properties -------------------------------------


@st.composite
def masking_cases(draw):
    b, n = draw(st.integers(1, 6)), draw(st.integers(3, 12))
    vocab_size = draw(st.integers(6, 40))
    ids, mask = padded_batch(b, n, vocab_size, draw(st.integers(0, 2**16)))
    fractions = draw(
        st.tuples(st.floats(0, 1), st.floats(0, 1)).filter(lambda f: sum(f) <= 1)
    )
    return dict(
        ids=ids,
        mask=mask,
        vocab_size=vocab_size,
        probability=draw(st.floats(0, 1)),
        mask_fraction=fractions[0],
        random_fraction=fractions[1],
        seed=draw(st.integers(0, 2**16)),
    )


@settings(max_examples=60, deadline=None)
@given(case=masking_cases())
def test_mask_tokens_rules_hold_for_every_draw(case):
    ids, mask = case["ids"], case["mask"]
    before = ids.clone()
    masked, labels = mask_tokens(
        ids,
        MASK_ID,
        case["vocab_size"],
        SPECIALS,
        attention_mask=mask,
        probability=case["probability"],
        mask_fraction=case["mask_fraction"],
        random_fraction=case["random_fraction"],
        generator=torch.Generator().manual_seed(case["seed"]),
    )
    assert torch.equal(ids, before)  # integers: the input is not modified
    assert masked.shape == labels.shape == ids.shape
    assert masked.dtype == labels.dtype == torch.long
    chosen = labels != IGNORE_INDEX
    # labels: -100 exactly where not chosen, the original id where chosen
    assert torch.equal(labels[chosen], ids[chosen])  # integers
    assert (labels[~chosen] == IGNORE_INDEX).all()
    # only real, non-special tokens are chosen; the rest is left as it was
    assert not (chosen & ~candidates_of(ids, mask)).any()
    assert torch.equal(masked[~chosen], ids[~chosen])  # integers
    # a chosen token becomes [MASK], a non-special token, or stays
    changed = chosen & (masked != ids) & (masked != MASK_ID)
    assert not torch.isin(masked[changed], torch.tensor(sorted(SPECIALS))).any()
    assert ((masked >= 0) & (masked < case["vocab_size"])).all()


@settings(max_examples=30, deadline=None)
@given(case=masking_cases())
def test_mask_tokens_extreme_settings(case):
    ids, mask, vocab_size = case["ids"], case["mask"], case["vocab_size"]
    generator = torch.Generator().manual_seed(case["seed"])
    candidates = candidates_of(ids, mask)
    _, labels = mask_tokens(
        ids, MASK_ID, vocab_size, SPECIALS, mask, probability=0.0, generator=generator
    )
    assert (labels == IGNORE_INDEX).all()
    masked, labels = mask_tokens(
        ids, MASK_ID, vocab_size, SPECIALS, mask, 1.0, 1.0, 0.0, generator
    )
    assert torch.equal(labels != IGNORE_INDEX, candidates)  # bools
    assert (masked[candidates] == MASK_ID).all()
    masked, _ = mask_tokens(ids, MASK_ID, vocab_size, SPECIALS, mask, 1.0, 0.0, 0.0)
    assert torch.equal(masked, ids)  # integers: chosen, all kept


def test_mask_tokens_without_attention_mask_skips_only_specials():
    ids = torch.tensor([[2, 5, 6, 0, 7, 3]])  # a [PAD] inside, no attention mask
    masked, labels = mask_tokens(ids, MASK_ID, 10, SPECIALS, probability=1.0)
    assert labels.tolist() == [[-100, 5, 6, -100, 7, -100]]
    assert masked[0, 3] == 0


# --- mask_tokens: the shares, statistically ----------------------------------------


@pytest.mark.parametrize(
    "probability, mask_fraction, random_fraction",
    [(0.15, 0.8, 0.1), (0.3, 0.5, 0.25), (0.05, 1.0, 0.0), (0.15, 0.0, 1.0)],
)
def test_mask_tokens_shares_are_binomial(probability, mask_fraction, random_fraction):
    vocab_size = 30522
    ids, mask = padded_batch(1000, 64, vocab_size, seed=1)
    masked, labels = mask_tokens(
        ids,
        MASK_ID,
        vocab_size,
        SPECIALS,
        attention_mask=mask,
        probability=probability,
        mask_fraction=mask_fraction,
        random_fraction=random_fraction,
        generator=torch.Generator().manual_seed(0),
    )
    candidates = candidates_of(ids, mask)
    chosen = labels != IGNORE_INDEX
    n_candidates, n_chosen = int(candidates.sum()), int(chosen.sum())
    assert within(n_chosen / n_candidates, probability, n_candidates)
    became_mask = int((masked[chosen] == MASK_ID).sum())
    unchanged = int((masked[chosen] == ids[chosen]).sum())
    random = n_chosen - became_mask - unchanged
    # a random draw equals the original once in (vocab_size - 5): counted as kept
    kept_share = 1 - mask_fraction - random_fraction
    kept_share += random_fraction / (vocab_size - len(SPECIALS))
    for share, expected in [
        (became_mask / n_chosen, mask_fraction),
        (random / n_chosen, random_fraction - random_fraction / (vocab_size - 5)),
        (unchanged / n_chosen, kept_share),
    ]:
        if expected in (0.0, 1.0):
            assert share == expected
        else:
            assert within(share, expected, n_chosen)


def test_random_replacements_are_uniform_over_non_special_tokens():
    vocab_size = 17  # 12 non-special tokens
    ids, mask = padded_batch(2000, 32, vocab_size, seed=3)
    masked, labels = mask_tokens(
        ids, MASK_ID, vocab_size, SPECIALS, mask, 0.5, 0.0, 1.0,
        torch.Generator().manual_seed(5),
    )  # fmt: skip
    chosen = labels != IGNORE_INDEX
    drawn = masked[chosen]  # every chosen token is a uniform draw from the pool
    counts = torch.bincount(drawn, minlength=vocab_size)
    assert counts[sorted(SPECIALS)].sum() == 0
    pool = counts[len(SPECIALS) :].double()
    expected = pool.sum() / len(pool)
    chi_square = ((pool - expected) ** 2 / expected).sum().item()
    assert chi_square < 40.0  # 11 degrees of freedom: p < 1e-4 above 40


def test_mask_tokens_repeats_with_a_seed_and_differs_across_seeds():
    ids, mask = padded_batch(8, 20, 100, seed=0)

    def run(seed):
        return mask_tokens(
            ids, MASK_ID, 100, SPECIALS, mask, 0.5,
            generator=torch.Generator().manual_seed(seed),
        )  # fmt: skip

    first, again, other = run(1), run(1), run(2)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not torch.equal(first[1], other[1])  # integers


def test_mask_tokens_agrees_with_hugging_face_collator_statistically():
    transformers = pytest.importorskip("transformers")
    vocab = {token: i for i, token in enumerate(TINY_VOCAB)}
    vocab.update({f"w{i}": len(TINY_VOCAB) + i for i in range(200)})
    hf_tokenizer = transformers.BertTokenizer(vocab=vocab)
    collator = transformers.DataCollatorForLanguageModeling(hf_tokenizer, seed=7)
    ids, mask = padded_batch(1500, 48, len(vocab), seed=4)
    examples = [
        {"input_ids": row[m.bool()].tolist()} for row, m in zip(ids, mask, strict=True)
    ]
    theirs = collator(examples)
    ours_masked, ours_labels = mask_tokens(
        ids, MASK_ID, len(vocab), SPECIALS, mask,
        generator=torch.Generator().manual_seed(7),
    )  # fmt: skip
    n_candidates = int(candidates_of(ids, mask).sum())

    def shares(masked, labels):
        chosen = labels != IGNORE_INDEX
        n = int(chosen.sum())
        return n, [n / n_candidates, float((masked[chosen] == MASK_ID).sum()) / n]

    (n1, ours), (n2, hf) = (
        shares(ours_masked, ours_labels),
        shares(theirs["input_ids"], theirs["labels"]),
    )
    assert theirs["input_ids"].shape == ids.shape
    for a, b, sizes in [
        (ours[0], hf[0], (n_candidates,) * 2),
        (ours[1], hf[1], (n1, n2)),
    ]:
        pooled = (a * sizes[0] + b * sizes[1]) / sum(sizes)
        se = math.sqrt(pooled * (1 - pooled) * (1 / sizes[0] + 1 / sizes[1]))
        assert abs(a - b) <= 5 * se


# --- MLMCollator ------------------------------------------------------------------


def tiny_tokenizer():
    return WordPieceTokenizer(TINY_VOCAB)


def test_collator_repeats_with_its_seed_and_masks_afresh_each_call():
    tokenizer = tiny_tokenizer()
    examples = [{"input_ids": tokenizer.encode("the cat sat on the mat")}] * 12
    examples += [{"input_ids": tokenizer.encode("a dog ran")}] * 12
    first, second = MLMCollator(tokenizer, seed=3), MLMCollator(tokenizer, seed=3)
    a, b = first(examples), second(examples)
    assert set(a) == {"input_ids", "attention_mask", "labels"}
    for key in a:
        assert torch.equal(a[key], b[key])  # integers, same seed
    assert not torch.equal(first(examples)["labels"], a["labels"])  # next call
    assert not torch.equal(
        MLMCollator(tokenizer, seed=4)(examples)["labels"], a["labels"]
    )
    assert a["input_ids"].shape == a["labels"].shape == (24, 8)
    assert (a["labels"][a["attention_mask"] == 0] == IGNORE_INDEX).all()


def test_collator_passes_fractions_and_segment_ids():
    tokenizer = tiny_tokenizer()
    ids, types = tokenizer.encode_pair("the cat", "a dog ran")
    batch = MLMCollator(
        tokenizer, probability=1.0, mask_fraction=1.0, random_fraction=0.0
    )([{"input_ids": ids, "token_type_ids": types}])
    chosen = batch["labels"] != IGNORE_INDEX
    assert int(chosen.sum()) == 5 and (batch["input_ids"][chosen] == MASK_ID).all()
    assert batch["token_type_ids"].tolist() == [types]
    collator = MLMCollator(tokenizer, mask_fraction=1.0, random_fraction=0.0)
    assert "mask_fraction=1.0" in repr(collator)


def test_collator_refuses_a_vocabulary_without_mask_and_bad_shares():
    no_mask = WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the"])
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        MLMCollator(no_mask)
    with pytest.raises(ValueError, match="probability"):
        MLMCollator(tiny_tokenizer(), probability=2.0)
    with pytest.raises(TypeError, match="seed"):
        MLMCollator(tiny_tokenizer(), seed=1.5)


# --- MaskedLanguageModel and mlm_loss -----------------------------------------------


def small_model(vocab_size: int = 50, seed: int = 0) -> MaskedLanguageModel:
    torch.manual_seed(seed)
    config = EncoderConfig(
        vocab_size=vocab_size, d_model=16, n_heads=2, n_layers=2, d_ff=32, dropout=0.0
    )
    model = MaskedLanguageModel(Encoder(config)).eval()
    with torch.no_grad():  # a non-trivial head, so that a wrong formula shows
        model.head.decoder.bias.normal_()
        model.head.norm.weight.normal_(1.0, 0.3)
    return model


def masked_batch(vocab_size: int = 50, seed: int = 0):
    ids, mask = padded_batch(6, 10, vocab_size, seed)
    masked, labels = mask_tokens(
        ids, MASK_ID, vocab_size, SPECIALS, mask, 0.4,
        generator=torch.Generator().manual_seed(seed),
    )  # fmt: skip
    return masked, mask, labels


def test_loss_equals_cross_entropy_over_all_positions_with_ignore_index():
    model = small_model()
    ids, mask, labels = masked_batch()
    with torch.no_grad():
        output = model(ids, mask, labels)
        every = model(ids, mask).logits  # (b, n, V)
    assert isinstance(output, MLMOutput)
    assert every.shape == (6, 10, 50)
    reference = F.cross_entropy(
        every.flatten(0, 1), labels.flatten(), ignore_index=-100
    )
    assert torch.allclose(output.loss, reference, atol=1e-6)
    chosen = labels != IGNORE_INDEX
    assert output.logits.shape == (int(chosen.sum()), 50)
    assert torch.allclose(output.logits, every[chosen], atol=1e-6)


def test_mlm_loss_is_the_models_loss_and_passes_segment_ids():
    model = small_model()
    ids, mask, labels = masked_batch()
    types = torch.zeros_like(ids)
    types[:, 5:] = 1
    batch = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    with torch.no_grad():
        assert torch.allclose(mlm_loss(model, batch), model(ids, mask, labels).loss)
        with_types = mlm_loss(model, {**batch, "token_type_ids": types})
        assert torch.allclose(with_types, model(ids, mask, labels, types).loss)
        assert not torch.allclose(with_types, model(ids, mask, labels).loss)


def test_nothing_chosen_gives_a_zero_loss_that_backpropagates():
    model = small_model().train()
    ids, mask, _ = masked_batch()
    output = model(ids, mask, torch.full_like(ids, IGNORE_INDEX))
    assert output.loss.item() == 0.0 and output.logits.shape == (0, 50)
    output.loss.backward()  # no error: the graph is kept


def test_the_decoder_is_the_embedding_table_one_parameter_two_gradients():
    model = small_model().train()
    table = model.encoder.embeddings.token_embeddings.weight
    assert model.head.decoder.weight is table
    assert sum(p is table for p in model.parameters()) == 1
    ids, mask, labels = masked_batch()
    model(ids, mask, labels).loss.backward()
    # the decoder's softmax sends a gradient to every row, the lookup only to rows
    # of tokens in the batch: an unused token's row still learns, through the head
    unused = sorted(set(range(5, 50)) - set(ids.flatten().tolist()))
    assert unused and table.grad[unused].abs().sum(dim=1).min() > 0


def test_model_errors_are_clear():
    model = small_model()
    ids, mask, labels = masked_batch()
    with pytest.raises(ValueError, match=r"labels of shape \(6, 10\)"):
        model(ids, mask, labels[:, :5])
    with pytest.raises(TypeError, match="int64"):
        model(ids, mask, labels.float())
    with pytest.raises(TypeError, match="Encoder"):
        MaskedLanguageModel(torch.nn.Linear(2, 2))


# --- parity with Hugging Face's BertForMaskedLM -------------------------------------


def test_parity_with_bert_for_masked_lm():
    transformers = pytest.importorskip("transformers")
    from encoderlib.pretrained import load_bert_weights

    vocab_size = 60
    hf_config = transformers.BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_attention_heads=4,
        num_hidden_layers=2,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_act="gelu",
        layer_norm_eps=1e-12,
    )
    torch.manual_seed(0)
    hf = transformers.BertForMaskedLM(hf_config).eval()
    with torch.no_grad():
        for parameter in hf.parameters():
            parameter.add_(0.05 * torch.randn_like(parameter))
    state = hf.state_dict()
    config = EncoderConfig(
        vocab_size=vocab_size, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32
    )
    ours = MaskedLanguageModel(Encoder(config)).eval()
    load_bert_weights(ours.encoder, state)
    with torch.no_grad():
        ours.head.dense.weight.copy_(state["cls.predictions.transform.dense.weight"])
        ours.head.dense.bias.copy_(state["cls.predictions.transform.dense.bias"])
        ours.head.norm.weight.copy_(state["cls.predictions.transform.LayerNorm.weight"])
        ours.head.norm.bias.copy_(state["cls.predictions.transform.LayerNorm.bias"])
        ours.head.decoder.bias.copy_(state["cls.predictions.bias"])
    ids, mask, labels = masked_batch(vocab_size, seed=2)
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=mask, labels=labels)
        logits = ours(ids, mask).logits
        loss = ours(ids, mask, labels).loss
    real = mask.bool()
    assert (logits[real] - theirs.logits[real]).abs().max() < 1e-5
    assert abs(loss.item() - theirs.loss.item()) < 1e-5


@pytest.mark.parametrize("padded", [False, True], ids=["no padding", "padding"])
def test_the_forward_waits_on_a_gpu_only_for_the_count_of_labelled_positions(padded):
    # Scoring the labelled positions only needs their number t on the host, for
    # the shape (t, vocab_size): one wait, the algorithm's. Checks add none.
    model = small_model().eval()
    ids = torch.randint(5, 50, (3, 8), generator=torch.Generator().manual_seed(0))
    mask = torch.ones(3, 8, dtype=torch.long)
    if padded:
        mask[1, 5:] = 0
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[0, 2], labels[1, 3] = 7, 9
    with torch.no_grad():
        model(ids, mask, labels)  # warm-up
        with count_host_reads() as encoder_waits:
            model.encoder(ids, mask)
        with count_host_reads() as without_labels:
            model(ids, mask)
        with count_host_reads() as with_labels:
            model(ids, mask, labels)
    assert without_labels == encoder_waits
    assert with_labels == [*encoder_waits, "nonzero"]


def test_mlm_collator_takes_any_tokenizer_with_the_interface():
    words = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far", "away", "home"]
    inner = WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])
    examples = [
        {"input_ids": inner.encode(" ".join(words[i:] + words[:i]))} for i in range(8)
    ]
    ours = MLMCollator(inner, probability=0.3, seed=4)(examples)
    duck = MLMCollator(DuckTokenizer(inner), probability=0.3, seed=4)(examples)
    assert ours.keys() == duck.keys()
    assert all(torch.equal(ours[key], duck[key]) for key in ours)


def test_a_classifier_on_a_pretrained_mlm_encoder_warns_unless_copy_is_said():
    import warnings

    from encoderlib.heads import EncoderClassifier

    torch.manual_seed(0)
    encoder = Encoder(EncoderConfig.tiny(vocab_size=20))
    pretrained = MaskedLanguageModel(encoder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        EncoderClassifier(encoder, 2, "mean", copy=True)
        EncoderClassifier(encoder, 2, "mean", copy=False)
        assert not caught
        EncoderClassifier(encoder, 2, "mean")
    assert len(caught) == 1 and "MaskedLanguageModel" in str(caught[0].message)
    assert pretrained.encoder is encoder


def test_an_electra_encoder_gets_electras_generator_head():
    # ELECTRA's embeddings (16) are narrower than its layers (32): the head maps
    # d_model to the table's width before the tied decoder, as ElectraForMaskedLM.
    transformers = pytest.importorskip("transformers")
    from small_models import small_electra_config

    from encoderlib.checkpoints import load_pretrained_weights
    from encoderlib.converters import config_from_pretrained

    config = small_electra_config()  # 2 layers of width 32, embeddings 16 wide
    torch.manual_seed(0)
    theirs = transformers.ElectraForMaskedLM(config).eval()
    encoder = Encoder(config_from_pretrained(config))
    load_pretrained_weights(encoder, theirs.electra.state_dict(), "electra")
    ours = MaskedLanguageModel(encoder).eval()
    generator = theirs.generator_predictions
    with torch.no_grad():
        ours.head.dense.load_state_dict(generator.dense.state_dict())
        ours.head.norm.load_state_dict(generator.LayerNorm.state_dict())
        ours.head.decoder.bias.copy_(theirs.generator_lm_head.bias)
        ids = torch.randint(3, 99, (2, 9))
        mask = torch.ones(2, 9, dtype=torch.long)
        mask[1, 5:] = 0
        expected = theirs(input_ids=ids, attention_mask=mask).logits
        got = ours(ids, mask).logits
    assert ours.head.decoder.weight is encoder.embeddings.token_embeddings.weight
    assert (got - expected)[mask.bool()].abs().max() <= 1e-5
