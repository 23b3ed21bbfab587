"""encoderlib's structure follows the book (DESIGN.md §2).

A module's "first chapter" is the earliest chapter that exports into it. A module
may import only modules whose first chapter comes no later than its own, so the
import graph is the table of contents: no circle, and a reader of chapter N never
needs code from a later chapter. Imports sit at the top of a module, never inside
a function; no module takes another module's private (`_`-prefixed) name; and no
module is longer than 600 lines (the generated `__init__.py` aside).
"""

import ast
from pathlib import Path

import export  # tools/export.py, on sys.path through conftest.py
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "encoderlib"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def first_chapters() -> dict[str, int]:
    """{module: number of the first chapter that exports into it}."""
    modules = export.collect(sorted(export.CHAPTERS.glob("*.ipynb")))
    return {
        name: min(int(Path(chapter).name[:2]) for chapter in module.chapters)
        for name, module in modules.items()
    }


def encoderlib_imports(tree: ast.AST) -> list[tuple[ast.AST, str, list[str]]]:
    """(node, imported module, imported names) for every import of encoderlib."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level >= 1:
                target = (node.module or "").split(".")[0]
            elif (node.module or "").startswith("encoderlib."):
                target = node.module.split(".")[1]
            else:
                continue
            found.append((node, target, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("encoderlib."):
                    found.append((node, alias.name.split(".")[1], []))
    return found


def parsed(module: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))


CHAPTER_OF = first_chapters()


def test_every_module_comes_from_a_chapter():
    assert set(MODULES) == set(CHAPTER_OF)


@pytest.mark.parametrize("module", MODULES)
def test_imports_follow_the_chapters(module):
    later = {
        target: CHAPTER_OF[target]
        for _, target, _ in encoderlib_imports(parsed(module))
        if target != module and CHAPTER_OF[target] > CHAPTER_OF[module]
    }
    assert not later, (
        f"encoderlib.{module} (first built in chapter {CHAPTER_OF[module]}) imports "
        f"modules of later chapters: {later}"
    )


@pytest.mark.parametrize("module", MODULES)
def test_no_private_name_crosses_modules(module):
    private = [
        f"{target}.{name}"
        for _, target, names in encoderlib_imports(parsed(module))
        for name in names
        if target != module and name.startswith("_")
    ]
    assert not private, f"encoderlib.{module} imports private names: {private}"


@pytest.mark.parametrize("module", MODULES)
def test_no_import_inside_a_function(module):
    inner = [
        f"{function.name} (line {node.lineno})"
        for function in ast.walk(parsed(module))
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node, _, _ in encoderlib_imports(function)
    ]
    assert not inner, f"encoderlib.{module} imports inside functions: {inner}"


def test_the_import_graph_has_no_circle():
    graph = {
        module: {t for _, t, _ in encoderlib_imports(parsed(module)) if t != module}
        for module in MODULES
    }
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in MODULES:
        if module not in state:
            visit(module, [module])


@pytest.mark.parametrize("module", MODULES)
def test_modules_are_at_most_600_lines(module):
    lines = len((PACKAGE / f"{module}.py").read_text(encoding="utf-8").splitlines())
    assert lines <= 600, f"encoderlib/{module}.py has {lines} lines"
