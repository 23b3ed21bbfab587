"""The page budget counts what a reader meets: prose words, code lines not folded."""

import json

import page_budget


def notebook(tmp_path, cells):
    path = tmp_path / "99_example.ipynb"
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    return path


def cell(kind, text, *tags):
    return {"cell_type": kind, "source": text, "metadata": {"tags": list(tags)}}


def test_prose_leaves_out_code_fences_math_and_directive_options():
    text = (
        "Two words.\n\n```python\nx = 1 + 2\n```\n\n$$a = b$$\n\n"
        "```{figure} f.svg\n:name: fig\n```\n"
    )
    assert page_budget.prose_words(text) == 2


def test_folded_and_removed_cells_do_not_count(tmp_path):
    path = notebook(
        tmp_path,
        [
            cell("markdown", "One two three."),
            cell("markdown", "Hidden words here.", "remove-cell"),
            cell("code", "a = 1\n\nb = 2\n"),
            cell("code", "c = 3\n", "hide-input"),
            cell("code", "d = 4\n", "hide-cell"),
            cell("code", "e = 5\n", "remove-input"),
            cell("code", "f = 6\n", "nbval-ignore-output"),
        ],
    )
    assert page_budget.measure(path) == page_budget.Budget("99_example", 3, 3)


def test_a_chapter_over_either_limit_is_over_budget():
    assert page_budget.Budget("x", 4000, 500).within
    assert not page_budget.Budget("x", 4001, 10).within
    assert not page_budget.Budget("x", 10, 501).within


def test_every_chapter_is_within_budget_and_the_readme_table_is_current():
    budgets = [
        page_budget.measure(p) for p in sorted(page_budget.CHAPTERS.glob("*.ipynb"))
    ]
    assert [b.chapter for b in budgets if not b.within] == []
    readme = page_budget.README.read_text(encoding="utf-8")
    assert page_budget.readme_block(budgets) in readme, (
        "run tools/page_budget.py --write"
    )
