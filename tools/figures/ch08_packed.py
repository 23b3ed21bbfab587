"""Chapter 8's second figure: the packed path, where layers see real tokens only."""

from __future__ import annotations

from .draw import KINDS, Box, Figure, Svg


def draw_ch08_packed() -> Svg:
    """Gather the real tokens, run the layers on (t, d), scatter back."""
    svg = Svg("ch08-packed", 760, 714)
    svg.heading(
        "The packed path: the layers run on the real tokens only",
        "The chapter’s batch: b = 3 sentences of 12, 8 and 3 real tokens, "
        "padded to n = 12.",
    )
    lengths, n, cw, ch = (12, 8, 3), 12, 22, 20
    tints = [KINDS["attn"][0], KINDS["yellow"][0], KINDS["norm"][0]]
    real = [(r, c) for r in range(3) for c in range(lengths[r])]

    def padded_grid(y: float, texts: dict[tuple[int, int], str]) -> Box:
        """The padded batch (b, n) at y: real tokens tinted per sentence."""
        fills = {(r, c): tints[r] for r, c in real}
        return svg.grid(30, y, 3, n, ch, "pad", fills, texts, cell_w=cw)

    top = padded_grid(66, {(r, c): str(r * n + c) for r in range(3) for c in range(n)})
    svg.caption(
        top.right + 14,
        78,
        [
            "x: (b, n, d) after the embeddings",
            "grey: padding (mask False)",
            "numbers: place in the flat (b·n)",
            "index = mask.flatten().nonzero()",
        ],
        gap=3,
    )
    # The gather: t = 23 real tokens in one strip.
    strip_y = 190
    fills = {(0, i): tints[r] for i, (r, c) in enumerate(real)}
    texts = {(0, i): str(r * n + c) for i, (r, c) in enumerate(real)}
    strip = svg.grid(30, strip_y, 1, len(real), ch, "pad", fills, texts, cell_w=cw)
    svg.arrow((top.x + 6 * cw, top.bottom), (top.x + 6 * cw, strip.y))
    svg.lines(
        top.x + 6 * cw + 12,
        top.bottom + 22,
        ['gather: rearrange(x, "b n d -> (b n) d")', ".index_select(0, index)"],
        13,
        anchor="start",
        mono=True,
    )
    svg.caption(strip.right + 12, strip.cy + 5, "(t, d), t = 23")
    # Each layer on (t, d); attention alone goes through the padded layout.
    layer = svg.box(
        30,
        262,
        300,
        96,
        [
            "for layer in layers:",
            "_packed_layer: norms,",
            "projections, ffn, residuals",
            "per token, on (t, d)",
        ],
        "attn",
        mono=[True, False, False, False],
    )
    svg.arrow((layer.cx, strip.bottom), layer.top_at())
    core_x, core_w = 396, 350
    svg.rect(core_x - 12, 240, core_w + 22, 372, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.text(
        core_x + core_w / 2,
        262,
        "_packed_attention: only the core is padded",
        14,
        bold=True,
    )
    steps = [
        (["qkv = one Linear for q, k, v: (t, 3d)"], "attn", [False]),
        (["index_copy into zeros: (b·n, 3d)"], "op", [False]),
        (['"(b n) (three h e) -> three b h n e"'], "op", [True]),
        (
            ["fused attention, key mask (b, 1, 1, n)", "→ context (b, h, n, e)"],
            "attn",
            [False, False],
        ),
        (
            ['"b h n e -> (b n) (h e)"', "index_select(0, index): (t, d)"],
            "op",
            [True, False],
        ),
        (["out_proj: (t, d)"], "attn", [False]),
    ]
    y, core = 276, []
    for lines, kind, mono in steps:
        h = 16 + 18 * len(lines)
        core.append(svg.box(core_x, y, core_w, h, lines, kind, size=13, mono=mono))
        y += h + 18
    for upper, lower in zip(core, core[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    svg.arrow(layer.right_at(core[0].cy), core[0].left_at())
    svg.arrow(
        core[-1].left_at(),
        (layer.right + 24, core[-1].cy),
        (layer.right + 24, layer.bottom - 14),
        layer.right_at(layer.bottom - 14),
        radius=8,
    )
    final = svg.box(
        30, 398, 300, 38, "final_norm (pre-norm only), on (t, d)", "norm", dash="5 3"
    )
    svg.arrow(layer.bottom_at(), final.top_at())
    scatter = svg.box(
        30,
        470,
        300,
        56,
        ["scatter back: index_copy into", "zeros (b·n, d) → (b, n, d)"],
        "op",
    )
    svg.arrow(final.bottom_at(), scatter.top_at())
    out = padded_grid(
        568, {(r, c): "0" for r in range(3) for c in range(lengths[r], n)}
    )
    svg.arrow(scatter.bottom_at(), (scatter.cx, out.y))
    svg.caption(out.x, out.bottom + 20, "output (b, n, d): 0 at padding")
    svg.caption(
        12,
        682,
        [
            "Taken when the batch has padding and no attention weights are "
            "requested. Projections and",
            "feed-forward networks do 23/36 of the "
            "padded path’s work here; the values are the same.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch08_packed.svg",
    chapter="08_the_stack.ipynb",
    after="## Padding, and a stack that skips it",
    alt=(
        "The packed path for a batch of 3 sentences with 12, 8 and 3 real tokens "
        "padded to 12 positions. The real tokens' positions in the flattened "
        "batch are gathered into one strip of t = 23 tokens; every layer runs its "
        "norms, projections, feed-forward network and residuals on that (t, d) "
        "strip, and only the attention core scatters queries, keys and values "
        "into the padded (b, h, n, e) layout, applies fused attention with the "
        "key mask and gathers the result back to (t, d). After the final norm "
        "of a pre-norm model, the tokens are scattered back into a zero tensor "
        "of shape (b, n, d), so padding positions hold 0."
    ),
    caption=(
        "The packed path: gather the real tokens, run the layers on (t, d), pad "
        "only inside attention, scatter back. On the CPU a core without score "
        "biases or rotations skips even that padding (below)."
    ),
    draw=draw_ch08_packed,
)
