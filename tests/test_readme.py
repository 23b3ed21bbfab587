"""The README's Python examples run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_readme_example_runs(number, capsys):
    exec(compile(BLOCKS[number], f"README.md example {number + 1}", "exec"), {})
    printed = capsys.readouterr().out
    # An example that prints shows its output in a trailing comment: check it.
    for line in BLOCKS[number].splitlines():
        if line.startswith("print(") and "# " in line:
            assert line.split("# ", 1)[1].strip() in printed
