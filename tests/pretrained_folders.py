"""Model folders of every encoder family, built offline with random weights.

`from_pretrained` reads folders that Hugging Face's `save_pretrained` wrote. The
tests need one of each family without a download, so this module builds them:
the family's tiny trained tokenizer from `pretrained_tokenizer_files` (WordPiece
for BERT, DistilBERT and ELECTRA; byte-level BPE for RoBERTa and ModernBERT; a
SentencePiece Unigram for XLM-RoBERTa) and a randomly initialised model of
width 32 and two layers (three for ModernBERT), written with
`save_pretrained`. Variants: `.bin` weights, sharded weights, a BERT folder with
only `vocab.txt`, a folder without tokenizer files, a RoBERTa folder with only
the slow tokenizer files, and a sentence-transformers folder (Transformer →
Pooling → Normalize) written by `SentenceTransformer.save`. Every builder
caches its folder for the session; conftest.py has already told Hugging Face's
libraries to stay offline.
"""

import atexit
import json
import shutil
import tempfile
import warnings
from functools import cache
from pathlib import Path

import torch
import transformers
from pretrained_tokenizer_files import save_family

transformers.utils.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

FAMILIES = ("bert", "roberta", "xlm-roberta", "distilbert", "electra", "modernbert")
# Sentences of varied length (padding matters), with accents, CJK and emoji.
SENTENCES = [
    "The cat sat on the mat.",
    "A dog ran.",
    "Café crème! 東京 🙂 12345",
    "Encoders turn every sentence into one vector, and tokenizers split words.",
]
SIZES = dict(
    hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64
)

_ROOT = Path(tempfile.mkdtemp(prefix="pretrained-folders-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)


def tokenizer_folder(family: str) -> Path:
    """The tokenizer files of `family`, built by pretrained_tokenizer_files.

    DistilBERT and ELECTRA use BERT's WordPiece tokenizer, as their checkpoints do.
    """
    kind = "bert" if family in ("distilbert", "electra") else family
    return _tokenizer_folder(kind)


@cache
def _tokenizer_folder(kind: str) -> Path:
    return save_family(kind, _ROOT / f"tokenizer-{kind}")


@cache
def hf_tokenizer(family: str) -> transformers.PreTrainedTokenizerBase:
    """`family`'s tiny tokenizer, as `transformers.AutoTokenizer` reads it."""
    return transformers.AutoTokenizer.from_pretrained(tokenizer_folder(family))


def hf_config(family: str, vocab_size: int, pad_token_id: int, **changes):
    """A tiny random-weight config of `family` (width 32, 2 layers)."""
    if family == "bert":
        return transformers.BertConfig(
            vocab_size=vocab_size, pad_token_id=pad_token_id, **SIZES, **changes
        )
    if family in ("roberta", "xlm-roberta"):
        kind = (
            transformers.RobertaConfig
            if family == "roberta"
            else transformers.XLMRobertaConfig
        )
        return kind(
            vocab_size=vocab_size,
            pad_token_id=pad_token_id,
            max_position_embeddings=64 + pad_token_id + 1,
            type_vocab_size=1,
            **SIZES,
            **changes,
        )
    if family == "distilbert":
        return transformers.DistilBertConfig(
            vocab_size=vocab_size,
            pad_token_id=pad_token_id,
            dim=32,
            n_layers=2,
            n_heads=4,
            hidden_dim=64,
            max_position_embeddings=64,
            **changes,
        )
    if family == "electra":
        settings = dict(embedding_size=16, max_position_embeddings=64)
        return transformers.ElectraConfig(
            vocab_size=vocab_size,
            pad_token_id=pad_token_id,
            **SIZES,
            **{**settings, **changes},
        )
    if family == "modernbert":
        return transformers.ModernBertConfig(
            vocab_size=vocab_size,
            pad_token_id=pad_token_id,
            hidden_size=32,
            intermediate_size=48,
            num_hidden_layers=3,
            num_attention_heads=4,
            max_position_embeddings=64,
            local_attention=4,
            cls_token_id=2,
            sep_token_id=3,
            bos_token_id=2,
            eos_token_id=3,
            **changes,
        )
    raise ValueError(f"expected one of {FAMILIES}, got {family!r}")


def _new_folder(name: str) -> Path:
    path = _ROOT / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


@cache
def model_folder(
    family: str,
    weights: str = "safetensors",
    sharded: bool = False,
    tokenizer: bool = True,
    seed: int = 0,
) -> Path:
    """A folder with a random `family` model and, by default, its tokenizer.

    `weights` "safetensors" or "bin"; `sharded` splits the weights into files of
    at most 20 kB with an index; `tokenizer=False` writes the model alone.
    """
    fast = hf_tokenizer(family)
    config = hf_config(family, len(fast), fast.pad_token_id)
    torch.manual_seed(seed)
    model = transformers.AutoModel.from_config(config).eval()
    path = _new_folder(f"{family}-{weights}-{sharded}-{tokenizer}-{seed}")
    model.save_pretrained(
        path,
        safe_serialization=weights == "safetensors",
        max_shard_size="20kB" if sharded else "10GB",
    )
    if tokenizer:
        shutil.copytree(tokenizer_folder(family), path, dirs_exist_ok=True)
    return path


@cache
def bert_vocab_folder() -> Path:
    """A BERT folder whose tokenizer is vocab.txt + tokenizer_config.json only."""
    path = _new_folder("bert-vocab-only")
    shutil.copytree(model_folder("bert"), path, dirs_exist_ok=True)
    (path / "tokenizer.json").unlink()
    vocab = hf_tokenizer("bert").get_vocab()
    tokens = sorted(vocab, key=vocab.get)
    (path / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return path


@cache
def slow_tokenizer_folder() -> Path:
    """A RoBERTa folder with vocab.json and merges.txt but no tokenizer.json."""
    path = _new_folder("roberta-slow-files")
    shutil.copytree(model_folder("roberta"), path, dirs_exist_ok=True)
    (path / "tokenizer.json").unlink()
    (path / "vocab.json").write_text("{}", encoding="utf-8")
    (path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    return path


@cache
def sentence_folder(pooling: str = "mean", normalize: bool = True) -> Path:
    """A sentence-transformers folder: BERT → Pooling(`pooling`) → Normalize."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sentence_transformers.models is deprecated
        from sentence_transformers import SentenceTransformer
        from sentence_transformers import models as st_models

    transformer = st_models.Transformer(str(model_folder("bert")), max_seq_length=48)
    modules = [transformer, st_models.Pooling(32, pooling_mode=pooling)]
    if normalize:
        modules.append(st_models.Normalize())
    path = _new_folder(f"sentence-{pooling}-{normalize}")
    SentenceTransformer(modules=modules, device="cpu").save(str(path))
    return path


def edited_copy(folder: Path, name: str, edit) -> Path:
    """A copy of `folder` in which `edit(dict)` changed the JSON file `name`."""
    path = _new_folder(f"{folder.name}-edited-{len(list(_ROOT.iterdir()))}")
    shutil.copytree(folder, path, dirs_exist_ok=True)
    data = json.loads((path / name).read_text(encoding="utf-8"))
    edit(data)
    (path / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
