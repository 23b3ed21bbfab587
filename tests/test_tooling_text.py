"""Pages show code as a reader needs it: no exporter directives, no linter comments."""

import check_built_book
import sphinx_tooling_text as tooling


def test_directives_and_tool_comments_leave_the_rendered_cell():
    source = (
        "#| export\n"
        "\n"
        "import einops  # noqa: F401\n"
        "ROWS = (1,\n"
        ")  # fmt: skip\n"
        "# fmt: off\n"
        "except_ok = 1  # noqa: BLE001 (any failure means: run eager)\n"
        "kept = '# a string, not a comment'\n"
    )
    assert tooling.reader_text(source) == (
        "import einops\n"
        "ROWS = (1,\n"
        ")\n"
        "except_ok = 1  # any failure means: run eager\n"
        "kept = '# a string, not a comment'"
    )


def test_plain_code_is_unchanged():
    source = "x = torch.ones(3)  # (n,)\nprint(x)"
    assert tooling.reader_text(source) == source


def test_the_built_book_check_names_tooling_text(tmp_path):
    page = tmp_path / "chapters" / "x.html"
    page.parent.mkdir()
    page.write_text(
        "<html><body><pre><span>#| export</span>\nx = 1  <span># noqa: F811</span>"
        "</pre><p>as DESIGN §3a says</p></body></html>"
    )
    problems, _ = check_built_book.check_page(page, tmp_path)
    assert any("#| export" in p for p in problems)
    assert any("noqa" in p for p in problems)
    assert any("DESIGN" in p for p in problems)
