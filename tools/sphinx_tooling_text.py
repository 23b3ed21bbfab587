"""Sphinx extension: the book's code cells without the tooling text.

A chapter's code speaks to three audiences: the reader, the exporter and the linter.
The exporter's directives (`#| export`, `#| default_exp attention`) and the linter's
and formatter's comments (`# noqa: F401`, `# fmt: skip`) must stay in the notebooks,
where the tools read them, but they mean nothing to a reader of the book. This
extension removes them from every code cell's source on the rendered page (folded
cells included), after MyST-NB has read the notebook: a directive line goes, a
trailing tool comment goes, and blank lines left at the top of a cell go too; a
cell left with no code and no output (`#| default_exp attention`) goes whole. The
notebook, and so Colab and Jupyter, keep the text unchanged.
`tools/check_built_book.py` fails when any of it reaches a built page.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

DIRECTIVE_LINE = re.compile(r"^\s*#\|.*$")
TOOL_COMMENT = re.compile(
    r"\s*#\s*(?:noqa\b[:\w, ]*|fmt:\s*(?:skip|off|on)|type:\s*ignore\b\S*)\s*$"
)
# "# noqa: BLE001 (any failure means: run eager)": the reason stays, as a comment.
NOQA_WITH_REASON = re.compile(r"#\s*noqa\b(?::\s*[A-Z0-9, ]+)?\s*\((.*)\)\s*$")


def reader_text(source: str) -> str:
    """`source` as a reader should see it: no tool directives, no tool comments."""
    lines = []
    for line in source.splitlines():
        if DIRECTIVE_LINE.match(line):
            continue
        stripped = TOOL_COMMENT.sub("", NOQA_WITH_REASON.sub(r"# \1", line))
        if stripped.strip() == "" and line.strip() != "":
            continue  # the line held only a tool comment (`# fmt: off`)
        lines.append(stripped)
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


def enclosing(node: nodes.Node, css_class: str) -> nodes.Element | None:
    """The nearest ancestor of `node` whose classes include `css_class`."""
    parent = node.parent
    while parent is not None:
        if css_class in parent.get("classes", []):
            return parent
        parent = parent.parent
    return None


def strip_tooling_text(app: Sphinx, doctree: nodes.document) -> None:
    """Rewrite every code cell's literal block in a page that came from a notebook."""
    for block in list(doctree.findall(nodes.literal_block)):
        cell_input = enclosing(block, "cell_input")
        if cell_input is None:
            continue
        text = block.astext()
        clean = reader_text(text)
        if clean == text:
            continue
        if clean.strip():
            block.children = [nodes.Text(clean)]
            block.rawsource = clean
            continue
        # Nothing left (a `#| default_exp` cell): the empty box goes, and so does
        # the cell when it has no output.
        cell = enclosing(cell_input, "cell")
        cell_input.parent.remove(cell_input)
        if cell is not None and not any(
            "cell_output" in child.get("classes", [])
            for child in cell.children
            if isinstance(child, nodes.Element)
        ):
            cell.parent.remove(cell)


def setup(app: Sphinx) -> dict:
    """Register the transform; safe for parallel reads."""
    app.connect("doctree-read", strip_tooling_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
