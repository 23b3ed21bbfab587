"""Every recorded table comes from a script in studies/; one seed of it reproduces.

For each `Study` in `studies/ch*.py`: the chapter's recorded table parses and is
written back character for character (the script prints exactly what the chapter
holds), and it is not a placeholder. A last test fails when a chapter records a
table (`RECORDED_... =`) that no study produces, or when a study's rerun is in none
of the tests/test_study_reruns_*.py files. Those files rerun each study's test seed
and compare it with the recorded row, within the study's stated tolerance, or on
another CPU with the range of the recorded seeds (`rerun` below). The reruns are
the slowest tests, so five files share them out between `make test`'s two
workers, which take whole files. A study whose chapter computes some of its rows
on the page and asserts them against the table (`Study.live_seeds`) is rerun by
nbval, in both numeric configurations, and by none of those files.
"""

import importlib
import json
import re
import sys
from pathlib import Path

import pytest
import torch

from encoderlib.progress import progress_bar
from studies.common import (
    CHAPTERS,
    Study,
    clamped_to_seeds,
    compute,
    is_placeholder,
    matches_a_seed,
    stand_in_for_ipython,
)

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "studies").glob("ch*.py"))


def all_studies() -> list[Study]:
    found = []
    for script in SCRIPTS:
        module = importlib.import_module(f"studies.{script.stem}")
        found.extend(module.STUDIES)
    return found


STUDIES = all_studies()
IDS = [f"{study.chapter[:2]}-{study.name}" for study in STUDIES]


@pytest.mark.parametrize("study", STUDIES, ids=IDS)
def test_recorded_table_is_what_the_study_prints(study: Study) -> None:
    rows = study.recorded()
    assert not is_placeholder(rows), (
        f"{study.name} in chapter {study.chapter} holds no measurement"
    )
    assert study.render(rows) == study.recorded_literal()


def rerun(study: Study) -> None:
    """Rerun the study's test seed here; fail unless it matches the recorded table.

    It matches its own row within the study's tolerance, or, on another CPU, lies
    within the recorded seeds' range (`matches_a_seed`): another machine is another
    seed.
    """
    if study.needs == "cuda" and not torch.cuda.is_available():
        pytest.skip("this study runs on a CUDA GPU only")
    recorded = study.recorded()
    seed = study.test_seed
    device = "cuda" if study.needs == "cuda" else "cpu"
    row = compute(study, [seed], device=device, progress=False)[seed]
    where = "the recorded seeds' range" if study.seeded else "its tolerance"
    assert matches_a_seed(study, seed, row), (
        f"seed {seed}: recorded {recorded[seed]!r}, computed {row!r}, outside {where}"
    )


def studies_of(*chapters: str) -> list[Study]:
    """The studies of the chapters numbered `chapters` ("07", ...) that a rerun file
    reruns: those whose chapter does not check rows of its own (`live_seeds`)."""
    return [
        study
        for study in STUDIES
        if study.chapter[:2] in chapters and not study.live_seeds
    ]


RERUN_FILES = sorted(Path(__file__).parent.glob("test_study_reruns_*.py"))


def test_every_study_is_rerun_by_one_file() -> None:
    named = [re.search(r"studies_of\(([^)]*)\)", f.read_text()) for f in RERUN_FILES]
    chapters = [
        c for match in named if match for c in re.findall(r'"(\d\d)"', match[1])
    ]
    rerun = {study.chapter[:2] for study in STUDIES if not study.live_seeds}
    assert set(chapters) <= {study.chapter[:2] for study in STUDIES}
    assert rerun <= set(chapters) and len(chapters) == len(set(chapters))


def code_sources(path: Path) -> list[str]:
    """The source of every code cell of the notebook at `path`, in order."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


LIVE = [study for study in STUDIES if study.live_seeds]


@pytest.mark.parametrize("study", LIVE, ids=[f"{s.chapter[:2]}-{s.name}" for s in LIVE])
def test_a_study_its_chapter_checks_is_asserted_after_its_table(study: Study) -> None:
    # The page's live run of `live_seeds` stands in for a rerun: some code cell from
    # the one assigning the table on asserts on that table, named in the cell.
    cells = code_sources(CHAPTERS / f"{study.chapter}.ipynb")
    first = next(i for i, s in enumerate(cells) if f"{study.name} =" in s)
    assert any(
        study.name in source and re.search(r"^\s*assert\b", source, re.M)
        for source in cells[first:]
    ), f"chapter {study.chapter} asserts nothing on {study.name} after assigning it"
    assert set(study.live_seeds) <= set(study.recorded())


def test_every_recorded_table_has_a_study() -> None:
    produced = {(study.chapter, study.name) for study in STUDIES}
    recorded = set()
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        for source in code_sources(path):
            for name in re.findall(r"^(RECORDED_\w+) =", source, re.M):
                recorded.add((path.stem, name))
    assert recorded <= produced, (
        f"tables without a study: {sorted(recorded - produced)}"
    )


def test_a_study_runs_where_ipython_is_absent(monkeypatch, capsys) -> None:
    # A bare GPU machine has no IPython: chapter cells still display, and train's
    # progress bar still asks whether it runs in a notebook (it does not).
    monkeypatch.setitem(sys.modules, "IPython", None)  # import IPython fails
    monkeypatch.setitem(sys.modules, "IPython.display", None)
    stand_in_for_ipython()
    from IPython.display import display

    display("shown")
    assert sum(progress_bar(range(3), desc="steps")) == 3
    assert "shown" in capsys.readouterr().out


def test_a_rerun_on_another_cpu_counts_as_another_seed(monkeypatch) -> None:
    def agree(recorded, computed):  # every field within 1
        return all(abs(a - b) <= 1 for a, b in zip(recorded, computed, strict=True))

    study = Study("00_toy", "RECORDED_TOY", range(3), None, repr, dict, agree)
    rows = {0: (10, 0.5), 1: (20, 0.7), 2: (15, 0.9)}
    monkeypatch.setattr(study, "recorded", lambda: rows)
    assert matches_a_seed(study, 0, (10.5, 0.5))  # its own row
    assert matches_a_seed(study, 0, (19, 0.8))  # inside the seeds' range
    assert matches_a_seed(study, 0, (21, 1.9))  # outside, within the tolerance
    assert not matches_a_seed(study, 0, (22, 0.5))
    assert not matches_a_seed(study, 0, (15, -0.6))
    study.seeded = False  # rows of a benchmark: only its own row counts
    assert not matches_a_seed(study, 0, (19, 0.8))


def test_seeds_range_is_taken_field_by_field() -> None:
    rows = [{"a": [1, None], "b": "x"}, {"a": [3, None], "b": "y"}]
    assert clamped_to_seeds(rows, {"a": [5, None], "b": "y"}) == {
        "a": [3, None],
        "b": "y",
    }
    assert clamped_to_seeds(rows, {"a": [0, None], "b": "z"}) == {
        "a": [1, None],
        "b": "x",
    }
    assert clamped_to_seeds([(1, 2), (3, 4)], (9, 9, 9)) == (1, 2)  # agree judges
