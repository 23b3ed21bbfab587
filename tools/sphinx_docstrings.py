"""Sphinx extension: encoderlib's docstrings, as the API reference shows them.

encoderlib's docstrings are written for `help()` and for the chapters, in the
chapters' Markdown style. Three things would read badly in the book's API
reference (appendix/api.md), and this extension fixes them before autodoc parses
the text:

- Code marked with single backticks (`x @ W`): reStructuredText reads that as
  "interpreted text" (and trailing underscores as link targets). Each span
  becomes an inline literal.
- Chapter references: "chapter 6", "Chapter 9's", a module docstring's
  "- 7. The encoder layer (chapters/07_encoder_layer.ipynb)" become links to the
  chapter's page. A chapter of the plan (DESIGN §5) that the book does not have
  yet is marked "(planned)" instead.
- NamedTuple noise: the results that are NamedTuples (`EncoderOutput`,
  `MLMOutput`, `STSPairs`) would list tuple's own `count` and `index`
  (`index(value, start=0, stop=9223372036854775807)`) and each field again,
  as "Alias for field number 0", in alphabetical order. Members inherited from a
  built-in type and the field aliases are skipped: the class's signature and
  its parameter list already name every field, in order, with its type.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

# The plan has 23 chapters (1–19 written); a higher number is a typo.
PLANNED_CHAPTERS = 23

SINGLE_BACKTICKS = re.compile(r"(?<!`)`([^`\n]+)`(?!`)(?=(\w?))")
# What a link must not be put into: literals, roles and their targets, URLs.
PROTECTED = re.compile(r"``.+?``|:[\w:.-]+:`[^`]*`|`[^`]*`_{0,2}|https?://\S+")
# "chapter 8", "Chapter 9's", "chapters 10–12", "chapter-2 tokenizer".
MENTION = re.compile(
    r"(?<![\w/])(?P<word>[Cc]hapters?)(?P<sep>[ -])"
    r"(?P<numbers>\d+(?:\s*(?:–|,|and|or|to)\s*\d+)*)\b(?P<planned> \(planned\))?"
)
NUMBER = re.compile(r"\d+")
# A module docstring's list of source chapters: "- 7. Title (chapters/07_x.ipynb)",
# the path sometimes wrapped onto the next line.
SOURCE_ITEM = re.compile(
    r"^(?P<indent>\s*)- (?P<title>\d+\.[^\n]*?)\s*\n?\s*"
    r"\((?P<path>chapters/\d\d_[\w-]+)\.ipynb\)",
    re.MULTILINE,
)
FIELD_ALIAS = re.compile(r"^Alias for field number \d+$")


def as_literal(match: re.Match) -> str:
    """``code`` for `code`; a plural like `EncoderLayer`s gets RST's escaped space."""
    return f"``{match.group(1)}``" + ("\\ " if match.group(2) else "")


@functools.cache
def chapter_pages(srcdir: str | Path) -> dict[int, str]:
    """{chapter number: document name} for the chapters the book has."""
    return {
        int(path.name[:2]): f"/chapters/{path.stem}"
        for path in sorted((Path(srcdir) / "chapters").glob("[0-9][0-9]_*.ipynb"))
    }


def link_mentions(text: str, pages: dict[int, str]) -> str:
    """`text` (reST) with every chapter mention outside literals made a :doc: link."""

    def mention(match: re.Match) -> str:
        word, sep, numbers = match["word"], match["sep"], match["numbers"]
        planned = False

        def one(number_match: re.Match) -> str:
            nonlocal planned
            number = int(number_match.group())
            if number in pages:
                return f":doc:`{number} <{pages[number]}>`"
            planned = planned or number <= PLANNED_CHAPTERS
            return number_match.group()

        if NUMBER.fullmatch(numbers) and int(numbers) in pages:
            linked = f":doc:`{word}{sep}{numbers} <{pages[int(numbers)]}>`"
        else:  # "chapters :doc:`10 <…>`–:doc:`12 <…>`", or a planned chapter
            linked = f"{word}{sep}{NUMBER.sub(one, numbers)}"
        if planned or match["planned"]:
            linked += " (planned)"
        return linked

    out, last = [], 0
    for match in PROTECTED.finditer(text):
        out.append(MENTION.sub(mention, text[last : match.start()]))
        out.append(match.group())
        last = match.end()
    out.append(MENTION.sub(mention, text[last:]))
    return "".join(out)


def rewrite(lines: list[str], pages: dict[int, str]) -> list[str]:
    """The docstring's reST lines with literals and chapter links."""
    text = "\n".join(SINGLE_BACKTICKS.sub(as_literal, line) for line in lines)

    def source_item(match: re.Match) -> str:
        number = int(Path(match["path"]).name[:2])
        if number not in pages:
            return f"{match['indent']}- {match['title']} (planned)"
        return f"{match['indent']}- :doc:`{match['title']} <{pages[number]}>`"

    text = SOURCE_ITEM.sub(source_item, text)
    return link_mentions(text, pages).split("\n")


def process_docstring(app, what, name, obj, options, lines: list[str]) -> None:
    """autodoc-process-docstring: rewrite the docstring's lines in place."""
    lines[:] = rewrite(lines, chapter_pages(str(app.srcdir)))


def skip_builtin_members(app, what, name, obj, skip, options) -> bool | None:
    """autodoc-skip-member: leave out what a class inherits from a built-in type
    (tuple's `count` and `index` on a NamedTuple) and a NamedTuple's field
    aliases; decide nothing else."""
    owner = getattr(obj, "__objclass__", None)
    if isinstance(owner, type) and owner.__module__ == "builtins":
        return True
    if FIELD_ALIAS.match(getattr(obj, "__doc__", None) or ""):
        return True
    return None


def setup(app):
    """Register the docstring hooks with Sphinx."""
    app.connect("autodoc-process-docstring", process_docstring)
    app.connect("autodoc-skip-member", skip_builtin_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
