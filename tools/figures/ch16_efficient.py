"""Chapter 16's figure: four ways to attend, and which scores they keep."""

from __future__ import annotations

from .draw import INK, KINDS, Figure, Svg

KEPT = "#8DB8DE"  # a score that is computed and kept (mid blue, attention's hue)
HIDDEN = KINDS["mask"][0]  # computed, then set to -inf by the mask
PADDING = KINDS["pad"][0]  # a padded key, hidden too


def draw_ch16_efficient() -> Svg:
    """Four score grids: full, window as a mask, window in blocks, Linformer."""
    svg = Svg("ch16-efficient", 760, 620)
    svg.heading(
        "Four ways to attend: which scores exist, and which count",
        "One head, n = 12 tokens; rows are queries, columns are keys; "
        "window w = 3, k = 4 mixtures.",
    )
    n, w, k, cell = 12, 3, 4, 15
    left_x, right_x = 24, 400
    top_row, bottom_row = 92, 350

    # 1. Full attention: every score computed and kept.
    svg.text(left_x, top_row - 14, "Full attention", 14, anchor="start", bold=True)
    svg.grid(
        left_x,
        top_row,
        n,
        n,
        cell,
        "data",
        {(i, j): KEPT for i in range(n) for j in range(n)},
    )
    svg.caption(
        left_x + n * cell + 14,
        top_row + 16,
        ["n × n scores,", "all kept:", "memory grows", "like n²"],
    )

    # 2. The window as a mask: n × n scores, most of them hidden.
    svg.text(right_x, top_row - 14, "Window as a mask", 14, anchor="start", bold=True)
    svg.grid(
        right_x,
        top_row,
        n,
        n,
        cell,
        "data",
        {
            (i, j): KEPT if abs(i - j) <= w else HIDDEN
            for i in range(n)
            for j in range(n)
        },
    )
    svg.caption(
        right_x + n * cell + 14,
        top_row + 16,
        [
            "still n × n:",
            "the band |i − j| ≤ w",
            "is kept, the rest",
            "set to −∞",
            "after computing",
        ],
    )

    # 3. The window in blocks: blocks of w queries against 3w keys.
    svg.text(left_x, bottom_row - 14, "Window in blocks", 14, anchor="start", bold=True)
    small = 11
    y = bottom_row
    for c in range(n // w):
        fills = {}
        for i in range(w):
            for j in range(3 * w):
                key = (c - 1) * w + j  # the key's position in the sequence
                query = c * w + i
                if not 0 <= key < n:
                    fills[i, j] = PADDING
                elif abs(query - key) <= w:
                    fills[i, j] = KEPT
                else:
                    fills[i, j] = HIDDEN
        svg.grid(left_x, y, w, 3 * w, small, "data", fills)
        svg.caption(
            left_x + 3 * w * small + 8,
            y + 2 * small + 1,
            f"block {c}: queries {c * w}–{c * w + w - 1}",
        )
        y += w * small + 8
    svg.caption(
        left_x, y + 14, ["w queries × 3w keys per block:", "memory grows like n · w"]
    )

    # 4. Linformer: n queries against k mixtures of the keys.
    svg.text(right_x, bottom_row - 14, "Linformer", 14, anchor="start", bold=True)
    svg.grid(
        right_x,
        bottom_row,
        n,
        k,
        cell,
        "data",
        {(i, j): KEPT for i in range(n) for j in range(k)},
    )
    mix_x = right_x + k * cell + 28
    svg.box(
        mix_x,
        bottom_row,
        200,
        58,
        ["E K, F V: (k, d)", "k learned mixtures"],
        "op",
        size=13,
    )
    svg.box(mix_x, bottom_row + 84, 200, 40, ["E, F: (k, n) learned"], "attn", size=13)
    svg.arrow((mix_x + 100, bottom_row + 84), (mix_x + 100, bottom_row + 60))
    svg.arrow((mix_x, bottom_row + 29), (right_x + k * cell + 4, bottom_row + 29))
    svg.caption(
        mix_x,
        bottom_row + 150,
        ["n × k scores:", "memory grows like n · k;", "no mask per query"],
    )

    # Legend.
    legend_y = 585
    x = 24
    for fill, label in [
        (KEPT, "score computed and kept"),
        (HIDDEN, "computed, then −∞"),
        (PADDING, "padding, −∞"),
    ]:
        svg.rect(x, legend_y - 12, 16, 16, fill, KINDS["data"][1], stroke_width=1)
        width = svg.text(x + 24, legend_y + 1, label, 13, anchor="start", color=INK)
        x += 24 + width + 28
    return svg


FIGURE = Figure(
    file="ch16_efficient.svg",
    chapter="16_efficient_attention.ipynb",
    after="### Four ways to attend",
    alt=(
        "Four panels for one head on 12 tokens, rows for queries and columns for "
        "keys. Full attention: a 12-by-12 grid of scores, all computed and kept, "
        "so memory grows like n squared. Window as a mask: the same 12-by-12 grid, "
        "with only the band of keys at most w = 3 positions away kept and every "
        "other score computed and then set to minus infinity, so it is still n "
        "squared. Window in blocks: four blocks of 3 queries, each against 9 keys, "
        "its own key block and the two next to it, with scores outside the band "
        "and padding beyond the sequence's ends set to minus infinity, so memory "
        "grows like n times w. Linformer: a 12-by-4 grid, every query against k = "
        "4 learned mixtures of the keys and values made by the matrices E and F of "
        "shape k by n, so memory grows like n times k and no mask per query is "
        "possible."
    ),
    caption=(
        "Full attention, a window as a mask, the same window in blocks, and "
        "Linformer: which scores are computed, and which count."
    ),
    draw=draw_ch16_efficient,
)
