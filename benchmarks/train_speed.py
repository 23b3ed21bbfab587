"""encoderlib.train against Hugging Face BertForMaskedLM in a plain loop: MLM steps.

Masked-language-model training steps on two BERT-layout (post-norm) shapes,
MiniLM-L6 (6 layers of 384) and BERT-base (12 layers of 768), both with BERT's
30,522-token vocabulary. One side is encoderlib: `MaskedLanguageModel(Encoder)`
trained by `encoderlib.training.train` with `mlm_loss`. The other is Hugging
Face `transformers.BertForMaskedLM` (its default SDPA attention) in a plain
PyTorch loop: forward with labels, `loss.backward()`, clip, `optimizer.step()`,
`zero_grad()`. Both start from the same random weights (Hugging Face's, copied
into ours with `load_bert_weights` and, for the MLM head, by hand), see the same
batches and use the same AdamW (the same `parameter_groups`, learning rate,
warm-up and cosine schedule, clipping at 1.0), in PyTorch's fused
implementation on both sides: `train`'s default, and Hugging Face `Trainer`'s
(`optim="adamw_torch_fused"`) on torch 2.8 and later. `--adamw loop` times
PyTorch's CPU default instead, a loop over the parameter tensors.

The batches are real English: the standard-library docstring paragraphs of
`encoderlib/resources/stdlib_docstrings.json` (paragraphs of at least 5 words),
tokenized with `WordPieceTokenizer.from_minilm()` and cut to 128 tokens. They
come in two orders, a row each: "shuffled", as a data loader with
`shuffle=True` gives them, and "grouped" by length, as Hugging Face's
`group_by_length=True` gives them (less padding, so less work for Hugging
Face's side). Each batch is padded to its longest text and masked once by
`mask_tokens` with a fixed generator, so both sides get identical inputs and
labels.

Each timed run is a whole training run of `steps` steps from the initial
weights, with a fresh optimizer, for both sides at once: their steps alternate
one by one (our `train` pulls its batches from a generator that also runs
Hugging Face's step), so a change in the machine's load hits both alike. The
table reports the median run time per side over the repeats, per step, and the
ratio of the medians, encoderlib / Hugging Face (below 1 is faster). Tokens
per second count real (non-padding) tokens. Dropout is 0 by default so that the
two sides' losses can be compared step by step; they must agree to 1e-4
relative. A breakdown by phase (encoder, MLM head and loss, forward and
backward, optimizer) shows where the time goes. Peak memory is the growth of
the resident set (VmHWM, Linux) during one training run, each side in a fresh
child process; it includes the gradients and AdamW's two moment buffers, which
are the same on both sides. The matmul floor is the time of the step's matrix
products alone, each timed as one `torch.mm` of the same shape: no
implementation of the same fp32 arithmetic on this machine can be faster, so
"products / HF step" is the lowest ratio any code could reach.

Run from the repository root after `make setup`, on an idle machine:

    .venv/bin/python benchmarks/train_speed.py                   # the full table
    .venv/bin/python benchmarks/train_speed.py --sizes minilm --steps 8 --batch 32
    .venv/bin/python benchmarks/train_speed.py --profile         # top operators
    .venv/bin/python benchmarks/train_speed.py --quick           # a smoke run only
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import Tensor, nn  # noqa: E402

from encoderlib import (  # noqa: E402
    Encoder,
    EncoderConfig,
    MaskedLanguageModel,
    WordPieceTokenizer,
    learning_rate_factor,
    load_bert_weights,
    mask_tokens,
    mlm_loss,
    parameter_groups,
    train,
)
from encoderlib.mlm import IGNORE_INDEX  # noqa: E402

RESOURCES = Path(__file__).resolve().parent.parent / "encoderlib" / "resources"
LOSS_TOLERANCE = 1e-4  # relative, per step; see `compare_losses`
ORDERS = ("shuffled", "grouped")
GOAL = 0.6  # the target: encoderlib ≤ 0.6 × Hugging Face's time per step


@dataclass(frozen=True)
class Size:
    """One benchmark setting: a model shape and the batches it trains on."""

    key: str
    name: str
    config: Callable[..., EncoderConfig]
    batch: int
    steps: int
    repeats: int
    max_length: int = 128


def tiny_config(**overrides) -> EncoderConfig:
    """A post-norm 2 × 64 encoder with BERT's vocabulary: the smoke test's size."""
    sizes = dict(vocab_size=30522, d_model=64, n_heads=4, n_layers=2, d_ff=256)
    return EncoderConfig(**{**sizes, **overrides})


SIZES = {  # batch, steps per run and repeats per side: few, a 2-core CPU is slow
    "minilm": Size("minilm", "MiniLM-L6 (6×384)", EncoderConfig.minilm_l6, 32, 4, 5),
    "bert-base": Size(
        "bert-base", "BERT-base (12×768)", EncoderConfig.bert_base, 8, 3, 3
    ),
    "tiny": Size("tiny", "tiny (2×64)", tiny_config, 4, 2, 1, max_length=32),
}


@dataclass(frozen=True)
class Recipe:
    """What both sides share: the optimizer, its schedule and the data's shape."""

    lr: float = 1e-4
    weight_decay: float = 0.01
    warmup: int = 1
    max_grad_norm: float = 1.0
    dropout: float = 0.0
    order: str = "shuffled"
    seed: int = 0
    fused: bool = True  # AdamW's fused kernel on both sides, as `Trainer` defaults


# ---------------------------------------------------------------- the data


@cache
def paragraphs() -> tuple[str, ...]:
    """The 2,075 docstring paragraphs of at least 5 words, each on one line."""
    path = RESOURCES / "stdlib_docstrings.json"
    docs = json.loads(path.read_text(encoding="utf-8"))
    texts = []
    for module_docs in docs["chapter_02_docstrings_by_module"].values():
        for doc in module_docs:
            for paragraph in doc.split("\n\n"):
                text = " ".join(paragraph.split())
                if len(text.split()) >= 5:
                    texts.append(text)
    return tuple(texts)


@cache
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer.from_minilm()


MEGABATCH = 50  # batches per mega-batch, as Hugging Face's LengthGroupedSampler


def make_batches(
    n_batches: int, batch_size: int, max_length: int, order: str, seed: int = 0
) -> list[dict[str, Tensor]]:
    """`n_batches` masked MLM batches of docstring paragraphs, in a loader's order.

    "shuffled": the texts in a random order, as a data loader with
    `shuffle=True` gives them. "grouped": what a length-grouped sampler does
    (Hugging Face's `LengthGroupedSampler`, `group_by_length=True`): the
    shuffled texts are taken 50 batches' worth at a time, sorted by length,
    cut into batches, and those batches shuffled, so each batch holds texts of
    similar length. Each batch is padded to its longest text and masked once by
    `mask_tokens` with one seeded generator: both sides get identical inputs
    and labels.
    """
    if order not in ORDERS:
        raise ValueError(f"expected order in {ORDERS}, got {order!r}")
    tok, texts = tokenizer(), paragraphs()
    g = torch.Generator().manual_seed(seed)
    group = MEGABATCH if order == "grouped" else 1
    need = -(-n_batches // group) * group * batch_size  # whole mega-batches
    picks = []
    while len(picks) < need:  # a fresh epoch's order when one runs out
        picks += torch.randperm(len(texts), generator=g).tolist()
    chunks = []
    for start in range(0, need, group * batch_size):
        rows = [
            tok.encode(texts[i], max_length=max_length)
            for i in picks[start : start + group * batch_size]
        ]
        if order == "grouped":
            rows.sort(key=len, reverse=True)
        mega = [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]
        chunks += [mega[i] for i in torch.randperm(len(mega), generator=g).tolist()]
    batches = []
    for chunk in chunks[:n_batches]:
        n = max(len(r) for r in chunk)
        ids = torch.full((len(chunk), n), tok.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(chunk), n), dtype=torch.long)
        for row, r in enumerate(chunk):
            ids[row, : len(r)] = torch.tensor(r)
            mask[row, : len(r)] = 1
        masked, labels = mask_tokens(
            ids,
            tok.mask_token_id,
            tok.vocab_size,
            tok.special_token_ids,
            attention_mask=mask,
            generator=g,
        )
        batches.append({"input_ids": masked, "attention_mask": mask, "labels": labels})
    return batches


# ---------------------------------------------------------------- the models


def bert_config(config: EncoderConfig):
    """The Hugging Face `BertConfig` of an encoderlib BERT-layout config."""
    from transformers import BertConfig

    return BertConfig(
        vocab_size=config.vocab_size,
        hidden_size=config.d_model,
        num_hidden_layers=config.n_layers,
        num_attention_heads=config.n_heads,
        intermediate_size=config.d_ff,
        max_position_embeddings=config.max_len,
        type_vocab_size=config.type_vocab_size,
        layer_norm_eps=config.eps,
        hidden_act="gelu",
        hidden_dropout_prob=config.dropout,
        attention_probs_dropout_prob=config.dropout,
    )


def build(size: Size, recipe: Recipe) -> tuple[MaskedLanguageModel, nn.Module]:
    """Our masked language model and Hugging Face's, with the same random weights."""
    from transformers import BertForMaskedLM
    from transformers.utils import logging

    logging.set_verbosity_error()
    config = size.config(dropout=recipe.dropout)
    torch.manual_seed(recipe.seed)
    theirs = BertForMaskedLM(bert_config(config))
    encoder = Encoder(config)
    load_bert_weights(encoder, theirs.state_dict())  # ignores cls.*
    ours = MaskedLanguageModel(encoder)
    head = theirs.cls.predictions
    with torch.no_grad():  # the MLM head by hand; its decoder weight is tied
        ours.head.dense.load_state_dict(head.transform.dense.state_dict())
        ours.head.norm.load_state_dict(head.transform.LayerNorm.state_dict())
        ours.head.decoder.bias.copy_(head.bias)
    assert ours.head.decoder.weight is ours.encoder.embeddings.token_embeddings.weight
    assert head.decoder.weight is theirs.bert.embeddings.word_embeddings.weight
    n_ours = sum(p.numel() for p in ours.parameters())
    n_theirs = sum(p.numel() for p in theirs.parameters())
    assert n_ours == n_theirs, (n_ours, n_theirs)
    return ours, theirs


# ---------------------------------------------------------------- the two loops


def hf_loss(model: nn.Module, batch: dict[str, Tensor]) -> Tensor:
    return model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        labels=batch["labels"],
    ).loss


def adamw(groups: list[dict], recipe: Recipe) -> torch.optim.AdamW:
    """Hugging Face's side's AdamW: fused, as `TrainingArguments.optim` defaults to
    ("adamw_torch_fused") on torch 2.8 and later, or PyTorch's per-tensor loop."""
    if recipe.fused:
        return torch.optim.AdamW(groups, lr=recipe.lr, fused=True)
    return torch.optim.AdamW(groups, lr=recipe.lr, foreach=False)


def run_ours(
    model: MaskedLanguageModel, batches, recipe: Recipe, steps: int | None = None
) -> list[float]:
    """One training run with `encoderlib.training.train`; the loss of each step.

    `batches` is a list, or any iterable when `steps` says how many to take.
    """
    history = train(
        model,
        mlm_loss,
        batches,
        steps=steps or len(batches),
        lr=recipe.lr,
        weight_decay=recipe.weight_decay,
        warmup=recipe.warmup,
        max_grad_norm=recipe.max_grad_norm,
        precision="fp32",
        fused=recipe.fused,
        progress=False,
    )
    return history.losses


class PlainLoop:
    """Hugging Face's side: the usual PyTorch training loop, one step per call.

    The same AdamW as `train` builds (`parameter_groups`, lr, betas, weight
    decay), the same warm-up and cosine schedule (`learning_rate_factor`) and
    the same clipping; forward with labels, backward, clip, step, zero_grad.
    """

    def __init__(self, model: nn.Module, recipe: Recipe, steps: int) -> None:
        self.model, self.recipe, self.losses = model, recipe, []
        self.optimizer = adamw(parameter_groups(model, recipe.weight_decay), recipe)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer,
            lambda step: learning_rate_factor(step, steps, recipe.warmup),
        )
        self.parameters = [
            p for group in self.optimizer.param_groups for p in group["params"]
        ]
        model.train()

    def step(self, batch: dict[str, Tensor]) -> None:
        loss = hf_loss(self.model, batch)
        loss.backward()
        self.losses.append(loss.item())
        torch.nn.utils.clip_grad_norm_(self.parameters, self.recipe.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.scheduler.step()


def run_theirs(model: nn.Module, batches, recipe: Recipe) -> list[float]:
    """The same run as `run_ours`, with Hugging Face's model in a `PlainLoop`."""
    loop = PlainLoop(model, recipe, len(batches))
    for batch in batches:
        loop.step(batch)
    return loop.losses


RUNS = {"ours": run_ours, "theirs": run_theirs}


class Side:
    """A model and its initial weights, to start every run from them again."""

    def __init__(self, name: str, model: nn.Module) -> None:
        self.name, self.model = name, model
        self.initial = copy.deepcopy(model.state_dict())

    def reset(self) -> None:
        self.model.load_state_dict(self.initial)
        self.model.zero_grad(set_to_none=True)


def run_interleaved(
    ours: nn.Module, theirs: nn.Module, batches, recipe: Recipe, parity: int = 0
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Both training runs at once, alternating step by step: seconds and losses.

    `train` pulls its batches from a generator; between two pulls it does one
    whole step (forward, backward, clipping, AdamW, schedule, bookkeeping),
    which is timed as ours. The generator also runs Hugging Face's step on the
    same batch, before ours on even steps and after it on odd ones (swapped
    when `parity` is 1). A change in the machine's load hits both sides alike.
    """
    loop = PlainLoop(theirs, recipe, len(batches))
    seconds = {"ours": 0.0, "theirs": 0.0}

    def theirs_step(batch: dict[str, Tensor]) -> None:
        start = time.perf_counter()
        loop.step(batch)
        seconds["theirs"] += time.perf_counter() - start

    def feed():
        for i, batch in enumerate(batches):
            theirs_first = (i + parity) % 2 == 0
            if theirs_first:
                theirs_step(batch)
            start = time.perf_counter()
            yield batch  # train() runs our step until it asks for the next batch
            seconds["ours"] += time.perf_counter() - start
            if not theirs_first:
                theirs_step(batch)

    stream = feed()
    ours_losses = run_ours(ours, stream, recipe, steps=len(batches))
    for _ in stream:  # ends the last step's clock (and runs a last HF step)
        pass
    return seconds, {"ours": ours_losses, "theirs": loop.losses}


def time_interleaved(
    sides: list[Side], batches, recipe: Recipe, repeats: int
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Median seconds per whole run of each side over `repeats` interleaved runs,
    each from the initial weights with a fresh optimizer; and the first run's
    losses. One untimed step of each side first does the one-time setup."""
    ours, theirs = sides
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    losses: dict[str, list[float]] = {}
    for r in range(-1, repeats):
        for side in sides:
            side.reset()
        run_batches = batches[:1] if r < 0 else batches  # r = -1: the warm-up
        seconds, run_losses = run_interleaved(
            ours.model, theirs.model, run_batches, recipe, parity=r % 2
        )
        if r >= 0:
            for name, value in seconds.items():
                times[name].append(value)
            losses = losses or run_losses
    return {name: statistics.median(t) for name, t in times.items()}, losses


def compare_losses(ours: list[float], theirs: list[float]) -> float:
    """The largest relative difference between the two sides' losses, step by step.

    Both run in fp32 and differ only in the order of floating-point sums
    (packed vs padded tokens, two attention kernels, the head on labelled rows
    vs all rows), about 1e-7 relative per operation; a few AdamW steps carry
    that to at most ~1e-6 here. 1e-4 (`LOSS_TOLERANCE`) leaves room, and a real
    difference (a wrong weight, mask or label) shows up at 1e-2 or more.
    """
    return max(abs(a - b) / abs(b) for a, b in zip(ours, theirs, strict=True))


# ---------------------------------------------------------------- the matmul floor


def product_shapes(
    config: EncoderConfig, tokens: int, labelled: int
) -> list[tuple[int, int, int]]:
    """Every matrix product (m, k, o) of one training step on real tokens only.

    Per layer, forward: q, k and v (one d → 3d product), the output projection
    (d → d) and the feed-forward pair (d → d_ff → d), each on the `tokens` real
    tokens; the MLM head's transform (d → d) and decoder (d → vocabulary) on the
    `labelled` positions. Backward repeats each product twice (the gradient of
    the input and of the weight), with the same multiply-adds. The attention
    scores are left out, so the sum is a lower bound.
    """
    d, ff = config.d_model, config.d_ff
    layer = [(tokens, d, 3 * d), (tokens, d, d), (tokens, d, ff), (tokens, ff, d)]
    head = [(labelled, d, d), (labelled, d, config.vocab_size)]
    forward = layer * config.n_layers + head
    backward = [(m, o, k) for m, k, o in forward] + [(k, m, o) for m, k, o in forward]
    return forward + backward


@cache
def product_seconds(m: int, k: int, o: int, repeats: int = 3) -> float:
    """The fastest of `repeats` timings of one fp32 (m, k) @ (k, o) product."""
    a, b = torch.randn(m, k), torch.randn(k, o)
    best = math.inf
    for _ in range(repeats + 1):  # the first call warms the allocator up
        start = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - start)
    return best


def matmul_floor(config: EncoderConfig, batches) -> tuple[float, float]:
    """Seconds per step of the step's matrix products alone, and their GFLOP/s.

    A side that computes the same fp32 products on the real tokens cannot take
    less time than this on this machine, whatever the rest of its code does.
    """
    seconds, flops = 0.0, 0.0
    for batch in batches:
        tokens = int(batch["attention_mask"].sum())
        labelled = int((batch["labels"] != IGNORE_INDEX).sum())
        for m, k, o in product_shapes(config, tokens, labelled):
            seconds += product_seconds(m, k, o)
            flops += 2 * m * k * o
    return seconds / len(batches), flops / seconds / 1e9


# ---------------------------------------------------------------- where the time goes

PHASES = ("encoder fwd", "head+loss fwd", "head+loss bwd", "encoder bwd", "optimizer")


def phase_step(side: Side, optimizer, batch: dict[str, Tensor], clip: float):
    """One plain training step of `side`, timed by phase, in milliseconds.

    Forward is split into the encoder and the MLM head with its loss; backward
    is split at the moment the gradient reaches the encoder's output (a tensor
    hook); "optimizer" is clipping, AdamW's step and zero_grad.
    """
    model = side.model
    ids, mask, labels = batch["input_ids"], batch["attention_mask"], batch["labels"]
    t0 = time.perf_counter()
    if side.name == "ours":
        h = model.encoder(ids, mask)
    else:
        h = model.bert(input_ids=ids, attention_mask=mask).last_hidden_state
    t1 = time.perf_counter()
    if side.name == "ours":  # MaskedLanguageModel.forward's head and loss
        chosen = labels != IGNORE_INDEX
        loss = F.cross_entropy(model.head(h[chosen]), labels[chosen])
    else:  # BertForMaskedLM.forward's
        scores = model.cls(h)
        loss = F.cross_entropy(scores.view(-1, scores.shape[-1]), labels.view(-1))
    t2 = time.perf_counter()
    reached: list[float] = []
    h.register_hook(lambda grad, marks=reached: marks.append(time.perf_counter()))
    loss.backward()
    t3 = time.perf_counter()
    parameters = [p for group in optimizer.param_groups for p in group["params"]]
    torch.nn.utils.clip_grad_norm_(parameters, clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    t4 = time.perf_counter()
    times = (t1 - t0, t2 - t1, reached[0] - t2, t3 - reached[0], t4 - t3)
    return [t * 1e3 for t in times]


def phase_times(sides: list[Side], batches, recipe: Recipe) -> list[dict[str, float]]:
    """Median milliseconds per step of each phase, per side, from the initial
    weights, the two sides alternating step by step as in `run_interleaved`."""
    optimizers, records = [], []
    for side in sides:
        side.reset()
        side.model.train()
        groups = parameter_groups(side.model, recipe.weight_decay)
        optimizers.append(adamw(groups, recipe))
        records.append({phase: [] for phase in PHASES})
    for i, batch in enumerate(batches):
        order = [0, 1] if i % 2 else [1, 0]
        for k in order:
            times = phase_step(sides[k], optimizers[k], batch, recipe.max_grad_norm)
            for phase, value in zip(PHASES, times, strict=True):
                records[k][phase].append(value)
    for side in sides:
        side.reset()
    return [{key: statistics.median(v) for key, v in rec.items()} for rec in records]


def profile_top(side: Side, batch: dict[str, Tensor], recipe: Recipe, rows: int):
    """torch.profiler's table of the operators that took most time in one step."""
    from torch.profiler import ProfilerActivity, profile

    side.reset()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        RUNS[side.name](side.model, [batch], recipe)
    side.reset()
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)


# ---------------------------------------------------------------- peak memory


def memory_status(field: str) -> int:
    """A memory figure of this process from /proc/self/status (Linux), in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024  # reported in kB
    raise RuntimeError(f"/proc/self/status has no {field}")


def peak_memory_child(size: Size, recipe: Recipe, impl: str) -> int:
    """In a fresh process: growth of the resident set during one training run, bytes.

    The other side's model is dropped before measuring. A forward and backward
    pass on a 2 × 8 slice first does the one-time setup (its gradients are
    freed). Writing 5 to /proc/self/clear_refs resets the kernel's peak resident
    set (VmHWM) to the current one, so the peak read afterwards belongs to the run.
    """
    batches = make_batches(size.steps, size.batch, size.max_length, recipe.order)
    ours, theirs = build(size, recipe)
    model = ours if impl == "ours" else theirs
    del ours, theirs
    loss_fn = mlm_loss if impl == "ours" else hf_loss
    small = {key: value[:2, :8] for key, value in batches[0].items()}
    small["labels"] = small["labels"].clone()
    small["labels"][:, 1] = small["input_ids"][:, 1]  # at least one label
    loss_fn(model, small).backward()
    model.zero_grad(set_to_none=True)
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")
    before = memory_status("VmRSS")
    RUNS[impl](model, batches, recipe)
    return memory_status("VmHWM") - before


def peak_memory(size: Size, recipe: Recipe, impl: str, threads: int) -> int:
    """`peak_memory_child` in a new Python process, so earlier runs cannot hide it."""
    spec = json.dumps(
        [size.key, size.batch, size.steps, size.max_length, recipe.__dict__, impl]
    )
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", spec, "--threads", str(threads)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the tables


@dataclass
class Row:
    """Everything measured for one model size and one batch order."""

    size: Size
    order: str
    medians: dict[str, float]
    losses: dict[str, list[float]]
    tokens: int
    slots: int
    labelled: int
    parameters: int
    dropout: float = 0.0
    memory: list[float] | None = None
    phases: list[dict[str, float]] | None = None
    floor: tuple[float, float] | None = None  # seconds per step, GFLOP/s

    @property
    def ratio(self) -> float:
        return self.medians["ours"] / self.medians["theirs"]

    @property
    def loss_diff(self) -> float:
        return compare_losses(self.losses["ours"], self.losses["theirs"])


def table_header(cells: list[str]) -> str:
    header = "| " + " | ".join(cells) + " |"
    rule = "|" + "|".join("-" * (len(cell) + 2) for cell in cells) + "|"
    return header + "\n" + rule


def measure(size: Size, recipe: Recipe, args: argparse.Namespace) -> Row:
    """Time, losses, memory and the phase breakdown of one size and order."""
    batches = make_batches(size.steps, size.batch, size.max_length, recipe.order)
    ours, theirs = build(size, recipe)
    sides = [Side("ours", ours), Side("theirs", theirs)]
    medians, losses = time_interleaved(sides, batches, recipe, size.repeats)
    row = Row(
        size,
        recipe.order,
        medians,
        losses,
        tokens=sum(int(b["attention_mask"].sum()) for b in batches),
        slots=sum(b["attention_mask"].numel() for b in batches),
        labelled=sum(int((b["labels"] != IGNORE_INDEX).sum()) for b in batches),
        parameters=sum(p.numel() for p in ours.parameters()),
        dropout=recipe.dropout,
    )
    if not args.no_phases:
        row.phases = phase_times(sides, batches, recipe)
        row.floor = matmul_floor(ours.encoder.config, batches)
    if args.profile:
        for side in sides:
            print(
                f"\n{size.name}, {recipe.order}, {side.name}: one step, top operators"
            )
            print(profile_top(side, batches[0], recipe, rows=12))
    del ours, theirs, sides
    if not (args.no_memory or args.quick):
        row.memory = [
            peak_memory(size, recipe, impl, args.threads) / 2**20
            for impl in ("ours", "theirs")
        ]
    return row


def print_tables(rows: list[Row]) -> None:
    print(
        "\nTime per training step, median of whole runs, steps interleaved; "
        "ratio = encoderlib / Hugging Face, below 1 is faster"
    )
    print(
        table_header(
            [
                "model",
                "batches",
                "batch",
                "steps",
                "tokens/step",
                "padding",
                "encoderlib ms/step",
                "HF ms/step",
                "ratio",
                "encoderlib tok/s",
                "HF tok/s",
                "peak MB ours / HF",
                "loss max rel diff",
            ]
        )
    )
    for row in rows:
        size, med = row.size, row.medians
        mem = "" if row.memory is None else f"{row.memory[0]:.0f} / {row.memory[1]:.0f}"
        print(
            f"| {size.name} | {row.order} | {size.batch} | {size.steps} "
            f"| {row.tokens / size.steps:.0f} | {1 - row.tokens / row.slots:.0%} "
            f"| {med['ours'] / size.steps * 1e3:.0f} "
            f"| {med['theirs'] / size.steps * 1e3:.0f} | {row.ratio:.2f} "
            f"| {row.tokens / med['ours']:.0f} | {row.tokens / med['theirs']:.0f} "
            f"| {mem} | {row.loss_diff:.1e} |",
            flush=True,
        )

    print("\nLosses step by step (fp32, dropout 0 when compared)")
    print(
        table_header(
            ["model", "batches", "step", "encoderlib", "Hugging Face", "rel diff"]
        )
    )
    for row in rows:
        pairs = zip(row.losses["ours"], row.losses["theirs"], strict=True)
        for step, (a, b) in enumerate(pairs, 1):
            print(
                f"| {row.size.name} | {row.order} | {step} | {a:.6f} | {b:.6f} "
                f"| {abs(a - b) / abs(b):.1e} |"
            )

    if any(row.phases for row in rows):
        print(
            "\nWhere the time goes: ms per step, median over the steps of one run, "
            "both sides in a plain loop, steps interleaved"
        )
        print(
            table_header(
                ["model", "batches", "phase", "encoderlib", "Hugging Face", "ratio"]
            )
        )
        for row in rows:
            if not row.phases:
                continue
            ours, theirs = row.phases
            cells = [(key, ours[key], theirs[key]) for key in ours]
            cells.append(("total", sum(ours.values()), sum(theirs.values())))
            for key, a, b in cells:
                print(
                    f"| {row.size.name} | {row.order} | {key} | {a:.1f} | {b:.1f} "
                    f"| {a / b:.2f} |"
                )

    if any(row.floor for row in rows):
        print(
            "\nThe matmul floor: the step's matrix products alone (encoder linear "
            "layers on the real tokens, MLM head on the labelled positions, forward "
            "and backward), each timed as one torch.mm on this machine"
        )
        print(
            table_header(
                [
                    "model",
                    "batches",
                    "products ms/step",
                    "GFLOP/s",
                    "products / HF step",
                    "encoderlib / HF step",
                ]
            )
        )
        for row in rows:
            if not row.floor:
                continue
            seconds, rate = row.floor
            theirs = row.medians["theirs"] / row.size.steps
            print(
                f"| {row.size.name} | {row.order} | {seconds * 1e3:.0f} | {rate:.0f} "
                f"| {seconds / theirs:.2f} | {row.ratio:.2f} |"
            )

    if any(row.memory for row in rows):
        fixed = {
            row.size.name: f"{row.parameters:,} parameters, "
            f"{12 * row.parameters / 2**20:.0f} MB"
            for row in rows
        }
        print(
            "\nPeak memory: growth of the resident set (VmHWM) during one training "
            "run, each side in a fresh process. It includes the gradients and "
            "AdamW's two moment buffers, 3 × 4 bytes per parameter on both sides: "
            + "; ".join(f"{name} {text}" for name, text in fixed.items())
            + "."
        )

    print()
    for row in rows:
        diff = row.loss_diff
        agree = "agree" if diff <= LOSS_TOLERANCE else "DIFFER"
        verdict = (
            f"losses {agree} (max relative difference {diff:.1e}, tolerance "
            f"{LOSS_TOLERANCE:.0e})"
        )
        if row.dropout > 0:  # each side draws its own dropout masks
            verdict = f"losses not compared (dropout {row.dropout:g})"
        goal = "met" if row.ratio <= GOAL else "NOT met"
        print(
            f"{row.size.name}, {row.order}: {verdict}; encoderlib takes "
            f"{row.ratio:.2f}× Hugging Face's time per step, the goal ≤ {GOAL}× is "
            f"{goal}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        choices=[key for key in SIZES if key != "tiny"],
        default=["minilm", "bert-base"],
    )
    parser.add_argument(
        "--orders", nargs="+", choices=ORDERS, default=list(ORDERS), help="batch orders"
    )
    parser.add_argument("--batch", type=int, help="texts per batch (default: per size)")
    parser.add_argument("--steps", type=int, help="steps per run (default: per size)")
    parser.add_argument(
        "--repeats", type=int, help="timed runs per side (default: per size)"
    )
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument(
        "--dropout",
        type=float,
        default=0.0,
        help="dropout of both models; above 0 the losses cannot agree step by step",
    )
    parser.add_argument(
        "--adamw",
        choices=("fused", "loop"),
        default="fused",
        help="AdamW's implementation on both sides: fused (Trainer's default on "
        "torch >= 2.8) or PyTorch's CPU default, one tensor at a time",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip peak memory")
    parser.add_argument("--no-phases", action="store_true", help="skip the breakdown")
    parser.add_argument(
        "--profile", action="store_true", help="print torch.profiler's top operators"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: a 2×64 model, batch 4, 2 steps, 1 repeat, no memory; "
        "the times mean nothing",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.memory_child:
        key, batch, steps, max_length, recipe, impl = json.loads(args.memory_child)
        size = replace(SIZES[key], batch=batch, steps=steps, max_length=max_length)
        print(peak_memory_child(size, Recipe(**recipe), impl))
        return

    if args.quick:
        sizes = [SIZES["tiny"]]
    else:
        sizes = [
            replace(
                SIZES[key],
                batch=args.batch or SIZES[key].batch,
                steps=args.steps or SIZES[key].steps,
                repeats=args.repeats or SIZES[key].repeats,
                max_length=args.max_length,
            )
            for key in args.sizes
        ]
    load = os.getloadavg()[0]
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load:.1f}; other processes will skew the times")
    import transformers

    recipe = Recipe(lr=args.lr, dropout=args.dropout, fused=args.adamw == "fused")
    adamw_name = "fused" if recipe.fused else "per-tensor loop"
    print(
        f"torch {torch.__version__}, transformers {transformers.__version__}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{args.threads} threads, fp32, CPU. AdamW ({adamw_name}) lr {recipe.lr:g}, "
        f"weight decay "
        f"{recipe.weight_decay:g}, warm-up {recipe.warmup} step then cosine, clip "
        f"at {recipe.max_grad_norm:g}, dropout {recipe.dropout:g}. Docstring "
        f"paragraphs, at most {sizes[0].max_length} tokens, masked 15 %. The "
        "sides' steps alternate; "
        + ", ".join(f"{s.name}: {s.repeats} runs" for s in sizes)
    )
    rows = []
    for size in sizes:
        for order in args.orders:
            row = measure(size, replace(recipe, order=order), args)
            print(
                f"measured {size.name}, {order}: encoderlib "
                f"{row.medians['ours'] / size.steps * 1e3:.0f} ms/step, Hugging Face "
                f"{row.medians['theirs'] / size.steps * 1e3:.0f} ms/step",
                flush=True,
            )
            rows.append(row)
    print_tables(rows)
    print(
        f"load average at the end: {os.getloadavg()[0]:.1f} "
        f"({os.cpu_count()} cores; above {args.threads} means other work competed)"
    )


if __name__ == "__main__":
    main()
