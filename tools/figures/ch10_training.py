"""Chapter 10's figure: one call of the training loop."""

from __future__ import annotations

from .draw import Box, Figure, Svg


def draw_ch10_training() -> Svg:
    """The setup, the step loop with its accumulation loop, then the return."""
    svg = Svg("ch10-training", 760, 752)
    svg.heading(
        "One call of train(model, loss_fn, train_data, ...)",
        "Each optimizer step follows the mean loss of accumulation_steps "
        "batches; brackets: on a GPU only.",
    )
    x, w = 140, 540
    setup = svg.box(
        x,
        64,
        w,
        70,
        [
            "set_seed(seed) if given; model.to(device)",
            "AdamW: weight decay on matrices, none on biases and norms",
            "LambdaLR: warm-up, then cosine or linear decay",
        ],
        "grey",
        size=14,
    )
    svg.rect(40, 156, 690, 494, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.text(
        56, 178, "for step in range(steps):", 14, anchor="start", mono=True, bold=True
    )
    inner = svg.rect(96, 192, 620, 212, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.text(
        112,
        214,
        "repeat accumulation_steps times:",
        14,
        anchor="start",
        mono=True,
        bold=True,
    )

    def step_box(y: float, text: str, kind: str = "op", dash: str | None = None) -> Box:
        """One line of the loop, as wide as the setup box, at y."""
        return svg.box(x, y, w, 36, text, kind, dash=dash)

    batch = step_box(228, "batch = the next batch of train_data, on the device", "data")
    forward = step_box(286, "loss = loss_fn(model, batch)   [autocast: bf16, or fp16]")
    backward = step_box(
        344, "(loss / accumulation_steps).backward()   [fp16: loss scaled]"
    )
    clip = step_box(
        426, "clip_grad_norm_(parameters, max_grad_norm)   [fp16: unscale first]"
    )
    step = step_box(484, "optimizer.step(), optimizer.zero_grad(), scheduler.step()")
    history = step_box(
        542, "history: loss, learning rate, gradient norm, real tokens", "data"
    )
    evaluate = step_box(
        600,
        "every eval_every steps: eval_fn(model) in eval mode, no gradients",
        dash="5 3",
    )
    after = svg.box(
        x,
        672,
        w,
        58,
        [
            "eval_fn after the last step; every module’s train/eval mode restored",
            "returns a TrainingHistory",
        ],
        "data",
        size=14,
    )
    chain = [setup, batch, forward, backward, clip, step, history, evaluate, after]
    for upper, lower in zip(chain, chain[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    # The two loops: the next micro-batch, and the next step.
    svg.arrow(
        backward.left_at(),
        (118, backward.cy),
        (118, batch.cy),
        batch.left_at(),
        radius=8,
    )
    svg.arrow(
        evaluate.left_at(),
        (64, evaluate.cy),
        (64, inner.y + 18),
        (inner.x, inner.y + 18),
        radius=8,
    )
    return svg


FIGURE = Figure(
    file="ch10_training.svg",
    chapter="10_training_a_classifier.ipynb",
    after="### Clipping, accumulation, precision",
    alt=(
        "A top-to-bottom flow of one call of train. Setup: seed, AdamW with two "
        "parameter groups and a warm-up and decay schedule. Then a loop over the "
        "steps; inside it an inner loop repeats accumulation_steps times: take "
        "the next batch, compute the loss, divide it by accumulation_steps and "
        "run backward. After the inner loop the step clips the gradient norm, "
        "steps the optimizer, zeroes the gradients, steps the schedule, records "
        "the history and, every eval_every steps, evaluates. At the end the "
        "loop evaluates once more, restores each module's mode and returns the "
        "history."
    ),
    caption=(
        "The training loop of train: gradient accumulation inside, clipping, "
        "optimizer and schedule steps, history and evaluation."
    ),
    draw=draw_ch10_training,
)
