"""Chapter 17's figure: where each position scheme enters attention."""

from __future__ import annotations

from .draw import Figure, Svg


def draw_ch17_positions() -> Svg:
    """Three ways a position enters attention, and ModernBERT's layer pattern."""
    svg = Svg("ch17-positions", 760, 564)
    svg.heading(
        "Where each scheme puts the position",
        "One head; token i is the query, token j the key; e = d / h features per head.",
    )
    col = [12, 262, 512]
    top = 74

    # 1. Absolute: a vector per position, added to the token vector.
    x = col[0]
    svg.text(x, top, "1. Added to the tokens", 14, anchor="start", bold=True)
    svg.box(x, top + 14, 104, 36, "token_i", "data", mono=True)
    svg.box(x + 132, top + 14, 104, 36, "pos_i", "yellow", mono=True)
    svg.plus(x + 118, top + 90)
    svg.arrow((x + 52, top + 50), (x + 52, top + 90), (x + 105, top + 90))
    svg.arrow((x + 184, top + 50), (x + 184, top + 90), (x + 131, top + 90))
    svg.arrow((x + 118, top + 101), (x + 118, top + 124))
    svg.box(x + 48, top + 126, 140, 36, "W_Q, W_K", "attn", mono=True)
    svg.arrow((x + 118, top + 162), (x + 118, top + 184))
    svg.box(x + 28, top + 186, 180, 36, "q_i · k_j / √e", "attn")
    svg.caption(
        x,
        top + 244,
        [
            "learned table (BERT) or",
            "sinusoids (chapter 3): the",
            "score mixes what and where;",
            "rows past the table's end",
            "were never trained",
        ],
    )

    # 2. A bias on the scores: one number per head and offset.
    x = col[1]
    svg.text(x, top, "2. Added to the scores", 14, anchor="start", bold=True)
    svg.box(x + 28, top + 14, 180, 36, "q_i · k_j / √e", "attn")
    svg.arrow((x + 118, top + 50), (x + 118, top + 72))
    svg.plus(x + 118, top + 84)
    # a 4 × 4 Toeplitz grid of offsets j - i, beside the addition
    cell = 22
    gx, gy = x + 152, top + 62
    texts = {(i, j): str(j - i) for i in range(4) for j in range(4)}
    svg.grid(gx, gy, 4, 4, cell, "yellow", texts=texts, size=13)
    svg.text(gx + 2 * cell, gy + 4 * cell + 16, "B(j − i)", 13, mono=True)
    svg.arrow((gx, gy + 1 * cell), (x + 130, top + 84))
    svg.arrow((x + 118, top + 95), (x + 118, top + 186))
    svg.box(x + 58, top + 188, 120, 34, "softmax", "attn")
    svg.caption(
        x,
        top + 244,
        [
            "T5: a learned number per",
            "head and bucket of j − i;",
            "ALiBi: −m_h · |j − i|, fixed",
            "slopes, nothing learned",
        ],
    )

    # 3. RoPE: rotate queries and keys.
    x = col[2]
    svg.text(x, top, "3. Rotating q and k", 14, anchor="start", bold=True)
    svg.box(x + 4, top + 14, 100, 36, "q_i", "attn", mono=True)
    svg.box(x + 132, top + 14, 100, 36, "k_j", "attn", mono=True)
    svg.arrow((x + 54, top + 50), (x + 54, top + 80))
    svg.arrow((x + 182, top + 50), (x + 182, top + 80))
    svg.box(x + 4, top + 82, 100, 36, "R(i·θ)", "yellow", mono=True)
    svg.box(x + 132, top + 82, 100, 36, "R(j·θ)", "yellow", mono=True)
    svg.arrow((x + 54, top + 118), (x + 54, top + 150), (x + 100, top + 150))
    svg.arrow((x + 182, top + 118), (x + 182, top + 150), (x + 136, top + 150))
    svg.box(x + 100, top + 134, 36, 32, "·", "attn")
    svg.arrow((x + 118, top + 166), (x + 118, top + 186))
    svg.box(x + 8, top + 188, 220, 34, "q · R((j − i)·θ) · k", "attn", mono=True)
    svg.caption(
        x,
        top + 244,
        [
            "pairs of features turn by",
            "position × θ_m: the dot",
            "product sees j − i only;",
            "pairs (m two) or (two m)",
        ],
    )

    # The ModernBERT stack: RoPE everywhere, two kinds of layer.
    y = 424
    svg.text(
        12,
        y,
        "ModernBERT: RoPE in every layer, global every third layer, local in between",
        14,
        anchor="start",
        bold=True,
    )
    kinds = ["G", "L", "L", "G", "L", "L", "G"]
    for i, kind in enumerate(kinds):
        bx = 12 + i * 62
        svg.box(
            bx,
            y + 16,
            54,
            40,
            [kind, str(i)],
            "attn" if kind == "G" else "op",
            size=13,
        )
    svg.text(12 + 7 * 62 + 4, y + 42, "…", 14, anchor="start")
    svg.caption(
        470,
        y + 24,
        [
            "G: global, every token, RoPE",
            "base 160,000",
            "L: local, |i − j| ≤ 64 (a −∞",
            "bias outside), base 10,000",
        ],
    )
    svg.caption(
        12,
        y + 104,
        [
            "Each layer: pre-norm, attention without biases, GeGLU feed-forward; "
            "layer 0 skips its",
            "first LayerNorm (the embeddings end with one); a final LayerNorm; "
            "padding removed.",
        ],
    )
    return svg


FIGURE = Figure(
    file="ch17_positions.svg",
    chapter="17_relative_positions_and_the_modern_encoder.ipynb",
    after="There are three places to bring position in",
    alt=(
        "Three panels show where a position scheme acts in one attention head, "
        "for query token i and key token j. First, added to the tokens: a "
        "position vector pos_i is added to token_i before W_Q and W_K, so the "
        "score q_i dot k_j over root e mixes content and position, as in BERT's"
        " learned table or chapter 3's sinusoids. Second, added to the scores: "
        "after q_i dot k_j over root e, a bias B(j minus i) is added, drawn as "
        "a 4 by 4 grid whose entries are the offsets j minus i, constant along "
        "each diagonal, then the softmax; T5 learns one number per head and "
        "bucket of offsets, ALiBi uses minus a fixed slope times the distance. "
        "Third, rotating q and k: q_i is rotated by R of i theta and k_j by R "
        "of j theta, and their dot product equals q times R of (j minus i) "
        "theta times k, so it sees the offset only. Below, the ModernBERT "
        "stack: layers 0, 3, 6 and so on are global, with RoPE base 160,000; "
        "the layers between are local, attending within 64 positions on each "
        "side with RoPE base 10,000; every layer is pre-norm, bias-free, with a"
        " GeGLU feed-forward."
    ),
    caption=(
        "Three places for position: the token vectors, the scores, or a rotation "
        "of queries and keys; and ModernBERT's global and local layers."
    ),
    draw=draw_ch17_positions,
)
