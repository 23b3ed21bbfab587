"""Small Hugging Face configurations shared by the tests: random weights, no download.

Tests build a model of the real architecture from one of these, copy its weights
into encoderlib, and compare. Each builder takes keyword overrides.
"""

from transformers import ModernBertConfig


def small_modernbert_config(**changes) -> ModernBertConfig:
    """A ModernBERT of 3 layers of width 32, 4 heads, a window of 4 tokens."""
    settings = dict(
        vocab_size=50,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=3,
        num_attention_heads=4,
        max_position_embeddings=32,
        local_attention=4,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        cls_token_id=1,
        sep_token_id=2,
    )
    return ModernBertConfig(**{**settings, **changes})
