"""The book's architecture diagrams, drawn as SVG by this one file.

`python tools/diagrams.py` writes every figure of `FIGURES` to
chapters/figures/<file> (`make diagrams`); `--out DIR` writes them elsewhere and
`--check` fails when a stored figure differs from a fresh drawing. The output is
deterministic: the same bytes on every run and every machine (no dates, no
random ids, numbers printed with one decimal).

Each figure is drawn with a small builder (`Svg`): boxes, text, arrows, grids of
cells, braces. Text stays text (`<text>`, DejaVu Sans or a fallback, at least
13 px in a viewBox at most 760 px wide, the width of the book's content column),
so the figures are crisp and readable at page width. One look across the book:

- operations are rounded boxes coloured by kind (`KINDS`): attention blue,
  feed-forward orange, LayerNorm green, dropout vermillion, masks reddish purple,
  other computation sky blue: the Okabe-Ito palette, safe for colour-blind readers;
- tensors are square-cornered white boxes, or grids of cells with their shape;
- arrows flow top to bottom or left to right (a loop's return arrow excepted).

`FIGURES` is the manifest: for each figure its file, its chapter, the markdown
cell it follows (`after`, a substring unique among the chapter's markdown cells),
its alt text (also the SVG's <desc>) and its caption (also the SVG's <title>).
Shapes use the book's letters: b batch, n tokens, d model width (d_model in
code), h heads, e = d / h one head's width (d_head in code), d_ff the
feed-forward width, t the number of real tokens in a packed batch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
FIGURES_DIR = ROOT / "chapters" / "figures"

MAX_WIDTH = 760  # the book's content column, in CSS pixels
MIN_FONT = 13
SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
INK = "#1A1A1A"  # text
LINE = "#404040"  # arrows and tensor outlines
MUTED = "#555555"  # secondary text, still 7:1 against white

# (fill, stroke) of each kind of box: light tints of the Okabe-Ito colours.
KINDS = {
    "data": ("#FFFFFF", "#595959"),
    "attn": ("#DCEAF6", "#0072B2"),
    "ffn": ("#FCEACB", "#E69F00"),
    "norm": ("#D3EEE4", "#009E73"),
    "drop": ("#FADFD1", "#D55E00"),
    "mask": ("#F5E2ED", "#CC79A7"),
    "op": ("#E3F2FB", "#56B4E9"),
    "add": ("#EFEFEF", "#595959"),
    "grey": ("#E6E6E6", "#8C8C8C"),
    "pad": ("#F4F4F4", "#A6A6A6"),
    "yellow": ("#F7F1B0", "#9A8F00"),
}

# Advance widths of DejaVu Sans (units of 1/2048 em) for ASCII 32..126, then the
# other characters the figures use; a fallback font is narrower, so estimates
# made with these widths are safe upper bounds for layout checks.
_ASCII_WIDTHS = (
    "651 821 942 1716 1303 1946 1597 563 799 799 1024 1716 651 739 651 690 1303 "
    "1303 1303 1303 1303 1303 1303 1303 1303 1303 690 690 1716 1716 1716 1087 2048 "
    "1401 1405 1430 1577 1294 1178 1587 1540 604 604 1343 1141 1767 1532 1612 1235 "
    "1612 1423 1300 1251 1499 1401 2025 1403 1251 1403 799 690 799 1716 1024 1024 "
    "1255 1300 1126 1300 1260 721 1300 1298 569 569 1186 569 1995 1298 1253 1300 "
    "1300 842 1067 803 1298 1212 1675 1212 1212 1075 1303 690 1303 1716"
)
_WIDTHS = {chr(32 + i): int(w) for i, w in enumerate(_ASCII_WIDTHS.split())}
_WIDTHS.update(
    {
        "ᵀ": 788,
        "√": 1305,
        "×": 1716,
        "·": 651,
        "→": 1716,
        "−": 1716,
        "∞": 1706,
        "≤": 1716,
        "…": 2048,
        "₁": 821,
        "₂": 821,
        "τ": 1233,
        "Σ": 1294,
        "–": 1024,
        "—": 2048,
        "‘": 651,
        "’": 651,
        "“": 1061,
        "”": 1061,
        "≈": 1716,
        "²": 821,
        "ℓ": 846,
        "≥": 1716,
    }
)


def text_width(text: str, size: float, mono: bool = False, bold: bool = False) -> float:
    """The width in px of `text` at font size `size`, estimated from DejaVu's."""
    if mono:
        return len(text) * 0.602 * size
    units = sum(_WIDTHS.get(ch, 1400) for ch in text)
    return units / 2048 * size * (1.1 if bold else 1.0)


def _num(value: float) -> str:
    """A coordinate as text: one decimal at most, no trailing zero, no '-0'."""
    text = f"{round(value, 1):.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True)
class Box:
    """A drawn rectangle, with the anchor points arrows attach to."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def top_at(self, x: float | None = None) -> tuple[float, float]:
        return (self.cx if x is None else x, self.y)

    def bottom_at(self, x: float | None = None) -> tuple[float, float]:
        return (self.cx if x is None else x, self.bottom)

    def left_at(self, y: float | None = None) -> tuple[float, float]:
        return (self.x, self.cy if y is None else y)

    def right_at(self, y: float | None = None) -> tuple[float, float]:
        return (self.right, self.cy if y is None else y)


class Svg:
    """A small SVG builder that checks its own layout as it draws.

    Every text element must fit the canvas, and the lines of a box must fit the
    box; a figure that breaks either rule raises ValueError when it is drawn, so
    clipped or overflowing text cannot reach the book.
    """

    def __init__(self, name: str, width: float, height: float) -> None:
        if width > MAX_WIDTH:
            raise ValueError(f"{name}: width {width} exceeds {MAX_WIDTH}")
        self.name, self.width, self.height = name, width, height
        self.items: list[str] = []
        self.markers: dict[str, str] = {}
        self.text_boxes: list[tuple[float, float, float, float, str]] = []

    # -- primitives ------------------------------------------------------------

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str = "none",
        stroke: str | None = LINE,
        rx: float = 0,
        stroke_width: float = 1.5,
        dash: str | None = None,
    ) -> Box:
        attrs = f'x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"'
        if rx:
            attrs += f' rx="{_num(rx)}"'
        attrs += f' fill="{fill}"'
        if stroke:
            attrs += f' stroke="{stroke}" stroke-width="{_num(stroke_width)}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        self.items.append(f"<rect {attrs}/>")
        return Box(x, y, w, h)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 14,
        anchor: str = "middle",
        bold: bool = False,
        mono: bool = False,
        italic: bool = False,
        color: str = INK,
    ) -> float:
        """Draw one line with its baseline at y; return its estimated width."""
        if size < MIN_FONT:
            raise ValueError(f"{self.name}: font size {size} below {MIN_FONT}")
        width = text_width(text, size, mono, bold)
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        if left < 1 or left + width > self.width - 1 or y - size < 0 or y > self.height:
            raise ValueError(f"{self.name}: text {text!r} leaves the canvas")
        top, bottom = y - 0.76 * size, y + 0.24 * size  # ascender to descender
        for x0, x1, y0, y1, other in self.text_boxes:
            if (
                left < x1 - 1
                and x0 < left + width - 1
                and top < y1 - 1
                and y0 < bottom - 1
            ):
                raise ValueError(f"{self.name}: text {text!r} overlaps {other!r}")
        self.text_boxes.append((left, left + width, top, bottom, text))
        attrs = f'x="{_num(x)}" y="{_num(y)}"'
        if size != 14:
            attrs += f' font-size="{_num(size)}"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if bold:
            attrs += ' font-weight="bold"'
        if italic:
            attrs += ' font-style="italic"'
        if mono:
            attrs += f' font-family="{MONO}"'
        if color != INK:
            attrs += f' fill="{color}"'
        self.items.append(f"<text {attrs}>{escape(text)}</text>")
        return width

    def lines(
        self,
        x: float,
        y: float,
        lines: Sequence[str],
        size: float = 14,
        gap: float = 4,
        **options,
    ) -> None:
        """Several lines of text, the first baseline at y."""
        for i, line in enumerate(lines):
            self.text(x, y + i * (size + gap), line, size, **options)

    def _marker(self, color: str) -> str:
        key = color.lstrip("#").lower()
        marker_id = f"{self.name}-arrow-{key}"
        if marker_id not in self.markers:
            self.markers[marker_id] = (
                f'<marker id="{marker_id}" viewBox="0 0 10 8" refX="9" refY="4" '
                'markerWidth="10" markerHeight="8" markerUnits="userSpaceOnUse" '
                f'orient="auto"><path d="M0,0 L10,4 L0,8 z" fill="{color}"/></marker>'
            )
        return marker_id

    def path(
        self,
        points: Sequence[tuple[float, float]],
        color: str = LINE,
        width: float = 1.6,
        dash: str | None = None,
        head: bool = True,
        radius: float = 0,
    ) -> None:
        """A polyline through `points`, with an arrowhead at the end by default.

        `radius` rounds the corners of a right-angled path.
        """
        parts = [f"M{_num(points[0][0])},{_num(points[0][1])}"]
        for i in range(1, len(points)):
            x, y = points[i]
            if radius and 0 < i < len(points) - 1:
                (px, py), (nx, ny) = points[i - 1], points[i + 1]
                r1 = min(radius, abs(x - px) + abs(y - py)) / max(
                    abs(x - px) + abs(y - py), 1e-9
                )
                r2 = min(radius, abs(nx - x) + abs(ny - y)) / max(
                    abs(nx - x) + abs(ny - y), 1e-9
                )
                ax, ay = x - (x - px) * r1, y - (y - py) * r1
                bx, by = x + (nx - x) * r2, y + (ny - y) * r2
                parts.append(f"L{_num(ax)},{_num(ay)}")
                parts.append(f"Q{_num(x)},{_num(y)} {_num(bx)},{_num(by)}")
            else:
                parts.append(f"L{_num(x)},{_num(y)}")
        attrs = f'd="{" ".join(parts)}" fill="none" stroke="{color}"'
        attrs += f' stroke-width="{_num(width)}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        if head:
            attrs += f' marker-end="url(#{self._marker(color)})"'
        self.items.append(f"<path {attrs}/>")

    def arrow(self, *points: tuple[float, float], **options) -> None:
        self.path(points, **options)

    def line(self, *points: tuple[float, float], **options) -> None:
        self.path(points, head=False, **options)

    def circle(
        self,
        cx: float,
        cy: float,
        r: float,
        fill: str = "#FFFFFF",
        stroke: str | None = LINE,
        stroke_width: float = 1.5,
    ) -> Box:
        attrs = f'cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" fill="{fill}"'
        if stroke:
            attrs += f' stroke="{stroke}" stroke-width="{_num(stroke_width)}"'
        self.items.append(f"<circle {attrs}/>")
        return Box(cx - r, cy - r, 2 * r, 2 * r)

    # -- composite shapes ------------------------------------------------------

    def box(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        lines: Sequence[str] | str = (),
        kind: str = "op",
        size: float = 14,
        mono: bool | Sequence[bool] = False,
        bold_first: bool = False,
        dash: str | None = None,
        rx: float | None = None,
    ) -> Box:
        """A box of `kind` with centred lines of text; tensors ("data") are square."""
        fill, stroke = KINDS[kind]
        if rx is None:
            rx = 2 if kind in ("data", "pad") else 8
        self.rect(x, y, w, h, fill, stroke, rx=rx, dash=dash)
        lines = [lines] if isinstance(lines, str) else list(lines)
        monos = [mono] * len(lines) if isinstance(mono, bool) else list(mono)
        gap = 4
        block = len(lines) * size + (len(lines) - 1) * gap
        first = y + (h - block) / 2 + size * 0.8
        for i, (line, is_mono) in enumerate(zip(lines, monos, strict=True)):
            bold = bold_first and i == 0
            width = text_width(line, size, is_mono, bold)
            if width > w - 10:
                raise ValueError(f"{self.name}: {line!r} overflows its box of {w}")
            self.text(
                x + w / 2, first + i * (size + gap), line, size, bold=bold, mono=is_mono
            )
        return Box(x, y, w, h)

    def badge(self, cx: float, cy: float, label: str, kind: str = "add") -> Box:
        """A small circled label, such as a step number or a dropout site."""
        fill, stroke = KINDS[kind]
        color = stroke if kind != "add" else "#404040"
        box = self.circle(cx, cy, 11, fill=color, stroke=None)
        self.text(cx, cy + 5, label, 14, bold=True, color="#FFFFFF")
        return box

    def plus(self, cx: float, cy: float, r: float = 11) -> Box:
        """The residual addition: a circle with a plus sign."""
        box = self.circle(cx, cy, r, fill="#FFFFFF", stroke=LINE)
        self.line((cx - r * 0.55, cy), (cx + r * 0.55, cy), width=1.8)
        self.line((cx, cy - r * 0.55), (cx, cy + r * 0.55), width=1.8)
        return box

    def grid(
        self,
        x: float,
        y: float,
        rows: int,
        cols: int,
        cell: float = 12,
        kind: str = "attn",
        fills: dict[tuple[int, int], str] | None = None,
        texts: dict[tuple[int, int], str] | None = None,
        size: float = 13,
        cell_w: float | None = None,
        mono: bool = False,
    ) -> Box:
        """A rows × cols grid of cells: a tensor drawn to its shape."""
        cell_w = cell if cell_w is None else cell_w
        fill, stroke = KINDS[kind]
        fills, texts = fills or {}, texts or {}
        for r in range(rows):
            for c in range(cols):
                self.rect(
                    x + c * cell_w,
                    y + r * cell,
                    cell_w,
                    cell,
                    fills.get((r, c), fill),
                    stroke,
                    stroke_width=1,
                )
                if (r, c) in texts:
                    label = texts[(r, c)]
                    if text_width(label, size, mono) > cell_w - 2:
                        raise ValueError(f"{self.name}: {label!r} overflows its cell")
                    self.text(
                        x + (c + 0.5) * cell_w,
                        y + (r + 0.5) * cell + size * 0.36,
                        label,
                        size,
                        mono=mono,
                    )
        return Box(x, y, cols * cell_w, rows * cell)

    def brace(
        self, x: float, y1: float, y2: float, side: str = "right", depth: float = 8
    ) -> None:
        """A curly brace along x from y1 to y2, its tip pointing to `side`."""
        s = 1 if side == "right" else -1
        m = (y1 + y2) / 2
        d = depth * s
        path = (
            f"M{_num(x)},{_num(y1)} Q{_num(x + d)},{_num(y1)} {_num(x + d)},"
            f"{_num(y1 + depth)} L{_num(x + d)},{_num(m - depth)} Q{_num(x + d)},"
            f"{_num(m)} {_num(x + 2 * d)},{_num(m)} Q{_num(x + d)},{_num(m)} "
            f"{_num(x + d)},{_num(m + depth)} L{_num(x + d)},{_num(y2 - depth)} "
            f"Q{_num(x + d)},{_num(y2)} {_num(x)},{_num(y2)}"
        )
        self.items.append(
            f'<path d="{path}" fill="none" stroke="{LINE}" stroke-width="1.5"/>'
        )

    # -- output ----------------------------------------------------------------

    def render(self, title: str, desc: str) -> str:
        """The SVG document: role="img", <title> and <desc> first, then the drawing."""
        w, h = _num(self.width), _num(self.height)
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
            f'width="{w}" height="{h}" role="img" '
            f'aria-labelledby="{self.name}-title {self.name}-desc" '
            f'font-family="{SANS}" font-size="14" fill="{INK}">'
        )
        body = [
            head,
            f'<title id="{self.name}-title">{escape(title)}</title>',
            f'<desc id="{self.name}-desc">{escape(desc)}</desc>',
        ]
        if self.markers:
            body.append("<defs>" + "".join(self.markers.values()) + "</defs>")
        body.append(f'<rect width="{w}" height="{h}" fill="#FFFFFF"/>')
        body.extend(self.items)
        body.append("</svg>")
        return "\n".join(body) + "\n"


# -- chapter 1: the whole block on the 4×3 grid --------------------------------


def draw_ch01_block() -> Svg:
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
    svg.text(
        12,
        24,
        "One encoder block on the toy: n = 4 tokens, d = 3, d_ff = 5",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "Circled numbers are the chapter’s steps; each grid has one cell per number.",
        13,
        anchor="start",
        color=MUTED,
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
        svg.text(gx - 34 + 14, cy + 5, shape, 13, anchor="start", color=MUTED)
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


# -- chapter 4: scaled dot-product attention with a mask -----------------------


def draw_ch04_attention() -> Svg:
    svg = Svg("ch04-attention", 760, 790)
    svg.text(
        12,
        24,
        "Scaled dot-product attention with a key-padding mask",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "Example: “The cat sat.” and two [PAD] tokens, so n_q = n_k = 6; "
        "“...” is any leading axes.",
        13,
        anchor="start",
        color=MUTED,
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
    svg.lines(
        grid_x - 10,
        600,
        [
            "A query whose mask row is all",
            "False gets zero weights and",
            "a zero output, never NaN.",
        ],
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 5: splitting into heads and merging -------------------------------


def draw_ch05_heads() -> Svg:
    svg = Svg("ch05-heads", 760, 876)
    svg.text(
        12,
        24,
        "Multi-head attention: project, split into heads, attend, merge",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "The chapter’s example: n = 3 tokens, d_model = 8, h = 2 heads, "
        "d_head = 4; cell = 10 × token + feature.",
        13,
        anchor="start",
        color=MUTED,
    )
    head_fill = [KINDS["attn"][0], KINDS["yellow"][0]]
    cw, ch = 30, 22
    op_x, op_w, gx = 12, 318, 372

    def numbered(features: range) -> dict[tuple[int, int], str]:
        return {
            (r, c): str(10 * r + f) for r in range(3) for c, f in enumerate(features)
        }

    def by_head(cols: int) -> dict[tuple[int, int], str]:
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
        svg.text(gx, grid_top + 3 * ch + 19, label, 13, anchor="start", color=MUTED)
        svg.arrow(box.right_at(), (gx - 8, cy))
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    svg.lines(
        12,
        842,
        [
            "In the patterns, d is one head’s width: d_head = d_model / h. "
            "The split only relabels",
            "projected features: every head’s queries "
            "are computed from all d_model input features.",
        ],
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 7: post-norm and pre-norm, with every dropout site ----------------


def draw_ch07_norms() -> Svg:
    svg = Svg("ch07-norms", 760, 840)
    svg.text(
        12,
        24,
        "EncoderLayer: where the LayerNorm sits, and where dropout acts",
        15,
        anchor="start",
        bold=True,
    )
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
    svg.text(
        12,
        legend_y + 28 + 4 * 26 + 6,
        "The stream itself is never dropped. "
        "A pre-norm stack adds final_norm after its last layer (chapter 8).",
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 8: the stack, and the packed path ---------------------------------


def draw_ch08_stack() -> Svg:
    svg = Svg("ch08-stack", 760, 676)
    svg.text(
        12,
        24,
        "Encoder: embeddings, a stack of L layers, a final norm",
        15,
        anchor="start",
        bold=True,
    )
    cx, w = 330, 300
    left = cx - w / 2
    mask = svg.box(
        12,
        44,
        168,
        50,
        ["attention_mask (b, n)", "True or 1 = real token"],
        "mask",
        size=13,
    )
    ids = svg.box(cx - 80, 44, 160, 50, ["input_ids", "(b, n)"], "data")
    types = svg.box(
        cx + 100, 44, 196, 50, ["token_type_ids (b, n)", "optional"], "data", size=13
    )
    emb = svg.box(
        left,
        124,
        w,
        62,
        ["embeddings", "token + segment + position,", "then LayerNorm and dropout"],
        "grey",
        bold_first=True,
    )
    svg.arrow(ids.bottom_at(), emb.top_at())
    svg.arrow(types.bottom_at(types.x + 30), (types.x + 30, emb.y))
    rows = [
        ("layers[0]: EncoderLayer", "attn", "hidden_states[1], attentions[0]"),
        ("layers[1]: EncoderLayer", "attn", "hidden_states[2], attentions[1]"),
        (None, None, None),
        ("layers[L − 1]: EncoderLayer", "attn", "hidden_states[L], attentions[L − 1]"),
        ("final_norm: LayerNorm, pre-norm only", "norm", None),
        ("padding positions set to 0", "op", None),
        ("last_hidden_state (b, n, d)", "data", None),
    ]
    y = 220
    boxes = [emb]
    lane = 146
    skipped = False
    for text, kind, side in rows:
        if text is None:  # the layers in between
            skipped = True
            y += 34
            continue
        box = svg.box(
            left, y, w, 38, text, kind, dash="5 3" if kind == "norm" else None
        )
        svg.arrow(boxes[-1].bottom_at(), box.top_at(), dash="2 4" if skipped else None)
        if skipped:
            svg.text(
                cx + 12,
                (boxes[-1].bottom + box.y) / 2 + 5,
                "L layers, each with its own weights",
                13,
                anchor="start",
                color=MUTED,
            )
            skipped = False
        boxes.append(box)
        if side:
            svg.arrow(box.right_at(), (box.right + 28, box.cy), dash="3 3")
            svg.text(box.right + 34, box.cy + 5, side, 13, anchor="start", color=MUTED)
        if kind in ("attn", "op"):
            svg.arrow((lane, box.cy), box.left_at(), color=KINDS["mask"][1])
        y += 68
    svg.arrow(emb.right_at(), (emb.right + 28, emb.cy), dash="3 3")
    svg.text(
        emb.right + 34, emb.cy + 5, "hidden_states[0]", 13, anchor="start", color=MUTED
    )
    svg.line((lane, mask.bottom), (lane, boxes[-2].cy), color=KINDS["mask"][1])
    svg.text(12, 150, "the mask goes", 13, anchor="start", color=MUTED)
    svg.text(12, 168, "to every layer", 13, anchor="start", color=MUTED)
    # The presets, as EncoderConfig defines them.
    tx, ty = 500, 470
    svg.text(tx, ty, "EncoderConfig presets", 14, anchor="start", bold=True)
    columns = [("", 0), ("L", 112), ("d", 152), ("h", 186), ("d_ff", 238)]
    table = [
        ("bert_base()", "12", "768", "12", "3072"),
        ("minilm_l6()", "6", "384", "12", "1536"),
        ("tiny()", "2", "64", "4", "256"),
    ]
    for name, dx in columns[1:]:
        svg.text(tx + dx, ty + 24, name, 13, anchor="end", bold=True)
    for r, row in enumerate(table):
        for c, (value, (_, dx)) in enumerate(zip(row, columns, strict=True)):
            svg.text(
                tx + dx,
                ty + 46 + r * 21,
                value,
                13,
                anchor="end" if c else "start",
                mono=c == 0,
            )
    svg.text(
        tx,
        ty + 46 + 3 * 21 + 4,
        "tiny() is pre-norm, others post-norm",
        13,
        anchor="start",
        color=MUTED,
    )
    svg.text(
        12,
        664,
        "On request: L + 1 hidden states (b, n, d) and L attention maps "
        "(b, h, n, n), one per layer.",
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


def draw_ch08_packed() -> Svg:
    svg = Svg("ch08-packed", 760, 714)
    svg.text(
        12,
        24,
        "The packed path: the layers run on the real tokens only",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "The chapter’s batch: b = 3 sentences of 12, 8 and 3 real tokens, "
        "padded to n = 12.",
        13,
        anchor="start",
        color=MUTED,
    )
    lengths, n, cw, ch = (12, 8, 3), 12, 22, 20
    tints = [KINDS["attn"][0], KINDS["yellow"][0], KINDS["norm"][0]]
    real = [(r, c) for r in range(3) for c in range(lengths[r])]

    def padded_grid(y: float, texts: dict[tuple[int, int], str]) -> Box:
        fills = {(r, c): tints[r] for r, c in real}
        return svg.grid(30, y, 3, n, ch, "pad", fills, texts, cell_w=cw)

    top = padded_grid(66, {(r, c): str(r * n + c) for r in range(3) for c in range(n)})
    svg.lines(
        top.right + 14,
        78,
        [
            "x: (b, n, d) after the embeddings",
            "grey: padding (mask False)",
            "numbers: place in the flat (b·n)",
            "index = mask.flatten().nonzero()",
        ],
        13,
        gap=3,
        anchor="start",
        color=MUTED,
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
    svg.text(
        strip.right + 12,
        strip.cy + 5,
        "(t, d), t = 23",
        13,
        anchor="start",
        color=MUTED,
    )
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
    svg.text(
        out.x,
        out.bottom + 20,
        "output (b, n, d): 0 at padding",
        13,
        anchor="start",
        color=MUTED,
    )
    svg.lines(
        12,
        682,
        [
            "Taken when the batch has padding and no attention weights are "
            "requested. Projections and",
            "feed-forward networks do 23/36 of the "
            "padded path’s work here; the values are the same.",
        ],
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 9: the poolings ---------------------------------------------------


def draw_ch09_pooling() -> Svg:
    svg = Svg("ch09-pooling", 760, 560)
    svg.text(
        12,
        24,
        "Four poolings of a padded batch: h (b, n, d) and mask (b, n) → (b, d)",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "One row of the chapter’s toy batch: [CLS] the cat sat, then two "
        "[PAD]; d = 3, one column per token.",
        13,
        anchor="start",
        color=MUTED,
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
    svg.text(
        x0 + 6 * (cw + gap) + 4, 124, "(n, d) = (6, 3)", 13, anchor="start", color=MUTED
    )
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
    svg.lines(
        12,
        526,
        [
            "Padding never matters: the result is the same whatever "
            "padded positions hold, even inf or NaN,",
            "and a row with no real "
            "token gives zeros. Untrained (w = 0, c = 0), AttentionPool is "
            "mean_pool.",
        ],
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 10: the training loop ---------------------------------------------


def draw_ch10_training() -> Svg:
    svg = Svg("ch10-training", 760, 752)
    svg.text(
        12,
        24,
        "One call of train(model, loss_fn, train_data, ...)",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "Each optimizer step follows the mean loss of accumulation_steps "
        "batches; brackets: on a GPU only.",
        13,
        anchor="start",
        color=MUTED,
    )
    x, w = 140, 540
    setup = svg.box(
        x,
        64,
        w,
        70,
        [
            "set_seed(seed) if given; model.to(device)",
            "AdamW: weight decay on matrices, none on biases and norms",
            "LambdaLR: warm-up, then cosine or linear decay",
        ],
        "grey",
        size=14,
    )
    svg.rect(40, 156, 690, 494, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.text(
        56, 178, "for step in range(steps):", 14, anchor="start", mono=True, bold=True
    )
    inner = svg.rect(96, 192, 620, 212, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.text(
        112,
        214,
        "repeat accumulation_steps times:",
        14,
        anchor="start",
        mono=True,
        bold=True,
    )
    batch = svg.box(
        x, 228, w, 36, "batch = the next batch of train_data, on the device", "data"
    )
    forward = svg.box(
        x,
        286,
        w,
        36,
        "loss = loss_fn(model, batch)   [autocast: bf16, or fp16]",
        "op",
    )
    backward = svg.box(
        x,
        344,
        w,
        36,
        "(loss / accumulation_steps).backward()   [fp16: loss scaled]",
        "op",
    )
    clip = svg.box(
        x,
        426,
        w,
        36,
        "clip_grad_norm_(parameters, max_grad_norm)   [fp16: unscale first]",
        "op",
    )
    step = svg.box(
        x, 484, w, 36, "optimizer.step(), optimizer.zero_grad(), scheduler.step()", "op"
    )
    history = svg.box(
        x,
        542,
        w,
        36,
        "history: loss, learning rate, gradient norm, real tokens",
        "data",
    )
    evaluate = svg.box(
        x,
        600,
        w,
        36,
        "every eval_every steps: eval_fn(model) in eval mode, no gradients",
        "op",
        dash="5 3",
    )
    after = svg.box(
        x,
        672,
        w,
        58,
        [
            "eval_fn after the last step; every module’s train/eval mode restored",
            "returns a TrainingHistory",
        ],
        "data",
        size=14,
    )
    chain = [setup, batch, forward, backward, clip, step, history, evaluate, after]
    for upper, lower in zip(chain, chain[1:], strict=False):
        svg.arrow(upper.bottom_at(), lower.top_at())
    # The two loops: the next micro-batch, and the next step.
    svg.arrow(
        backward.left_at(),
        (118, backward.cy),
        (118, batch.cy),
        batch.left_at(),
        radius=8,
    )
    svg.arrow(
        evaluate.left_at(),
        (64, evaluate.cy),
        (64, inner.y + 18),
        (inner.x, inner.y + 18),
        radius=8,
    )
    return svg


# -- chapter 11: BERT's masking ------------------------------------------------


def draw_ch11_masking() -> Svg:
    svg = Svg("ch11-masking", 760, 578)
    svg.text(
        12, 24, "BERT’s masking, as mask_tokens does it", 15, anchor="start", bold=True
    )
    svg.text(
        12,
        46,
        "One uniform number per token chooses it; a second one, u, splits "
        "the chosen tokens 80/10/10.",
        13,
        anchor="start",
        color=MUTED,
    )
    tint = {
        "mask": KINDS["mask"][0],
        "random": KINDS["yellow"][0],
        "kept": KINDS["attn"][0],
        "off": KINDS["grey"][0],
    }
    start = svg.box(40, 62, 380, 34, "each position of input_ids (b, n)", "data")
    special = svg.box(
        40,
        120,
        380,
        44,
        [
            "a special token ([CLS], [SEP], [PAD], ...)",
            "or a padded position (mask False)?",
        ],
        "op",
        size=13,
    )
    chosen = svg.box(
        40,
        190,
        380,
        44,
        ["chosen with probability 0.15?", "(real, non-special tokens only)"],
        "op",
        size=13,
    )
    never = svg.box(
        480, 120, 268, 44, ["never chosen:", "unchanged, label −100"], "grey", size=13
    )
    skipped = svg.box(
        480,
        190,
        268,
        44,
        ["not chosen (85 %):", "unchanged, label −100"],
        "data",
        size=13,
        rx=8,
    )
    svg.arrow(start.bottom_at(), special.top_at())
    svg.arrow(special.bottom_at(), chosen.top_at())
    svg.text(special.cx + 8, special.bottom + 18, "no", 13, anchor="start", color=MUTED)
    svg.arrow(special.right_at(), never.left_at())
    svg.text((special.right + never.x) / 2, special.cy - 6, "yes", 13, color=MUTED)
    svg.arrow(chosen.right_at(), skipped.left_at())
    svg.text((chosen.right + skipped.x) / 2, chosen.cy - 6, "no", 13, color=MUTED)
    outcomes = [
        (["u < 0.8 (80 %):", "[MASK]"], "mask"),
        (["0.8 ≤ u < 0.9 (10 %):", "a random non-special token"], "random"),
        (["u ≥ 0.9 (10 %):", "unchanged"], "kept"),
    ]
    bus = chosen.bottom + 22
    svg.text(chosen.cx + 8, chosen.bottom + 16, "yes", 13, anchor="start", color=MUTED)
    svg.line(chosen.bottom_at(), (chosen.cx, bus))
    boxes = []
    for i, (lines, key) in enumerate(outcomes):
        bx = 12 + i * 248
        box = svg.rect(bx, 278, 240, 48, tint[key], KINDS["grey"][1], rx=8)
        svg.lines(box.cx, 297, lines, 13, anchor="middle")
        boxes.append(box)
    svg.line((boxes[0].cx, bus), (boxes[-1].cx, bus))
    for box in boxes:
        svg.arrow((box.cx, bus), box.top_at())
    label = svg.box(
        12,
        350,
        736,
        34,
        "label = the original id at every chosen position, whatever the model sees",
        "data",
        size=14,
        rx=8,
    )
    for box in boxes:
        svg.arrow(box.bottom_at(), label.top_at(box.cx))
    # The chapter's hand-made example, with padding added.
    svg.text(
        12,
        420,
        "The chapter’s example, with two [PAD] added:",
        14,
        anchor="start",
        bold=True,
    )
    tokens = [
        "[CLS]",
        "the",
        "cat",
        "sat",
        "on",
        "the",
        "mat",
        "because",
        "it",
        "was",
        "warm",
        "[SEP]",
        "[PAD]",
        "[PAD]",
    ]
    seen = dict(enumerate(tokens)) | {2: "[MASK]", 6: "piano"}
    treat = {
        2: "mask",
        6: "random",
        10: "kept",
        0: "off",
        11: "off",
        12: "off",
        13: "off",
    }
    rows = [
        ("input", tokens),
        ("model sees", [seen[j] for j in range(14)]),
        ("label", [t if j in (2, 6, 10) else "−100" for j, t in enumerate(tokens)]),
    ]
    widths = [
        max(text_width(r[1][j], 13) for r in rows) + 7 for j in range(len(tokens))
    ]
    x0 = 12 + text_width("model sees", 13, bold=True) + 10
    if x0 + sum(widths) > 748:
        raise ValueError("ch11: the example does not fit")
    for r, (name, values) in enumerate(rows):
        y = 434 + r * 30
        svg.text(12, y + 20, name, 13, anchor="start", bold=True)
        x = x0
        for j, value in enumerate(values):
            fill = tint[treat[j]] if j in treat else "#FFFFFF"
            svg.rect(x, y, widths[j], 28, fill, KINDS["grey"][1], stroke_width=1)
            svg.text(x + widths[j] / 2, y + 19, value, 13)
            x += widths[j]
    svg.lines(
        12,
        548,
        [
            "Grey: specials and padding, never chosen. Labels of −100 are "
            "skipped by F.cross_entropy, so the loss",
            "covers the chosen positions "
            "only; the random token is drawn from the non-special ids.",
        ],
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 12: a contrastive batch -------------------------------------------


def draw_ch12_contrastive() -> Svg:
    svg = Svg("ch12-contrastive", 760, 610)
    svg.text(
        12,
        24,
        "A contrastive batch: unsupervised SimCSE with in-batch negatives",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "b = 4 sentences, each encoded twice in one pass; only dropout makes "
        "the two copies differ.",
        13,
        anchor="start",
        color=MUTED,
    )
    tints = [KINDS["attn"][0], KINDS["yellow"][0], KINDS["norm"][0], KINDS["mask"][0]]
    batch = svg.box(
        12,
        112,
        160,
        84,
        ["a batch of b", "sentences:", "input_ids and", "attention_mask (b, n)"],
        "data",
        size=13,
    )
    # torch.cat([ids, ids]): 2b rows.
    stacked_fills = {(r, 0): tints[r % 4] for r in range(8)}
    stacked_texts = {(r, 0): f"s{r % 4 + 1}" for r in range(8)}
    stacked = svg.grid(
        250, 82, 8, 1, 18, "data", stacked_fills, stacked_texts, cell_w=56
    )
    svg.text(stacked.cx, 72, "torch.cat: (2b, n)", 13, color=MUTED)
    svg.text(stacked.x - 8, 82 + 2 * 18 + 5, "copy 1", 13, anchor="end", color=MUTED)
    svg.text(stacked.x - 8, 82 + 6 * 18 + 5, "copy 2", 13, anchor="end", color=MUTED)
    svg.arrow(batch.right_at(), (stacked.x - 4, batch.cy))
    encoder = svg.box(
        352,
        100,
        170,
        108,
        [
            "encoder in",
            "training mode:",
            "each row draws",
            "its own dropout,",
            "then mean_pool",
        ],
        "attn",
        size=13,
    )
    svg.arrow(stacked.right_at(), encoder.left_at())
    vec_fills = {(r, c): tints[r % 4] for r in range(8) for c in range(3)}
    vectors = svg.grid(574, 82, 8, 3, 18, "data", vec_fills)
    svg.text(vectors.cx, 72, "vectors (2b, d)", 13, color=MUTED)
    svg.arrow(encoder.right_at(), (vectors.x - 6, encoder.cy))
    svg.brace(vectors.right + 4, 82, 82 + 4 * 18 - 2, depth=6)
    svg.brace(vectors.right + 4, 82 + 4 * 18 + 2, 82 + 8 * 18, depth=6)
    svg.lines(
        vectors.right + 22,
        82 + 2 * 18 - 3,
        ["first:", "q (b, d)"],
        13,
        gap=2,
        anchor="start",
    )
    svg.lines(
        vectors.right + 22,
        82 + 6 * 18 - 3,
        ["second:", "k (b, d)"],
        13,
        gap=2,
        anchor="start",
    )
    # The b × b logits: positives on the diagonal, in-batch negatives elsewhere.
    panel = svg.rect(12, 262, 736, 280, "none", "#8C8C8C", rx=10, dash="6 4")
    svg.arrow((vectors.cx, vectors.bottom + 4), (vectors.cx, panel.y))
    svg.text(
        panel.cx,
        286,
        "info_nce_loss(q, k): logits[i, j] = cos(q_i, k_j) / τ, τ = 0.05",
        14,
        bold=True,
    )
    mx, my, cw, ch = 176, 342, 62, 30
    svg.text(mx + 2 * cw, 308, "keys k_j", 13, color=MUTED)
    svg.text(mx + 6 * cw, 308, "optional hard negatives (m, d)", 13, color=MUTED)
    for j in range(8):
        x = mx + j * cw
        if j < 4:
            svg.rect(x + 4, my - 26, cw - 8, 22, tints[j], KINDS["grey"][1], rx=2)
            svg.text(x + cw / 2, my - 10, f"k_{j + 1}", 13)
        else:
            svg.rect(
                x + 4,
                my - 26,
                cw - 8,
                22,
                "#FFFFFF",
                KINDS["drop"][1],
                rx=2,
                dash="4 3",
            )
            svg.text(x + cw / 2, my - 10, f"hard_{j - 3}", 13)
    for i in range(4):
        y = my + i * ch
        svg.rect(mx - 58, y + 4, 50, ch - 8, tints[i], KINDS["grey"][1], rx=2)
        svg.text(mx - 33, y + 20, f"q_{i + 1}", 13)
        for j in range(8):
            if j == i:
                fill, stroke, text, dash = (
                    KINDS["norm"][0],
                    KINDS["norm"][1],
                    "pos",
                    None,
                )
            elif j < 4:
                fill, stroke, text, dash = "#F2F2F2", KINDS["grey"][1], "neg", None
            else:
                fill, stroke, text, dash = (
                    KINDS["drop"][0],
                    KINDS["drop"][1],
                    "neg",
                    "4 3",
                )
            svg.rect(mx + j * cw, y, cw, ch, fill, stroke, stroke_width=1, dash=dash)
            svg.text(mx + j * cw + cw / 2, y + 20, text, 13)
    svg.text(mx - 33, my - 10, "q_i", 13, color=MUTED)
    svg.lines(
        30,
        my + 4 * ch + 28,
        [
            "loss = mean over rows i of cross_entropy(row i, "
            "target i): the diagonal is the right answer,",
            "and the other b − 1 keys "
            "of the batch are negatives for free. Supervised SimCSE adds hard",
            "negatives as extra columns (PairCollator, supervised_simcse_loss).",
        ],
        13,
        gap=5,
        anchor="start",
    )
    svg.text(
        12,
        570,
        "Without dropout (eval mode) the two copies are identical; "
        "unsupervised_simcse_loss needs encoder.train().",
        13,
        anchor="start",
        color=MUTED,
    )
    svg.text(
        12,
        592,
        "In supervised SimCSE the keys are real partners (anchor, "
        "positive), not dropout copies.",
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- chapter 15: the Vision Transformer -----------------------------------------

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
    svg = Svg("ch15-vit", 760, 842)
    svg.text(
        12,
        24,
        "Vision Transformer: patches become tokens for the encoder layers",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "The chapter’s model: an 8 × 8 digit, 4 × 4 patches, n = 4 patches, "
        "d = 64, L = 2 layers.",
        13,
        anchor="start",
        color=MUTED,
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
    svg.lines(
        label_x,
        gy + 22,
        [
            "a digit 0, cut into",
            "2 × 2 patches of",
            "4 × 4 pixels, numbered",
            "in reading order",
        ],
        13,
        anchor="start",
        color=MUTED,
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
    svg.lines(
        strip_right + 16,
        strip_y + 14,
        [
            "(b, n, p·p·c) = (b, 4, 16):",
            "one row per patch, each",
            "its 4 pixel rows p1 in turn",
        ],
        13,
        anchor="start",
        color=MUTED,
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
    svg.text(
        projection.right + 24,
        projection.cy + 5,
        "patch vectors (b, 4, d)",
        13,
        anchor="start",
        color=MUTED,
    )
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
    svg.text(
        tokens.right + 24,
        tokens.cy + 5,
        "tokens (b, n + 1, d) = (b, 5, d)",
        13,
        anchor="start",
        color=MUTED,
    )
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
    svg.text(
        layers.right + 26,
        layers.cy + 5,
        "return_weights=True: L maps (b, h, 5, 5)",
        13,
        anchor="start",
        color=MUTED,
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
    svg.text(
        12,
        830,
        "Only the patch embedding, [CLS] and the positions are new; the layers "
        "are the text encoder’s.",
        13,
        anchor="start",
        color=MUTED,
    )
    return svg


KEPT = "#8DB8DE"  # a score that is computed and kept (mid blue, attention's hue)
HIDDEN = KINDS["mask"][0]  # computed, then set to -inf by the mask
PADDING = KINDS["pad"][0]  # a padded key, hidden too


def draw_ch16_efficient() -> Svg:
    svg = Svg("ch16-efficient", 760, 620)
    svg.text(
        12,
        24,
        "Four ways to attend: which scores exist, and which count",
        15,
        anchor="start",
        bold=True,
    )
    svg.text(
        12,
        46,
        "One head, n = 12 tokens; rows are queries, columns are keys; "
        "window w = 3, k = 4 mixtures.",
        13,
        anchor="start",
        color=MUTED,
    )
    n, w, k, cell = 12, 3, 4, 15
    left_x, right_x = 24, 400
    top_row, bottom_row = 92, 350

    def caption(x: float, y: float, lines: list[str]) -> None:
        svg.lines(x, y, lines, 13, gap=4, anchor="start", color=MUTED)

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
    caption(
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
    caption(
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
        svg.text(
            left_x + 3 * w * small + 8,
            y + 2 * small + 1,
            f"block {c}: queries {c * w}–{c * w + w - 1}",
            13,
            anchor="start",
            color=MUTED,
        )
        y += w * small + 8
    caption(
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
    caption(
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


# -- chapter 17: where relative positions enter ---------------------------------


def draw_ch17_positions() -> Svg:
    svg = Svg("ch17-positions", 760, 564)
    svg.text(
        12, 24, "Where each scheme puts the position", 15, anchor="start", bold=True
    )
    svg.text(
        12,
        46,
        "One head; token i is the query, token j the key; e = d / h features per head.",
        13,
        anchor="start",
        color=MUTED,
    )
    col = [12, 262, 512]
    top = 74

    def caption(x: float, y: float, lines: list[str]) -> None:
        svg.lines(x, y, lines, 13, gap=4, anchor="start", color=MUTED)

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
    caption(
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
    caption(
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
    caption(
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
    caption(
        470,
        y + 24,
        [
            "G: global, every token, RoPE",
            "base 160,000",
            "L: local, |i − j| ≤ 64 (a −∞",
            "bias outside), base 10,000",
        ],
    )
    caption(
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


# -- chapter 18: data-parallel training and serving -----------------------------


def draw_ch18_scaling() -> Svg:
    svg = Svg("ch18-scaling", 760, 450)
    svg.text(
        12,
        24,
        "Training on two processes, serving from one file",
        15,
        anchor="start",
        bold=True,
    )

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
    svg.lines(
        14,
        420,
        [
            "Same weights as one process on the whole batch,",
            "up to the order of float sums (gloo on CPU, NCCL on GPUs).",
        ],
        13,
        gap=4,
        anchor="start",
        color=MUTED,
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
    svg.lines(
        int8.cx + 8,
        198,
        ["quantize", "(dynamic)"],
        13,
        gap=2,
        anchor="start",
        color=MUTED,
    )
    out = svg.box(
        x, 320, 340, 44, ["sentence vectors: compared with PyTorch's"], "norm", size=13
    )
    svg.arrow(fp32.bottom_at(), out.top_at(fp32.cx))
    svg.arrow(int8.bottom_at(), out.top_at(int8.cx))
    svg.lines(
        x,
        390,
        [
            "fp32: equal to PyTorch within 1e-5;",
            "int8: measured for speed and STS-B score.",
        ],
        13,
        gap=4,
        anchor="start",
        color=MUTED,
    )
    return svg


# -- the manifest --------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One diagram: where it goes, what it says to a reader who cannot see it."""

    file: str  # written to chapters/figures/<file>
    chapter: str  # the notebook in chapters/ that shows it
    after: str  # a substring of exactly one markdown cell; the figure follows it
    alt: str  # alt text, also the SVG's <desc>
    caption: str  # one short sentence, also the SVG's <title>
    draw: Callable[[], Svg]


FIGURES = [
    Figure(
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
    ),
    Figure(
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
    ),
    Figure(
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
    ),
    Figure(
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
            "Post-norm and pre-norm EncoderLayer side by side, with its four dropout "
            "sites."
        ),
        draw=draw_ch07_norms,
    ),
    Figure(
        file="ch08_stack.svg",
        chapter="08_the_stack.ipynb",
        after="`Encoder` reads like its diagram",
        alt=(
            "A top-to-bottom flow of the Encoder. Token ids and optional segment ids "
            "enter the embeddings, which add token, segment and position vectors and "
            "apply LayerNorm and dropout; the result goes through layers 0 to L minus "
            "1, each an EncoderLayer that also receives the attention mask; a final "
            "LayerNorm follows in pre-norm models only; padding positions are set to "
            "zero, giving the last hidden state of shape b, n, d. Side arrows mark the "
            "hidden states and attention maps each layer can return, and a table "
            "lists the presets: BERT-base 12 layers of width 768 with 12 heads and "
            "d_ff 3072, MiniLM-L6 6 layers of 384 with 12 heads and d_ff 1536, tiny "
            "2 layers of 64 with 4 heads and d_ff 256."
        ),
        caption=(
            "The Encoder: embeddings, L encoder layers that share the mask, and a "
            "final norm in pre-norm models."
        ),
        draw=draw_ch08_stack,
    ),
    Figure(
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
    ),
    Figure(
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
    ),
    Figure(
        file="ch10_training.svg",
        chapter="10_training_a_classifier.ipynb",
        after="### Clipping, accumulation, precision",
        alt=(
            "A top-to-bottom flow of one call of train. Setup: seed, AdamW with two "
            "parameter groups and a warm-up and decay schedule. Then a loop over the "
            "steps; inside it an inner loop repeats accumulation_steps times: take "
            "the next batch, compute the loss, divide it by accumulation_steps and "
            "run backward. After the inner loop the step clips the gradient norm, "
            "steps the optimizer, zeroes the gradients, steps the schedule, records "
            "the history and, every eval_every steps, evaluates. At the end the "
            "loop evaluates once more, restores each module's mode and returns the "
            "history."
        ),
        caption=(
            "The training loop of train: gradient accumulation inside, clipping, "
            "optimizer and schedule steps, history and evaluation."
        ),
        draw=draw_ch10_training,
    ),
    Figure(
        file="ch11_masking.svg",
        chapter="11_masked_language_model_pretraining.ipynb",
        after="## Build it: BERT's masking",
        alt=(
            "A decision flow for every position of a batch. Special tokens and "
            "padding are never chosen. Every other token is chosen with probability "
            "0.15; of the chosen, 80 percent become the mask token, 10 percent a "
            "random non-special token and 10 percent stay unchanged, and all of them "
            "keep their original id as the label, while every other position gets "
            "the label minus 100. Below, the chapter's sentence the cat sat on the "
            "mat because it was warm, with two padding tokens: cat becomes the mask "
            "token, mat becomes piano, warm stays, and only those three positions "
            "have labels."
        ),
        caption=(
            "BERT’s 80/10/10 masking: who may be chosen, what the model sees, and "
            "which positions carry a label."
        ),
        draw=draw_ch11_masking,
    ),
    Figure(
        file="ch12_contrastive.svg",
        chapter="12_contrastive_sentence_embeddings.ipynb",
        after="## SimCSE: two views from dropout",
        alt=(
            "Unsupervised SimCSE on a batch of 4 sentences. The batch is stacked on "
            "itself into 8 rows and encoded in one pass in training mode, so each "
            "copy gets its own dropout, then mean-pooled into 8 vectors; the first 4 "
            "are the queries and the last 4 the keys. Below, a 4-by-4 grid of "
            "logits, the cosine of query i and key j divided by the temperature "
            "0.05, has the positives on its diagonal and in-batch negatives "
            "everywhere else; optional hard negatives add columns. The loss is the "
            "cross-entropy of each row with the diagonal as its target, averaged "
            "over the rows."
        ),
        caption=(
            "A contrastive batch: two dropout views of each sentence, positives on "
            "the diagonal, the rest of the batch as negatives."
        ),
        draw=draw_ch12_contrastive,
    ),
    Figure(
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
    ),
    Figure(
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
    ),
    Figure(
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
    ),
    Figure(
        file="ch18_scaling.svg",
        chapter="18_scaling_up.ipynb",
        after="# 18. Scaling up: training and serving",
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
            "Data-parallel training averages the gradients of two processes; "
            "serving exports the encoder once and runs it in ONNX Runtime, in fp32 "
            "or with int8 weights."
        ),
        draw=draw_ch18_scaling,
    ),
]


def render(figure: Figure) -> str:
    """The SVG text of one figure, with its caption as title and alt as desc."""
    return figure.draw().render(figure.caption, figure.alt)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help="folder")
    parser.add_argument(
        "--check", action="store_true", help="fail if a stored figure is stale"
    )
    args = parser.parse_args(argv)
    stale = []
    if not args.check:
        args.out.mkdir(parents=True, exist_ok=True)
    for figure in FIGURES:
        text = render(figure)
        path = args.out / figure.file
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8", newline="\n")
            print(
                f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
            )
    if stale:
        print("stale figures (run python tools/diagrams.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
