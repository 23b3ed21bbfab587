"""Chapter 18's figure: data-parallel training, and serving (chapter 19)."""

from __future__ import annotations

from .draw import MUTED, Figure, Svg


def draw_ch18_scaling() -> Svg:
    """DDP on two ranks on the left; ONNX export and int8 serving on the right."""
    svg = Svg("ch18-scaling", 760, 450)
    svg.heading("Training on two processes, serving from one file")

    # Left: DDP with two ranks.
    svg.text(
        14, 58, "Data-parallel training (DDP, 2 ranks)", 14, anchor="start", bold=True
    )
    batch = svg.box(
        14, 72, 336, 40, ["one global batch of B examples"], "data", size=13
    )
    ranks = []
    for r, x in enumerate((14, 190)):
        half = svg.box(x, 140, 160, 40, [f"rank {r}: B/2 examples"], "data", size=13)
        svg.arrow(batch.bottom_at(half.cx), half.top_at())
        model = svg.box(
            x, 204, 160, 52, [f"model copy {r}", "forward, backward"], "attn", size=13
        )
        svg.arrow(half.bottom_at(), model.top_at())
        ranks.append(model)
    reduce = svg.box(
        14, 282, 336, 44, ["all-reduce: average the gradients"], "op", size=13
    )
    for model in ranks:
        svg.arrow(model.bottom_at(), reduce.top_at(model.cx))
    step = svg.box(
        14, 352, 336, 44, ["the same AdamW step on both copies"], "norm", size=13
    )
    svg.arrow(reduce.bottom_at(), step.top_at())
    svg.caption(
        14,
        420,
        [
            "Same weights as one process on the whole batch,",
            "up to the order of float sums (gloo on CPU, NCCL on GPUs).",
        ],
    )

    # Right: export, run, quantize.
    x = 400
    svg.text(x, 58, "Serving with ONNX Runtime", 14, anchor="start", bold=True)
    ours = svg.box(
        x, 72, 340, 40, ["encoderlib MiniLM (PyTorch, fp32)"], "attn", size=13
    )
    onnx = svg.box(
        x, 140, 340, 40, ["model.onnx: the graph and its weights"], "data", size=13
    )
    svg.arrow(ours.bottom_at(), onnx.top_at())
    svg.text(
        x + 178, 131, "torch.onnx.export", 13, anchor="start", mono=True, color=MUTED
    )
    fp32 = svg.box(x, 230, 160, 52, ["ONNX Runtime", "fp32"], "op", size=13)
    int8 = svg.box(
        x + 180, 230, 160, 52, ["ONNX Runtime", "int8 weights"], "ffn", size=13
    )
    svg.arrow(onnx.bottom_at(fp32.cx), fp32.top_at())
    svg.arrow(onnx.bottom_at(int8.cx), int8.top_at())
    svg.caption(int8.cx + 8, 198, ["quantize", "(dynamic)"], gap=2)
    out = svg.box(
        x, 320, 340, 44, ["sentence vectors: compared with PyTorch's"], "norm", size=13
    )
    svg.arrow(fp32.bottom_at(), out.top_at(fp32.cx))
    svg.arrow(int8.bottom_at(), out.top_at(int8.cx))
    svg.caption(
        x,
        390,
        [
            "fp32: equal to PyTorch within 1e-5;",
            "int8: measured for speed and STS-B score.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch18_scaling.svg",
    chapter="18_training_at_scale.ipynb",
    after="# 18. Training at scale",
    alt=(
        "Two panels. Left, data-parallel training with DDP on 2 ranks: one "
        "global batch of B examples is split into two halves of B/2; rank 0 "
        "and rank 1 each hold a copy of the model and run forward and backward "
        "on their half; an all-reduce averages the two gradients; both copies "
        "take the same AdamW step, so they give the weights of one process "
        "trained on the whole batch, up to the order of float sums. Right, "
        "serving: encoderlib's MiniLM in PyTorch is exported with "
        "torch.onnx.export to model.onnx, a file holding the graph and its "
        "weights; ONNX Runtime runs it in fp32, and a dynamically quantized copy "
        "with int8 weights; both give sentence vectors, compared with "
        "PyTorch's: fp32 within 1e-5, int8 measured for speed and STS-B score."
    ),
    caption=(
        "Data-parallel training (this chapter) averages the gradients of two "
        "processes; serving (the next chapter) exports the encoder once and runs it "
        "in ONNX Runtime, in fp32 or with int8 weights."
    ),
    draw=draw_ch18_scaling,
)
