"""Chapter 5's figure: splitting the projections into heads, and merging them."""

from __future__ import annotations

from .draw import KINDS, Figure, Svg


def draw_ch05_heads() -> Svg:
    """Project, split into two heads, attend, merge: numbered cells show the moves."""
    svg = Svg("ch05-heads", 760, 876)
    svg.heading(
        "Multi-head attention: project, split into heads, attend, merge",
        "The chapter’s example: n = 3 tokens, d_model = 8, h = 2 heads, "
        "d_head = 4; cell = 10 × token + feature.",
    )
    head_fill = [KINDS["attn"][0], KINDS["yellow"][0]]
    cw, ch = 30, 22
    op_x, op_w, gx = 12, 318, 372

    def numbered(features: range) -> dict[tuple[int, int], str]:
        """Cell texts 10 × token + feature, for the features in `features`."""
        return {
            (r, c): str(10 * r + f) for r in range(3) for c, f in enumerate(features)
        }

    def by_head(cols: int) -> dict[tuple[int, int], str]:
        """Cell fills: each group of 4 features in its head's colour."""
        return {(r, c): head_fill[c // 4] for r in range(3) for c in range(cols)}

    rows = [
        (
            ["x", "(b, n, d_model)"],
            "data",
            [False, False],
            "x: (b, n, d_model) = (1, 3, 8)",
        ),
        (
            ["q_proj, k_proj, v_proj", "three nn.Linear(d_model, d_model)"],
            "attn",
            [True, False],
            "q (k, v alike): (b, n, d_model) = (1, 3, 8)",
        ),
        (
            ["rearrange(t,", '"b n (h d) -> b h n d",', "h=n_heads)"],
            "op",
            [True, True, True],
            "(b, h, n, d_head) = (1, 2, 3, 4)",
        ),
        (
            [
                "scaled_dot_product_attention",
                "on every head at once:",
                "h is one more leading axis",
            ],
            "attn",
            [True, False, False],
            "context: (b, h, n, d_head) = (1, 2, 3, 4)",
        ),
        (
            ["rearrange(context,", '"b h n d -> b n (h d)")'],
            "op",
            [True, True],
            "(b, n, d_model) = (1, 3, 8): heads side by side",
        ),
        (
            ["out_proj", "nn.Linear(d_model, d_model)", "mixes the heads"],
            "attn",
            [True, False, False],
            "out: (b, n, d_model) = (1, 3, 8)",
        ),
    ]
    top, pitch = 84, 122
    boxes = []
    for i, (lines, kind, mono, label) in enumerate(rows):
        cy = top + 16 + i * pitch + ch * 1.5
        h = 20 + len(lines) * 18
        box = svg.box(op_x, cy - h / 2, op_w, h, lines, kind, size=14, mono=mono)
        boxes.append(box)
        grid_top = cy - ch * 1.5
        if i in (2, 3):  # two heads, side by side
            for head in range(2):
                x = gx + head * (4 * cw + 36)
                texts = numbered(range(4 * head, 4 * head + 4)) if i == 2 else None
                svg.grid(
                    x,
                    grid_top,
                    3,
                    4,
                    ch,
                    "data",
                    {(r, c): head_fill[head] for r in range(3) for c in range(4)},
                    texts,
                    cell_w=cw,
                )
                svg.text(x + 2 * cw, grid_top - 6, f"head {head}", 13, bold=True)
        else:
            fills = None if i in (0, 5) else by_head(8)
            texts = numbered(range(8)) if i == 1 else None
            kind_grid = "attn" if i == 5 else "data"
            svg.grid(gx, grid_top, 3, 8, ch, kind_grid, fills, texts, cell_w=cw)
        svg.caption(gx, grid_top + 3 * ch + 19, label)
        svg.arrow(box.right_at(), (gx - 8, cy))
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    svg.caption(
        12,
        842,
        [
            "In the patterns, d is one head’s width: d_head = d_model / h. "
            "The split only relabels",
            "projected features: every head’s queries "
            "are computed from all d_model input features.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch05_heads.svg",
    chapter="05_multi_head_attention.ipynb",
    after="The split relabels the *projected* features",
    alt=(
        "A top-to-bottom flow of multi-head attention on the chapter's example of "
        "3 tokens, 8 features and 2 heads. The input x goes through q_proj, "
        "k_proj and v_proj; the queries, a 3-by-8 grid numbered 10 times token "
        "plus feature, are split by rearrange with the pattern b n (h d) -> b h "
        "n d into head 0, features 0 to 3, and head 1, features 4 to 7. Attention "
        "runs on both heads at once, the pattern b h n d -> b n (h d) puts the "
        "heads' contexts side by side again, and out_proj mixes them into the "
        "3-by-8 output."
    ),
    caption=(
        "Multi-head attention: the einops patterns that split the features into "
        "heads and merge them back."
    ),
    draw=draw_ch05_heads,
)
