"""Chapter 9's figure: four poolings of a padded batch."""

from __future__ import annotations

from .draw import INK, KINDS, MUTED, Figure, Svg


def draw_ch09_pooling() -> Svg:
    """One padded row of h and its mask, then cls, mean, max and attention pooling."""
    svg = Svg("ch09-pooling", 760, 560)
    svg.heading(
        "Four poolings of a padded batch: h (b, n, d) and mask (b, n) → (b, d)",
        "One row of the chapter’s toy batch: [CLS] the cat sat, then two "
        "[PAD]; d = 3, one column per token.",
    )
    tokens = ["[CLS]", "the", "cat", "sat", "[PAD]", "[PAD]"]
    cw, ch, gap = 44, 20, 8
    x0 = 380 - (6 * cw + 5 * gap) / 2
    for j, token in enumerate(tokens):
        x = x0 + j * (cw + gap)
        kind = "data" if j < 4 else "pad"
        fills = {(r, 0): KINDS["attn"][0] for r in range(3)} if j < 4 else None
        svg.text(x + cw / 2, 82, token, 13)
        svg.grid(x, 90, 3, 1, ch, kind, fills, cell_w=cw)
        svg.text(
            x + cw / 2,
            172,
            "True" if j < 4 else "False",
            13,
            mono=True,
            color=KINDS["mask"][1] if j >= 4 else INK,
        )
    svg.text(x0 - 10, 124, "h", 14, anchor="end", bold=True)
    svg.text(x0 - 10, 172, "mask", 13, anchor="end", color=KINDS["mask"][1], bold=True)
    svg.caption(x0 + 6 * (cw + gap) + 4, 124, "(n, d) = (6, 3)")
    panels = [
        (
            "cls_pool",
            ["the first real token", "([CLS], left or right", "padding alike)"],
            ["1", "0", "0", "0", "0", "0"],
        ),
        (
            "mean_pool",
            ["padding → 0, sum over", "the tokens, ÷ number", "of real tokens"],
            ["1/4", "1/4", "1/4", "1/4", "0", "0"],
        ),
        (
            "max_pool",
            ["padding → −∞, then the", "largest value of each", "feature"],
            ["", "", "", "", "−∞", "−∞"],
        ),
        (
            "AttentionPool",
            ["scores w·h + c, padding", "→ −∞, softmax, then", "a weighted sum"],
            ["α", "α", "α", "α", "0", "0"],
        ),
    ]
    pw, pgap, py = 176, 8, 222
    bus_y = 198
    centres = [12 + i * (pw + pgap) + pw / 2 for i in range(4)]
    svg.line((380, 180), (380, bus_y))
    svg.line((centres[0], bus_y), (centres[-1], bus_y))
    for i, (name, lines, weights) in enumerate(panels):
        px = 12 + i * (pw + pgap)
        kind = "yellow" if name == "AttentionPool" else "op"
        box = svg.box(
            px,
            py,
            pw,
            100,
            [name, *lines],
            kind,
            size=13,
            mono=[True, False, False, False],
            bold_first=True,
        )
        svg.arrow((box.cx, bus_y), box.top_at())
        label = "weight of each token" if i != 2 else "per feature, over"
        svg.text(box.cx, py + 128, label, 13, color=MUTED)
        wx = px + (pw - 6 * 26) / 2
        fills = {
            (0, j): KINDS["pad"][0] if j >= 4 else KINDS["attn"][0] for j in range(6)
        }
        if i == 0:
            fills.update({(0, j): "#FFFFFF" for j in range(1, 4)})
        texts = {(0, j): t for j, t in enumerate(weights) if t}
        row = svg.grid(wx, py + 138, 1, 6, 24, "data", fills, texts, cell_w=26)
        note = {
            0: "position of the first True",
            1: "1 / (number of real tokens)",
            2: "the 4 real tokens",
            3: "learned, sum to 1",
        }[i]
        svg.text(box.cx, row.bottom + 20, note, 13, color=MUTED)
        out = svg.grid(box.cx - 33, row.bottom + 54, 1, 3, 22, "attn", cell_w=22)
        svg.arrow((box.cx, row.bottom + 28), (box.cx, out.y))
        svg.text(box.cx, out.bottom + 20, "(b, d)", 13, color=MUTED)
    svg.caption(
        12,
        526,
        [
            "Padding never matters: the result is the same whatever "
            "padded positions hold, even inf or NaN,",
            "and a row with no real "
            "token gives zeros. Untrained (w = 0, c = 0), AttentionPool is "
            "mean_pool.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch09_pooling.svg",
    chapter="09_pooling_and_heads.ipynb",
    after="## Four poolings, safe with padding",
    alt=(
        "One row of a padded batch, the tokens CLS, the, cat, sat and two padding "
        "tokens, each a column of 3 numbers with a mask that is True for the 4 "
        "real tokens, feeds four poolings side by side, each ending in one "
        "vector of 3 numbers. cls_pool takes the first real token, weight 1, "
        "and 0 for every other; mean_pool gives each real token a quarter and "
        "padding 0; max_pool sets padding to minus infinity and keeps the "
        "largest value of each feature; AttentionPool scores each token, sets "
        "padding to minus infinity and takes a softmax-weighted sum."
    ),
    caption=(
        "The four poolings: how much each token counts, and why padding never does."
    ),
    draw=draw_ch09_pooling,
)
