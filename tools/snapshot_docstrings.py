"""Snapshot the standard-library docstrings that chapters 2 and 14 use as a corpus.

Python's own docstrings are real English that every machine has offline, but they
change between Python versions (3.13's differ from 3.11's in dozens of places), so a
chapter that read them live would print other numbers on another Python. This script
reads them once, on the Python the book is built with, and writes them to
`encoderlib/resources/stdlib_docstrings.json`, which the chapters load instead:

- chapter 2 (tokens): the docstrings of 35 modules, of the module itself and of the
  classes, functions and methods it defines, duplicates skipped, by module;
- chapter 14 (semantic search): the first paragraph of the docstring of every public
  function and class of 43 modules, with its qualified name.

Run `python tools/snapshot_docstrings.py` to write, `--check` to compare (on the same
Python version as the snapshot's only; another version reports that and exits 0).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import platform
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "encoderlib" / "resources" / "stdlib_docstrings.json"

TOKENS_MODULES = (
    "argparse", "asyncio", "calendar", "collections", "csv", "dataclasses",
    "datetime", "decimal", "difflib", "email", "enum", "fractions", "functools",
    "http.client", "inspect", "ipaddress", "json", "logging", "pathlib", "pickle",
    "random", "re", "shutil", "socket", "sqlite3", "statistics", "string",
    "subprocess", "tarfile", "textwrap", "threading", "typing", "unittest",
    "urllib.parse", "zipfile",
)  # fmt: skip

SEARCH_MODULES = sorted(
    "argparse base64 bisect calendar collections copy csv datetime decimal difflib "
    "enum fractions functools glob gzip hashlib heapq hmac html itertools json "
    "logging math os.path pathlib pickle random re secrets shutil sqlite3 "
    "statistics string subprocess tarfile tempfile textwrap threading time "
    "urllib.parse uuid zipfile zlib".split()
)


def module_docstrings(module_name: str) -> list[str]:
    """Docstrings of a module and of the classes, functions and methods it defines."""
    module = importlib.import_module(module_name)
    found: list[str] = []

    def add(obj) -> None:
        doc = inspect.getdoc(obj)
        if doc and doc not in found:
            found.append(doc)

    add(module)
    for name in sorted(vars(module)):
        obj = getattr(module, name)
        if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
            add(obj)
        if inspect.isclass(obj):
            for attribute in sorted(vars(obj)):
                if not attribute.startswith("_") and callable(vars(obj)[attribute]):
                    add(getattr(obj, attribute))
    return found


def first_paragraph(obj) -> str | None:
    """The first paragraph of `obj`'s docstring on one line, or None."""
    doc = inspect.getdoc(obj)
    if not doc:
        return None
    return " ".join(doc.split("\n\n")[0].split())


def search_corpus(module_names: list[str]) -> list[list[str]]:
    """[qualified name, first docstring paragraph] of public functions and classes."""
    entries, seen = [], set()
    for module_name in module_names:
        module = importlib.import_module(module_name)
        for attr in sorted(getattr(module, "__all__", None) or dir(module)):
            obj = getattr(module, attr, None)
            if attr.startswith("_") or not (
                inspect.isroutine(obj)  # functions, builtins, bound methods
                or inspect.isclass(obj)
                or hasattr(obj, "__wrapped__")  # decorated, e.g. lru_cache
            ):
                continue
            text = first_paragraph(obj)
            if text is None or len(text) < 20 or text in seen:
                continue  # no docstring, a stub, or a paragraph we already have
            seen.add(text)
            entries.append([f"{module_name}.{attr}", text])
    return entries


def snapshot() -> dict:
    """Both corpora, with where they come from."""
    with warnings.catch_warnings():  # typing.io and typing.re warn when touched
        warnings.simplefilter("ignore", DeprecationWarning)
        tokens = {name: module_docstrings(name) for name in TOKENS_MODULES}
        search = search_corpus(SEARCH_MODULES)
    return {
        "source": (
            f"Docstrings of the standard library of CPython {platform.python_version()}"
            ", read with inspect.getdoc by tools/snapshot_docstrings.py"
        ),
        "licence": "Python Software Foundation License Version 2 (CPython's licence)",
        "python": platform.python_version(),
        "chapter_02_docstrings_by_module": tokens,
        "chapter_14_search_corpus": search,
    }


def render(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    if not args.check:
        SNAPSHOT.write_text(render(snapshot()), encoding="utf-8")
        print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
        return 0
    stored = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    if stored["python"] != platform.python_version():
        print(
            f"snapshot is from Python {stored['python']}, this is "
            f"{platform.python_version()}: nothing to compare"
        )
        return 0
    if render(stored) != render(snapshot()):
        print("the docstring snapshot differs from this Python's standard library")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
