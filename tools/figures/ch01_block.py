"""Chapter 1's figure: the whole toy encoder block on the 4×3 grid, step by step."""

from __future__ import annotations

from .draw import MUTED, Figure, Svg, text_width


def draw_ch01_block() -> Svg:
    """Every step of the toy encoder, each with its output grid, and the residuals."""
    rows = [
        # (step badge, lines of the operation, kind, grids (name, rows, cols), shape)
        (
            None,
            ["“The cat sat.” → [CLS] the cat sat", "one row of 3 numbers per token"],
            "data",
            [("X", 4, 3)],
            "X: (n, d) = (4, 3)",
        ),
        (
            "1",
            ["Q = X W_Q,  K = X W_K,  V = X W_V", "each W is (d, d) = (3, 3)"],
            "attn",
            [("Q", 4, 3), ("K", 4, 3), ("V", 4, 3)],
            "each (4, 3)",
        ),
        ("2", ["scores  S = Q Kᵀ"], "attn", [(None, 4, 4)], "S: (n, n) = (4, 4)"),
        ("3", ["scaled  S / √d_k,  d_k = 3"], "attn", [(None, 4, 4)], "(4, 4)"),
        (
            "4",
            ["weights  A = softmax of each row"],
            "attn",
            [(None, 4, 4)],
            "A: (4, 4), each row sums to 1",
        ),
        ("5", ["context  C = A V"], "attn", [(None, 4, 3)], "C: (n, d) = (4, 3)"),
        ("6", ["residual:  X + C"], "add", [(None, 4, 3)], "(4, 3)"),
        (
            "7",
            ["H = LayerNorm(X + C)", "each row: mean 0, variance 1"],
            "norm",
            [(None, 4, 3)],
            "H: (4, 3)",
        ),
        (
            "8",
            ["hidden = ReLU(H W₁ + b₁)", "W₁ is (d, d_ff) = (3, 5)"],
            "ffn",
            [(None, 4, 5)],
            "(n, d_ff) = (4, 5)",
        ),
        (
            None,
            ["FFN(H) = hidden W₂ + b₂", "W₂ is (d_ff, d) = (5, 3)"],
            "ffn",
            [(None, 4, 3)],
            "(4, 3)",
        ),
        (None, ["residual:  H + FFN(H)"], "add", [(None, 4, 3)], "(4, 3)"),
        (None, ["out = LayerNorm(H + FFN(H))"], "norm", [(None, 4, 3)], "(4, 3)"),
        (
            "9",
            ["mean over the 4 tokens (of block 2’s out)"],
            "op",
            [(None, 1, 3)],
            "(d,) = (3,)",
        ),
        (
            None,
            ["divide by its length"],
            "op",
            [(None, 1, 3)],
            "(3,), length 1",
        ),
    ]
    cell, pitch, box_h = 11, 66, 46
    op_x, op_w, lane_x, grid_x = 96, 316, 62, 466
    top = 66
    centres, y = [], top + box_h / 2
    for i in range(len(rows)):
        centres.append(y)
        y += pitch + (30 if i == 0 else 0) + (34 if i == 11 else 0)
    svg = Svg("ch01-block", 760, centres[-1] + 36)
    svg.heading(
        "One encoder block on the toy: n = 4 tokens, d = 3, d_ff = 5",
        "Circled numbers are the chapter’s steps; each grid has one cell per number.",
    )
    # The block that run_toy_encoder applies twice, with the same weights.
    block_top, block_bottom = centres[1] - box_h / 2 - 34, centres[11] + box_h / 2 + 12
    svg.rect(
        40,
        block_top,
        712,
        block_bottom - block_top,
        "none",
        "#8C8C8C",
        rx=10,
        dash="6 4",
    )
    svg.text(
        744,
        block_top + 18,
        "one encoder block, post-norm (steps 1–8): run twice, same weights",
        13,
        anchor="end",
        color=MUTED,
    )
    boxes = []
    for (step, lines, kind, grids, shape), cy in zip(rows, centres, strict=True):
        box = svg.box(op_x, cy - box_h / 2, op_w, box_h, lines, kind, size=14)
        boxes.append(box)
        if step:
            svg.badge(20, cy, step)
        gx = grid_x
        first_left = None
        for name, r, c in grids:
            gkind = "data" if kind in ("data", "add") else kind
            if name:
                left = gx - 6 - text_width(name, 14, bold=True)
                svg.text(gx - 6, cy + 5, name, 14, anchor="end", bold=True)
            else:
                left = gx
            first_left = left if first_left is None else first_left
            g = svg.grid(gx, cy - r * cell / 2, r, c, cell, gkind)
            gx = g.right + 34
        svg.arrow(box.right_at(), (first_left - 6, cy))
        svg.caption(gx - 34 + 14, cy + 5, shape)
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    # Residual connections: X joins at step 6, H at the second addition.
    for start, end in ((0, 6), (7, 10)):
        svg.arrow(
            boxes[start].left_at(),
            (lane_x, centres[start]),
            (lane_x, centres[end]),
            boxes[end].left_at(),
            radius=8,
        )
    return svg


FIGURE = Figure(
    file="ch01_block.svg",
    chapter="01_the_cat_sat.ipynb",
    after="# 1. The cat sat.",
    alt=(
        "A top-to-bottom flow of one post-norm encoder block on the toy grid, "
        "each step with its output drawn as a grid of cells: the 4-by-3 "
        "embeddings X; queries, keys and values, each 4 by 3; scores, scaled "
        "scores and softmax weights, each 4 by 4; the context C, 4 by 3; X plus C "
        "and its LayerNorm H, 4 by 3; the feed-forward hidden layer, 4 by 5, and "
        "its output, 4 by 3; a second residual addition and LayerNorm, 4 by 3. "
        "Residual arrows carry X and H around the attention and feed-forward "
        "steps; the block runs twice, then the 4 token vectors are averaged into "
        "one vector of 3 numbers and divided by its length."
    ),
    caption=(
        "The whole toy encoder block, step by step, with the shape of every "
        "intermediate."
    ),
    draw=draw_ch01_block,
)
