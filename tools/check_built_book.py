"""Check the built book (_build/html) for what a reader with no network needs.

The book must render its math offline: MathJax ships with the build
(sphinx-mathjax-offline copies it to `_static/mathjax/`). This check reads every
HTML page of the build and fails when

- a page loads MathJax from anywhere but a file inside the build (a CDN, another
  host, a `file:` URL, a path that leaves the build folder),
- a page loads MathJax from a local path where no file exists,
- a MathJax configuration on a page points at a remote address,
- the MathJax that a page loads lacks the web fonts its CHTML output reads
  (`output/chtml/fonts/woff-v2/` beside the script),
- a page holds math (Sphinx's `class="math"` elements) but loads no MathJax,
- a page loads any other script from the network (the book must work offline),
- a page shows tooling text a reader has no use for: the exporter's `#| export`
  directives, `noqa` and `fmt:` comments (tools/sphinx_tooling_text.py removes
  them from code cells), or a reference to the design document.

`make test` runs it after building the book: `python tools/check_built_book.py
[BUILD_DIR]` (default `_build/html`) prints every problem and exits 1 if there is
one.
"""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUILD = ROOT / "_build" / "html"
# Folders of a Sphinx build that hold copies and assets, not pages a reader opens.
SKIPPED_DIRS = {"_static", "_sources", "_images", "_downloads", ".doctrees"}
# CHTML output (tex-chtml.js, tex-mml-chtml.js, mml-chtml.js...) loads its fonts
# from this folder, relative to the MathJax root where the script sits.
CHTML_FONTS = Path("output") / "chtml" / "fonts" / "woff-v2"
REMOTE_MATHJAX = re.compile(r"(?:https?:)?//[^\s\"'<>]*mathjax", re.IGNORECASE)
TOOLING_TEXT = re.compile(
    r"#\|\s*(?:export|exporti|reexport|default_exp)\b|#\s*noqa\b|#\s*fmt:\s*(?:skip|off|on)\b"
    r"|DESIGN(?:\.md)?\s*§|§\s*3a\b"
)


class PageScan(HTMLParser):
    """What a page loads: script sources, inline script text, and whether it
    holds math (an element whose classes include `math`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.script_sources: list[str] = []
        self.inline_scripts: list[str] = []
        self.has_math = False
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if "math" in (attributes.get("class") or "").split():
            self.has_math = True
        if tag == "script":
            source = attributes.get("src")
            if source:
                self.script_sources.append(source)
            else:
                self._in_script = True
                self.inline_scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline_scripts[-1] += data
        else:
            self.text.append(data)


def is_remote(source: str) -> bool:
    """True for an address with a scheme or a host (`https://`, `//cdn`, `file:`)."""
    parts = urlsplit(source)
    return bool(parts.scheme or parts.netloc)


def local_target(page: Path, source: str) -> Path:
    """The file a relative script address on `page` points to."""
    path = unquote(urlsplit(source).path)
    if path.startswith("/"):
        raise ValueError(f"an absolute path ({source})")
    return (page.parent / path).resolve()


def is_mathjax(source: str) -> bool:
    return "mathjax" in source.lower()


def chtml_fonts_missing(script: Path) -> bool:
    """True when a CHTML MathJax component has no fonts beside it."""
    if "chtml" not in script.name:
        return False
    fonts = script.parent / CHTML_FONTS
    return not (fonts.is_dir() and any(fonts.glob("*.woff*")))


def check_page(page: Path, build: Path) -> tuple[list[str], bool]:
    """The problems of one page, and whether it loads MathJax from the build."""
    scan = PageScan()
    scan.feed(page.read_text(encoding="utf-8", errors="replace"))
    name = page.relative_to(build).as_posix()
    problems, loads_mathjax = [], False
    names_mathjax = any(is_mathjax(source) for source in scan.script_sources)
    for source in scan.script_sources:
        if is_remote(source):
            what = "MathJax" if is_mathjax(source) else "a script"
            problems.append(f"{name}: loads {what} from the network: {source}")
            continue
        if not is_mathjax(source):
            continue
        try:
            target = local_target(page, source)
        except ValueError as error:
            problems.append(f"{name}: loads MathJax from {error}, not from the build")
            continue
        if not target.is_relative_to(build.resolve()):
            problems.append(f"{name}: loads MathJax from outside the build: {source}")
        elif not target.is_file():
            problems.append(
                f"{name}: loads MathJax from {source}, which does not exist"
            )
        elif chtml_fonts_missing(target):
            problems.append(
                f"{name}: the MathJax at {source} has no fonts in "
                f"{CHTML_FONTS.as_posix()}/ beside it"
            )
        else:
            loads_mathjax = True
    for text in scan.inline_scripts:
        for address in REMOTE_MATHJAX.findall(text):
            problems.append(f"{name}: a script points MathJax at {address}")
    if scan.has_math and not names_mathjax:
        problems.append(f"{name}: holds math but loads no MathJax")
    for match in sorted(set(TOOLING_TEXT.findall("".join(scan.text)))):
        problems.append(f"{name}: shows tooling text {match!r}")
    return problems, loads_mathjax


def pages(build: Path) -> list[Path]:
    """Every HTML page of the build that a reader opens."""
    return sorted(
        path
        for path in build.rglob("*.html")
        if not SKIPPED_DIRS.intersection(path.relative_to(build).parts[:-1])
    )


def check_build(build: Path) -> tuple[list[str], int, int]:
    """(problems, pages checked, pages that load MathJax from the build)."""
    if not (build / "index.html").is_file():
        return [f"{build} holds no built book (no index.html): run `make book`"], 0, 0
    problems, with_mathjax = [], 0
    found = pages(build)
    for page in found:
        page_problems, loads = check_page(page, build)
        problems += page_problems
        with_mathjax += loads
    return problems, len(found), with_mathjax


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", type=Path, default=DEFAULT_BUILD)
    args = parser.parse_args(argv)
    problems, checked, with_mathjax = check_build(args.build)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_built_book: {len(problems)} problem(s) in {args.build}")
        return 1
    print(
        f"check_built_book: {checked} pages, {with_mathjax} load MathJax from the "
        "build, none from the network"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
