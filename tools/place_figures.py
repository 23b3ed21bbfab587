"""Place each architecture diagram in its chapter, right after the cell it belongs to.

`tools/diagrams.py` draws the diagrams into chapters/figures/ and lists them in
`FIGURES`: the file, the chapter, `after` (a snippet of the markdown cell the
figure follows), the alt text and a caption. This tool makes each chapter hold,
right after that cell, one markdown cell with id `figure-<file stem>`:

    ![alt text](figures/<file>.svg)

    *caption*

It adds the cell when it is missing and rewrites it when the manifest changed,
so `make diagrams` (draw, then place) is the one command for both. With
`--check` it changes nothing and fails when a chapter is out of date.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from diagrams import FIGURES  # noqa: E402


def field(figure, name: str) -> str:
    """A manifest entry's field, whether the entry is a dict or a record."""
    return figure[name] if isinstance(figure, dict) else getattr(figure, name)


def figure_cell(figure) -> dict:
    """The markdown cell that shows one figure."""
    file = field(figure, "file")
    alt = " ".join(field(figure, "alt").split()).replace("]", ")").replace("[", "(")
    text = f"![{alt}](figures/{file})\n\n*{field(figure, 'caption')}*"
    return {
        "cell_type": "markdown",
        "id": f"figure-{Path(file).stem}".replace("_", "-"),
        "metadata": {},
        "source": text.splitlines(keepends=True),
    }


def place(notebook: dict, figure) -> bool:
    """Put the figure's cell after its anchor cell; True if the notebook changed."""
    cells = notebook["cells"]
    wanted = figure_cell(figure)
    cells_without = [c for c in cells if c.get("id") != wanted["id"]]
    anchors = [
        i
        for i, c in enumerate(cells_without)
        if c["cell_type"] == "markdown"
        and field(figure, "after") in "".join(c["source"])
    ]
    if len(anchors) != 1:
        raise ValueError(
            f"{field(figure, 'file')}: expected one markdown cell of "
            f"{field(figure, 'chapter')} containing {field(figure, 'after')!r}, "
            f"found {len(anchors)}"
        )
    new = cells_without[: anchors[0] + 1] + [wanted] + cells_without[anchors[0] + 1 :]
    if new == cells:
        return False
    notebook["cells"] = new
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing")
    args = parser.parse_args()
    stale = []
    by_chapter: dict[str, list] = {}
    for figure in FIGURES:
        by_chapter.setdefault(field(figure, "chapter"), []).append(figure)
    for chapter, figures in sorted(by_chapter.items()):
        path = ROOT / "chapters" / chapter
        notebook = json.loads(path.read_text(encoding="utf-8"))
        changed = False
        for figure in figures:
            changed |= place(notebook, figure)
        if changed:
            stale.append(chapter)
            if not args.check:
                text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
                path.write_text(text, encoding="utf-8")
    verb = "out of date" if args.check else "updated"
    for chapter in stale:
        print(f"{verb}: chapters/{chapter}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
