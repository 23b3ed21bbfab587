"""encoderlib.training (chapter 10): the loop, its schedule, groups, accumulation,
clipping, evaluation hook, precision, errors, progress bars; and the history plot."""

import math

import matplotlib
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from encoderlib import Encoder, EncoderClassifier, EncoderConfig, set_seed
from encoderlib.data import PaddingCollator, data_loader
from encoderlib.training import (
    TrainingHistory,
    learning_rate_factor,
    parameter_groups,
    progress_bar,
    train,
)

matplotlib.use("Agg")


def regression_batches(n_batches: int = 4, size: int = 32, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n_batches * size, 6, generator=generator)
    y = x @ torch.linspace(-1, 1, 6) + 0.1 * torch.randn(len(x), generator=generator)
    return [(x[i : i + size], y[i : i + size]) for i in range(0, len(x), size)]


def mse(model: nn.Module, batch) -> torch.Tensor:
    x, y = batch
    return F.mse_loss(model(x).squeeze(-1), y)  # a mean over the batch's examples


def small_net(seed: int = 0) -> nn.Module:
    set_seed(seed)
    return nn.Sequential(
        nn.Linear(6, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 1)
    )


def quiet(**kwargs):
    return {"progress": False, **kwargs}


# --- determinism --------------------------------------------------------------------


def test_same_seed_same_history_on_the_cpu():
    def run(seed):
        set_seed(seed)
        model = EncoderClassifier(
            Encoder(EncoderConfig.tiny(vocab_size=50, dropout=0.1)), 2, pooling="cls"
        )  # dropout on: the seed must fix its masks too
        examples = [
            {
                "input_ids": [2] + [5 + (i * j) % 40 for j in range(1 + i % 7)],
                "label": i % 2,
            }
            for i in range(64)
        ]
        loader = data_loader(examples, PaddingCollator(0), batch_size=16, seed=1)

        def loss_fn(model, batch):
            logits = model(batch["input_ids"], batch["attention_mask"])
            return F.cross_entropy(logits, batch["labels"])

        return train(model, loss_fn, loader, epochs=2, lr=1e-3, seed=seed, **quiet())

    first, second, other = run(0), run(0), run(1)
    # One code path on one machine, one thread: the same bits, not just close.
    assert first.losses == second.losses and first.grad_norms == second.grad_norms
    assert first.learning_rates == second.learning_rates
    assert first.tokens == second.tokens and sum(first.tokens) > 0
    assert first.losses != other.losses
    assert first.steps == list(range(1, 9))


# --- the schedule -------------------------------------------------------------------


def test_warmup_rises_linearly_to_one():
    factors = [learning_rate_factor(s, 100, 10) for s in range(10)]
    assert factors == pytest.approx([(s + 1) / 10 for s in range(10)])
    assert learning_rate_factor(10, 100, 10) == 1.0  # the first step after warm-up


@pytest.mark.parametrize("min_factor", [0.0, 0.1])
def test_cosine_and_linear_decay_shapes(min_factor):
    total, warmup = 110, 10
    cosine = [
        learning_rate_factor(s, total, warmup, "cosine", min_factor)
        for s in range(10, 111)
    ]
    linear = [
        learning_rate_factor(s, total, warmup, "linear", min_factor)
        for s in range(10, 111)
    ]
    for i, (c, lin) in enumerate(zip(cosine, linear, strict=True)):
        progress = i / 100
        shape = 0.5 * (1 + math.cos(math.pi * progress))
        assert c == pytest.approx(min_factor + (1 - min_factor) * shape)
        assert lin == pytest.approx(min_factor + (1 - min_factor) * (1 - progress))
    assert (
        cosine[50] == pytest.approx(linear[50]) == pytest.approx((1 + min_factor) / 2)
    )
    assert cosine[-1] == pytest.approx(min_factor) == linear[-1]
    assert all(a >= b for a, b in zip(cosine, cosine[1:], strict=False))  # never rises
    assert all(
        c >= lin for c, lin in zip(cosine[:50], linear[:50], strict=True)
    )  # cosine above first
    assert learning_rate_factor(
        500, total, warmup, "cosine", min_factor
    ) == pytest.approx(min_factor)  # after the end it stays at the floor
    assert learning_rate_factor(60, total, warmup, "constant") == 1.0


@pytest.mark.parametrize(("total", "warmup"), [(100, 10), (87, 9), (20, 0), (7, 6)])
@pytest.mark.parametrize(
    ("schedule", "floor"), [("cosine", 0.0), ("linear", 0.0), ("cosine", 0.25)]
)
def test_schedule_equals_hugging_faces_after_warmup(total, warmup, schedule, floor):
    # The trusted reference: transformers' schedules, read at every step. After the
    # warm-up the factors agree; during it Hugging Face's is ours one step late
    # (theirs starts at 0, ours at 1 / warmup).
    transformers = pytest.importorskip("transformers")

    optimizer = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    if schedule == "linear":
        made = transformers.get_linear_schedule_with_warmup(optimizer, warmup, total)
    elif floor:
        made = transformers.get_cosine_with_min_lr_schedule_with_warmup(
            optimizer, warmup, total, min_lr_rate=floor
        )
    else:
        made = transformers.get_cosine_schedule_with_warmup(optimizer, warmup, total)
    theirs = [made.lr_lambdas[0](step) for step in range(total + 1)]
    ours = [
        learning_rate_factor(step, total, warmup, schedule, floor)
        for step in range(total + 1)
    ]
    for step in range(warmup, total + 1):
        assert abs(ours[step] - theirs[step]) < 1e-12, step
    for step in range(warmup):
        assert abs(ours[step] - theirs[step + 1]) < 1e-12, step
    if warmup:
        assert theirs[0] == 0.0 and ours[0] == 1 / warmup


def test_decay_groups_equal_hugging_faces_on_bert_and_need_no_names():
    transformers = pytest.importorskip("transformers")

    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
    )
    torch.manual_seed(0)
    bert = transformers.BertForSequenceClassification(config)

    def decayed(model: nn.Module) -> set[str]:
        names = {id(p): name for name, p in model.named_parameters()}
        return {names[id(p)] for p in parameter_groups(model, 0.01)[0]["params"]}

    # Trainer's rule reads only the model, not the Trainer: None stands in for self
    by_name = set(transformers.Trainer.get_decay_parameter_names(None, bert))
    assert by_name == decayed(bert)
    ours = EncoderClassifier(
        Encoder(EncoderConfig.tiny(vocab_size=30)), 2, pooling="cls"
    )
    missed = set(transformers.Trainer.get_decay_parameter_names(None, ours))
    missed -= decayed(ours)  # the name rule decays our LayerNorm gains norm1, norm2
    assert missed and all(
        ".norm" in name and name.endswith("weight") for name in missed
    )
    assert all(p.dim() == 1 for n, p in ours.named_parameters() if n in missed)


def test_schedule_errors():
    with pytest.raises(ValueError, match="schedule as one of"):
        learning_rate_factor(0, 10, 1, "step")
    with pytest.raises(ValueError, match="warmup_steps in"):
        learning_rate_factor(0, 10, 11)
    with pytest.raises(ValueError, match="min_factor"):
        learning_rate_factor(0, 10, 1, min_factor=2.0)


def test_train_records_the_rate_of_each_step():
    history = train(
        small_net(), mse, regression_batches(), steps=20, lr=0.5, warmup=5, **quiet()
    )
    expected = [0.5 * learning_rate_factor(s, 20, 5) for s in range(20)]
    assert history.learning_rates == pytest.approx(expected)
    fraction = train(
        small_net(), mse, regression_batches(), steps=20, warmup=0.25, **quiet()
    )
    assert fraction.learning_rates[4] == pytest.approx(1e-3)  # 5 warm-up steps


# --- parameter groups ---------------------------------------------------------------


def test_no_decay_on_biases_and_norms_and_tied_parameters_once():
    model = EncoderClassifier(
        Encoder(EncoderConfig.tiny(vocab_size=30)), 3, pooling="cls"
    )
    decay, no_decay = parameter_groups(model, 0.05)
    assert decay["weight_decay"] == 0.05 and no_decay["weight_decay"] == 0.0
    assert all(p.dim() >= 2 for p in decay["params"])
    assert all(p.dim() == 1 for p in no_decay["params"])
    norms = [m.weight for m in model.modules() if "Norm" in type(m).__name__]
    assert norms and all(any(p is q for q in no_decay["params"]) for p in norms)
    total = len(decay["params"]) + len(no_decay["params"])
    assert total == len(list(model.parameters()))

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.out = nn.Linear(4, 10)
            self.out.weight = self.embed.weight  # one Parameter, two uses

    decay, no_decay = parameter_groups(Tied(), 0.01)
    assert len(decay["params"]) == 1 and len(no_decay["params"]) == 1

    frozen = small_net()
    frozen[0].requires_grad_(False)
    groups = parameter_groups(frozen, 0.01)
    assert sum(len(g["params"]) for g in groups) == 4  # 6 minus the frozen 2
    with pytest.raises(TypeError, match="nn.Module"):
        parameter_groups([torch.zeros(2)], 0.01)


# --- accumulation and clipping ------------------------------------------------------


def test_accumulation_equals_one_big_batch():
    big = regression_batches(n_batches=3, size=32)
    halves = [(x[i : i + 16], y[i : i + 16]) for x, y in big for i in (0, 16)]
    one = small_net(0)
    two = small_net(0)
    h1 = train(one, mse, big, steps=3, lr=1e-2, **quiet())
    h2 = train(two, mse, halves, steps=3, lr=1e-2, accumulation_steps=2, **quiet())
    assert h1.grad_norms == pytest.approx(h2.grad_norms, rel=1e-6)
    assert h1.losses == pytest.approx(h2.losses, rel=1e-6)
    for p, q in zip(one.parameters(), two.parameters(), strict=True):
        assert torch.allclose(p, q, atol=1e-6)
    # With micro-batches of unequal sizes the mean of means is another average.
    uneven = [(x[i:j], y[i:j]) for x, y in big for i, j in ((0, 24), (24, 32))]
    h3 = train(small_net(0), mse, uneven, steps=3, accumulation_steps=2, **quiet())
    assert abs(h3.grad_norms[0] - h1.grad_norms[0]) > 1e-4


def test_a_run_after_a_failed_one_starts_from_no_gradients():
    # A step that raised (here: an infinite loss) leaves its gradients on the
    # parameters; the next run must not add them to its first step.
    data = regression_batches()
    clean = train(small_net(0), mse, data, steps=2, lr=1e-2, **quiet())
    net = small_net(0)
    with pytest.raises(FloatingPointError, match="the loss is inf at step 1"):
        train(net, lambda m, b: mse(m, b) * math.inf, data, steps=2, **quiet())
    assert any(p.grad is not None for p in net.parameters())  # what it left
    retry = train(net, mse, data, steps=2, lr=1e-2, **quiet())
    assert retry.losses == pytest.approx(clean.losses, rel=1e-6)
    assert all(torch.isfinite(p).all() for p in net.parameters())


def test_epochs_count_optimizer_steps_after_accumulation():
    batches = regression_batches(n_batches=8)
    history = train(
        small_net(), mse, batches, epochs=3, accumulation_steps=2, **quiet()
    )
    assert len(history.steps) == 12


def test_clipping_caps_the_gradient_norm_that_adamw_sees(monkeypatch):
    seen = []
    original = torch.optim.AdamW.step

    def recording_step(self, *args, **kwargs):
        grads = [
            p.grad for g in self.param_groups for p in g["params"] if p.grad is not None
        ]
        seen.append(
            torch.linalg.vector_norm(torch.stack([g.norm() for g in grads])).item()
        )
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.AdamW, "step", recording_step)
    batches = [(x, 100 * y) for x, y in regression_batches()]  # large gradients
    history = train(small_net(), mse, batches, steps=4, max_grad_norm=0.5, **quiet())
    assert min(history.grad_norms) > 0.5  # recorded before clipping
    assert seen == pytest.approx([0.5] * 4, rel=1e-4)
    seen.clear()
    history = train(small_net(), mse, batches, steps=4, max_grad_norm=None, **quiet())
    assert seen == pytest.approx(history.grad_norms, rel=1e-4)  # untouched


def test_fused_adamw_is_the_same_update_as_the_loop(monkeypatch):
    batches = list(regression_batches())
    runs = {
        fused: train(small_net(), mse, batches, steps=6, fused=fused, **quiet())
        for fused in (False, True, None)
    }
    for fused in (True, None):
        assert runs[fused].losses == pytest.approx(runs[False].losses, rel=1e-5)
    built = []
    original = torch.optim.AdamW.__init__

    def recording_init(self, *args, **kwargs):
        built.append(kwargs.get("fused"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.AdamW, "__init__", recording_init)
    train(small_net(), mse, batches, steps=1, **quiet())
    assert built == [True]  # this torch has a CPU fused kernel: the default uses it
    with pytest.raises(TypeError, match="fused as a bool or None"):
        train(small_net(), mse, batches, steps=1, fused="yes", **quiet())


# --- evaluation hook, modes, precision ----------------------------------------------


def test_eval_hook_runs_every_n_steps_and_at_the_end_in_eval_mode():
    calls = []

    def eval_fn(model):
        calls.append((model.training, torch.is_grad_enabled()))
        return {"score": torch.tensor(len(calls)), "other": 0.5}

    history = train(
        small_net(),
        mse,
        regression_batches(),
        steps=10,
        eval_fn=eval_fn,
        eval_every=3,
        **quiet(),
    )
    assert [e["step"] for e in history.evaluations] == [3, 6, 9, 10]
    assert calls == [(False, False)] * 4
    assert history.metric("score") == ([3, 6, 9, 10], [1.0, 2.0, 3.0, 4.0])
    assert isinstance(history.evaluations[0]["score"], float)
    only_end = train(
        small_net(), mse, regression_batches(), steps=4, eval_fn=eval_fn, **quiet()
    )
    assert [e["step"] for e in only_end.evaluations] == [4]
    with pytest.raises(ValueError, match="recorded: \\['other', 'score'\\]"):
        history.metric("accuracy")


def test_every_submodules_mode_is_restored():
    model = small_net().eval()
    train(model, mse, regression_batches(), steps=2, **quiet())
    assert not any(m.training for m in model.modules())
    mixed = small_net().train()
    mixed[1].eval()  # say, a frozen part kept in eval mode
    train(mixed, mse, regression_batches(), steps=2, **quiet())
    assert mixed.training and not mixed[1].training and mixed[3].training


def test_bf16_on_the_cpu_trains_under_autocast():
    dtypes = []

    def loss_fn(model, batch):
        x, y = batch
        out = model(x).squeeze(-1)
        dtypes.append(out.dtype)
        return F.mse_loss(out.float(), y)

    history = train(
        small_net(), loss_fn, regression_batches(), steps=4, precision="bf16", **quiet()
    )
    assert dtypes == [torch.bfloat16] * 4
    assert all(math.isfinite(x) for x in history.losses)
    fp32 = []
    train(
        small_net(),
        lambda m, b: fp32.append(m(b[0]).dtype) or mse(m, b),
        regression_batches(),
        steps=2,
        **quiet(),
    )
    assert fp32 == [torch.float32] * 2  # "auto" on a CPU is fp32


def test_errors_say_what_was_expected():
    batches = regression_batches()
    with pytest.raises(ValueError, match="fp16.*CUDA.*bf16"):
        train(
            small_net(),
            mse,
            batches,
            steps=2,
            precision="fp16",
            device="cpu",
            **quiet(),
        )
    with pytest.raises(ValueError, match="precision as one of"):
        train(small_net(), mse, batches, steps=2, precision="half", **quiet())
    for bad, error in ((0, ValueError), (-3, ValueError), (2.5, TypeError)):
        with pytest.raises(error, match="steps as an int >= 1"):
            train(small_net(), mse, batches, steps=bad, **quiet())
    with pytest.raises(TypeError, match="steps as an int >= 1, got bool True"):
        train(small_net(), mse, batches, steps=True, **quiet())
    with pytest.raises(ValueError, match="accumulation_steps"):
        train(small_net(), mse, batches, steps=2, accumulation_steps=0, **quiet())
    with pytest.raises(ValueError, match="warmup in \\[0, 5\\]"):
        train(small_net(), mse, batches, steps=5, warmup=7, **quiet())
    with pytest.raises(ValueError, match="eval_every"):
        train(small_net(), mse, batches, steps=2, eval_every=0, **quiet())
    with pytest.raises(TypeError, match="scalar tensor.*shape \\(32,\\)"):
        train(
            small_net(),
            lambda m, b: (m(b[0]).squeeze(-1) - b[1]) ** 2,
            batches,
            steps=1,
            **quiet(),
        )
    with pytest.raises(TypeError, match="scalar tensor, got float"):
        train(small_net(), lambda m, b: 0.5, batches, steps=1, **quiet())
    with pytest.raises(FloatingPointError, match="nan at step 1"):
        train(
            small_net(),
            lambda m, b: mse(m, b) * float("nan"),
            batches,
            steps=1,
            **quiet(),
        )
    with pytest.raises(TypeError, match="no len"):
        train(small_net(), mse, iter(batches), **quiet())
    with pytest.raises(ValueError, match="at least one batch"):
        train(small_net(), mse, [], steps=1, **quiet())
    with pytest.raises(TypeError, match="dict of floats"):
        train(small_net(), mse, batches, steps=1, eval_fn=lambda m: 0.9, **quiet())
    frozen = small_net().requires_grad_(False)
    with pytest.raises(ValueError, match="requires_grad"):
        train(frozen, mse, batches, steps=1, **quiet())


# --- progress bars ------------------------------------------------------------------


def test_progress_bar_writes_to_stdout_and_can_be_turned_off(capsys, monkeypatch):
    assert list(progress_bar(range(3), desc="counting")) == [0, 1, 2]
    captured = capsys.readouterr()
    assert "counting" in captured.out and "3/3" in captured.out
    assert captured.err == ""
    list(progress_bar(range(3), desc="hidden", disable=True))
    assert capsys.readouterr().out == ""
    monkeypatch.setenv("ENCODERLIB_PROGRESS", "0")
    list(progress_bar(range(3), desc="hidden"))
    assert capsys.readouterr().out == ""
    monkeypatch.delenv("ENCODERLIB_PROGRESS")
    train(small_net(), mse, regression_batches(), steps=3, desc="fitting")
    captured = capsys.readouterr()
    assert "fitting" in captured.out and captured.err == ""
    train(small_net(), mse, regression_batches(), steps=3, progress=False)
    assert capsys.readouterr().out == ""


# --- the history and its plot -------------------------------------------------------


def test_history_and_its_plot():
    import matplotlib.pyplot as plt

    from encoderlib.viz import plot_training_history

    history = train(
        small_net(),
        mse,
        regression_batches(),
        steps=12,
        eval_fn=lambda m: {"accuracy": 0.5, "loss": 1.0},
        eval_every=4,
        **quiet(),
    )
    assert history.final_loss == pytest.approx(history.losses[-1])  # 10 % of 12 → 1
    assert history.seconds > 0
    axes = plot_training_history(history, title="a run", metrics=["accuracy"])
    assert len(axes) == 3
    assert axes[0].figure._suptitle.get_text() == "a run"
    for axis in axes:
        assert axis.get_xlabel() == "optimizer step" and axis.get_ylabel()
        assert axis.get_title()
    plot_training_history(history, title="a run", ax=axes, label="again")
    assert len(axes[2].get_lines()) == 3  # accuracy, then accuracy and loss again
    plt.close("all")
    bare = TrainingHistory(steps=[1, 2], losses=[1.0, 0.5], learning_rates=[1e-3, 1e-3])
    assert len(plot_training_history(bare, title="no evaluations")) == 2
    with pytest.raises(ValueError, match="no evaluation metric"):
        plot_training_history(history, title="x", metrics=["f1"])
    with pytest.raises(ValueError, match="empty"):
        plot_training_history(TrainingHistory(), title="x")
    with pytest.raises(ValueError, match="the history is empty"):
        TrainingHistory().final_loss  # noqa: B018
    plt.close("all")
