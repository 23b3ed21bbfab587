"""encoderlib.encoder's stack (chapter 8): EncoderConfig, Encoder, EncoderOutput.

Reference: Hugging Face `BertModel` with copied weights (post-norm, exact GELU,
eps 1e-12) at real-token positions. Properties: the packed (padding-free) path
equals the padded path, int and bool masks agree, all-padding rows are zeros
without NaN, attention maps are distributions. Errors name field and value.
"""

import dataclasses
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from encoderlib import count_parameters, set_seed
from encoderlib.checks import count_host_reads
from encoderlib.encoder import Encoder, EncoderConfig, EncoderLayer, EncoderOutput
from encoderlib.layers import LayerNorm
from encoderlib.pretrained import load_bert_weights

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # tqdm.auto's IProgress warning, via transformers
    from transformers import BertConfig, BertModel


def small_config(**overrides) -> EncoderConfig:
    sizes = dict(vocab_size=50, d_model=32, n_heads=4, n_layers=2, d_ff=64)
    return EncoderConfig(**{**sizes, "max_len": 24, "dropout": 0.0, **overrides})


def padded_batch(lengths: list[int], n: int, vocab: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, vocab, (len(lengths), n), generator=generator)
    mask = torch.arange(n) < torch.tensor(lengths)[:, None]
    return ids.masked_fill(~mask, 0), mask


# Reference: Hugging Face BertModel ---------------------------------------------------


@pytest.fixture(scope="module")
def bert_pair():
    """A 2-layer BertModel at small sizes and our Encoder holding its weights."""
    set_seed(0)
    config = EncoderConfig(
        vocab_size=120, d_model=48, n_heads=4, n_layers=2, d_ff=96, max_len=32,
        dropout=0.0,
    )  # fmt: skip
    hf_config = BertConfig(
        vocab_size=config.vocab_size,
        hidden_size=config.d_model,
        num_hidden_layers=config.n_layers,
        num_attention_heads=config.n_heads,
        intermediate_size=config.d_ff,
        max_position_embeddings=config.max_len,
        hidden_act="gelu",
        layer_norm_eps=config.eps,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        attn_implementation="eager",
    )
    hf = BertModel(hf_config, add_pooling_layer=False).eval()
    ours = Encoder(config).eval()
    # Chapter 13's loader: strict, so every parameter has a partner.
    load_bert_weights(ours, hf.state_dict())
    return hf, ours


@settings(max_examples=15, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 20), min_size=1, max_size=4),
    seed=st.integers(0, 1000),
    attentions=st.booleans(),
)
def test_equals_hugging_face_bert_at_real_tokens(bert_pair, lengths, seed, attentions):
    hf, ours = bert_pair
    n = max(lengths)
    ids, mask = padded_batch(lengths, n, 120, seed)
    segments = (torch.arange(n) >= n // 2).long().expand_as(ids) * mask
    with torch.no_grad():
        theirs = hf(
            ids,
            attention_mask=mask.long(),
            token_type_ids=segments,
            output_hidden_states=True,
            output_attentions=attentions,
        )
        mine = ours(
            ids,
            mask.long(),
            segments,
            output_hidden_states=True,
            output_attentions=attentions,
        )
    assert len(mine.hidden_states) == len(theirs.hidden_states) == 3
    for a, b in zip(mine.hidden_states, theirs.hidden_states, strict=True):
        torch.testing.assert_close(a[mask], b[mask], atol=1e-5, rtol=0)
    torch.testing.assert_close(
        mine.last_hidden_state[mask], theirs.last_hidden_state[mask], atol=1e-5, rtol=0
    )
    assert (mine.last_hidden_state[~mask] == 0).all()
    if attentions:
        for a, b in zip(mine.attentions, theirs.attentions, strict=True):
            real_queries = mask[:, None, :, None].expand_as(a)
            torch.testing.assert_close(
                a[real_queries], b[real_queries], atol=1e-6, rtol=0
            )


# Packed and padded paths -------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 12), min_size=1, max_size=4),
    norm_first=st.booleans(),
    positional=st.sampled_from(["learned", "sinusoidal"]),
    seed=st.integers(0, 1000),
)
def test_packed_path_equals_padded_path(lengths, norm_first, positional, seed):
    set_seed(seed)
    model = Encoder(small_config(norm_first=norm_first, positional=positional)).eval()
    n = max(max(lengths), 1)
    ids, mask = padded_batch(lengths, n, 50, seed)
    with torch.no_grad():
        packed = model(ids, mask, output_hidden_states=True)  # packed when padded
        padded = model(ids, mask, output_hidden_states=True, output_attentions=True)
    for a, b in zip(packed.hidden_states, padded.hidden_states, strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)
        assert (a[~mask] == 0).all() and (b[~mask] == 0).all()
    torch.testing.assert_close(
        packed.last_hidden_state, padded.last_hidden_state, atol=1e-5, rtol=0
    )
    for row, length in enumerate(lengths):  # each sentence alone, without padding
        if length == 0:
            assert (packed.last_hidden_state[row] == 0).all()
            continue
        with torch.no_grad():
            alone = model(ids[row : row + 1, :length])
        torch.testing.assert_close(
            alone[0], packed.last_hidden_state[row, :length], atol=1e-5, rtol=0
        )


@pytest.mark.parametrize(
    "overrides",
    [
        dict(positional="rope", window=2, global_every=2, n_layers=3),
        dict(positional="alibi"),
        dict(positional="t5", window=3),
    ],
    ids=["rope, local window", "alibi", "t5, local window"],
)
def test_the_padded_path_of_a_gpu_mask_equals_the_packed_path(overrides):
    # A mask on a GPU takes the padded path, which hides the padding in each
    # distinct score bias once per forward; count_host_reads sends the CPU there.
    set_seed(0)
    model = Encoder(small_config(**overrides)).eval()
    ids, mask = padded_batch([9, 0, 4, 9], 9, 50)
    with torch.no_grad():
        packed = model(ids, mask)
        with count_host_reads() as waits:
            padded = model(ids, mask)
    assert waits == []  # it read nothing: the padded path
    torch.testing.assert_close(padded, packed, atol=1e-5, rtol=0)
    assert (padded[~mask] == 0).all() and not padded.isnan().any()


def test_the_padded_path_hides_the_padding_once_per_forward_not_per_layer():
    class MaskedFills(TorchDispatchMode):
        n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.n += func.overloadpacket.__name__.startswith("masked_fill")
            return func(*args, **(kwargs or {}))

    fills = {}
    for n_layers in (2, 6):
        model = Encoder(small_config(positional="alibi", n_layers=n_layers)).eval()
        ids, mask = padded_batch([9, 4], 9, 50)
        with torch.no_grad(), count_host_reads(), MaskedFills() as counted:
            model(ids, mask)
        fills[n_layers] = counted.n
    assert fills[2] == fills[6]


def test_int_and_bool_masks_agree():
    set_seed(0)
    model = Encoder(small_config()).eval()
    ids, mask = padded_batch([7, 3, 5], 7, 50)
    with torch.no_grad():
        as_bool = model(ids, mask)
        for dtype in (torch.int64, torch.int32, torch.uint8):
            assert torch.equal(model(ids, mask.to(dtype)), as_bool)
        full = torch.ones_like(mask)
        assert torch.equal(model(ids, full), model(ids))  # no padding: same as no mask


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("output_attentions", [False, True])
def test_all_padding_rows_are_zeros_with_finite_gradients(
    norm_first, output_attentions
):
    set_seed(0)
    model = Encoder(small_config(norm_first=norm_first, dropout=0.1)).train()
    ids, mask = padded_batch([6, 0, 3], 6, 50)
    out = model(ids, mask, output_attentions=output_attentions)
    hidden = out.last_hidden_state if output_attentions else out
    assert not hidden.isnan().any() and (hidden[1] == 0).all()
    hidden.square().sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is None or torch.isfinite(parameter.grad).all(), name
    everything_padded = model(ids, torch.zeros_like(mask))
    assert (everything_padded == 0).all()


# Outputs -----------------------------------------------------------------------------


def test_output_attentions_and_hidden_states():
    set_seed(0)
    config = small_config(n_layers=3)
    model = Encoder(config).eval()
    ids, mask = padded_batch([9, 4], 9, 50)
    with torch.no_grad():
        out = model(ids, mask, output_attentions=True, output_hidden_states=True)
        only_states = model(ids, mask, output_hidden_states=True)
        only_attentions = model(ids, mask, output_attentions=True)
    assert isinstance(out, EncoderOutput)
    assert len(out.hidden_states) == config.n_layers + 1
    assert len(out.attentions) == config.n_layers
    assert only_states.attentions is None and only_attentions.hidden_states is None
    for weights in out.attentions:
        assert weights.shape == (2, config.n_heads, 9, 9)
        rows = weights[mask[:, None, :, None].expand_as(weights)].view(-1, 9)
        torch.testing.assert_close(rows.sum(-1), torch.ones(len(rows)))
        assert (weights[1, :, :, 4:] == 0).all()  # padded keys get no weight
    for state in out.hidden_states:
        assert state.shape == (2, 9, config.d_model)
    assert torch.equal(out.hidden_states[0][0], model.embeddings(ids)[0])


def test_pre_norm_output_is_final_norm_of_last_state_and_post_norm_has_none():
    set_seed(0)
    pre = Encoder(small_config(norm_first=True)).eval()
    ids = torch.randint(1, 50, (2, 5))
    with torch.no_grad():
        out = pre(ids, output_hidden_states=True)
        torch.testing.assert_close(
            out.last_hidden_state, pre.final_norm(out.hidden_states[-1])
        )
    assert Encoder(small_config(norm_first=False)).final_norm is None


def test_bert_initialisation():
    set_seed(0)
    model = Encoder(small_config(d_model=64, d_ff=256))
    fc1 = model.layers[0].ffn.fc1
    assert abs(fc1.weight.std().item() - 0.02) < 2e-3 and (fc1.bias == 0).all()
    assert (model.embeddings.token_embeddings.weight[0] == 0).all()  # padding row
    assert (model.layers[1].norm2.weight == 1).all()


# Configuration -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "error", "words"),
    [
        (dict(d_model=100, n_heads=12), ValueError, ["d_model=100", "n_heads=12"]),
        (dict(n_layers="6"), TypeError, ["n_layers", "'6'"]),
        (dict(vocab_size=True), TypeError, ["vocab_size", "True"]),
        (dict(d_ff=0), ValueError, ["d_ff", "0"]),
        (dict(n_layers=-1), ValueError, ["n_layers", "-1"]),
        (dict(dropout=1.0), ValueError, ["dropout", "1.0"]),
        (
            dict(dropout="0.1"),
            TypeError,
            ["expected dropout as a float, got str '0.1'"],
        ),
        (dict(dropout=True), TypeError, ["expected dropout as a float, got bool True"]),
        (dict(eps="1e-5"), TypeError, ["expected eps as a float, got str '1e-5'"]),
        (dict(activation="tanh"), ValueError, ["activation", "'tanh'"]),
        (dict(norm_first=1), TypeError, ["norm_first", "1"]),
        (dict(positional="rotary"), ValueError, ["positional", "'rotary'"]),
        (dict(positional="sinusoidal", d_model=33, n_heads=3), ValueError, ["33"]),
        (dict(eps=0.0), ValueError, ["eps", "0.0"]),
    ],
)
def test_config_errors_name_the_field_and_value(overrides, error, words):
    with pytest.raises(error) as info:
        EncoderConfig.tiny(**overrides)
    for word in words:
        assert word in str(info.value)


def test_config_replace_validates_and_presets_take_overrides():
    tiny = EncoderConfig.tiny()
    assert tiny.replace(n_layers=5).n_layers == 5 and tiny.n_layers == 2
    with pytest.raises(ValueError, match="d_model=770"):
        EncoderConfig.bert_base().replace(d_model=770)
    assert EncoderConfig.minilm_l6(dropout=0.0).dropout == 0.0
    assert EncoderConfig.bert_base().d_head == 64
    assert EncoderConfig.minilm_l6().d_head == 32
    assert (tiny.d_model, tiny.n_heads, tiny.n_layers, tiny.d_ff) == (64, 4, 2, 256)
    assert (tiny.max_len, tiny.vocab_size, tiny.norm_first) == (128, 1000, True)


def test_from_config_takes_a_dict_and_refuses_other_types():
    config = small_config()
    model = Encoder.from_config(dataclasses.asdict(config))
    assert isinstance(model, Encoder) and model.config == config
    assert isinstance(Encoder.from_config(config), Encoder)
    with pytest.raises(TypeError, match="expected an EncoderConfig, got list"):
        Encoder([64, 4, 2])


def test_preset_parameter_counts():
    with torch.device("meta"):
        bert = count_parameters(Encoder(EncoderConfig.bert_base()))
        minilm = count_parameters(Encoder(EncoderConfig.minilm_l6()))
        tiny = count_parameters(Encoder(EncoderConfig.tiny()))
        hf_bert = count_parameters(BertModel(BertConfig(), add_pooling_layer=False))
        layer = count_parameters(EncoderLayer(512, 8, 2048))
    assert bert == hf_bert == 108_891_648
    assert bert + 768 * 768 + 768 == 109_482_240  # BERT-base with its pooler
    assert minilm == 22_713_216 - (384 * 384 + 384) == 22_565_376  # checkpoint − pooler
    assert tiny == 172_544
    assert layer == 3_152_384


# Input errors ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model():
    set_seed(0)
    return Encoder(small_config()).eval()


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        (
            torch.ones(2, 4, dtype=torch.bool),
            ValueError,
            r"shape as input_ids \(2, 5\)",
        ),
        (torch.ones(2, 5), TypeError, "bool or 0/1 integers, got dtype torch.float32"),
        (torch.full((2, 5), 2), ValueError, "values 0 or 1"),
        ([[1] * 5] * 2, TypeError, "as a torch.Tensor, got list"),
    ],
)
def test_mask_errors(tiny_model, mask, error, message):
    ids = torch.randint(1, 50, (2, 5))
    with pytest.raises(error, match=message):
        tiny_model(ids, mask)


def test_input_ids_errors(tiny_model):
    with pytest.raises(ValueError, match=r"shape \(b, n\) = \(\*, \*\), got \(5,\)"):
        tiny_model(torch.randint(1, 50, (5,)))
    with pytest.raises(ValueError, match="max_len=24"):
        tiny_model(torch.randint(1, 50, (1, 25)))


def test_docstring_examples_run():
    import doctest

    import encoderlib.encoder as module

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for obj in (EncoderConfig, Encoder, EncoderOutput):
        # the examples assume `import torch`, as a reader's session has
        for test in finder.find(obj, globs={"torch": torch, **vars(module)}):
            runner.run(test)
    assert runner.tries >= 4 and runner.failures == 0


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
def test_small_integer_ids_are_ids_not_masks(dtype):
    model = Encoder(small_config()).eval()
    ids = torch.tensor([[2, 7, 9, 1, 0, 0]])
    with torch.no_grad():
        expected = model(ids, (ids != 0).long())
        small = model(ids.to(dtype), (ids != 0).to(dtype))
    assert small.shape == (1, 6, small_config().d_model)
    assert torch.equal(small, expected)


class _ScaleKeys(torch.nn.Module):
    """A q/k transform with a visible effect: every key is multiplied by 2."""

    def forward(self, q, k):
        return q, 2 * k


@pytest.mark.parametrize("norm_first", [False, True])
def test_the_packed_path_calls_the_attention_modules_qk_hook(norm_first):
    # Chapter 5's transform_qk is the one place where queries and keys change; the
    # padding-free path (used with padding and no attention maps) must go through it.
    set_seed(0)
    config = EncoderConfig.tiny(vocab_size=50, norm_first=norm_first, dropout=0.0)
    model = Encoder(config).eval()
    ids = torch.randint(5, 50, (3, 9))
    mask = torch.arange(9) < torch.tensor([[9], [6], [2]])
    with torch.no_grad():
        before = model(ids, mask)
        for layer in model.layers:
            layer.attn.qk_transform = _ScaleKeys()
        packed = model(ids, mask)  # padding, no maps: the packed path
        padded = model(ids, mask, output_attentions=True).last_hidden_state
    assert (packed - before)[mask].abs().max() > 1e-3  # the hook changed the result
    assert (packed - padded)[mask].abs().max() < 1e-5  # and both paths agree


# Chapter 17's options of the stack: bias-free layers, a skipped first norm, local
# windows in some layers, relative position schemes. (Each scheme's own reference
# checks live in tests/test_positions.py, the ModernBERT parity in
# tests/test_modernbert.py.)


def test_layer_is_local_follows_modernberts_pattern():
    config = small_config(n_layers=7, window=2, global_every=3, norm_first=True)
    pattern = [config.layer_is_local(i) for i in range(7)]
    assert pattern == [False, True, True, False, True, True, False]
    no_window = small_config(n_layers=3)
    assert not any(no_window.layer_is_local(i) for i in range(3))


def test_bias_false_leaves_no_bias_anywhere():
    config = small_config(bias=False, norm_first=True, positional="rope")
    names = [name for name, _ in Encoder(config).named_parameters()]
    assert names and not [name for name in names if name.endswith("bias")]


def test_skip_first_norm_removes_only_layer_zeros_attention_norm():
    config = small_config(n_layers=3, norm_first=True, skip_first_norm=True)
    encoder = Encoder(config)
    assert isinstance(encoder.layers[0].norm1, torch.nn.Identity)
    assert all(isinstance(layer.norm1, LayerNorm) for layer in encoder.layers[1:])
    keys = encoder.state_dict()
    assert "layers.0.norm1.weight" not in keys and "layers.1.norm1.weight" in keys


@pytest.mark.parametrize("positional", ["learned", "none", "t5", "alibi", "rope"])
def test_local_layers_attend_within_the_window_only(positional):
    set_seed(0)
    config = small_config(
        n_layers=3, window=2, global_every=2, norm_first=True, positional=positional
    )
    encoder = Encoder(config).eval()
    ids = torch.randint(1, 50, (2, 9))
    with torch.no_grad():
        maps = encoder(ids, output_attentions=True).attentions
    i, j = torch.meshgrid(torch.arange(9), torch.arange(9), indexing="ij")
    outside = (i - j).abs() > 2
    assert maps[1][..., outside].abs().max() == 0  # layer 1 is local
    assert maps[0][..., outside].min() > 0  # layers 0 and 2 are global
    assert maps[2][..., outside].min() > 0


@pytest.mark.parametrize("positional", ["t5", "alibi", "rope", "none"])
@pytest.mark.parametrize("window", [None, 1])
def test_relative_schemes_keep_packed_equal_to_padded(positional, window):
    set_seed(1)
    config = small_config(
        n_layers=3, norm_first=True, positional=positional, window=window
    )
    encoder = Encoder(config).eval()
    ids = torch.randint(1, 50, (3, 8))
    mask = torch.ones(3, 8, dtype=torch.bool)
    mask[1, 5:] = False
    mask[2, 2:] = False
    with torch.no_grad():
        packed = encoder(ids, mask, output_hidden_states=True)
        padded = encoder(ids, mask, output_attentions=True, output_hidden_states=True)
        alone = encoder(ids[1:2, :5])
    for a, b in zip(packed.hidden_states, padded.hidden_states, strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)
    torch.testing.assert_close(
        packed.last_hidden_state[1, :5], alone[0], atol=1e-5, rtol=0
    )


def test_relative_schemes_have_no_absolute_position_table():
    for positional in ("none", "t5", "alibi", "rope"):
        encoder = Encoder(small_config(positional=positional))
        assert encoder.embeddings.position_embeddings is None
    assert Encoder(small_config(positional="t5")).position_bias is not None
    assert Encoder(small_config(positional="rope")).position_bias is None


def test_modernbert_base_preset_has_modernberts_size():
    # ModernBERT-base has 149 M parameters with its 50,368-token vocabulary and no
    # masked-LM head (Warner et al., 2024, arXiv:2412.13663, Table 3).
    encoder = Encoder(EncoderConfig.modernbert_base())
    assert 148e6 < count_parameters(encoder) < 150e6


@pytest.mark.parametrize(
    "changes",
    [{}, dict(positional="rope", window=2, global_every=2, norm_first=True)],
    ids=["BERT-like", "ModernBERT-like"],
)
def test_a_compiled_encoder_is_one_graph(changes):
    # While a compiler traces, nothing reads values (checks.reads_values): the
    # padded path runs and the checks are queued, so no read cuts the graph.
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    torch.manual_seed(0)
    encoder = Encoder(small_config(**changes)).eval()
    ids, mask = padded_batch([7, 3, 5], 7, 50)
    counter = CompileCounter()  # counts graphs; runs them eagerly, no code made
    compiled = torch.compile(encoder, backend=counter, fullgraph=True)
    with torch.no_grad():
        assert torch.allclose(compiled(ids, mask), encoder(ids, mask), atol=1e-6)
        with pytest.raises(RuntimeError, match=r"expected input_ids in \[0, 50\)"):
            compiled(ids + 50, mask)
    assert counter.frame_count == 1
    encoder.train()  # a training step too: dropout, autograd
    compiled(ids, mask).sum().backward()
    assert all(p.grad is not None for p in encoder.layers.parameters())
