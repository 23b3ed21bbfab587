"""Chapter 18: data parallelism, accumulation, checkpointing, AMP and compiling.

The DDP test launches `torchrun --standalone --nproc-per-node 2` (as
`python -m torch.distributed.run`, torchrun's module, from this Python) on
`tests/ddp_script.py` (gloo, CPU, loopback only, a hard timeout) and compares
both ranks' final weights and histories with one process training the same
global batches. Tolerances: float sums run in another order (each rank sums its
half, gloo adds the halves), so weights agree within 1e-5 and losses within 1e-6;
they are not bit-equal. The weight bound is absolute (the weights are of order
0.02 to 1): a relative bound per tensor would fail on the key projections' bias,
whose exact gradient is zero (a shift shared by all keys leaves the softmax
unchanged), so that it receives rounding noise only, which Adam turns into steps.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, DistributedSampler

from encoderlib import EncoderLayer, set_seed
from encoderlib.efficient import peak_memory
from encoderlib.training import compile_or_eager, init_distributed, train

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "ddp_script.py"
TORCHRUN_TIMEOUT = 240  # seconds: the run takes about 10 on a 2-core CPU


def load_script():
    spec = importlib.util.spec_from_file_location("ddp_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ddp_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddp")
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_PORT"}
    }
    environment |= {
        "MASTER_ADDR": "127.0.0.1",
        "OMP_NUM_THREADS": "1",
        "ENCODERLIB_PROGRESS": "1",
        "CUDA_VISIBLE_DEVICES": "",  # gloo on the CPU, even on a GPU machine
    }
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        "2",
        "--log-dir",  # torchrun's own logs, in this test's folder
        str(folder / "logs"),
        str(SCRIPT),
        str(folder / "ddp"),
    ]
    launched = subprocess.run(
        command,
        env=environment,
        capture_output=True,
        text=True,
        timeout=TORCHRUN_TIMEOUT,
        cwd=folder,
    )
    assert launched.returncode == 0, launched.stderr[-4000:]
    ranks = [torch.load(folder / f"ddp.rank{r}.pt") for r in (0, 1)]
    threads = torch.get_num_threads()
    try:
        load_script().run(str(folder / "single"))  # the same script, one process
    finally:
        torch.set_num_threads(threads)
    single = torch.load(folder / "single.rank0.pt")
    return {"ranks": ranks, "single": single, "stdout": launched.stdout}


def largest_weight_difference(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max((a[k].float() - b[k].float()).abs().max().item() for k in a)


@pytest.mark.parametrize("accumulation_steps", [1, 2])
def test_two_ddp_processes_equal_one_process_on_the_global_batch(
    ddp_results, accumulation_steps
):
    single = ddp_results["single"][accumulation_steps]
    assert ddp_results["single"]["world_size"] == 1
    for rank in (0, 1):
        assert ddp_results["ranks"][rank]["world_size"] == 2
        ddp = ddp_results["ranks"][rank][accumulation_steps]
        assert largest_weight_difference(ddp["weights"], single["weights"]) < 1e-5
        # the history is reduced over ranks: every rank logs the global batch's loss
        assert ddp["tokens"] == single["tokens"]
        assert (
            max(
                abs(a - b) for a, b in zip(ddp["losses"], single["losses"], strict=True)
            )
            < 1e-6
        )
        assert ddp["grad_norms"] == pytest.approx(single["grad_norms"], rel=1e-5)


def test_fsdp_sharded_model_trains_through_the_same_loop(ddp_results):
    # fully_shard(model): each rank stores half of every parameter; train() runs
    # its loop unchanged, FSDP's hooks gather the weights and reduce-scatter the
    # gradients, so the weights equal one process's; the losses are each rank's.
    single = ddp_results["single"][1]
    for rank in (0, 1):
        fsdp = ddp_results["ranks"][rank]["fsdp"]
        assert largest_weight_difference(fsdp["weights"], single["weights"]) < 1e-5
        assert fsdp["grad_norms"] == pytest.approx(single["grad_norms"], rel=1e-5)
    rank0, rank1 = (ddp_results["ranks"][r]["fsdp"]["losses"] for r in (0, 1))
    assert rank0 != rank1  # not averaged: each rank's own shard


def test_ddp_ranks_hold_identical_weights_and_histories(ddp_results):
    rank0, rank1 = ddp_results["ranks"]
    for k in (1, 2):
        # DDP broadcasts rank 0's weights and averages the gradients: the same
        # optimizer steps on the same numbers, so the replicas stay bit-identical.
        assert all(
            torch.equal(rank0[k]["weights"][n], rank1[k]["weights"][n])  # replicas
            for n in rank0[k]["weights"]
        )
        assert rank0[k]["losses"] == rank1[k]["losses"]


def test_ddp_evaluates_on_every_rank_and_shows_one_bar(ddp_results):
    for rank in (0, 1):
        evaluations = ddp_results["ranks"][rank][1]["evaluations"]
        assert evaluations and evaluations[-1]["rank"] == rank
    assert "bar-of-rank-0" in ddp_results["stdout"]
    assert "bar-of-rank-1" not in ddp_results["stdout"]


def test_train_sets_the_epoch_of_a_distributed_sampler():
    set_seed(0)
    x = torch.randn(16, 3)
    data = [(x[i], x[i].sum()) for i in range(16)]
    sampler = DistributedSampler(data, num_replicas=2, rank=0, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=4, sampler=sampler)  # 2 batches an epoch
    model = nn.Linear(3, 1)
    orders = []

    def loss_fn(model, batch):
        orders.append(batch[1].tolist())
        return F.mse_loss(model(batch[0]).squeeze(-1), batch[1])

    train(model, loss_fn, loader, steps=6, progress=False)
    assert sampler.epoch == 2  # three passes: epochs 0, 1 and 2
    epochs = [orders[0] + orders[1], orders[2] + orders[3], orders[4] + orders[5]]
    assert epochs[0] != epochs[1] != epochs[2]  # reshuffled: set_epoch was called


def test_init_distributed_without_torchrun_is_one_process(monkeypatch):
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    rank, world_size, device = init_distributed()
    assert (rank, world_size) == (0, 1) and isinstance(device, torch.device)
    assert init_distributed("gloo") == (0, 1, torch.device("cpu"))  # gloo: the CPU
    assert not torch.distributed.is_initialized()


# --- gradient accumulation, checkpointing, precision, compile ----------------------


def test_gradient_accumulation_equals_the_big_batch():
    script = load_script()
    batches = script.global_batches(3, seed=0)
    halves = [
        {k: v[start : start + 8] for k, v in batch.items()}
        for batch in batches
        for start in (0, 8)
    ]

    def weights_after(data, accumulation_steps):
        set_seed(0)
        config = script.EncoderConfig.tiny(vocab_size=script.VOCAB, dropout=0.0)
        model = script.EncoderClassifier(
            script.Encoder(config), 2, pooling="cls", dropout=0.0
        )
        train(
            model,
            script.cross_entropy,
            data,
            steps=3,
            warmup=0,
            accumulation_steps=accumulation_steps,
            progress=False,
        )
        return torch.cat([p.detach().flatten() for p in model.parameters()])

    gap = (weights_after(batches, 1) - weights_after(halves, 2)).abs().max()
    assert gap < 1e-5


def layer_stack(depth: int = 3) -> nn.ModuleList:
    set_seed(0)
    return nn.ModuleList(
        EncoderLayer(32, 4, 64, dropout=0.0, norm_first=True) for _ in range(depth)
    )


def stack_gradients(layers, x, use_checkpoint: bool) -> torch.Tensor:
    layers.zero_grad(set_to_none=True)
    for layer in layers:
        x = checkpoint(layer, x, use_reentrant=False) if use_checkpoint else layer(x)
    x.square().mean().backward()
    return torch.cat([p.grad.flatten() for p in layers.parameters()])


def test_checkpointing_gives_equal_gradients_and_a_lower_peak():
    layers = layer_stack()
    x = torch.randn(4, 64, 32, generator=torch.Generator().manual_seed(0))
    plain = stack_gradients(layers, x, False)
    recomputed = stack_gradients(layers, x, True)
    assert (plain - recomputed).abs().max() < 1e-6
    peaks = {
        flag: peak_memory(lambda flag=flag: stack_gradients(layers, x, flag))
        for flag in (False, True)
    }
    assert peaks[True] < peaks[False]


def classifier_batch():
    return load_script().global_batches(1, seed=3)[0]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_autocast_gradients_stay_close_to_fp32(dtype):
    script = load_script()
    batch = classifier_batch()

    def gradient(autocast_dtype, scale):
        set_seed(0)
        config = script.EncoderConfig.tiny(vocab_size=script.VOCAB, dropout=0.0)
        model = script.EncoderClassifier(
            script.Encoder(config), 2, pooling="cls", dropout=0.0
        )
        enabled = autocast_dtype is not None
        with torch.autocast("cpu", dtype=autocast_dtype or dtype, enabled=enabled):
            loss = script.cross_entropy(model, batch)
        (loss * scale).backward()
        return torch.cat([p.grad.flatten() for p in model.parameters()]) / scale

    reference = gradient(None, 1.0)
    scale = 2.0**16 if dtype == torch.float16 else 1.0  # fp16 needs the scaling
    got = gradient(dtype, scale)
    assert ((got - reference).norm() / reference.norm()) < 0.03


def test_train_runs_in_bf16_on_the_cpu():
    script = load_script()
    set_seed(0)
    config = script.EncoderConfig.tiny(vocab_size=script.VOCAB, dropout=0.0)
    model = script.EncoderClassifier(
        script.Encoder(config), 2, pooling="cls", dropout=0.0
    )
    history = train(
        model,
        script.cross_entropy,
        script.global_batches(4, seed=0),
        steps=4,
        precision="bf16",
        progress=False,
    )
    assert all(torch.isfinite(torch.tensor(history.losses)))
    assert all(p.dtype == torch.float32 for p in model.parameters())  # fp32 master


def test_grad_scaler_skips_overflowing_steps_and_halves_its_scale():
    set_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40)  # overflows in fp16
    x = torch.randn(16, 8, generator=torch.Generator().manual_seed(0))
    before = [p.detach().clone() for p in model.parameters()]
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).square().mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert scaler.get_scale() == 2.0**39
    # a skipped step writes nothing: the weights keep their bits
    after = list(model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.cuda
def test_train_runs_in_fp16_with_a_scaler_on_cuda():
    model = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 1)).cuda()
    x = torch.randn(64, 8)
    data = [(x[i : i + 16], x[i : i + 16].sum(1)) for i in range(0, 64, 16)]

    def mse(model, batch):
        return F.mse_loss(model(batch[0]).squeeze(-1), batch[1])

    history = train(model, mse, data, steps=4, precision="fp16", progress=False)
    assert all(torch.isfinite(torch.tensor(history.losses)))


def gelu_formula(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def test_compile_or_eager_compiles_and_checks_against_eager():
    x = torch.randn(64, 32)
    compiled, note = compile_or_eager(gelu_formula, (x,), backend="eager")
    assert note == "compiled" and compiled is not gelu_formula
    assert (compiled(x) - gelu_formula(x)).abs().max() < 1e-6


def test_compile_or_eager_falls_back_when_the_backend_fails():
    def no_compiler(graph, example_inputs):
        raise RuntimeError("no C++ compiler found")

    x = torch.randn(8, 4)
    function, note = compile_or_eager(gelu_formula, (x,), backend=no_compiler)
    assert function is gelu_formula
    assert note == "eager: RuntimeError: no C++ compiler found"


def test_compile_or_eager_falls_back_when_the_output_differs():
    def off_by_one(graph, example_inputs):
        def run(*args):
            return [output + 1 for output in graph(*args)]

        return run

    x = torch.randn(8, 4)
    function, note = compile_or_eager(gelu_formula, (x,), backend=off_by_one)
    assert function is gelu_formula
    assert note.startswith("eager: the compiled output differs by 1")
