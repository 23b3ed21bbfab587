"""The hot path never makes the GPU wait on Python (DESIGN.md §2).

A host-device synchronisation (`.item()`, `bool(tensor)`, `.tolist()`, a
boolean-mask index, `nonzero`) empties the GPU's queue: Python stops until every
kernel launched so far has run. On CUDA these tests run the forward passes under
`torch.cuda.set_sync_debug_mode("error")`, which turns every synchronisation
into an error. Everywhere, the same passes also run on the CPU with
`encoderlib.checks.HOST_READ_DEVICES` emptied, so the code takes the paths a GPU
run takes, and the operations that would wait are counted.

`encoderlib.checks.count_host_reads` does the counting. The budget: none for a
batch without padding, at most one for a padded batch (the packed path's count
of real tokens), for BERT-, MiniLM- and ModernBERT-
shaped encoders, `SentenceEncoder.encode` and one step of `train`.
"""

import pytest
import torch
import torch.nn.functional as F

from encoderlib import Encoder, EncoderClassifier, EncoderConfig, train
from encoderlib.checks import count_host_reads


@pytest.fixture
def as_on_a_gpu():
    """Count, in a block, what would wait on a GPU: `with as_on_a_gpu() as waits:`."""
    return count_host_reads


CONFIGS = {
    "bert": EncoderConfig.bert_base(
        vocab_size=100, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32
    ),
    "minilm": EncoderConfig.minilm_l6(
        vocab_size=100, d_model=24, n_heads=4, n_layers=2, d_ff=48, max_len=32
    ),
    "modernbert": EncoderConfig.modernbert_base(
        vocab_size=100,
        d_model=32,
        n_heads=4,
        n_layers=3,
        d_ff=48,
        max_len=64,
        window=4,
        pad_token_id=0,
    ),
}


def batch(device, padded: bool):
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 100, (3, 12), generator=generator)
    mask = torch.ones(3, 12, dtype=torch.long)
    if padded:
        mask[1, 7:] = 0
        mask[2, 3:] = 0
    return ids.to(device), mask.to(device)


def forward_waits(config, device, padded, counter=None):
    # counter None: on CUDA, every synchronisation raises; else count_host_reads.
    torch.manual_seed(0)
    model = Encoder(config).eval().to(device)
    ids, mask = batch(device, padded)
    with torch.no_grad():
        model(ids, mask)  # warm-up: lazy caches (rotary tables) fill once
        if counter is None:
            torch.cuda.set_sync_debug_mode("error")
            try:
                model(ids, mask)
            finally:
                torch.cuda.set_sync_debug_mode("default")
            return []
        with counter() as waits:
            model(ids, mask)
    return waits


@pytest.mark.parametrize("padded", [False, True], ids=["no padding", "padding"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_forward_waits_at_most_once_and_never_without_padding(
    name, padded, as_on_a_gpu
):
    waits = forward_waits(CONFIGS[name], torch.device("cpu"), padded, as_on_a_gpu)
    assert len(waits) <= (1 if padded else 0), f"{name} forward would wait: {waits}"


def classifier_step(device, counter=None):
    torch.manual_seed(0)
    model = EncoderClassifier(Encoder(CONFIGS["minilm"]), n_classes=2, pooling="mean")
    ids, mask = batch(torch.device("cpu"), padded=True)
    data = [
        {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor([0, 1, 0])}
    ]

    def loss_fn(model, batch):
        logits = model(batch["input_ids"], batch["attention_mask"])
        return F.cross_entropy(logits, batch["labels"])

    run = dict(steps=1, lr=1e-3, device=device, progress=False, seed=0)
    train(model, loss_fn, data, **run)  # warm-up
    if counter is None:
        torch.cuda.set_sync_debug_mode("error")
        try:
            train(model, loss_fn, data, **run)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return []
    with counter() as waits:
        train(model, loss_fn, data, **run)
    return waits


def test_a_training_step_waits_at_most_twice(as_on_a_gpu):
    # One wait in the padded forward, one to read the loss into the history.
    waits = classifier_step(torch.device("cpu"), as_on_a_gpu)
    assert len(waits) <= 2, f"a train step would wait: {waits}"


def test_a_padded_mean_pool_classifier_waits_no_more_than_its_encoder(as_on_a_gpu):
    # Pooling and head read no values on a GPU: the mask is checked with
    # checks.as_bool_mask, the shapes and dtypes on the host.
    torch.manual_seed(0)
    model = EncoderClassifier(Encoder(CONFIGS["minilm"]), n_classes=2, pooling="mean")
    ids, mask = batch(torch.device("cpu"), padded=True)
    with torch.no_grad():
        model.eval()(ids, mask)  # warm-up
        with as_on_a_gpu() as encoder_waits:
            model.encoder(ids, mask)
        with as_on_a_gpu() as waits:
            model(ids, mask)
    assert len(waits) <= min(len(encoder_waits), 1), f"classifier waits: {waits}"


@pytest.mark.cuda
@pytest.mark.parametrize("name", list(CONFIGS))
def test_forward_without_padding_never_syncs_on_cuda(name):
    forward_waits(CONFIGS[name], torch.device("cuda"), padded=False)


@pytest.mark.cuda
@pytest.mark.parametrize("name", list(CONFIGS))
def test_padded_forward_syncs_at_most_once_on_cuda(name):
    def counter():
        return count_host_reads(as_on_a_gpu=False)

    waits = forward_waits(CONFIGS[name], torch.device("cuda"), True, counter)
    cuda = [w for w in waits if w.startswith("CUDA")]
    assert len(cuda) <= 1, f"{name} padded forward synchronised: {waits}"


@pytest.mark.cuda
def test_a_training_step_syncs_at_most_twice_on_cuda():
    def counter():
        return count_host_reads(as_on_a_gpu=False)

    waits = classifier_step(torch.device("cuda"), counter)
    assert len([w for w in waits if w.startswith("CUDA")]) <= 2, waits


# SentenceEncoder.encode (chapter 13): tokenize on the CPU, move to the device,
# forward, pool, normalise. Its own code reads nothing on the device: the only
# waits allowed are the forward's, at most one per padded batch, plus the final
# copy of the vectors to the CPU.
SENTENCES = ["the cat sat .", "a", "the cat", "xyz abc the cat sat on it", "b c", "d e"]


def sentence_encoder(device):
    from encoderlib import SentenceEncoder, WordPieceTokenizer

    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        *"abcdefghijklmnopqrstuvwxyz",
    ]
    tokenizer = WordPieceTokenizer([*vocab, "the", "cat", "sat", "."])
    config = CONFIGS["minilm"].replace(vocab_size=tokenizer.vocab_size)
    torch.manual_seed(0)
    return SentenceEncoder(tokenizer, Encoder(config).to(device), max_length=32)


def padded_batches(encoder, batch_size):
    lengths = sorted(
        (len(encoder.tokenizer.encode(s, max_length=32)) for s in SENTENCES),
        reverse=True,
    )
    groups = [lengths[i : i + batch_size] for i in range(0, len(lengths), batch_size)]
    return sum(min(group) < max(group) for group in groups)


@pytest.mark.parametrize("batch_size", [1, 2, 4])
def test_encode_waits_only_in_the_forward_of_padded_batches(batch_size, as_on_a_gpu):
    encoder = sentence_encoder(torch.device("cpu"))
    encoder.encode(SENTENCES, batch_size=batch_size)  # warm-up
    with as_on_a_gpu() as waits:
        encoder.encode(SENTENCES, batch_size=batch_size).cpu()
    budget = padded_batches(encoder, batch_size)
    assert len(waits) <= budget, f"encode would wait {waits}, budget {budget}"


@pytest.mark.cuda
@pytest.mark.parametrize("batch_size", [1, 2, 4])
def test_encode_syncs_only_in_padded_forwards_on_cuda(batch_size):
    encoder = sentence_encoder(torch.device("cuda"))
    encoder.encode(SENTENCES, batch_size=batch_size)  # warm-up
    with count_host_reads(as_on_a_gpu=False) as waits:
        encoder.encode(SENTENCES, batch_size=batch_size).cpu()
    cuda = [w for w in waits if w.startswith("CUDA")]
    budget = padded_batches(encoder, batch_size) + 1  # + the copy to the CPU
    assert len(cuda) <= budget, f"encode synchronised {waits}, budget {budget}"
