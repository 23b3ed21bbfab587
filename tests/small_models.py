"""Small Hugging Face configurations shared by the tests: random weights, no download.

Tests build a model of the real architecture from one of these, copy its weights
into encoderlib, and compare. Each builder takes keyword overrides.
"""

from transformers import (
    BertConfig,
    DistilBertConfig,
    ElectraConfig,
    ModernBertConfig,
    RobertaConfig,
    XLMRobertaConfig,
)


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


# The other encoder families (chapter 13's config_from_pretrained): width 32,
# 2 layers, 4 heads, a vocabulary of 99 with padding id 1 (RoBERTa's).
FAMILY_SIZES = dict(vocab_size=99, max_position_embeddings=40, pad_token_id=1)
BERT_SIZES = dict(
    hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64
)


def small_bert_config(**changes) -> BertConfig:
    """A BERT of 2 layers of width 32."""
    return BertConfig(**{**FAMILY_SIZES, **BERT_SIZES, **changes})


def small_roberta_config(**changes) -> RobertaConfig:
    """A RoBERTa of 2 layers of width 32: positions from pad_token_id + 1 = 2."""
    settings = {**FAMILY_SIZES, **BERT_SIZES, "type_vocab_size": 1}
    return RobertaConfig(**{**settings, **changes})


def small_xlm_roberta_config(**changes) -> XLMRobertaConfig:
    """An XLM-RoBERTa of 2 layers of width 32."""
    settings = {**FAMILY_SIZES, **BERT_SIZES, "type_vocab_size": 1}
    return XLMRobertaConfig(**{**settings, **changes})


def small_distilbert_config(**changes) -> DistilBertConfig:
    """A DistilBERT of 2 layers of width 32 (its own key names)."""
    settings = dict(dim=32, n_heads=4, n_layers=2, hidden_dim=64)
    return DistilBertConfig(**{**FAMILY_SIZES, **settings, **changes})


def small_electra_config(**changes) -> ElectraConfig:
    """An ELECTRA discriminator of 2 layers of width 32, embeddings 16 wide."""
    settings = {**FAMILY_SIZES, **BERT_SIZES, "embedding_size": 16}
    return ElectraConfig(**{**settings, **changes})
