"""Chapter 7's figure: post-norm and pre-norm, with every dropout site."""

from __future__ import annotations

from .draw import LINE, Box, Figure, Svg


def draw_ch07_norms() -> Svg:
    """The post-norm and pre-norm layers side by side, and the four dropout sites."""
    svg = Svg("ch07-norms", 760, 840)
    svg.heading("EncoderLayer: where the LayerNorm sits, and where dropout acts")
    panels = [
        (
            "post-norm (norm_first=False)",
            "x = norm(x + dropout(sublayer(x)))",
            [
                "x",
                "attn",
                "dropout1",
                "+",
                "norm1",
                "ffn",
                "dropout2",
                "+",
                "norm2",
                "y",
            ],
        ),
        (
            "pre-norm (norm_first=True)",
            "x = x + dropout(sublayer(norm(x)))",
            [
                "x",
                "norm1",
                "attn",
                "dropout1",
                "+",
                "norm2",
                "ffn",
                "dropout2",
                "+",
                "y",
            ],
        ),
    ]
    labels = {
        "attn": ("attn (multi-head attention)", "attn", "1"),
        "ffn": ("ffn (feed-forward network)", "ffn", "3"),
        "norm1": ("norm1 (LayerNorm)", "norm", None),
        "norm2": ("norm2 (LayerNorm)", "norm", None),
        "dropout1": ("dropout1", "drop", "2"),
        "dropout2": ("dropout2", "drop", "4"),
    }
    top, pitch, box_h, box_w = 100, 58, 34, 226
    for p, (title, formula, steps) in enumerate(panels):
        px = 8 + p * 380
        centre = px + 66 + box_w / 2
        svg.text(px + 180, 62, title, 15, bold=True)
        svg.text(px + 180, 84, formula, 13, mono=True)
        boxes: list[Box] = []
        for i, step in enumerate(steps):
            cy = top + 20 + i * pitch
            if step in ("x", "y"):
                label = "x: (b, n, d)" if step == "x" else "output: (b, n, d)"
                box = svg.box(centre - 70, cy - 15, 140, 30, label, "data")
            elif step == "+":
                box = svg.plus(centre, cy)
            else:
                text, kind, site = labels[step]
                box = svg.box(
                    centre - box_w / 2,
                    cy - box_h / 2,
                    box_w,
                    box_h,
                    text,
                    kind,
                    dash="5 3" if kind == "drop" else None,
                )
                if site:
                    svg.badge(box.right + 18, cy, site, "drop")
            boxes.append(box)
        for upper, lower in zip(boxes, boxes[1:], strict=False):
            svg.arrow(upper.bottom_at(), lower.top_at())
        # Residual connections: branch points on the stream, joining at each "+".
        lane = px + 30
        plus = [i for i, step in enumerate(steps) if step == "+"]
        for source, join in zip([0, 4], plus, strict=True):  # x, then the stream
            y0 = boxes[source].bottom + 6
            svg.circle(centre, y0, 3.5, fill=LINE, stroke=None)
            svg.arrow(
                (centre, y0),
                (lane, y0),
                (lane, boxes[join].cy),
                boxes[join].left_at(),
                radius=8,
            )
    legend_y = top + 20 + 9 * pitch + 44
    svg.text(
        12,
        legend_y,
        "The four dropout sites of EncoderLayer (training mode only, p = dropout):",
        14,
        anchor="start",
        bold=True,
    )
    sites = [
        "on the attention weights, inside attn (MultiHeadAttention)",
        "dropout1, on the attention branch, before the addition",
        "after the activation, inside ffn (FeedForward: fc1, activation, dropout, fc2)",
        "dropout2, on the feed-forward branch, before the addition",
    ]
    for i, site in enumerate(sites):
        y = legend_y + 28 + i * 26
        svg.badge(24, y - 5, str(i + 1), "drop")
        svg.text(44, y, site, 14, anchor="start")
    svg.caption(
        12,
        legend_y + 28 + 4 * 26 + 6,
        "The stream itself is never dropped. "
        "A pre-norm stack adds final_norm after its last layer (chapter 8).",
    )
    return svg


FIGURE = Figure(
    file="ch07_norms.svg",
    chapter="07_encoder_layer.ipynb",
    after="## Building the layer",
    alt=(
        "Two encoder layers side by side, flowing top to bottom. Post-norm: x goes "
        "through attention, dropout1, a residual addition of x and norm1, then the "
        "feed-forward network, dropout2, a residual addition and norm2. Pre-norm: "
        "norm1 comes before attention and norm2 before the feed-forward network, "
        "and each residual addition is the layer's last step, so the stream "
        "itself is never normalised. Four numbered markers show the dropout "
        "sites, the same in both: the attention weights inside attention, "
        "dropout1, after the activation inside the feed-forward network, and "
        "dropout2."
    ),
    caption=(
        "Post-norm and pre-norm EncoderLayer side by side, with its four dropout sites."
    ),
    draw=draw_ch07_norms,
)
