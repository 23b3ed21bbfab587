"""Chapter 15's figure: the Vision Transformer, from an image to patch tokens."""

from __future__ import annotations

from .draw import KINDS, MUTED, Figure, Svg

# The first image of scikit-learn's digits (a 0), grey levels 0 to 16, so the
# figure shows a real input and how the einops pattern reorders its pixels.
_DIGIT_ZERO = (
    (0, 0, 5, 13, 9, 1, 0, 0),
    (0, 0, 13, 15, 10, 15, 5, 0),
    (0, 3, 15, 2, 0, 11, 8, 0),
    (0, 4, 12, 0, 0, 8, 8, 0),
    (0, 5, 8, 0, 0, 9, 8, 0),
    (0, 4, 11, 0, 1, 12, 7, 0),
    (0, 2, 14, 5, 10, 12, 0, 0),
    (0, 0, 6, 13, 10, 0, 0, 0),
)


def _grey(level: int) -> str:
    """The fill of a digit pixel: white for 0, near black for 16."""
    shade = round(255 - level / 16 * 215)
    return f"#{shade:02X}{shade:02X}{shade:02X}"


def draw_ch15_vit() -> Svg:
    """A digit cut into patches, the patch tokens, the encoder layers, the head."""
    svg = Svg("ch15-vit", 760, 842)
    svg.heading(
        "Vision Transformer: patches become tokens for the encoder layers",
        "The chapter’s model: an 8 × 8 digit, 4 × 4 patches, n = 4 patches, "
        "d = 64, L = 2 layers.",
    )
    op_x, op_w = 12, 372
    cx = op_x + op_w / 2
    vis_x = 408  # left edge of the pictures on the right
    p, grid = 4, 2  # patch side, patches per row
    # The image: 8 × 8 pixels in grey, the 2 × 2 grid of patches drawn over them.
    cell = 14
    image = svg.box(
        op_x + 40,
        80,
        op_w - 80,
        50,
        ["images (b, c, H, W)", "= (b, 1, 8, 8)"],
        "data",
    )
    gy = 76
    fills = {
        (r, c): _grey(v) for r, row in enumerate(_DIGIT_ZERO) for c, v in enumerate(row)
    }
    svg.grid(vis_x, gy, 8, 8, cell, "data", fills)
    for py in range(grid):
        for px in range(grid):
            svg.rect(
                vis_x + px * p * cell,
                gy + py * p * cell,
                p * cell,
                p * cell,
                stroke=KINDS["attn"][1],
                stroke_width=2.5,
            )
            badge_y = gy - 13 if py == 0 else gy + 8 * cell + 13  # outside the image
            svg.badge(
                vis_x + (px + 0.5) * p * cell, badge_y, str(py * grid + px), "attn"
            )
    label_x = vis_x + 8 * cell + 16
    svg.caption(
        label_x,
        gy + 22,
        [
            "a digit 0, cut into",
            "2 × 2 patches of",
            "4 × 4 pixels, numbered",
            "in reading order",
        ],
    )
    svg.arrow(image.right_at(), (vis_x - 8, image.cy))
    # Rearrange: one row per patch, its 16 values in (p1 p2 c) order.
    rearrange_box = svg.box(
        op_x,
        196,
        op_w,
        84,
        [
            "Rearrange(",
            '"b c (y p1) (x p2) -> b (y x) (p1 p2 c)",',
            "p1=4, p2=4)",
        ],
        "op",
        size=13,
        mono=True,
    )
    svg.arrow(image.bottom_at(), rearrange_box.top_at())
    strip_cell = 20
    strip_y = 320
    strip_x = op_x + 34
    patches = [
        [_DIGIT_ZERO[p * py + p1][p * px + p2] for p1 in range(p) for p2 in range(p)]
        for py in range(grid)
        for px in range(grid)
    ]
    strip_fills = {
        (r, c): _grey(patches[r][c]) for r in range(grid * grid) for c in range(p * p)
    }
    svg.grid(strip_x, strip_y, grid * grid, p * p, strip_cell, "data", strip_fills)
    for r in range(grid * grid):  # each row is one patch, outlined as in the image
        svg.rect(
            strip_x,
            strip_y + r * strip_cell,
            p * p * strip_cell,
            strip_cell,
            stroke=KINDS["attn"][1],
            stroke_width=2.5,
        )
        svg.badge(strip_x - 16, strip_y + (r + 0.5) * strip_cell, str(r), "attn")
    for c in range(0, p * p, p):  # where each pixel row of a patch starts
        svg.text(
            strip_x + (c + 0.5) * strip_cell,
            strip_y - 8,
            f"p1={c // p}",
            13,
            color=MUTED,
        )
    svg.arrow(rearrange_box.bottom_at(), (cx, strip_y - 26))
    strip_right = strip_x + p * p * strip_cell
    svg.caption(
        strip_right + 16,
        strip_y + 14,
        [
            "(b, n, p·p·c) = (b, 4, 16):",
            "one row per patch, each",
            "its 4 pixel rows p1 in turn",
        ],
    )
    strip_bottom = strip_y + grid * grid * strip_cell
    projection = svg.box(
        op_x,
        432,
        op_w,
        50,
        ["projection: nn.Linear(p·p·c, d)", "the same map for every patch"],
        "op",
        mono=[True, False],
    )
    svg.arrow((cx, strip_bottom + 4), projection.top_at())
    svg.caption(projection.right + 24, projection.cy + 5, "patch vectors (b, 4, d)")
    # [CLS] in front, positions added.
    tokens = svg.box(
        op_x,
        516,
        op_w,
        50,
        ["[CLS] in front (cls_token, learned),", "+ position_embeddings (5, d)"],
        "grey",
    )
    svg.arrow(projection.bottom_at(), tokens.top_at())
    svg.caption(tokens.right + 24, tokens.cy + 5, "tokens (b, n + 1, d) = (b, 5, d)")
    layers = svg.box(
        op_x,
        600,
        op_w,
        50,
        [
            "EncoderLayer × L (chapter 7), pre-norm",
            "no mask: all 5 tokens attend to all",
        ],
        "attn",
    )
    svg.arrow(tokens.bottom_at(), layers.top_at())
    svg.arrow(layers.right_at(), (layers.right + 20, layers.cy), dash="3 3")
    svg.caption(
        layers.right + 26, layers.cy + 5, "return_weights=True: L maps (b, h, 5, 5)"
    )
    norm = svg.box(op_x, 684, op_w, 38, "final_norm: LayerNorm", "norm", dash="5 3")
    svg.arrow(layers.bottom_at(), norm.top_at())
    head = svg.box(
        op_x,
        756,
        op_w,
        50,
        ["position 0, the [CLS] vector (b, d)", "→ head: dropout, nn.Linear(d, 10)"],
        "op",
    )
    svg.arrow(norm.bottom_at(), head.top_at())
    logits = svg.box(head.right + 24, 762, 200, 38, "logits (b, 10)", "data")
    svg.arrow(head.right_at(), logits.left_at())
    svg.caption(
        12,
        830,
        "Only the patch embedding, [CLS] and the positions are new; the layers "
        "are the text encoder’s.",
    )
    return svg


FIGURE = Figure(
    file="ch15_vit.svg",
    chapter="15_vision_transformer.ipynb",
    after="From there on it is the text encoder",
    alt=(
        "A top-to-bottom flow of the chapter's Vision Transformer. An 8-by-8 "
        "image of a handwritten 0, drawn in grey levels, is cut into a 2-by-2 "
        "grid of patches of 4 by 4 pixels, numbered 0 to 3 in reading order. "
        "The einops pattern b c (y p1) (x p2) -> b (y x) (p1 p2 c) lists them "
        "as 4 rows of 16 pixel values, each row one patch read pixel row by "
        "pixel row. A linear map turns each row into a vector of width d; a "
        "learned CLS vector goes in front and a learned table of 5 position "
        "vectors is added, giving 5 tokens. L pre-norm encoder layers, the "
        "text encoder's, without a mask, then a final LayerNorm, and a linear "
        "head on the CLS vector gives 10 logits."
    ),
    caption=(
        "The Vision Transformer: patches as tokens, a class token and learned "
        "positions in front of the text encoder's layers."
    ),
    draw=draw_ch15_vit,
)
