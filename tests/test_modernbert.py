"""A ModernBERT-style Encoder (chapter 17) against Hugging Face's `ModernBertModel`.

A small `ModernBertModel` with random weights (drawn large enough that every
piece matters: the local window, the two RoPE bases, GeGLU, the missing first
norm) is copied into an `Encoder` built by `config_from_modernbert`, and the
two must agree within 1e-5 at every real token of a padded batch: the
embeddings, each layer's output and the final output, on the padded path
(hidden states requested) and on the packed, padding-free one. Also: the
config's translation (windows, global layers, bases), the loader's report
(`model.` prefix, the masked-LM head ignored), and ModernBERT-base's size.
"""

import pytest
import torch
from einops import rearrange
from small_models import small_modernbert_config
from transformers import ModernBertConfig, ModernBertForMaskedLM, ModernBertModel

from encoderlib import (
    Encoder,
    EncoderConfig,
    config_from_modernbert,
    count_parameters,
    load_modernbert_weights,
)


def small_config(**changes) -> ModernBertConfig:
    settings = dict(
        vocab_size=120,
        hidden_size=64,
        intermediate_size=96,
        num_hidden_layers=5,
        max_position_embeddings=64,
        local_attention=6,  # |i - j| <= 3 in local layers
        global_attn_every_n_layers=3,
        global_rope_theta=160000.0,
        local_rope_theta=10000.0,
        attn_implementation="sdpa",
    )
    return small_modernbert_config(**{**settings, **changes})


def random_model(config: ModernBertConfig, seed: int = 0) -> ModernBertModel:
    torch.manual_seed(seed)
    model = ModernBertModel(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() == 2:
                parameter.normal_(0.0, parameter.shape[1] ** -0.5)
            else:
                parameter.normal_(1.0, 0.2)
    return model


def padded_batch(lengths=(19, 11, 4), n=19, vocab=120, seed=0):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(3, vocab, (len(lengths), n), generator=generator)
    mask = rearrange(torch.arange(n), "n -> 1 n") < rearrange(
        torch.tensor(lengths), "b -> b 1"
    )
    return ids.masked_fill(~mask, 0), mask


@pytest.mark.parametrize("attn_implementation", ["sdpa", "eager"])
@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"num_hidden_layers": 6, "global_attn_every_n_layers": 2},
        {"local_attention": 16, "local_rope_theta": 500.0},
    ],
)
def test_every_hidden_state_matches_on_real_tokens(attn_implementation, changes):
    config = small_config(attn_implementation=attn_implementation, **changes)
    theirs_model = random_model(config)
    ours_model = Encoder(config_from_modernbert(config)).eval()
    report = load_modernbert_weights(ours_model, theirs_model.state_dict())
    assert report.missing == [] and report.unexpected == []
    ids, mask = padded_batch()
    with torch.no_grad():
        theirs = theirs_model(
            ids, attention_mask=mask.long(), output_hidden_states=True
        )
        ours = ours_model(ids, mask, output_hidden_states=True)
        packed = ours_model(ids, mask)
    n_states = config.num_hidden_layers + 1
    assert len(theirs.hidden_states) == len(ours.hidden_states) == n_states
    for i in range(n_states - 1):
        gap = (ours.hidden_states[i] - theirs.hidden_states[i])[mask].abs().max()
        assert gap < 1e-5, (i, gap)
    # transformers 5 replaces its last hidden state by the final, normalised output;
    # EncoderOutput keeps the state before final_norm there.
    last_layer = ours_model.final_norm(ours.hidden_states[-1])
    assert (last_layer - theirs.hidden_states[-1])[mask].abs().max() < 1e-5
    assert (ours.last_hidden_state - theirs.last_hidden_state)[mask].abs().max() < 1e-5
    assert (packed - theirs.last_hidden_state)[mask].abs().max() < 1e-5
    assert (packed[~mask] == 0).all()


def test_the_local_window_matters_here():
    # Guard the test above: without the window, the outputs would differ.
    config = small_config()
    theirs_model = random_model(config)
    ours_config = config_from_modernbert(config).replace(window=None, global_every=1)
    ours_model = Encoder(ours_config).eval()
    load_modernbert_weights(ours_model, theirs_model.state_dict())
    ids, mask = padded_batch()
    with torch.no_grad():
        gap = (ours_model(ids, mask) - theirs_model(ids, mask.long())[0])[mask]
    assert gap.abs().max() > 0.1


def test_float64_agrees_to_float32_rotations():
    # In float64 only the rotations stay float32 on both sides: ours computes the
    # angles in float32, and Hugging Face's apply_rotary_pos_emb calls q.float().
    config = small_config()
    theirs_model = random_model(config).double()
    ours_model = Encoder(config_from_modernbert(config)).double().eval()
    load_modernbert_weights(ours_model, theirs_model.state_dict())
    ids, mask = padded_batch()
    with torch.no_grad():
        gap = ours_model(ids, mask) - theirs_model(ids, mask.long())[0]
    assert gap[mask].abs().max() < 1e-6


def test_a_masked_lm_checkpoint_loads_with_its_head_ignored():
    config = small_config()
    torch.manual_seed(0)
    masked_lm = ModernBertForMaskedLM(config).eval()
    ours_model = Encoder(config_from_modernbert(config)).eval()
    report = load_modernbert_weights(ours_model, masked_lm.state_dict())
    assert all(key.startswith("model.") for key in report.loaded)
    assert report.ignored and all(
        key.startswith(("head.", "decoder.")) for key in report.ignored
    )
    ids, mask = padded_batch()
    with torch.no_grad():
        theirs = masked_lm.model(ids, attention_mask=mask.long()).last_hidden_state
        assert (ours_model(ids, mask) - theirs)[mask].abs().max() < 1e-5


def test_the_config_translation():
    ours = config_from_modernbert(small_config())
    assert (ours.window, ours.global_every) == (3, 3)
    assert (ours.rope_theta, ours.local_rope_theta) == (160000.0, 10000.0)
    assert ours.positional == "rope" and ours.activation == "geglu"
    assert ours.norm_first and ours.skip_first_norm and not ours.bias
    assert ours.type_vocab_size == 0
    # The config.json form (a dict), including the older keys without layer_types.
    as_dict = small_config().to_dict()
    assert config_from_modernbert(as_dict) == ours
    old = {
        key: value
        for key, value in as_dict.items()
        if key not in ("layer_types", "rope_parameters")
    }
    old.update(global_rope_theta=160000.0, local_rope_theta=10000.0)
    old["global_attn_every_n_layers"] = 3
    assert config_from_modernbert(old) == ours
    everywhere = config_from_modernbert(
        {**as_dict, "layer_types": ["full_attention"] * 5}
    )
    assert everywhere.window is None and everywhere.local_rope_theta is None


def test_a_config_json_path(tmp_path):
    small_config().save_pretrained(tmp_path)
    assert config_from_modernbert(tmp_path) == config_from_modernbert(small_config())
    assert config_from_modernbert(tmp_path / "config.json").d_model == 64


def test_modernbert_base_has_the_reference_size():
    with torch.device("meta"):
        theirs = ModernBertModel(ModernBertConfig())
        ours = Encoder(config_from_modernbert(ModernBertConfig()))
    assert count_parameters(ours) == sum(p.numel() for p in theirs.parameters())
    assert config_from_modernbert(ModernBertConfig()) == EncoderConfig.modernbert_base()


def test_a_saved_folder_names_the_tokenizers_special_tokens(tmp_path):
    # ModernBERT's config has its own [CLS] and [SEP] ids; left out, transformers
    # fills in ModernBERT-base's (50281, 50282), outside a smaller vocabulary.
    from transformers import AutoConfig

    from encoderlib import WordPieceTokenizer, save_pretrained

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = WordPieceTokenizer([*words, *(f"w{i}" for i in range(115))])
    encoder = Encoder(config_from_modernbert(small_config()))
    save_pretrained(tmp_path, encoder, tokenizer)
    config = AutoConfig.from_pretrained(tmp_path)
    assert (config.cls_token_id, config.bos_token_id) == (2, 2)
    assert (config.sep_token_id, config.eos_token_id) == (3, 3)
    assert config.pad_token_id == 0


@pytest.mark.parametrize(
    ("n_layers", "global_every", "local_layers"),
    [(1, 3, []), (2, 3, [1]), (3, 5, [1, 2]), (4, 3, [1, 2])],
)
def test_few_layers_save_and_load_back(n_layers, global_every, local_layers, tmp_path):
    # 2 layers with global_every=3 are written as layer_types [full, sliding],
    # which read back as global_every=2: another spelling of the same encoder.
    from transformers import AutoModel

    from encoderlib import WordPieceTokenizer, from_pretrained, save_pretrained

    config = EncoderConfig.modernbert_base(
        vocab_size=120,
        d_model=32,
        n_heads=2,
        d_ff=48,
        max_len=64,
        pad_token_id=0,
        window=3,
        n_layers=n_layers,
        global_every=global_every,
    )
    assert [i for i in range(n_layers) if config.layer_is_local(i)] == local_layers
    torch.manual_seed(0)
    encoder = Encoder(config).eval()
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = WordPieceTokenizer([*words, *(f"w{i}" for i in range(115))])
    save_pretrained(tmp_path, encoder, tokenizer)
    ids, mask = padded_batch()
    with torch.no_grad():
        ours = encoder(ids, mask)
        theirs = AutoModel.from_pretrained(tmp_path).eval()(ids, mask)
        back, _, _ = from_pretrained(tmp_path)  # a SentenceEncoder: save_pretrained
        again = back.model(ids, mask)  # writes sentence-transformers' files too
    assert (theirs.last_hidden_state - ours)[mask].abs().max() <= 1e-5
    assert (again - ours)[mask].abs().max() <= 1e-6
