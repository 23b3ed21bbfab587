"""Train a tiny classifier with `encoderlib.training.train`: one process or DDP.

`python tests/ddp_script.py OUT` trains in one process; `torchrun --standalone
--nproc-per-node 2 tests/ddp_script.py OUT` trains the same global batches as two
ranks, each on every other sentence, with the model wrapped in
`DistributedDataParallel`. Each run trains twice, without and with gradient
accumulation; with several ranks it also trains once with the model sharded by
FSDP's `fully_shard` (as a whole: encoderlib's `Encoder` calls its layers' parts
directly on padded batches, which per-layer sharding hooks would not see). Every
rank saves `OUT.rank<r>.pt`: the final weights and the histories, which
`tests/test_distributed.py` compares. Importable: `run(out)` trains in the calling
process.
"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel

import encoderlib
from encoderlib import Encoder, EncoderClassifier, EncoderConfig
from encoderlib.training import init_distributed, train

STEPS, GLOBAL_BATCH, LENGTH, VOCAB = 3, 16, 12, 64


def global_batches(n: int, seed: int) -> list[dict[str, torch.Tensor]]:
    # n batches of GLOBAL_BATCH padded sentences, the same on every rank.
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        lengths = torch.randint(4, LENGTH + 1, (GLOBAL_BATCH, 1), generator=generator)
        mask = torch.arange(LENGTH) < lengths
        ids = torch.randint(5, VOCAB, (GLOBAL_BATCH, LENGTH), generator=generator)
        ids = ids * mask
        labels = (ids[:, 1] > ids[:, 2]).long()
        batches.append({"input_ids": ids, "attention_mask": mask, "labels": labels})
    return batches


def cross_entropy(model, batch):
    logits = model(batch["input_ids"], batch["attention_mask"])
    return F.cross_entropy(logits, batch["labels"])


def one_run(
    rank: int, world_size: int, device, accumulation_steps: int, wrap: str = "ddp"
) -> dict:
    batches = global_batches(STEPS * accumulation_steps, seed=accumulation_steps)
    shards = [{k: v[rank::world_size] for k, v in b.items()} for b in batches]
    encoderlib.set_seed(0)
    config = EncoderConfig.tiny(vocab_size=VOCAB, dropout=0.0)
    model = EncoderClassifier(Encoder(config), 2, pooling="cls", dropout=0.0)
    model = model.to(device)
    if world_size > 1 and wrap == "ddp":
        model = DistributedDataParallel(model)
    elif wrap == "fsdp":
        fully_shard(model)  # each rank stores half of every parameter
    history = train(
        model,
        cross_entropy,
        shards,
        steps=STEPS,
        lr=1e-3,
        warmup=0,
        accumulation_steps=accumulation_steps,
        eval_fn=lambda m: {"rank": float(rank)},  # runs on every rank
        progress=True,
        desc=f"bar-of-rank-{rank}",
    )
    weights = getattr(model, "module", model).state_dict()
    # FSDP's parameters are DTensors, each rank holding a shard: gather them.
    weights = {
        k: v.full_tensor() if hasattr(v, "full_tensor") else v
        for k, v in weights.items()
    }
    return {
        "weights": {k: v.detach().cpu() for k, v in weights.items()},
        "losses": history.losses,
        "tokens": history.tokens,
        "grad_norms": history.grad_norms,
        "evaluations": history.evaluations,
    }


def run(out: str) -> None:
    rank, world_size, device = init_distributed("gloo", timeout=120.0)
    torch.set_num_threads(1)
    result = {k: one_run(rank, world_size, device, k) for k in (1, 2)}
    if world_size > 1:
        result["fsdp"] = one_run(rank, world_size, device, 1, wrap="fsdp")
    result["world_size"] = world_size
    torch.save(result, f"{out}.rank{rank}.pt")
    if world_size > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {Path(__file__).name} OUT")
    run(sys.argv[1])
