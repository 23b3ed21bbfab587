"""One code style for chapters, library, tests and tools: ruff format and ruff check.

Chapters are formatted like the library because their exported cells *are* the
library. Fix a failure with `make format`.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]], ids=" ".join)
def test_ruff(command):
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
