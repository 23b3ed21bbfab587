"""Turn "chapter N" in the book's prose into links, and mark unwritten chapters.

A reader who meets "chapter 8 showed why" should be one click from chapter 8, in
the book and in Jupyter or Colab alike. This tool rewrites every plain mention
of a chapter number in the chapters' markdown cells and in the book's Markdown
pages: "chapter 8" becomes `[chapter 8](08_the_stack.ipynb)`, "chapters 10–12"
links both numbers. A chapter that the plan of ../shared/DESIGN.md §5 names but
the book does not have yet is not linked; it is marked "(planned)" instead.
Mentions inside code, math, links, HTML and headings are left alone, and so is a
chapter's mention of itself by its number alone. Run `python
tools/link_chapters.py` to rewrite, or with `--check` to fail when something
would change (a test does that).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTER_DIR = ROOT / "chapters"
PAGES = [ROOT / "intro.md", ROOT / "appendix" / "api.md"]
PLANNED_UP_TO = 23  # the design plans chapters 1–23

# Spans that must not change: fenced code, inline code, math, links, images, HTML.
PROTECTED = re.compile(
    r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|!?\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>",
    re.DOTALL,
)
MENTION = re.compile(
    r"\b(?P<word>[Cc]hapters?)\s+(?P<numbers>\d+(?:\s*(?:–|-|,|and|or|to)\s*\d+)*)"
    r"(?P<planned>\s*\(planned\))?"
)
NUMBER = re.compile(r"\d+")
# A link to a chapter that is written, still followed by an old "(planned)".
WRITTEN_BUT_PLANNED = re.compile(r"(\]\([^)\s]*?(\d\d_\w+\.ipynb)\)) \(planned\)")


def chapter_files() -> dict[int, str]:
    """{chapter number: notebook file name} for the chapters the book has."""
    files = {}
    for path in sorted(CHAPTER_DIR.glob("[0-9][0-9]_*.ipynb")):
        files[int(path.name[:2])] = path.name
    return files


def link_numbers(
    numbers: str, files: dict[int, str], prefix: str, self_number: int | None
) -> tuple[str, bool]:
    """The numbers of one mention with each written chapter linked; and whether a
    planned (unwritten) chapter is among them."""
    planned = False

    def one(match: re.Match) -> str:
        nonlocal planned
        number = int(match.group())
        if number in files and number != self_number:
            return f"[{match.group()}]({prefix}{files[number]})"
        if number not in files and number <= PLANNED_UP_TO:
            planned = True
        return match.group()

    return NUMBER.sub(one, numbers), planned


def link_text(
    text: str, files: dict[int, str], prefix: str, self_number: int | None = None
) -> str:
    """`text` with its chapter mentions linked (protected spans unchanged)."""

    def rewrite(plain: str) -> str:
        def mention(match: re.Match) -> str:
            numbers = match.group("numbers")
            single = NUMBER.fullmatch(numbers) is not None
            skip = self_number if single else None  # a range may include this one
            linked_numbers, planned = link_numbers(numbers, files, prefix, skip)
            word = match.group("word")
            if single and linked_numbers != numbers:
                # One chapter: the whole phrase is the link, "[chapter 8](...)".
                target = linked_numbers[linked_numbers.index("(") :]
                linked = f"[{word} {numbers}]{target}"
            else:  # "chapters [10](...)–[12](...)"
                linked = f"{word} {linked_numbers}"
            if planned:  # an old "(planned)" after a written chapter is dropped
                linked += " (planned)"
            return linked

        return MENTION.sub(mention, plain)

    out, last = [], 0
    for match in PROTECTED.finditer(text):
        out.append(rewrite_outside_headings(text[last : match.start()], rewrite))
        out.append(match.group())
        last = match.end()
    out.append(rewrite_outside_headings(text[last:], rewrite))
    return WRITTEN_BUT_PLANNED.sub(
        lambda m: m.group(1) if m.group(2) in files.values() else m.group(0),
        "".join(out),
    )


def rewrite_outside_headings(text: str, rewrite) -> str:
    """Apply `rewrite` to every line of `text` that is not a Markdown heading."""
    parts = re.split(r"(^#{1,6} [^\n]*$)", text, flags=re.MULTILINE)
    return "".join(
        part if re.match(r"#{1,6} ", part) else rewrite(part) for part in parts
    )


def process_notebook(path: Path, files: dict[int, str], write: bool) -> bool:
    """Link the mentions in one chapter's markdown cells; True if anything changed."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    self_number = int(path.name[:2])
    changed = False
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        new = link_text(text, files, "", self_number)
        if new != text:
            changed = True
            cell["source"] = new.splitlines(keepends=True)
    if changed and write:
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
    return changed


def process_page(path: Path, files: dict[int, str], write: bool) -> bool:
    """Link the mentions in one Markdown page of the book."""
    text = path.read_text(encoding="utf-8")
    prefix = os.path.relpath(CHAPTER_DIR, path.parent) + "/"
    new = link_text(text, files, prefix)
    if new != text and write:
        path.write_text(new, encoding="utf-8")
    return new != text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing")
    args = parser.parse_args()
    files = chapter_files()
    changed = [
        path.relative_to(ROOT)
        for path in sorted(CHAPTER_DIR.glob("[0-9][0-9]_*.ipynb"))
        if process_notebook(path, files, not args.check)
    ]
    changed += [
        path.relative_to(ROOT)
        for path in PAGES
        if path.exists() and process_page(path, files, not args.check)
    ]
    verb = "would change" if args.check else "changed"
    for path in changed:
        print(f"{verb} {path}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
