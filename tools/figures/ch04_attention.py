"""Chapter 4's figure: scaled dot-product attention with a key-padding mask."""

from __future__ import annotations

from .draw import KINDS, MUTED, Figure, Svg


def draw_ch04_attention() -> Svg:
    """Scores, mask, softmax, dropout and the weighted sum, with the 6 × 6 grids."""
    svg = Svg("ch04-attention", 760, 790)
    svg.heading(
        "Scaled dot-product attention with a key-padding mask",
        "Example: “The cat sat.” and two [PAD] tokens, so n_q = n_k = 6; "
        "“...” is any leading axes.",
    )
    op_x, op_w, grid_x, cell_w, cell_h = 180, 256, 496, 42, 17
    q = svg.box(op_x, 66, 118, 44, ["q", "(..., n_q, d_k)"], "data", size=14)
    k = svg.box(op_x + 138, 66, 118, 44, ["k", "(..., n_k, d_k)"], "data", size=14)
    keys = ["[CLS]", "the", "cat", "sat", "[PAD]", "[PAD]"]
    svg.text(
        grid_x + 3 * cell_w,
        84,
        "one row per query, one column per key",
        13,
        color=MUTED,
    )
    for j, key in enumerate(keys):
        svg.text(grid_x + (j + 0.5) * cell_w, 106, key, 13)
    rows_h = 6 * cell_h
    centres = [172, 318, 464]
    ops = [
        (["scores = q kᵀ / √d_k", "... i d, ... j d -> ... i j"], [False, True]),
        (["masked_fill(~mask, −∞)", "−∞ where the mask is False"], [True, False]),
        (["softmax over the keys", "each row sums to 1"], [False, False]),
    ]
    boxes = []
    for cy, (lines, mono) in zip(centres, ops, strict=True):
        kind = "mask" if lines[0].startswith("masked") else "attn"
        box = svg.box(op_x, cy - 24, op_w, 48, lines, kind, size=14, mono=mono)
        boxes.append(box)
        svg.arrow(box.right_at(), (grid_x - 8, cy))
    # The three (n_q, n_k) grids: scores, masked scores, weights.
    masked = {(r, c): KINDS["mask"][0] for r in range(6) for c in (4, 5)}
    minus_inf = {(r, c): "−∞" for r in range(6) for c in (4, 5)}
    zeros = {(r, c): KINDS["grey"][0] for r in range(6) for c in (4, 5)}
    zero_text = {(r, c): "0" for r in range(6) for c in (4, 5)}
    svg.grid(grid_x, centres[0] - rows_h / 2, 6, 6, cell_h, "attn", cell_w=cell_w)
    svg.grid(
        grid_x,
        centres[1] - rows_h / 2,
        6,
        6,
        cell_h,
        "attn",
        masked,
        minus_inf,
        cell_w=cell_w,
    )
    svg.grid(
        grid_x,
        centres[2] - rows_h / 2,
        6,
        6,
        cell_h,
        "attn",
        zeros,
        zero_text,
        cell_w=cell_w,
    )
    for cy, label in zip(
        centres,
        ["scores (..., n_q, n_k)", "padding keys get −∞", "weights: 0 on padding keys"],
        strict=True,
    ):
        svg.text(grid_x + 3 * cell_w, cy + rows_h / 2 + 18, label, 13, color=MUTED)
    svg.arrow(q.bottom_at(), (q.cx, boxes[0].y))
    svg.arrow(k.bottom_at(), (k.cx, boxes[0].y))
    svg.arrow(boxes[0].bottom_at(), boxes[1].top_at())
    svg.arrow(boxes[1].bottom_at(), boxes[2].top_at())
    # The mask enters from the left.
    mask = svg.box(
        12,
        centres[1] - 30,
        150,
        60,
        ["mask", "(..., n_q, n_k)", "True = may attend"],
        "mask",
        size=13,
    )
    svg.arrow(mask.right_at(), boxes[1].left_at())
    drop = svg.box(
        op_x,
        560,
        op_w,
        48,
        ["dropout on the weights", "if dropout_p > 0 (training)"],
        "drop",
        dash="5 3",
    )
    svg.arrow(boxes[2].bottom_at(), drop.top_at())
    out = svg.box(
        op_x,
        648,
        op_w,
        48,
        ["output = weights v", "... i j, ... j d -> ... i d"],
        "attn",
        mono=[False, True],
    )
    svg.arrow(drop.bottom_at(), out.top_at())
    v = svg.box(12, 650, 150, 44, ["v", "(..., n_k, d_v)"], "data")
    svg.arrow(v.right_at(), out.left_at())
    result = svg.box(
        op_x - 20,
        726,
        op_w + 40,
        48,
        ["returns (output, weights)", "(..., n_q, d_v), (..., n_q, n_k)"],
        "data",
    )
    svg.arrow(out.bottom_at(), result.top_at())
    svg.caption(
        grid_x - 10,
        600,
        [
            "A query whose mask row is all",
            "False gets zero weights and",
            "a zero output, never NaN.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch04_attention.svg",
    chapter="04_scaled_dot_product_attention.ipynb",
    after="## The idea on the toy",
    alt=(
        "A top-to-bottom flow of scaled dot-product attention. Queries q and keys "
        "k give the scores q times k transposed over the square root of d_k, a "
        "6-by-6 grid for the sentence The cat sat. with two padding tokens. A "
        "boolean mask, True where a query may attend, sets the two padding "
        "columns to minus infinity; softmax over each row then gives them weight "
        "0. Dropout acts on the weights in training only, and the weights times "
        "the values v give the output. A query with no key at all gets zero "
        "weights and a zero output."
    ),
    caption=(
        "Scaled dot-product attention: scores, mask, softmax, weighted sum of "
        "the values."
    ),
    draw=draw_ch04_attention,
)
