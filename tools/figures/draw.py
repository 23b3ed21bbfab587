"""The drawing kit shared by every figure: the SVG builder, its boxes and arrows.

Each figure is drawn with a small builder (`Svg`): boxes, text, arrows, grids of
cells, braces, a heading and muted captions. Text stays text (`<text>`, DejaVu
Sans or a fallback, at least 13 px in a viewBox at most 760 px wide, the width
of the book's content column), so the figures are crisp and readable at page
width. The builder checks its own layout as it draws (`text_width` estimates
each line): text that leaves the canvas, overflows its box or overlaps other
text raises ValueError, so a broken figure never reaches the book.

One look across the book:

- operations are rounded boxes coloured by kind (`KINDS`): attention blue,
  feed-forward orange, LayerNorm green, dropout vermillion, masks reddish purple,
  other computation sky blue: the Okabe-Ito palette, safe for colour-blind readers;
- tensors are square-cornered white boxes, or grids of cells with their shape;
- arrows flow top to bottom or left to right (a loop's return arrow excepted).

The output is deterministic: no dates, no random ids, numbers printed with one
decimal (`_num`), so the same figure gives the same bytes on every machine.
`Figure` is one entry of the manifest: a drawing and what the book says of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

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
        """The x of the centre."""
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        """The y of the centre."""
        return self.y + self.h / 2

    @property
    def right(self) -> float:
        """The x of the right edge."""
        return self.x + self.w

    @property
    def bottom(self) -> float:
        """The y of the bottom edge."""
        return self.y + self.h

    def top_at(self, x: float | None = None) -> tuple[float, float]:
        """A point on the top edge, at x (default: the centre)."""
        return (self.cx if x is None else x, self.y)

    def bottom_at(self, x: float | None = None) -> tuple[float, float]:
        """A point on the bottom edge, at x (default: the centre)."""
        return (self.cx if x is None else x, self.bottom)

    def left_at(self, y: float | None = None) -> tuple[float, float]:
        """A point on the left edge, at y (default: the centre)."""
        return (self.x, self.cy if y is None else y)

    def right_at(self, y: float | None = None) -> tuple[float, float]:
        """A point on the right edge, at y (default: the centre)."""
        return (self.right, self.cy if y is None else y)


class Svg:
    """A small SVG builder that checks its own layout as it draws.

    Every text element must fit the canvas, and the lines of a box must fit the
    box; a figure that breaks either rule raises ValueError when it is drawn, so
    clipped or overflowing text cannot reach the book.
    """

    def __init__(self, name: str, width: float, height: float) -> None:
        """An empty canvas; `name` prefixes every id, so ids differ across figures."""
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
        """A rectangle with its top-left corner at (x, y); `rx` rounds the corners."""
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
        **options: Any,
    ) -> None:
        """Several lines of text, the first baseline at y."""
        for i, line in enumerate(lines):
            self.text(x, y + i * (size + gap), line, size, **options)

    def _marker(self, color: str) -> str:
        """The id of the arrowhead marker in `color`, defined on first use."""
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

    def arrow(self, *points: tuple[float, float], **options: Any) -> None:
        """An arrow through `points`, its head at the last one (options: `path`)."""
        self.path(points, **options)

    def line(self, *points: tuple[float, float], **options: Any) -> None:
        """A line through `points`, without an arrowhead (options: `path`)."""
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
        """A circle of radius r centred on (cx, cy); returns its bounding box."""
        attrs = f'cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" fill="{fill}"'
        if stroke:
            attrs += f' stroke="{stroke}" stroke-width="{_num(stroke_width)}"'
        self.items.append(f"<circle {attrs}/>")
        return Box(cx - r, cy - r, 2 * r, 2 * r)

    # -- composite shapes ------------------------------------------------------

    def heading(self, title: str, subtitle: str | None = None) -> None:
        """The figure's bold title at the top left, and an optional muted line."""
        self.text(12, 24, title, 15, anchor="start", bold=True)
        if subtitle is not None:
            self.text(12, 46, subtitle, 13, anchor="start", color=MUTED)

    def caption(
        self, x: float, y: float, lines: Sequence[str] | str, gap: float = 4
    ) -> None:
        """A muted note of one or more lines at 13 px, left-aligned at x.

        The first baseline is at y; `gap` is the space between lines.
        """
        lines = [lines] if isinstance(lines, str) else lines
        self.lines(x, y, lines, 13, gap=gap, anchor="start", color=MUTED)

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


@dataclass(frozen=True)
class Figure:
    """One diagram: where it goes, what it says to a reader who cannot see it."""

    file: str  # written to chapters/figures/<file>
    chapter: str  # the notebook in chapters/ that shows it
    after: str  # a substring of exactly one markdown cell; the figure follows it
    alt: str  # alt text, also the SVG's <desc>
    caption: str  # one short sentence, also the SVG's <title>
    draw: Callable[[], Svg]
