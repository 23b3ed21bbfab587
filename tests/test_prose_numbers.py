"""Every number in a chapter's prose is computed by a cell, asserted, or cited.

`tools/prose_numbers.py` pulls the numbers out of each chapter's markdown and looks
for the same value among the numbers of its code cells and stored outputs.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import prose_numbers  # noqa: E402


@pytest.mark.parametrize("path", prose_numbers.CHAPTERS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_backed_by_a_cell(path):
    missing, stale = prose_numbers.check(path)
    report = "\n".join(f"{u.number!r}: {u.sentence[:200]}" for u in missing)
    assert not missing, (
        f"{len(missing)} numbers in {path.name}'s prose that no cell computes or "
        f"asserts (compute and assert them, cite them, or allow them in the "
        f"notebook's metadata with the reason):\n{report}"
    )
    assert not stale, f"allowed in {path.name}'s metadata but not in its prose: {stale}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("BERT-base has 12 layers, MiniLM 6.", ["12", "6"]),
        ("It has 1,112,064 code points and 65 M parameters.", ["1,112,064", "65"]),
        ("The ratio is 0.88× and the bound 1e-5.", ["0.88", "1e-5"]),
        ("Chapter 8 and chapters 10–12, §3a, exercise 7.2.", []),
        ("fp32, MiniLM-L6-v2 and $W_2$ hold no claims.", []),
        ("BERT has 110 M parameters (Devlin et al., 2018, arXiv:1810.04805).", []),
        ("Published in 2018.", []),
        ("# 10. Training a classifier", []),
        ("$147{,}840$ parameters.", ["147,840"]),
    ],
)
def test_what_counts_as_a_number_claim(text, expected):
    assert [n for n, _ in prose_numbers.prose_numbers(text)] == expected
