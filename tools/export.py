"""Export `#| export` cells from the chapters into the `encoderlib` package.

The chapters are the source of the library. A notebook names its target module
once with a `#| default_exp <module>` cell; every code cell that starts with
`#| export` (public) or `#| exporti` (internal helpers, left out of `__all__`)
is copied, in chapter order, into `encoderlib/<module>.py`. A `#| reexport`
cell holds only `from encoderlib.<other> import ...` lines: when an object moves
to a module of its own, its old module re-exports it, so the old import path
keeps working (the names join the old module's `__all__`). Several chapters
may export to one module (chapters 2, 3 and 17 all add to `embeddings`), and a
cell may switch target with `#| export <module>`. The package's `__init__.py`
is generated too. Run `python tools/export.py` to write, `--check` to compare.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"
PACKAGE = ROOT / "encoderlib"

# Modules reached only by their own name (`encoderlib.toy.X`), never re-exported
# at the top level: the chapter-1 toy and the argument checks would otherwise
# crowd the real API.
NAMESPACED_ONLY = {"checks", "toy"}

DIRECTIVE = re.compile(r"^#\|\s*(default_exp|exporti|export|reexport)\b[ \t]*(\S*)\s*$")


@dataclass
class Module:
    """The cells that make up one generated module, and where they came from."""

    name: str
    chapters: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)
    public: list[str] = field(default_factory=list)
    reexports: list[str] = field(default_factory=list)


def cell_source(cell: dict) -> str:
    """Return a notebook cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def directives(source: str) -> list[tuple[str, str]]:
    """Return the `#|` directives at the top of a cell, as (kind, argument)."""
    found = []
    for line in source.splitlines():
        if not line.startswith("#|"):
            break
        match = DIRECTIVE.match(line)
        if match:
            found.append((match.group(1), match.group(2)))
    return found


def strip_directives(source: str) -> str:
    """Drop the leading `#|` lines of a cell, keeping the code."""
    lines = source.splitlines()
    while lines and lines[0].startswith("#|"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def defined_names(code: str) -> list[str]:
    """Names a block of code binds at module level (functions, classes, assignments)."""
    names = []
    for node in ast.parse(code).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.extend(bound_names(target))
    return names


def bound_names(target: ast.expr) -> list[str]:
    """Names bound by an assignment target (`a`, `a, b`); attributes bind none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in bound_names(element)]
    return []


def reexported_names(code: str, where: str) -> list[str]:
    """The names a `#| reexport` cell imports from other encoderlib modules."""
    names = []
    for node in ast.parse(code).body:
        if not (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("encoderlib.")
        ):
            raise SystemExit(
                f"{where}: a '#| reexport' cell holds only 'from encoderlib.<module> "
                f"import ...' lines"
            )
        names += [alias.asname or alias.name for alias in node.names]
    return names


def chapter_title(notebook: Path) -> str:
    """The chapter's title: the first Markdown heading of the notebook."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell.get("cell_type") == "markdown":
            for line in cell_source(cell).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def exported_cells(notebook: Path) -> list[tuple[str, str, str]]:
    """Return (module, code, kind) for every exported cell of one chapter."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    default, found = None, []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = cell_source(cell)
        for kind, argument in directives(source):
            if kind == "default_exp":
                default = argument
            else:
                module = argument or default
                if module is None:
                    raise SystemExit(
                        f"{notebook.name}: '#| {kind}' before any '#| default_exp'"
                    )
                found.append((module, strip_directives(source), kind))
    return found


def collect(chapters: list[Path]) -> dict[str, Module]:
    """Group the exported cells of all chapters by target module."""
    modules: dict[str, Module] = {}
    for notebook in chapters:
        for name, code, kind in exported_cells(notebook):
            module = modules.setdefault(name, Module(name))
            chapter = f"chapters/{notebook.name}"
            if chapter not in module.chapters:
                module.chapters.append(chapter)
                module.titles.append(chapter_title(notebook))
            module.cells.append(code)
            if kind == "export":
                module.public += [
                    n for n in defined_names(code) if not n.startswith("_")
                ]
            elif kind == "reexport":
                module.reexports += reexported_names(code, f"{notebook.name}")
    return modules


def header(sources: list[str]) -> str:
    """The banner every generated file starts with."""
    listed = "".join(f"#   {source}\n" for source in sources)
    return (
        "# AUTOGENERATED by tools/export.py from:\n"
        + listed
        + "# Edit the chapters, run them top to bottom, then `make export`.\n"
    )


def split_imports(code: str) -> tuple[list[str], str]:
    """Separate a cell's top-level import statements from the rest of its code.

    The imports of all cells are hoisted to the top of the generated module, so a
    later chapter exporting into an existing module may import what it needs
    without an import landing below code (E402) or repeating one (F811).
    """
    tree = ast.parse(code)
    lines = code.splitlines()
    imports, drop = [], set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(ast.get_source_segment(code, node))
            drop.update(range(node.lineno - 1, node.end_lineno))
    rest = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    return imports, rest.strip("\n")


def ruff_layout(text: str, filename: str) -> str:
    """Sort imports and format `text` as `ruff` would (the project's one style)."""
    steps = [["check", "--select", "I", "--fix-only", "--quiet"], ["format", "--quiet"]]
    for step in steps:
        command = [sys.executable, "-m", "ruff", *step, "--stdin-filename", filename]
        result = subprocess.run(
            [*command, "-"], input=text, capture_output=True, text=True, cwd=ROOT
        )
        if result.returncode != 0:
            raise SystemExit(f"ruff failed on {filename}:\n{result.stderr}")
        text = result.stdout
    return text


def render_module(module: Module) -> str:
    """The text of one generated module."""
    items = [
        textwrap.fill(f"- {title} ({chapter})", width=84, subsequent_indent="  ")
        for title, chapter in zip(module.titles, module.chapters, strict=True)
    ]
    doc = f'"""encoderlib.{module.name}, built in the Encoder Book:\n\n' + "\n".join(
        items
    )
    imports, bodies = [], []
    for cell in module.cells:
        cell_imports, rest = split_imports(cell)
        imports += [i for i in cell_imports if i not in imports]
        if rest:
            bodies.append(rest)
    text = "\n\n".join(
        [
            header(module.chapters) + doc + '\n"""',
            f"__all__ = {[*module.public, *module.reexports]!r}",
            "\n".join(imports),
            "\n\n\n".join(bodies),
        ]
    )
    return ruff_layout(text + "\n", f"encoderlib/{module.name}.py")


def render_init(modules: dict[str, Module]) -> str:
    """The text of `encoderlib/__init__.py`: submodules plus the public API."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    names = sorted(modules)
    lines = [
        header(["chapters/*.ipynb"]).rstrip("\n"),
        '"""encoderlib: the Transformer encoder built in the Encoder Book.',
        "",
        "Every module is written, explained and tested in a chapter of the book;",
        "`encoderlib.<module>.__doc__` names the chapter. The public names of all",
        f"modules but {', '.join(sorted(NAMESPACED_ONLY))} are re-exported here.",
        '"""',
        "",
        f'__version__ = "{version}"',
        "",
        "from . import " + ", ".join(names),
    ]
    public = []
    for name in names:
        if name in NAMESPACED_ONLY or not modules[name].public:
            continue
        lines.append(f"from .{name} import " + ", ".join(modules[name].public))
        public += modules[name].public
    lines += ["", f"__all__ = {['__version__', *names, *public]!r}"]
    return ruff_layout("\n".join(lines) + "\n", "encoderlib/__init__.py")


def render_package(chapters: list[Path] | None = None) -> dict[str, str]:
    """Every generated file of the package, as {filename: text}."""
    chapters = chapters if chapters is not None else sorted(CHAPTERS.glob("*.ipynb"))
    modules = collect(chapters)
    files = {f"{name}.py": render_module(module) for name, module in modules.items()}
    files["__init__.py"] = render_init(modules)
    return files


def differences(files: dict[str, str]) -> list[str]:
    """Describe how `encoderlib/` differs from `files` (empty when equal)."""
    problems = []
    on_disk = {p.name for p in PACKAGE.glob("*.py")}
    for name in sorted(on_disk - files.keys()):
        problems.append(f"encoderlib/{name} is not produced by any chapter")
    for name, text in sorted(files.items()):
        path = PACKAGE / name
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            diff = difflib.unified_diff(
                current.splitlines(),
                text.splitlines(),
                f"encoderlib/{name}",
                "fresh export",
                lineterm="",
                n=1,
            )
            problems.append("\n".join(list(diff)[:40]))
    return problems


def main() -> int:
    """Write the package, or with --check report how it differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare only; exit 1 on a difference"
    )
    args = parser.parse_args()
    files = render_package()
    if args.check:
        problems = differences(files)
        for problem in problems:
            print(problem)
        if problems:
            print("encoderlib/ differs from the chapters: run `make export`.")
        return 1 if problems else 0
    PACKAGE.mkdir(exist_ok=True)
    for stale in PACKAGE.glob("*.py"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (PACKAGE / name).write_text(text, encoding="utf-8")
    print(f"exported {len(files)} files to encoderlib/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
