"""The Colab setup cell that opens every chapter, made from one template.

In Google Colab the cell installs encoderlib (with what the chapters import)
from the repository named once in `_config.yml`; anywhere else it does
nothing, because `make setup` has installed everything already. Run
`python tools/setup_cell.py` to stamp the cell into every chapter, or with
`--check` to report the chapters whose first cell differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"

TEMPLATE = """\
# Colab setup, the same in every chapter: in Google Colab this installs
# encoderlib and what the chapters use; anywhere else it does nothing.
import sys

if "google.colab" in sys.modules:
    import subprocess

    # pip keeps an installed encoderlib whose version number has not changed, and the
    # repository changes without one: --force-reinstall replaces it, but only once
    # the new one is built, so a failed install leaves the old one in place.
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    repository = "git+{url}"
    subprocess.run([*pip, f"encoderlib[notebooks] @ {{repository}}"], check=True)
    subprocess.run([*pip, "--force-reinstall", "--no-deps", repository], check=True)
    if "encoderlib" in sys.modules:  # this session still holds the old one
        print("encoderlib was updated: Runtime > Restart session, then run again")"""


def repository_url() -> str:
    """The repository address from `_config.yml` (read without a YAML library)."""
    in_repository = False
    for line in (ROOT / "_config.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("repository:"):
            in_repository = True
        elif in_repository and line.strip().startswith("url:"):
            return line.split("url:", 1)[1].strip().strip("\"'")
        elif line and not line.startswith((" ", "#")):
            in_repository = False
    raise SystemExit("_config.yml has no repository.url")


def setup_cell_source() -> str:
    """The exact source every chapter's first cell must have."""
    return TEMPLATE.format(url=repository_url())


def new_setup_cell() -> dict:
    """A fresh notebook cell holding the setup source."""
    return {
        "cell_type": "code",
        "id": "colab-setup",  # nbformat 4.5: every cell has an id
        "execution_count": None,
        "metadata": {"tags": ["colab-setup", "remove-cell"]},
        "outputs": [],
        "source": setup_cell_source().splitlines(keepends=True),
    }


def first_code_source(notebook: dict) -> str:
    """The source of a notebook's first cell, if it is a code cell."""
    cells = notebook.get("cells", [])
    if not cells or cells[0].get("cell_type") != "code":
        return ""
    source = cells[0].get("source", "")
    return "".join(source) if isinstance(source, list) else source


def main() -> int:
    """Stamp the setup cell into every chapter, or check that it is there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="report chapters whose first cell differs"
    )
    args = parser.parse_args()
    expected = setup_cell_source()
    stale = []
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        if first_code_source(notebook) == expected:
            continue
        stale.append(path.name)
        if not args.check:
            if notebook["cells"] and "colab-setup" in notebook["cells"][0].get(
                "metadata", {}
            ).get("tags", []):
                # Outside Colab the cell prints nothing: keep its place in the
                # execution order, so the chapter needs no re-run for a new cell.
                old = notebook["cells"][0]
                notebook["cells"][0] = new_setup_cell() | {
                    "execution_count": old.get("execution_count"),
                    "id": old.get("id", "colab-setup"),
                }
            else:
                notebook["cells"].insert(0, new_setup_cell())
            path.write_text(
                json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
    if args.check and stale:
        print("first cell is not the Colab setup cell:", ", ".join(stale))
        return 1
    if stale and not args.check:
        print("stamped the Colab setup cell into:", ", ".join(stale))
    else:
        print("every chapter starts with the Colab setup cell")
    return 0


if __name__ == "__main__":
    sys.exit(main())
