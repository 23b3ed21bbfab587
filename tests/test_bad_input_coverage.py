"""The bad-input sweep covers every public callable of encoderlib.

Each `tests/test_bad_input_*.py` feeds one module's public names the classes of
bad input a reader meets (wrong types and dtypes, wrong shapes, empty inputs,
out-of-range settings) and expects a `TypeError` or `ValueError` that names what
was expected and what was received. This test makes sure no public callable is
left out of the sweep: each must be named in one of those files.
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SWEEP_FILES = sorted((ROOT / "tests").glob("test_bad_input_*.py"))


# Plain records (NamedTuples that check nothing on construction), each built only
# by the function named beside it, whose input the sweep does check.
RECORDS = {
    ("packing", "PackingPlan"): "plan_packing",
    ("formats", "HFFormat"): "HF_FORMATS (choose_format, hf_model_files)",
}


def public_callables() -> list[tuple[str, str]]:
    """(module, name) for every callable in every encoderlib module's `__all__`,
    records aside."""
    found = []
    for path in sorted((ROOT / "encoderlib").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"encoderlib.{path.stem}")
        for name in getattr(module, "__all__", []):
            if callable(getattr(module, name)) and (path.stem, name) not in RECORDS:
                found.append((path.stem, name))
    return found


SWEEP_TEXT = "\n".join(
    path.read_text(encoding="utf-8")
    for path in SWEEP_FILES
    if path.name != "test_bad_input_coverage.py"
)


@pytest.mark.parametrize(
    ("module", "name"), public_callables(), ids=lambda value: str(value)
)
def test_every_public_callable_is_in_the_bad_input_sweep(module, name):
    assert re.search(rf"\b{re.escape(name)}\b", SWEEP_TEXT), (
        f"encoderlib.{module}.{name} is in no tests/test_bad_input_*.py"
    )
