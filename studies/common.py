"""The harness every study shares: seeds in, the chapter's recorded table out.

A chapter's prose rests on tables it records (`RECORDED_STUDY = ...`): seed studies
too slow for the page, GPU runs, benchmarks. Each table has one script in
`studies/`, named after its chapter (`studies/ch09_pooling.py`), that builds a
`Study` and hands it to `main`. The script prints a header (the command, the
versions, the device, the threads) and then the assignment exactly as the chapter
holds it, ready to paste. `make study CH=09` runs a chapter's studies with the
seeds the chapter recorded; `SEEDS=0:3` picks others and `DEVICE=cuda` a GPU.

The experiment itself is the chapter's code, not a copy: `chapter_namespace`
runs the chapter's code cells tagged `study` (in order) and returns the names they
define, so the page and the script cannot drift apart. `tests/test_studies.py`
reruns one seed of every study and checks it against the chapter's row with the
study's own tolerance (on another CPU, against the range of the recorded seeds:
`matches_a_seed`), and checks that each recorded table is real: parsed by the
study, written back identically, not all zeros.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import json
import os
import platform
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"
STUDY_TAG = "study"


@dataclass
class Study:
    """One recorded table: how to compute a row, and how the chapter writes the table.

    `run_seed(seed, device)` computes one row (any value `render` accepts); `render`
    turns `{seed: row}` into the literal the chapter assigns to `name` (a Python
    expression, usually a triple-quoted string); `parse` reads that literal's value
    back into `{seed: row}`; `agree(recorded, computed)` is the chapter's stated
    tolerance for one row. `seeds` are the seeds the chapter recorded (a table that is
    not a seed study, such as a benchmark, has rows 0, 1, ...); `test_seed` is the one
    `tests/test_studies.py` reruns (cheap, recorded on a CPU like CI's). `needs` is
    "cuda" for a study that only a GPU can run (its test is skipped without one).
    `seeded` is False for a table whose rows are not seeds of one experiment (the
    settings of a measurement, the runs of a benchmark): `matches_a_seed` then holds
    a rerun to its own row only. `live_seeds` are rows the chapter computes on its
    own page, with the same functions, and asserts against this table after it
    (within the study's tolerance of the recorded seeds' range, as `matches_a_seed`
    does); nbval runs that assert under both of `make test`'s numeric
    configurations, so `tests/test_studies.py` reruns no row of such a study.
    """

    chapter: str
    name: str
    seeds: Sequence[int]
    run_seed: Callable[[int, str], Any]
    render: Callable[[dict[int, Any]], str]
    parse: Callable[[Any], dict[int, Any]]
    agree: Callable[[Any, Any], bool]
    test_seed: int = 0
    threads: int = 1
    description: str = ""
    needs: str = "cpu"
    seeded: bool = True
    live_seeds: Sequence[int] = ()

    def recorded_literal(self) -> str:
        """The source text of the chapter's assignment's right-hand side."""
        source, node = _recorded_assignment(self.chapter, self.name)
        return ast.get_source_segment(source, node.value) or ""

    def recorded(self) -> dict[int, Any]:
        """The chapter's recorded table, parsed into `{seed: row}`."""
        source, node = _recorded_assignment(self.chapter, self.name)
        return self.parse(ast.literal_eval(node.value))


def _cells(chapter: str) -> list[dict]:
    path = CHAPTERS / f"{chapter}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def _recorded_assignment(chapter: str, name: str) -> tuple[str, ast.Assign]:
    for cell in _cells(chapter):
        if cell["cell_type"] != "code" or f"{name} =" not in _source(cell):
            continue
        source = _source(cell)
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == name
                for target in node.targets
            ):
                return source, node
    raise LookupError(f"chapter {chapter} assigns no {name}")


def stand_in_for_ipython() -> None:
    """Where IPython is absent, put a small stand-in for it in `sys.modules`.

    Chapter cells may `from IPython.display import display`, and
    `encoderlib.progress` asks `IPython.get_ipython()` whether it runs in a
    notebook; a study runs outside Jupyter, on machines where IPython may be
    absent (a bare GPU machine). There, display prints, which is what it does
    outside a notebook anyway, and get_ipython says there is no shell, as
    IPython's own does in a script. With IPython installed, nothing changes.
    """
    try:
        import IPython.display  # noqa: F401
    except ImportError:
        stand_in = types.ModuleType("IPython.display")
        stand_in.display = print
        package = types.ModuleType("IPython")
        package.display = stand_in
        package.get_ipython = lambda: None
        sys.modules.update({"IPython": package, "IPython.display": stand_in})


@functools.cache
def chapter_namespace(chapter: str, tag: str = STUDY_TAG) -> dict[str, Any]:
    """Run the chapter's code cells tagged `tag`, in order, once; return their names."""
    # A module of its own, known to sys.modules, so that a dataclass or a pickled
    # object defined in a chapter cell can find the module it belongs to.
    module = sys.modules.setdefault(
        f"study_{chapter}", types.ModuleType(f"study_{chapter}")
    )
    namespace: dict[str, Any] = module.__dict__
    cells = [c for c in _cells(chapter) if tag in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise LookupError(f"chapter {chapter} has no code cell tagged {tag!r}")
    stand_in_for_ipython()
    with contextlib.redirect_stdout(
        sys.stderr
    ):  # the chapter's prints are not the table
        for cell in cells:
            exec(compile(_source(cell), f"{chapter}.ipynb[{tag}]", "exec"), namespace)
    return namespace


def parse_seeds(text: str) -> list[int]:
    """Seeds from the command line: `7`, `0:45` (a range) or `0,3,9`."""
    if ":" in text:
        start, stop = text.split(":")
        return list(range(int(start), int(stop)))
    return [int(part) for part in text.split(",") if part]


def header(study: Study, device: str, threads: int, seeds: Iterable[int]) -> str:
    """The comment lines above a printed table: command, versions, device, threads."""
    import torch

    seeds = list(seeds)
    seed_text = (
        f"{seeds[0]}:{seeds[-1] + 1}"
        if seeds == list(range(seeds[0], seeds[-1] + 1))
        else ",".join(map(str, seeds))
    )
    command = f"make study CH={study.chapter[:2]} SEEDS={seed_text}"
    if device != "cpu":
        command += f" DEVICE={device}"
    accelerator = (
        torch.cuda.get_device_name(0)
        if device.startswith("cuda")
        else platform.processor() or platform.machine()
    )
    return "\n".join(
        [
            f"# {study.name}: {study.description}".rstrip(": "),
            f"# command: {command}",
            f"# torch {torch.__version__}, python {platform.python_version()}, "
            f"device {device} ({accelerator}), threads {threads}",
        ]
    )


def is_placeholder(rows: dict[int, Any]) -> bool:
    """True when a recorded table holds no measurement: empty, or every number zero."""

    def numbers(value: Any) -> list[float]:
        if isinstance(value, bool):
            return []
        if isinstance(value, (int, float)):
            return [float(value)]
        if isinstance(value, dict):
            return [n for item in value.values() for n in numbers(item)]
        if isinstance(value, (list, tuple)):
            return [n for item in value for n in numbers(item)]
        return []

    values = numbers(list(rows.values()))
    return not rows or not values or all(v == 0 for v in values)


def clamped_to_seeds(rows: Sequence[Any], computed: Any) -> Any:
    """`computed` with each number moved into the range the recorded `rows` span.

    Rows are numbers, or lists, tuples and dicts of them, nested, taken field by
    field. A value that is not a number (a string, None) stays as computed where
    some recorded row has it. Anything else (a new string, a field whose shape
    differs from the rows') takes the first row's value, for the study's `agree`
    to judge.
    """
    if isinstance(computed, dict) and all(isinstance(r, dict) for r in rows):
        if all(r.keys() == computed.keys() for r in rows):
            return {
                k: clamped_to_seeds([r[k] for r in rows], computed[k]) for k in computed
            }
    if isinstance(computed, (list, tuple)) and all(
        isinstance(r, type(computed)) and len(r) == len(computed) for r in rows
    ):
        fields = [
            clamped_to_seeds([r[i] for r in rows], c) for i, c in enumerate(computed)
        ]
        return type(computed)(fields)

    def is_number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    numbers = [r for r in rows if is_number(r)]
    if is_number(computed) and numbers:
        return min(max(computed, min(numbers)), max(numbers))
    return computed if computed in rows or not rows else rows[0]


def matches_a_seed(study: Study, seed: int, computed: Any) -> bool:
    """Whether a rerun of `seed` agrees with the recorded table, as DESIGN §3a asks.

    On the machine that recorded the table the rerun agrees with its own row, within
    the study's tolerance. Another CPU rounds the last bits of every kernel
    differently and training amplifies them, so there a rerun is another seed: it
    agrees when every number lies within the range the recorded seeds span,
    widened by the same tolerance (`clamped_to_seeds`). A table that is not a seed
    study (`seeded=False`) is held to its own row.
    """
    recorded = study.recorded()
    if study.agree(recorded[seed], computed):
        return True
    return study.seeded and study.agree(
        clamped_to_seeds(list(recorded.values()), computed), computed
    )


def compute(
    study: Study, seeds: Iterable[int], device: str = "cpu", progress: bool = True
) -> dict[int, Any]:
    """Run the study for `seeds` with its thread count; return `{seed: row}`."""
    import torch
    from tqdm.auto import tqdm

    torch.set_num_threads(study.threads)
    seeds = list(seeds)
    rows = {}
    with contextlib.redirect_stdout(
        sys.stderr
    ):  # progress bars and prints: not the table
        for seed in tqdm(seeds, desc=study.name, disable=not progress):
            rows[seed] = study.run_seed(seed, device)
    return rows


def main(studies: Study | Sequence[Study], argv: Sequence[str] | None = None) -> None:
    """Command line of one study script: compute the rows, print the table to paste."""
    studies = [studies] if isinstance(studies, Study) else list(studies)
    parser = argparse.ArgumentParser(
        description=(sys.modules["__main__"].__doc__ or "").strip().splitlines()[0]
    )
    parser.add_argument(
        "--seeds", default="", help="seeds: 7, 0:45 or 0,3,9 (default: the chapter's)"
    )
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--only", default="", help="run only the table of this name")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    for study in studies:
        if args.only and study.name != args.only:
            continue
        seeds = parse_seeds(args.seeds) if args.seeds else list(study.seeds)
        rows = compute(study, seeds, args.device)
        print(header(study, args.device, study.threads, seeds))
        print(f"{study.name} = {study.render(rows)}")
        print(flush=True)
