"""Sphinx extension: read encoderlib's docstrings as the Markdown-style text they are.

encoderlib's docstrings mark code with single backticks (`x @ W`), as the chapters'
Markdown does. reStructuredText, which autodoc uses, reads single backticks as
"interpreted text" and trailing underscores as link targets. This extension turns
each single-backtick span into an inline literal before autodoc parses it, so the
API reference shows code as code and the build stays free of warnings.
"""

import re

SINGLE_BACKTICKS = re.compile(r"(?<!`)`([^`\n]+)`(?!`)(?=(\w?))")


def as_literal(match: re.Match) -> str:
    """``code`` for `code`; a plural like `EncoderLayer`s gets RST's escaped space."""
    return f"``{match.group(1)}``" + ("\\ " if match.group(2) else "")


def literal_code(app, what, name, obj, options, lines: list[str]) -> None:
    """Rewrite `code` as ``code`` in place, leaving ``literals`` and roles alone."""
    for index, line in enumerate(lines):
        lines[index] = SINGLE_BACKTICKS.sub(as_literal, line)


def setup(app):
    """Register the docstring hook with Sphinx."""
    app.connect("autodoc-process-docstring", literal_code)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
