"""Host-device synchronisations per forward: encoderlib against Hugging Face.

Every `.item()`, `bool(tensor)`, `.tolist()`, `nonzero` or boolean-mask index on
a GPU tensor makes Python wait until the GPU has run everything queued so far;
the GPU then idles until Python launches the next kernel. This script counts
those waits with `encoderlib.checks.count_host_reads` for one forward pass of
BERT-, MiniLM- and ModernBERT-shaped encoders (random weights, copied into
Hugging Face's `BertModel` and `ModernBertModel`), a padded and an unpadded
batch, plus encoderlib's `SentenceEncoder.encode` path (forward and mean
pooling) and one training step of `encoderlib.train`.

On a CUDA machine the driver reports every synchronisation
(`torch.cuda.set_sync_debug_mode`) and those are counted. Without a GPU the
script runs on the CPU with encoderlib's host reads switched off, so that
encoderlib takes the paths a GPU run takes, and counts the operations that would
wait; Hugging Face's code has no such switch, so its column counts the reads it
makes on any device.

Run from the repository root after `make setup`:

    .venv/bin/python benchmarks/host_syncs.py            # the table
    .venv/bin/python benchmarks/host_syncs.py --quick    # small shapes, seconds
"""

from __future__ import annotations

import argparse
import platform
import sys
import warnings
from functools import partial

import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel, ModernBertConfig, ModernBertModel

from encoderlib import (
    Encoder,
    EncoderClassifier,
    config_from_bert,
    config_from_modernbert,
    load_bert_weights,
    load_modernbert_weights,
    mean_pool,
    train,
)
from encoderlib.checks import count_host_reads


def hugging_face_pair(
    name: str, quick: bool, narrow: bool = False
) -> tuple[torch.nn.Module, Encoder]:
    """A randomly initialised Hugging Face model and encoderlib's copy of it.

    `quick`: 3 layers of width 32; `narrow`: the model's own layers (and local
    and global pattern), each of width 32 in 2 heads, so that an operator costs
    its dispatch and almost no arithmetic.
    """
    small = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=3)
    thin = dict(hidden_size=32, num_attention_heads=2)
    if name == "ModernBERT-base":
        sizes = small | dict(intermediate_size=48) if quick else {}
        sizes = thin | dict(intermediate_size=48) if narrow else sizes
        special = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)
        special |= dict(cls_token_id=1, sep_token_id=2)
        config = ModernBertConfig(
            vocab_size=1000, attn_implementation="sdpa", **special, **sizes
        )
        theirs = ModernBertModel(config).eval()
        ours = Encoder(config_from_modernbert(config))
        load_modernbert_weights(ours, theirs.state_dict())
        return theirs, ours.eval()
    shapes = {
        "BERT-base": {},
        "MiniLM-L6": dict(hidden_size=384, num_hidden_layers=6, intermediate_size=1536),
    }
    sizes = small | dict(intermediate_size=64) if quick else shapes[name]
    if narrow:
        sizes = shapes[name] | thin | dict(intermediate_size=64)
    config = BertConfig(vocab_size=1000, attn_implementation="sdpa", **sizes)
    theirs = BertModel(config, add_pooling_layer=False).eval()
    ours = Encoder(config_from_bert(config.to_dict()))
    load_bert_weights(ours, theirs.state_dict())
    return theirs, ours.eval()


def batch(device: torch.device, padded: bool, length: int = 48):
    """Eight rows of `length` ids; with padding, real lengths from 6 to `length`."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 1000, (8, length), generator=generator)
    mask = torch.ones_like(ids)
    if padded:
        for row, real in enumerate(torch.linspace(6, length, 8).long().tolist()):
            mask[row, real:] = 0
    return ids.to(device), mask.to(device)


def encode_path(
    ours: Encoder,
    ids: torch.Tensor,
    mask: torch.Tensor,
    host_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """What `SentenceEncoder.encode` does after tokenizing: forward, pool, to host.

    `encode` hands the model the mask as the tokenizer made it, on the CPU
    (`host_mask`), so that the model can pack the batch without a wait; it
    pools with the copy on the model's device (`mask`).
    """
    hidden = ours(ids, mask if host_mask is None else host_mask)
    return F.normalize(mean_pool(hidden, mask), dim=-1).cpu()


def count(call, on_cuda: bool) -> int:
    """How many times `call()` would make the GPU wait (after one warm-up call)."""
    call()
    with count_host_reads(as_on_a_gpu=not on_cuda) as reads:
        call()
    return len([r for r in reads if r.startswith("CUDA")] if on_cuda else reads)


def train_step_reads(ours: Encoder, device: torch.device, on_cuda: bool) -> int:
    """Waits in one step of `encoderlib.train` on a padded classification batch."""
    model = EncoderClassifier(ours, n_classes=2, pooling="mean")
    ids, mask = batch(torch.device("cpu"), padded=True)
    data = [{"input_ids": ids, "attention_mask": mask, "labels": torch.arange(8) % 2}]

    def loss_fn(model, batch):
        return F.cross_entropy(
            model(batch["input_ids"], batch["attention_mask"]), batch["labels"]
        )

    def step():
        train(model, loss_fn, data, steps=1, device=device, progress=False, seed=0)

    return count(step, on_cuda)


def main() -> None:
    """Print the table: waits per call, encoderlib and Hugging Face side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small shapes only")
    args = parser.parse_args()
    on_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if on_cuda else "cpu")
    how = "CUDA sync debug mode" if on_cuda else "CPU, encoderlib's host reads off"
    print(f"device: {device} ({how}); torch {torch.__version__}; ", end="")
    print(f"Python {platform.python_version()}")
    print("| model | batch | encoderlib forward | encoderlib encode | HF forward |")
    print("|---|---|---|---|---|")
    for name in ("MiniLM-L6", "BERT-base", "ModernBERT-base"):
        theirs, ours = hugging_face_pair(name, args.quick)
        theirs, ours = theirs.to(device), ours.to(device)
        for padded in (False, True):
            ids, mask = batch(device, padded)
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                forward = count(partial(ours, ids, mask), on_cuda)
                host_mask = batch(torch.device("cpu"), padded)[1]
                encode = count(
                    partial(encode_path, ours, ids, mask, host_mask), on_cuda
                )
                hf = count(partial(theirs, input_ids=ids, attention_mask=mask), on_cuda)
            label = "padded" if padded else "no padding"
            print(f"| {name} | {label} | {forward} | {encode} | {hf} |")
        steps = train_step_reads(ours, device, on_cuda)
        print(f"| {name} | one train step (padded) | {steps} | | |")


if __name__ == "__main__":
    sys.exit(main())
