"""The order in which `make test`'s two workers take the files: the longest first.

`make test` runs pytest with two xdist workers that take whole files (`--dist
loadfile`), in the order this hook leaves them (`--no-loadscope-reorder`; xdist's
own order, by the number of tests in a file, put the few-test, minutes-long study
reruns last). A worker that draws a long file at the end keeps the other one idle
until it is done. So the study reruns (tests/test_study_reruns_*.py) go first,
then the other test files, then the chapters, longest first by the cell times
their stored outputs record (`make execute` writes them): the short chapters fill
the end. Within a file the order stays as written, which a chapter's cells need.
"""

import json
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest


@cache
def stored_seconds(path: Path) -> float:
    """Seconds the chapter's code cells took when its outputs were last stored."""
    total = 0.0
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        times = cell.get("metadata", {}).get("execution", {})
        start, end = times.get("iopub.execute_input"), times.get("shell.execute_reply")
        if start and end:
            total += (
                datetime.fromisoformat(end.rstrip("Z"))
                - datetime.fromisoformat(start.rstrip("Z"))
            ).total_seconds()
    return total


def file_rank(path: Path) -> tuple[int, float]:
    """Where a file's tests go: reruns, other tests, chapters by stored time, longest
    first."""
    if path.suffix == ".ipynb":
        return 2, -stored_seconds(path)
    return (0 if path.name.startswith("test_study_reruns_") else 1), 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Sort the tests by their file's rank (a stable sort: a file keeps its order)."""
    items.sort(key=lambda item: file_rank(Path(item.path)))
