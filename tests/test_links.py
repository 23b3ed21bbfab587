"""Chapter mentions are links, planned chapters say so, and local links resolve."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
PAGES = [ROOT / "intro.md", *sorted((ROOT / "appendix").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")


def test_every_chapter_mention_is_a_link():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "link_chapters.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, (
        "plain 'chapter N' mentions left (run python tools/link_chapters.py):\n"
        + result.stdout
    )


def markdown_of(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )


@pytest.mark.parametrize("path", CHAPTERS + PAGES, ids=lambda p: p.name)
def test_local_links_point_at_files_that_exist(path):
    for target in LINK.findall(markdown_of(path)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        file = target.split("#", 1)[0]
        assert (path.parent / file).exists(), f"{path.name} links to missing {target}"


@pytest.mark.parametrize("path", CHAPTERS + PAGES, ids=lambda p: p.name)
def test_no_written_chapter_is_called_planned(path):
    written = {int(p.name[:2]) for p in CHAPTERS}
    text = markdown_of(path)
    mention = re.compile(r"\b(\d+)\]?(?:\([^)\s]*\))? \(planned\)")
    stale = [int(n) for n in mention.findall(text) if int(n) in written]
    assert not stale, f"{path.name} calls written chapters {stale} '(planned)'"
