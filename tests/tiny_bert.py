"""A tiny BERT vocabulary and configuration, and a duck-typed tokenizer, for tests.

Kept apart from small_models.py, which imports transformers: the tests that use
these run without it.

- `TINY_VOCAB` (the specials, letters, ``##`` letters and a few words) and
  `TINY_BERT` (a BERT config dict of 2 layers of width 32 over that vocabulary).
- `DuckTokenizer`: encoderlib's tokenizer interface by delegation, not a
  `WordPieceTokenizer`.
"""

from encoderlib.tokenization import WordPieceTokenizer

LETTERS = list("abcdefghijklmnopqrstuvwxyz")
TINY_VOCAB = (
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    + LETTERS
    + ["##" + c for c in LETTERS]
    + ["the", "cat", "sat", "on", "mat", "."]
)
TINY_BERT = {
    "vocab_size": len(TINY_VOCAB),
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
}


class DuckTokenizer:
    """encoderlib's tokenizer interface by delegation, not a WordPieceTokenizer.

    With `masking=True` it also carries the masking ids (`mask_token_id`,
    `special_token_ids`) that the MLM collator needs.
    """

    def __init__(self, inner: WordPieceTokenizer, masking: bool = True) -> None:
        self.inner = inner
        self.pad_token_id, self.vocab_size = inner.pad_token_id, inner.vocab_size
        if masking:
            self.mask_token_id = inner.mask_token_id
            self.special_token_ids = inner.special_token_ids

    def encode(self, text, add_special_tokens=True, max_length=None):
        return self.inner.encode(text, add_special_tokens, max_length)

    def encode_pair(self, first, second, max_length=None):
        return self.inner.encode_pair(first, second, max_length=max_length)

    def __call__(self, texts, max_length=512, padding=True, truncation=True):
        return self.inner(texts, max_length, padding, truncation)
