"""Bad input to chapter 10's part of encoderlib.training: `train` and its options.

Each case feeds one class of bad input a reader meets (wrong Python types,
float64 batches for a float32 model, out-of-range settings and seeds, data with
no batch, a loss that is not a scalar) and expects a TypeError or ValueError
worded by encoderlib.checks, never an error from deep inside torch. Chapter 18's
part has its own file (test_bad_input_training_scale.py).
"""

import inspect
import math

import pytest
import torch
from bad_input import flag_cases, sweep
from torch import nn

from encoderlib.train_options import TrainOptions
from encoderlib.training import train


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))


def mse(model: nn.Module, batch) -> torch.Tensor:
    x, y = batch
    return (model(x).squeeze(-1) - y).pow(2).mean()


BATCHES = [(torch.randn(8, 2), torch.randn(8))]


def fit(**options):
    options.setdefault("steps", 2)
    return train(net(), mse, BATCHES, progress=False, **options)


def options(data=BATCHES, **changed):
    """TrainOptions.check with train's defaults, read from its signature."""
    arguments = {
        name: parameter.default
        for name, parameter in inspect.signature(train).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY
    }
    return TrainOptions.check(net(), data, **(arguments | changed))


CASES = {
    "ch10 train: model None": (
        lambda: train(None, mse, BATCHES, steps=1),
        TypeError,
        "expected model as an nn\\.Module, got None",
    ),
    "ch10 train: loss_fn not callable": (
        lambda: train(net(), "mse", BATCHES, steps=1),
        TypeError,
        r"expected loss_fn as a callable loss_fn\(model, batch\) -> Tensor, "
        r"got str 'mse'",
    ),
    "ch10 train: data None": (
        lambda: train(net(), mse, None, steps=1),
        TypeError,
        r"expected train_data as a re-iterable source of batches "
        r"\(a DataLoader, a list\), got None",
    ),
    "ch10 train: no batch": (
        lambda: train(net(), mse, [], steps=1, progress=False),
        ValueError,
        "expected train_data with at least one batch, got none",
    ),
    "ch10 train: float64 batch for a float32 model": (
        lambda: train(
            net(), mse, [(torch.randn(8, 2).double(), torch.randn(8))], steps=1
        ),
        TypeError,
        r"expected floating-point tensors of the model's dtype torch.float32 in each "
        r"batch, got torch.float64 in batch\[0\]",
    ),
    "ch10 train: steps as a float": (
        lambda: fit(steps=2.5),
        TypeError,
        "expected steps as an int >= 1, got float 2\\.5",
    ),
    "ch10 train: steps 0": (
        lambda: fit(steps=0),
        ValueError,
        "expected steps as an int >= 1, got 0",
    ),
    "ch10 train: lr as a str": (
        lambda: fit(lr="1e-3"),
        TypeError,
        "expected lr as a float, got str '1e\\-3'",
    ),
    "ch10 train: negative lr": (
        lambda: fit(lr=-1e-3),
        ValueError,
        "expected lr > 0, got \\-0\\.001",
    ),
    "ch10 train: NaN lr": (
        lambda: fit(lr=math.nan),
        ValueError,
        r"expected lr > 0, got nan",
    ),
    "ch10 train: negative weight decay": (
        lambda: fit(weight_decay=-1.0),
        ValueError,
        "expected weight_decay >= 0, got \\-1\\.0",
    ),
    "ch10 train: betas as a str": (
        lambda: fit(betas="0.9"),
        TypeError,
        "expected betas as a pair of floats, got str '0\\.9'",
    ),
    "ch10 train: beta of 1": (
        lambda: fit(betas=(0.9, 1.0)),
        ValueError,
        r"expected betas\[1\] in \[0, 1\), got 1.0",
    ),
    "ch10 train: NaN warm-up": (
        lambda: fit(steps=4, warmup=math.nan),
        ValueError,
        r"expected warmup in \[0, 4\] steps, got nan",
    ),
    "ch10 train: warm-up as a str": (
        lambda: fit(warmup="10%"),
        TypeError,
        r"expected warmup as a number of steps or a fraction, got str '10%'",
    ),
    "ch10 train: floor above 1": (
        lambda: fit(min_lr_factor=2.0),
        ValueError,
        "expected min_lr_factor in \\[0, 1\\], got 2\\.0",
    ),
    "ch10 train: max_grad_norm as a str": (
        lambda: fit(max_grad_norm="1"),
        TypeError,
        r"expected max_grad_norm as a float, got str '1'",
    ),
    "ch10 train: max_grad_norm 0": (
        lambda: fit(max_grad_norm=0.0),
        ValueError,
        "expected max_grad_norm > 0, got 0\\.0",
    ),
    "ch10 train: accumulation 0": (
        lambda: fit(accumulation_steps=0),
        ValueError,
        "expected accumulation_steps as an int >= 1, got 0",
    ),
    "ch10 train: unknown precision": (
        lambda: fit(precision="fp8"),
        ValueError,
        r"expected precision as one of 'auto', 'fp32', 'bf16', 'fp16', got 'fp8'",
    ),
    "ch10 train: precision None": (
        lambda: fit(precision=None),
        TypeError,
        r"expected precision as one of 'auto', 'fp32', 'bf16', 'fp16', got None",
    ),
    "ch10 train: fused as a str": (
        lambda: fit(fused="yes"),
        TypeError,
        r"expected fused as a bool or None, got str 'yes'",
    ),
    "ch10 train: a device that does not exist": (
        lambda: fit(device="gpu"),
        ValueError,
        "expected device as a name such as 'cpu' or 'cuda:0', got 'gpu'",
    ),
    "ch10 train: the meta device": (
        lambda: fit(device="meta"),
        ValueError,
        "expected device as a device that holds data, got 'meta'",
    ),
    "ch10 train: device as an int": (
        lambda: fit(device=[0]),
        TypeError,
        "expected device as a device name or torch\\.device, got list",
    ),
    "ch10 train: seed beyond torch's range": (
        lambda: fit(seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "ch10 train: desc None": (
        lambda: fit(desc=None),
        TypeError,
        r"expected desc as a str, got None",
    ),
    "ch10 train: eval_every 0": (
        lambda: fit(eval_fn=lambda m: {"a": 1.0}, eval_every=0),
        ValueError,
        "expected eval_every as an int >= 1, got 0",
    ),
    "ch10 train: an evaluation that is not a number": (
        lambda: fit(eval_fn=lambda m: {"accuracy": "high"}),
        TypeError,
        "expected eval_fn.model. to return a dict of floats, got 'high' for 'accuracy'",
    ),
    "ch10 train: a loss that is not a scalar": (
        lambda: train(net(), lambda m, b: m(b[0]), BATCHES, steps=1, progress=False),
        TypeError,
        r"expected loss_fn\(model, batch\) to return a scalar tensor, got Tensor of "
        r"shape \(8, 1\)",
    ),
    "ch10 train: nothing to train": (
        lambda: train(
            net().requires_grad_(False), mse, BATCHES, steps=1, progress=False
        ),
        ValueError,
        "the model has no parameter with requires_grad=True",
    ),
    **flag_cases(
        "ch10 train",
        "progress",
        lambda v: train(net(), mse, BATCHES, steps=1, progress=v),
    ),
    "ch10 TrainOptions: a keyword missing": (
        lambda: TrainOptions.check(net(), BATCHES, steps=1),
        TypeError,
        r"expected every keyword of train but loss_fn, got \['accumulation_steps'",
    ),
    "ch10 TrainOptions: an unknown keyword": (
        lambda: options(learning_rate=0.1),
        TypeError,
        r"got \[\] missing and \['learning_rate'\] unknown",
    ),
    "ch10 TrainOptions: warm-up beyond the run": (
        lambda: options(steps=4, warmup=5),
        ValueError,
        r"expected warmup in \[0, 4\] steps, got 5",
    ),
    "ch10 TrainOptions: no len() and no steps": (
        lambda: options(iter(BATCHES)),
        TypeError,
        r"train_data has no len\(\): pass steps=",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_train_reads_its_options_from_its_own_defaults():
    resolved = options(steps=10)
    assert (resolved.warmup_steps, resolved.precision) == (1, "fp32")
    assert resolved.device == torch.device("cpu")


def test_precision_takes_torchs_names_as_encode_does():
    assert options(steps=2, precision="float32").precision == "fp32"
    assert options(steps=2, precision="bfloat16").precision == "bf16"
    with pytest.raises(ValueError, match="precision='fp16' needs a CUDA device"):
        options(steps=2, precision="float16", device="cpu")


def test_the_edges_of_the_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        train(net(), mse, BATCHES, steps=1, seed=seed, progress=False)


def test_a_float64_model_trains_on_float64_batches():
    model = net().double()
    batches = [(torch.randn(8, 2, dtype=torch.float64), torch.randn(8).double())]
    history = train(model, mse, batches, steps=2, progress=False)
    assert all(math.isfinite(loss) for loss in history.losses)


def test_a_loss_that_becomes_nan_stops_the_run_before_the_step():
    model = net()
    before = [p.detach().clone() for p in model.parameters()]

    def nan_loss(model, batch):
        return mse(model, batch) * math.nan

    with pytest.raises(FloatingPointError, match="the loss is nan at step 1"):
        train(model, nan_loss, BATCHES, steps=2, progress=False)
    after = list(model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, after, strict=True))
