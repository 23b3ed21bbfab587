"""The book's own pages: the claims index, the API reference's docstring hooks and
the introduction's chapter map. They run without building the book."""

import json
import re
from pathlib import Path

import claims_index
import pytest
import sphinx_docstrings as docstrings

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
PAGES = docstrings.chapter_pages(ROOT)


# The claims index ----------------------------------------------------------------


def test_claims_index_links_each_chapter_to_its_claims_section():
    text = claims_index.render_index(CHAPTERS)
    headings = re.findall(r"^## \[(.+)\]\((.+)\)$", text, flags=re.MULTILINE)
    with_claims = [nb for nb in CHAPTERS if claims_index.claim_table(nb)]
    assert [link for _, link in headings] == [
        f"../chapters/{nb.name}#claims-checked" for nb in with_claims
    ]
    config = (ROOT / "_config.yml").read_text()
    assert re.search(r"^\s+myst_heading_anchors: [2-6]$", config, flags=re.MULTILINE)


def test_every_chapter_has_the_claims_heading_the_anchor_comes_from():
    for notebook in CHAPTERS:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        lines = [
            line
            for cell in cells
            if cell["cell_type"] == "markdown"
            for line in "".join(cell["source"]).splitlines()
        ]
        assert lines.count(claims_index.HEADING) == 1, notebook.name


def test_claims_index_keeps_number_claim_verdict_and_evidence():
    text = claims_index.render_index(CHAPTERS)
    assert text.count("| # | claim | verdict | evidence |") == len(
        [nb for nb in CHAPTERS if claims_index.claim_table(nb)]
    )
    for notebook in CHAPTERS:
        for row in claims_index.claim_table(notebook):
            line = f"| {row.number} | {row.claim} | {row.verdict} | {row.evidence} |"
            assert claims_index.from_appendix(line) in text
            assert row.evidence, f"{notebook.name} claim {row.number} has no evidence"


def test_chapter_links_in_claims_point_from_the_appendix():
    row = "| 1 | as [chapter 13](13_a_real_pretrained_encoder.ipynb) shows | ok |"
    assert claims_index.from_appendix(row) == (
        "| 1 | as [chapter 13](../chapters/13_a_real_pretrained_encoder.ipynb) "
        "shows | ok |"
    )


def test_claim_rows_split_on_unescaped_pipes_only(tmp_path):
    table = (
        "## Claims, checked\n\n| # | claim | verdict | evidence |\n|---|---|---|---|\n"
        "| 1 | $\\|x\\|$ is a norm | **true** | by definition |\n\n## Exercises\n"
        "| 2 | not a claim | **false** | after the section |\n"
    )
    notebook = tmp_path / "99_demo.ipynb"
    notebook.write_text(
        json.dumps({"cells": [{"cell_type": "markdown", "source": table}]})
    )
    assert claims_index.claim_table(notebook) == [
        claims_index.Claim(1, "$\\|x\\|$ is a norm", "**true**", "by definition")
    ]
    assert claims_index.claim_rows(notebook) == [("$\\|x\\|$ is a norm", "**true**")]


# The API reference's docstring hooks ------------------------------------------------


def test_single_backticks_become_literals():
    lines = ["Returns `EncoderOutput`s and `x @ W`, not ``this``."]
    assert docstrings.rewrite(lines, {}) == [
        "Returns ``EncoderOutput``\\ s and ``x @ W``, not ``this``."
    ]


def test_module_docstrings_link_their_source_chapters():
    lines = [
        "encoderlib.encoder, built in the Encoder Book:",
        "",
        "- 7. The encoder layer: post-norm and pre-norm "
        "(chapters/07_encoder_layer.ipynb)",
        "- 12. Contrastive sentence embeddings",
        "  (chapters/12_contrastive_sentence_embeddings.ipynb)",
        "- 17. Relative positions (chapters/17_relative_positions.ipynb)",
    ]
    pages = {7: "/chapters/07_encoder_layer", 12: "/chapters/12_contrastive"}
    assert docstrings.rewrite(lines, pages)[2:] == [
        "- :doc:`7. The encoder layer: post-norm and pre-norm "
        "</chapters/07_encoder_layer>`",
        "- :doc:`12. Contrastive sentence embeddings </chapters/12_contrastive>`",
        "- 17. Relative positions (planned)",
    ]


def test_chapter_mentions_become_links_and_planned_chapters_say_so():
    pages = {6: "/chapters/06_x", 9: "/chapters/09_y", 10: "/chapters/10_z"}
    text = (
        "which chapter 6 checks; Chapter 9's check; a chapter-6 tokenizer; "
        "chapters 9–10; chapter 16; chapter 17 (planned); ``chapter 6``"
    )
    assert docstrings.link_mentions(text, pages) == (
        "which :doc:`chapter 6 </chapters/06_x>` checks; "
        ":doc:`Chapter 9 </chapters/09_y>`'s check; "
        "a :doc:`chapter-6 </chapters/06_x>` tokenizer; "
        "chapters :doc:`9 </chapters/09_y>`–:doc:`10 </chapters/10_z>`; "
        "chapter 16 (planned); chapter 17 (planned); ``chapter 6``"
    )


def test_every_chapter_the_library_names_is_a_page_of_the_book():
    toc = (ROOT / "_toc.yml").read_text()
    for number, page in PAGES.items():
        assert f"file: {page.lstrip('/')}" in toc, f"chapter {number} not in _toc.yml"
    for path in sorted((ROOT / "encoderlib").glob("*.py")):
        for match in re.finditer(r"chapters/(\d\d)_\w+\.ipynb", path.read_text()):
            assert int(match.group(1)) in PAGES, f"{path.name}: {match.group()}"


def test_namedtuple_noise_is_left_out():
    from encoderlib.encoder import Encoder, EncoderOutput

    skip = docstrings.skip_builtin_members
    assert skip(None, "class", "count", EncoderOutput.count, False, {}) is True
    assert skip(None, "class", "index", EncoderOutput.index, False, {}) is True
    assert skip(None, "class", "attentions", EncoderOutput.attentions, False, {})
    assert skip(None, "class", "__new__", EncoderOutput.__new__, False, {}) is None
    assert skip(None, "class", "forward", Encoder.forward, False, {}) is None


def test_the_api_page_explains_the_two_layernorm_epsilons():
    api = (ROOT / "appendix" / "api.md").read_text()
    for section in ("## `encoderlib.layers`", "## `encoderlib.encoder`"):
        intro = api.split(section)[1].split("```{eval-rst}")[0]
        assert "1e-5" in intro and "1e-12" in intro, section


# The introduction's chapter map -------------------------------------------------------


def test_intro_links_every_written_chapter_and_marks_the_planned_ones():
    intro = (ROOT / "intro.md").read_text()
    chapter_map = intro.split("## Chapter map")[1]
    linked = re.findall(r"\]\((chapters/[^)]+\.ipynb)\)", chapter_map)
    assert linked == [f"chapters/{nb.name}" for nb in CHAPTERS]
    for number in range(len(CHAPTERS) + 1, docstrings.PLANNED_CHAPTERS + 1):
        assert re.search(rf"\b{number}\. [^·|]+ \(planned\)", chapter_map), number
    for target in re.findall(r"\]\(([^)#]+)", intro):
        assert (ROOT / target).is_file(), target


@pytest.mark.parametrize("page", ["intro.md", "appendix/api.md"])
def test_pages_mention_unwritten_chapters_only_as_planned(page):
    text = (ROOT / page).read_text()
    for match in re.finditer(r"[Cc]hapters? (\d+)(?! \(planned\))\b", text):
        assert int(match.group(1)) in PAGES, f"{page}: {match.group()} is not written"


# The book's style -------------------------------------------------------------------


def css_rules() -> dict[str, str]:
    """{selector list, spaces normalised: declarations} of the book's stylesheet."""
    css = (ROOT / "_static" / "encoder-book.css").read_text()
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    css = re.sub(r"@media[^{]*\{((?:[^{}]*\{[^}]*\})*)\s*\}", r"\1", css)
    return {
        " ".join(selector.split()): body
        for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", css)
    }


def test_outputs_keep_their_lines_and_prose_outputs_may_wrap():
    rules = css_rules()
    code = rules["div.cell div.highlight pre, div.cell div.cell_output pre"]
    assert "white-space: pre;" in code and "overflow-x: auto;" in code
    wrap = rules["div.cell div.cell_output pre.encoder-book-wrap"]
    assert "white-space: pre-wrap;" in wrap
    js = (ROOT / "_static" / "encoder-book.js").read_text()
    assert 'classList.add("encoder-book-wrap")' in js
    assert "border-collapse: collapse;" in rules["table.encoderlib-table"]
