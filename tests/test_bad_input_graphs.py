"""Bad input to encoderlib.graphs (chapter 19): its two wrappers of an encoder.

Their constructors get a non-encoder and steps that are not ints >= 1, and must
raise a TypeError or ValueError whose message names what was expected and what
was received. GraphedEncoder's forward hands every batch it does not replay to
the encoder, whose checks answer (tests/test_bad_input_encoder.py); a bad mask
is refused by the same check before a replay.
"""

import torch
from bad_input import sweep

from encoderlib import Encoder, EncoderConfig, SentenceEncoder
from encoderlib.graphs import GraphedEncoder, GraphedSentenceEncoder
from encoderlib.tokenization import WordPieceTokenizer

ENCODER = Encoder(EncoderConfig.tiny())
SENTENCE_ENCODER = SentenceEncoder(
    WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"]), ENCODER
)

CASES = {
    "ch19 GraphedEncoder(a str)": (
        lambda: GraphedEncoder("minilm"),
        TypeError,
        r"expected encoder as an encoderlib Encoder, got str 'minilm'",
    ),
    "ch19 GraphedEncoder(step=0)": (
        lambda: GraphedEncoder(ENCODER, step=0),
        ValueError,
        r"expected step as a positive int, got 0",
    ),
    "ch19 GraphedEncoder(step=2.0)": (
        lambda: GraphedEncoder(ENCODER, step=2.0),
        TypeError,
        r"expected step as a positive int, got float 2\.0",
    ),
    "ch19 GraphedEncoder()(a mask of another shape)": (
        lambda: GraphedEncoder(ENCODER)(
            torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long)
        ),
        ValueError,
        r"expected attention_mask of shape \(b, n\) = \(2, 3\)",
    ),
    "ch19 GraphedSentenceEncoder(an Encoder)": (
        lambda: GraphedSentenceEncoder(ENCODER),
        TypeError,
        r"expected encoder as an encoderlib SentenceEncoder, got Encoder",
    ),
    "ch19 GraphedSentenceEncoder(step=0)": (
        lambda: GraphedSentenceEncoder(SENTENCE_ENCODER, step=0),
        ValueError,
        r"expected step as a positive int, got 0",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
