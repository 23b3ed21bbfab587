"""Every encoder family encoderlib reads equals Hugging Face's (chapter 13).

For BERT, RoBERTa, XLM-RoBERTa, DistilBERT (learned and sinusoidal positions),
ELECTRA (embeddings narrower than the layers, and as wide) and ModernBERT: a
randomly initialised tiny Hugging Face model, its config read by
`config_from_pretrained`, its weights copied by `load_pretrained_weights` from
`state_dict()` and from the folders `save_pretrained` writes (safetensors, one
file or shards) and from PyTorch `.bin` files (one or sharded, with an index),
read by `read_weights`. Every hidden state must agree at the real tokens of a
right-padded batch to within 1e-5 in float32, on the packed path and on the
padded one. Run with `-s` to see each family's largest difference.
"""

import json

import pytest
import torch
from small_models import (
    small_bert_config,
    small_distilbert_config,
    small_electra_config,
    small_modernbert_config,
    small_roberta_config,
    small_xlm_roberta_config,
)
from transformers import (
    BertForPreTraining,
    BertModel,
    DistilBertForMaskedLM,
    DistilBertForSequenceClassification,
    DistilBertModel,
    ElectraForMaskedLM,
    ElectraForPreTraining,
    ElectraModel,
    ModernBertModel,
    RobertaForMaskedLM,
    RobertaModel,
    XLMRobertaForSequenceClassification,
    XLMRobertaModel,
)

from encoderlib import Encoder, EncoderConfig
from encoderlib.checkpoints import load_pretrained_weights, read_weights
from encoderlib.checks import count_host_reads
from encoderlib.converters import MODEL_TYPES, config_from_pretrained

FAMILIES = {  # name → (Hugging Face model class, its small config)
    "bert": (BertModel, small_bert_config),
    "roberta": (RobertaModel, small_roberta_config),
    "xlm-roberta": (XLMRobertaModel, small_xlm_roberta_config),
    "distilbert": (DistilBertModel, small_distilbert_config),
    "distilbert-sinusoidal": (
        DistilBertModel,
        lambda: small_distilbert_config(sinusoidal_pos_embds=True),
    ),
    "electra-projected": (ElectraModel, small_electra_config),
    "electra-same-width": (
        ElectraModel,
        lambda: small_electra_config(embedding_size=32),
    ),
    "modernbert": (
        ModernBertModel,
        lambda: small_modernbert_config(vocab_size=99, max_position_embeddings=40),
    ),
}
LENGTHS = (12, 7, 3)  # right padding to 12


def random_model(name: str):
    """The family's Hugging Face model, eval mode, weights of order 1 (seeded)."""
    model_class, make_config = FAMILIES[name]
    torch.manual_seed(0)
    model = model_class(make_config()).eval()
    with torch.no_grad():  # larger than the N(0, 0.02) start: a wrong map shows
        for name_, parameter in model.named_parameters():
            if "position_embeddings" in name_ and parameter.requires_grad is False:
                continue  # DistilBERT's sinusoidal table stays as it is
            parameter.normal_(1.0 if parameter.dim() == 1 else 0.0, 0.2)
    return model


def padded_batch(pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    mask = torch.arange(max(LENGTHS)) < torch.tensor(LENGTHS)[:, None]
    ids = torch.randint(3, 50, (len(LENGTHS), max(LENGTHS)), generator=generator)
    return ids.masked_fill(~mask, pad), mask


def largest_differences(theirs, ours: Encoder) -> dict[str, float]:
    """Largest difference over every hidden state, at real tokens, per path."""
    pad = theirs.config.pad_token_id
    ids, mask = padded_batch(0 if pad is None else pad)
    with torch.no_grad():
        hf = theirs(ids, attention_mask=mask.long(), output_hidden_states=True)
        # transformers puts the final, normalised output last for pre-norm models;
        # EncoderOutput keeps the state before final_norm there: compare the output.
        hf_states = (*hf.hidden_states[:-1], hf.last_hidden_state)
        gaps = {}
        for path, flags in (("packed", {}), ("padded", {"output_attentions": True})):
            out = ours(ids, mask, output_hidden_states=True, **flags)
            states = (*out.hidden_states[:-1], out.last_hidden_state)
            assert len(states) == len(hf_states) == ours.config.n_layers + 1
            gaps[path] = max(
                float((a - b)[mask].abs().max())
                for a, b in zip(states, hf_states, strict=True)
            )
    return gaps


def copied(theirs, state_dict) -> Encoder:
    ours = Encoder(config_from_pretrained(theirs.config)).eval()
    report = load_pretrained_weights(ours, state_dict, theirs.config.model_type)
    assert report.missing == [] and report.unexpected == []
    return ours


@pytest.mark.parametrize("name", FAMILIES)
def test_every_hidden_state_matches_hugging_face(name):
    theirs = random_model(name)
    gaps = largest_differences(theirs, copied(theirs, theirs.state_dict()))
    print(f"\n{name}: largest difference {gaps}")
    assert max(gaps.values()) <= 1e-5, gaps


@pytest.mark.parametrize("name", FAMILIES)
def test_left_padding_and_a_pad_id_inside_match_hugging_face(name):
    # RoBERTa and XLM-R count positions over the tokens that are not pad_token_id,
    # so a row padded on the left, or holding the pad id among its real tokens,
    # keeps Hugging Face's positions; the other families count from 0 regardless.
    theirs = random_model(name)
    ours = copied(theirs, theirs.state_dict())
    pad = theirs.config.pad_token_id or 0
    ids, mask = padded_batch(pad)
    ids, mask = ids.flip(1), mask.flip(1)  # left padding
    ids[0, 5] = pad  # the longest row has no padding: the pad id as a real token
    with torch.no_grad():
        expected = theirs(ids, attention_mask=mask.long()).last_hidden_state
        for flags in ({}, {"output_attentions": True}):  # packed, padded
            out = ours(ids, mask, **flags)
            out = out if isinstance(out, torch.Tensor) else out.last_hidden_state
            assert (out - expected)[mask].abs().max() <= 1e-5, (name, flags)


def write_bin(model, folder, shards: int) -> None:
    """PyTorch .bin files as older transformers wrote them: one, or shards + index
    (transformers 5 writes safetensors whatever safe_serialization says)."""
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    model.config.save_pretrained(folder)
    if shards == 1:
        torch.save(state, folder / "pytorch_model.bin")
        return
    keys, weight_map = list(state), {}
    for i in range(shards):
        file = f"pytorch_model-{i + 1:05d}-of-{shards:05d}.bin"
        part = keys[i::shards]
        torch.save({k: state[k] for k in part}, folder / file)
        weight_map.update(dict.fromkeys(part, file))
    index = {"metadata": {}, "weight_map": weight_map}
    (folder / "pytorch_model.bin.index.json").write_text(json.dumps(index))


SAVES = {
    "safetensors": lambda model, folder: model.save_pretrained(folder),
    "safetensors shards": lambda model, folder: model.save_pretrained(
        folder, max_shard_size="20KB"
    ),
    "bin": lambda model, folder: write_bin(model, folder, 1),
    "bin shards": lambda model, folder: write_bin(model, folder, 3),
}


# Each family through one kind of saved folder; each kind serves two families.
SAVED_AS = {
    "bert": "safetensors",
    "roberta": "safetensors shards",
    "xlm-roberta": "bin",
    "distilbert": "bin shards",
    "distilbert-sinusoidal": "safetensors",
    "electra-projected": "bin",
    "electra-same-width": "bin shards",
    "modernbert": "safetensors shards",
}


@pytest.mark.parametrize(("name", "save"), SAVED_AS.items())
def test_saved_folders_load_through_read_weights(name, save, tmp_path):
    theirs = random_model(name)
    SAVES[save](theirs, tmp_path)
    index = {"safetensors shards": "model.safetensors.index.json"}.get(save)
    assert index is None or (tmp_path / index).is_file()
    ours = copied(theirs, read_weights(tmp_path))
    assert config_from_pretrained(tmp_path) == ours.config  # the folder's config.json
    assert max(largest_differences(theirs, ours).values()) <= 1e-5


@pytest.mark.parametrize(
    ("model_class", "name", "heads"),
    [
        (BertForPreTraining, "bert", ("cls.",)),
        (RobertaForMaskedLM, "roberta", ("lm_head.",)),
        (XLMRobertaForSequenceClassification, "xlm-roberta", ("classifier.",)),
        (DistilBertForMaskedLM, "distilbert", ("vocab_",)),
        (DistilBertForSequenceClassification, "distilbert", ("classifier.",)),
        (ElectraForPreTraining, "electra-projected", ("discriminator_predictions.",)),
        (ElectraForMaskedLM, "electra-projected", ("generator_",)),
    ],
)
def test_task_model_checkpoints_load_with_their_heads_ignored(model_class, name, heads):
    torch.manual_seed(0)
    config = FAMILIES[name][1]()
    task = model_class(config).eval()
    ours = Encoder(config_from_pretrained(config)).eval()
    report = load_pretrained_weights(ours, task.state_dict(), config.model_type)
    assert report.missing == [] and report.unexpected == []
    assert any(key.startswith(heads) for key in report.ignored), report.ignored
    base = getattr(task, task.base_model_prefix)
    assert max(largest_differences(base, ours).values()) <= 1e-5


def test_roberta_read_as_bert_would_compute_something_else():
    theirs = random_model("roberta")
    as_bert = config_from_pretrained({**theirs.config.to_dict(), "model_type": "bert"})
    assert as_bert.position_offset == 0
    with pytest.raises(ValueError, match=r"roberta's shape .*'position_offset': 0"):
        load_pretrained_weights(Encoder(as_bert), theirs.state_dict(), "roberta")
    forced = Encoder(as_bert).eval()
    load_pretrained_weights(forced, theirs.state_dict(), "bert")
    assert max(largest_differences(theirs, forced).values()) > 0.1


def test_the_config_readers():
    roberta = config_from_pretrained(small_roberta_config())
    assert (roberta.position_offset, roberta.pad_token_id) == (2, 1)
    assert roberta.type_vocab_size == 1 and roberta.max_len == 40
    distil = config_from_pretrained(small_distilbert_config(activation="relu"))
    assert (distil.d_model, distil.d_ff, distil.type_vocab_size) == (32, 64, 0)
    assert distil.activation == "relu" and distil.eps == 1e-12
    assert config_from_pretrained(small_electra_config()).d_embed == 16
    assert (
        config_from_pretrained(small_electra_config(embedding_size=32)).d_embed is None
    )
    assert set(MODEL_TYPES) == {
        "bert",
        "roberta",
        "xlm-roberta",
        "distilbert",
        "electra",
        "modernbert",
    }


def test_a_dict_a_file_a_folder_and_an_object_give_one_config(tmp_path):
    hf_config = small_xlm_roberta_config()
    hf_config.save_pretrained(tmp_path)
    configs = [
        config_from_pretrained(source)
        for source in (
            hf_config,
            hf_config.to_dict(),
            tmp_path,
            str(tmp_path / "config.json"),
        )
    ]
    assert all(config == configs[0] for config in configs)


@pytest.mark.parametrize(
    ("hf", "message"),
    [
        ({"model_type": "gpt2"}, r"encoder-only config .*got model_type 'gpt2'"),
        ({"model_type": "llama"}, r"got model_type 'llama'"),
        (
            {"model_type": "t5", "is_encoder_decoder": True},
            r"'t5' with is_encoder_decoder=True",
        ),
        ({"model_type": "deberta-v2"}, r"model_type as one of 'bert', .*'deberta-v2'"),
        ({"vocab_size": 9}, r"a config with a model_type .*got None"),
        (
            {**small_roberta_config().to_dict(), "is_decoder": True},
            r"'roberta' with is_decoder=True",
        ),
        (
            {
                **small_electra_config().to_dict(),
                "position_embedding_type": "relative_key",
            },
            r"absolute position embeddings, got 'relative_key'",
        ),
    ],
)
def test_refusals_name_what_they_found(hf, message):
    with pytest.raises(ValueError, match=message):
        config_from_pretrained(hf)


@pytest.mark.parametrize("name", ["roberta", "electra-projected"])
@pytest.mark.parametrize("padded", [False, True], ids=["no padding", "padding"])
def test_offsets_and_projections_never_wait_on_a_gpu(name, padded):
    # As tests/test_gpu_sync.py counts: no wait without padding, at most one with
    # (the packed path's count of real tokens), on the paths a GPU run takes.
    ours = Encoder(config_from_pretrained(FAMILIES[name][1]())).eval()
    ids, mask = padded_batch(1)
    mask = mask if padded else torch.ones_like(mask)
    with torch.no_grad():
        ours(ids, mask)
        with count_host_reads() as waits:
            ours(ids, mask)
    assert len(waits) <= (1 if padded else 0), waits


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["roberta", "electra-projected"])
def test_offsets_and_projections_never_sync_on_cuda(name):
    ours = Encoder(config_from_pretrained(FAMILIES[name][1]())).eval().cuda()
    ids = padded_batch(1)[0].cuda()
    with torch.no_grad():
        ours(ids)
        torch.cuda.set_sync_debug_mode("error")
        try:
            ours(ids)
        finally:
            torch.cuda.set_sync_debug_mode("default")


def test_sinusoidal_positions_from_an_offset_with_narrow_embeddings():
    config = EncoderConfig.tiny(
        positional="sinusoidal", d_embed=16, position_offset=3, dropout=0.0
    )
    torch.manual_seed(0)
    ours = Encoder(config).eval()
    shifted = Encoder(config.replace(position_offset=0)).eval()
    shifted.load_state_dict(ours.state_dict())
    ids, mask = padded_batch(0)
    with torch.no_grad():
        packed = ours(ids, mask, output_hidden_states=True)
        padded = ours(ids, mask, output_attentions=True, output_hidden_states=True)
        # the offset is the only difference: the same ids, three positions later
        unshifted = shifted(ids, mask)
    assert ours.embedding_projection.weight.shape == (64, 16)
    assert packed.hidden_states[0].shape == (3, 12, 64)  # after the projection
    torch.testing.assert_close(packed.last_hidden_state, padded.last_hidden_state)
    assert (packed.last_hidden_state - unshifted)[mask].abs().max() > 1e-3
