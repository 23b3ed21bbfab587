"""Measure every chapter against the page budget: prose words and visible code lines.

A chapter may hold at most 4,000 words of prose and 500 lines of code that a reader
sees without opening anything. Prose is the text of every markdown cell the book
shows (fenced code and display math left out). Visible code is every non-blank line
of a code cell that is neither folded (`hide-input`, `hide-cell`) nor removed
(`remove-input`, `remove-cell`). Run `python tools/page_budget.py` for the table,
`--write` to store it in README.md between its markers, and `--check` (what
`make test` runs) to fail when a chapter is over budget or the README's table is stale.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"
README = ROOT / "README.md"
MAX_WORDS = 4000
MAX_CODE_LINES = 500
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
BEGIN = "<!-- page-budget:begin (tools/page_budget.py --write) -->"
END = "<!-- page-budget:end -->"

FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
DIRECTIVE_OPTION = re.compile(r"^:[\w-]+:.*$", re.M)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
WORD = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class Budget:
    """One chapter's measured prose words and visible code lines."""

    chapter: str
    words: int
    code_lines: int

    @property
    def within(self) -> bool:
        """True when both measures are within the budget."""
        return self.words <= MAX_WORDS and self.code_lines <= MAX_CODE_LINES


def cell_text(cell: dict) -> str:
    """A notebook cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def prose_words(markdown: str) -> int:
    """Words a reader reads in one markdown cell (no code fences, no display math)."""
    for pattern in (FENCE, DISPLAY_MATH, HTML_COMMENT, DIRECTIVE_OPTION):
        markdown = pattern.sub(" ", markdown)
    return sum(1 for token in markdown.split() if WORD.search(token))


def measure(path: Path) -> Budget:
    """Measure one chapter notebook."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    words = code_lines = 0
    for cell in notebook["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & {"remove-cell"}:
            continue
        text = cell_text(cell)
        if cell["cell_type"] == "markdown":
            words += prose_words(text)
        elif cell["cell_type"] == "code" and not tags & FOLDED:
            code_lines += sum(1 for line in text.splitlines() if line.strip())
    return Budget(path.stem, words, code_lines)


def table(budgets: list[Budget]) -> str:
    """The budget table in Markdown, one row per chapter."""
    rows = [
        "| chapter | prose words (≤ 4,000) | visible code lines (≤ 500) |",
        "|---|---:|---:|",
    ]
    for budget in budgets:
        mark = "" if budget.within else " **over**"
        rows.append(
            f"| {budget.chapter} | {budget.words:,} | {budget.code_lines:,}{mark} |"
        )
    return "\n".join(rows)


def readme_block(budgets: list[Budget]) -> str:
    """The README's section between the markers, as --write stores it."""
    return f"{BEGIN}\n{table(budgets)}\n{END}"


def main() -> int:
    """Print, store or check the page budgets of every chapter."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--write", action="store_true", help="store the table in README.md"
    )
    group.add_argument(
        "--check", action="store_true", help="fail when over budget or stale"
    )
    args = parser.parse_args()
    budgets = [measure(path) for path in sorted(CHAPTERS.glob("*.ipynb"))]
    print(table(budgets))
    readme = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if args.write:
        if not pattern.search(readme):
            print(f"README.md has no {BEGIN!r} marker", file=sys.stderr)
            return 1
        README.write_text(
            pattern.sub(lambda _: readme_block(budgets), readme), encoding="utf-8"
        )
        return 0
    if args.check:
        over = [b.chapter for b in budgets if not b.within]
        if over:
            print(f"over the page budget: {', '.join(over)}", file=sys.stderr)
        stored = pattern.search(readme)
        stale = stored is None or stored.group(0) != readme_block(budgets)
        if stale:
            print(
                "README.md's page-budget table is stale: "
                "run tools/page_budget.py --write",
                file=sys.stderr,
            )
        return 1 if over or stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
