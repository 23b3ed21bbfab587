"""Collect every chapter's "Claims, checked" table into appendix/claims.md.

Each chapter tests popular statements about encoders and records the verdicts in
a Markdown table under a "## Claims, checked" heading (columns: #, claim,
verdict, evidence). This script gathers those tables into one index page, so the
appendix can never disagree with the chapters: `make export` rewrites it, and a
test fails when it is stale. Each chapter's entry links to the chapter's
"Claims, checked" section (the anchor `#claims-checked`, which MyST makes from
the heading: `myst_heading_anchors` in _config.yml) and keeps all four columns.
Run `python tools/claims_index.py [--check]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import NamedTuple

from export import CHAPTERS, ROOT, cell_source, chapter_title

INDEX = ROOT / "appendix" / "claims.md"
HEADING = "## Claims, checked"
# The section's anchor: the heading as GitHub and MyST slug it (lower case,
# punctuation dropped, spaces to hyphens). Sphinx gives the section the same id.
ANCHOR = "claims-checked"
# A table cell ends at a pipe that is not escaped (`\|` stays inside the cell).
CELL_BORDER = re.compile(r"(?<!\\)\|")

INTRO = """\
# Claims, checked: the index

Every chapter tests statements that circulate about Transformer encoders, in
tutorials, blog posts and papers, and gives a verdict backed by a cell that
computes it. This page collects the verdicts with their evidence; each chapter's
heading links to its "Claims, checked" section, which sits below the experiments
that the evidence cites. It is generated from the chapters by
`tools/claims_index.py`.
"""


class Claim(NamedTuple):
    """One row of a chapter's "Claims, checked" table."""

    number: int
    claim: str
    verdict: str
    evidence: str


def claim_table(notebook: Path) -> list[Claim]:
    """Every numbered row of the chapter's "Claims, checked" table."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "\n".join(cell_source(c) for c in cells if c["cell_type"] == "markdown")
    if HEADING not in text:
        return []
    rows = []
    for line in text.split(HEADING, 1)[1].splitlines():
        if line.startswith("## "):
            break
        cells_ = [c.strip() for c in CELL_BORDER.split(line.strip().strip("|"))]
        if line.startswith("|") and len(cells_) >= 3 and cells_[0].isdigit():
            evidence = " | ".join(cells_[3:]) if len(cells_) > 3 else ""
            rows.append(Claim(int(cells_[0]), cells_[1], cells_[2], evidence))
    return rows


def claim_rows(notebook: Path) -> list[tuple[str, str]]:
    """(claim, verdict) for each row of the chapter's "Claims, checked" table."""
    return [(row.claim, row.verdict) for row in claim_table(notebook)]


def render_index(chapters: list[Path]) -> str:
    """The text of appendix/claims.md."""
    parts = [INTRO]
    for notebook in chapters:
        rows = claim_table(notebook)
        if not rows:
            continue
        link = f"../chapters/{notebook.name}#{ANCHOR}"
        parts.append(f"\n## [{chapter_title(notebook)}]({link})\n")
        parts.append("| # | claim | verdict | evidence |\n|---|---|---|---|")
        parts.extend(
            from_appendix(
                f"| {row.number} | {row.claim} | {row.verdict} | {row.evidence} |"
            )
            for row in rows
        )
    return "\n".join(parts) + "\n"


def from_appendix(text: str) -> str:
    """A chapter's text with its links to other chapters made relative to appendix/."""
    return re.sub(r"\]\((\d\d_[^)/]+\.ipynb)", r"](../chapters/\1", text)


def main() -> int:
    """Write the index, or with --check report whether it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if stale")
    args = parser.parse_args()
    text = render_index(sorted(CHAPTERS.glob("*.ipynb")))
    current = INDEX.read_text(encoding="utf-8") if INDEX.exists() else ""
    if args.check:
        if current != text:
            print("appendix/claims.md is stale: run `make export`")
            return 1
        return 0
    INDEX.write_text(text, encoding="utf-8")
    print(f"wrote {INDEX.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
