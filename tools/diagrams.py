"""The book's architecture diagrams: draw every figure of `FIGURES` as SVG.

`python tools/diagrams.py` writes every figure of `FIGURES` to
chapters/figures/<file> (`make diagrams`); `--out DIR` writes them elsewhere and
`--check` fails when a stored figure differs from a fresh drawing. The output is
deterministic: the same bytes on every run and every machine.

The drawings live in tools/figures/, one module per figure, named after the file
it makes (tools/figures/ch05_heads.py draws chapters/figures/ch05_heads.svg);
tools/figures/draw.py is the kit they share (`Svg`, boxes, arrows, grids, text
measurement and the layout checks). To add a figure, copy a module, change its
drawing and its `FIGURE`, and list it below.

`FIGURES` is the manifest: for each figure its file, its chapter, the markdown
cell it follows (`after`, a substring unique among the chapter's markdown cells),
its alt text (also the SVG's <desc>) and its caption (also the SVG's <title>);
tools/place_figures.py puts each one in its chapter.
Shapes use the book's letters: b batch, n tokens, d model width (d_model in
code), h heads, e = d / h one head's width (d_head in code), d_ff the
feed-forward width, t the number of real tokens in a packed batch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from figures import (
    ch01_block,
    ch04_attention,
    ch05_heads,
    ch07_norms,
    ch08_packed,
    ch08_stack,
    ch09_pooling,
    ch10_training,
    ch11_masking,
    ch12_contrastive,
    ch15_vit,
    ch16_efficient,
    ch17_positions,
    ch18_scaling,
)
from figures.draw import MAX_WIDTH, MIN_FONT, Figure

__all__ = [
    "FIGURES",
    "FIGURES_DIR",
    "MAX_WIDTH",
    "MIN_FONT",
    "Figure",
    "main",
    "render",
]

ROOT = Path(__file__).resolve().parent.parent
FIGURES_DIR = ROOT / "chapters" / "figures"

# In the book's order; within a chapter, in the order the figures appear.
FIGURES: list[Figure] = [
    ch01_block.FIGURE,
    ch04_attention.FIGURE,
    ch05_heads.FIGURE,
    ch07_norms.FIGURE,
    ch08_stack.FIGURE,
    ch08_packed.FIGURE,
    ch09_pooling.FIGURE,
    ch10_training.FIGURE,
    ch11_masking.FIGURE,
    ch12_contrastive.FIGURE,
    ch15_vit.FIGURE,
    ch16_efficient.FIGURE,
    ch17_positions.FIGURE,
    ch18_scaling.FIGURE,
]


def render(figure: Figure) -> str:
    """The SVG text of one figure, with its caption as title and alt as desc."""
    return figure.draw().render(figure.caption, figure.alt)


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or with --check, compare) every figure; 1 if any stored one is stale."""
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
