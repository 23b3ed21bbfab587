"""tools/check_built_book.py: the built book renders math with no network.

The check runs after the book build in `make test`; these tests run it on tiny
synthetic builds, so they need no build and take milliseconds.
"""

import importlib
from pathlib import Path

import check_built_book as check
import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCAL = "../_static/mathjax/tex-chtml.js?v=20daa33d"
MATH = '<span class="math notranslate nohighlight">\\(x W + b\\)</span>'


def page(*scripts: str, body: str = MATH) -> str:
    tags = "".join(
        f'<script defer="defer" src="{s}"></script>' if not s.startswith("<") else s
        for s in scripts
    )
    return f"<html><head>{tags}</head><body>{body}</body></html>"


def make_build(tmp_path: Path, chapter: str, fonts: bool = True) -> Path:
    """A build folder with index.html, one chapter page and MathJax in _static."""
    build = tmp_path / "html"
    mathjax = build / "_static" / "mathjax"
    mathjax.mkdir(parents=True)
    (mathjax / "tex-chtml.js").write_text("/* MathJax */")
    if fonts:
        (mathjax / check.CHTML_FONTS).mkdir(parents=True)
        (mathjax / check.CHTML_FONTS / "MathJax_Main-Regular.woff").write_bytes(b"w")
    (build / "index.html").write_text(page(body="<p>no math</p>"))
    (build / "chapters").mkdir()
    (build / "chapters" / "07_encoder_layer.html").write_text(chapter)
    return build


def test_local_mathjax_that_exists_passes(tmp_path):
    build = make_build(tmp_path, page(LOCAL))
    problems, checked, with_mathjax = check.check_build(build)
    assert problems == [] and checked == 2 and with_mathjax == 1


@pytest.mark.parametrize(
    "source",
    [
        "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js",
        "//cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js",
        "file:///usr/share/javascript/mathjax/MathJax.js",
    ],
)
def test_mathjax_from_the_network_fails(tmp_path, source):
    problems, _, _ = check.check_build(make_build(tmp_path, page(source)))
    assert problems == [
        f"chapters/07_encoder_layer.html: loads MathJax from the network: {source}"
    ]


def test_a_local_path_with_no_file_fails(tmp_path):
    source = "../_static/mathjax/tex-mml-chtml.js"
    problems, _, _ = check.check_build(make_build(tmp_path, page(source)))
    assert problems == [
        f"chapters/07_encoder_layer.html: loads MathJax from {source}, "
        "which does not exist"
    ]


def test_a_path_out_of_the_build_fails(tmp_path):
    build = make_build(tmp_path, page("../../mathjax/tex-chtml.js"))
    (tmp_path / "mathjax").mkdir()
    (tmp_path / "mathjax" / "tex-chtml.js").write_text("/* outside */")
    problems, _, _ = check.check_build(build)
    assert len(problems) == 1 and "outside the build" in problems[0]


def test_an_absolute_path_fails(tmp_path):
    build = make_build(tmp_path, page("/_static/mathjax/tex-chtml.js"))
    problems, _, _ = check.check_build(build)
    assert len(problems) == 1 and "absolute path" in problems[0]


def test_mathjax_without_its_fonts_fails(tmp_path):
    problems, _, _ = check.check_build(make_build(tmp_path, page(LOCAL), fonts=False))
    assert len(problems) == 1 and "has no fonts" in problems[0]


def test_math_with_no_mathjax_at_all_fails(tmp_path):
    problems, _, _ = check.check_build(make_build(tmp_path, page()))
    assert problems == [
        "chapters/07_encoder_layer.html: holds math but loads no MathJax"
    ]


def test_a_config_that_points_mathjax_at_a_cdn_fails(tmp_path):
    config = (
        "<script>window.MathJax = {loader: {paths: "
        "{mathjax: 'https://cdn.jsdelivr.net/npm/mathjax@3/es5'}}}</script>"
    )
    problems, _, _ = check.check_build(make_build(tmp_path, page(config, LOCAL)))
    assert problems == [
        "chapters/07_encoder_layer.html: a script points MathJax at "
        "https://cdn.jsdelivr.net/npm/mathjax"
    ]


def test_any_script_from_the_network_fails(tmp_path):
    source = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js"
    problems, _, _ = check.check_build(make_build(tmp_path, page(LOCAL, source)))
    assert problems == [
        f"chapters/07_encoder_layer.html: loads a script from the network: {source}"
    ]


def test_pages_in_static_folders_are_not_checked(tmp_path):
    build = make_build(tmp_path, page(LOCAL))
    (build / "_static" / "demo.html").write_text(page("https://cdn.example/mathjax.js"))
    assert check.check_build(build)[0] == []


def test_main_exit_status_and_report(tmp_path, capsys):
    good = make_build(tmp_path / "good", page(LOCAL))
    assert check.main([str(good)]) == 0
    assert "none from the network" in capsys.readouterr().out
    bad = make_build(tmp_path / "bad", page("https://cdn.jsdelivr.net/mathjax.js"))
    assert check.main([str(bad)]) == 1
    assert "1 problem(s)" in capsys.readouterr().out
    assert check.main([str(tmp_path / "nothing")]) == 1
    assert "run `make book`" in capsys.readouterr().out


def test_the_book_ships_mathjax_from_a_pinned_package():
    # Before any build: the extension is configured, pinned, declared, installed,
    # and the file it points the pages at is in the package.
    config = (ROOT / "_config.yml").read_text()
    assert (
        "sphinx-mathjax-offline" in config.split("extra_extensions:")[1].split("\n")[0]
    )
    pins = (ROOT / "constraints.txt").read_text().splitlines()
    assert "sphinx-mathjax-offline==0.0.2" in pins
    book_extra = (ROOT / "pyproject.toml").read_text().split("\nbook = [")[1]
    assert '"sphinx-mathjax-offline' in book_extra.split("\n]")[0]
    extension = importlib.import_module("sphinx-mathjax-offline")
    static = Path(extension.__file__).parent / "static"

    class App:  # what setup() touches
        config = type("Config", (), {})()

        def connect(self, event, handler):
            self.event = event

    app = App()
    extension.setup(app)
    assert app.event == "build-finished"
    script = static / app.config.mathjax_path
    assert script.is_file() and not check.chtml_fonts_missing(script)
