"""Chapters are stored executed top to bottom, without errors, as the book shows."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def code_cells(path: Path) -> list[dict]:
    return [
        c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"
    ]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_was_executed_top_to_bottom_in_one_run(path):
    counts = [
        c["execution_count"] for c in code_cells(path) if "".join(c["source"]).strip()
    ]
    assert counts == list(range(1, len(counts) + 1)), (
        f"execution counts {counts}: run `make execute NB={path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_has_no_stored_errors(path):
    for cell in code_cells(path):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", (
                f"{path.name}: stored error {output.get('ename')}"
            )
            assert output.get("name") != "stderr", (
                f"{path.name}: stored stderr output {output.get('text')}"
            )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_is_in_the_table_of_contents(path):
    toc = (ROOT / "_toc.yml").read_text()
    assert f"chapters/{path.stem}" in toc, f"{path.name} is not listed in _toc.yml"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_cell_has_a_unique_id(path):
    # nbformat 4.5 requires cell ids; a missing one is a warning now, an error later.
    ids = [cell.get("id") for cell in json.loads(path.read_text())["cells"]]
    assert None not in ids, f"{path.name}: a cell has no id"
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"
