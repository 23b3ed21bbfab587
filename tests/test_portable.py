"""Portable truth (DESIGN §3a): what a machine can see of the rules, checked.

nbval runs every chapter twice in `make test`: as this machine computes, and with
`ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE OMP_NUM_THREADS=1`, which stands in
for another CPU. These tests check that the stand-in really changes the low bits, and
read the chapters for the two habits that break a book on other machines: printing
rounding noise in an output nbval compares, and asserting bit-equality of floats.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
OTHER_CPU = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}
OTHER_CPU["OMP_NUM_THREADS"] = "1"

# Each kernel on fixed inputs, printed as a hash of its float32 bits.
KERNELS = """
import hashlib
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x, w = torch.randn(64, 257), torch.randn(257, 129)
results = {
    "matmul": x @ w,
    "softmax": torch.softmax(3 * x, dim=-1),
    "layer_norm": F.layer_norm(x, (257,)),
    "gelu": F.gelu(x),
    "sum": x.sum(dim=-1),
}
for name, tensor in results.items():
    print(name, hashlib.sha256(tensor.numpy().tobytes()).hexdigest())
"""


def kernel_bits(extra_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OTHER_CPU} | extra_env
    result = subprocess.run(
        [sys.executable, "-c", KERNELS],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(line.split() for line in result.stdout.splitlines())


def test_the_second_configuration_changes_the_low_bits_of_every_kernel():
    import torch

    if torch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU already runs ATen's portable kernels: nothing to change")
    here, other = kernel_bits({}), kernel_bits(OTHER_CPU)
    unchanged = [name for name in here if here[name] == other[name]]
    assert not unchanged, (
        f"the second nbval configuration leaves {unchanged} bit-identical: it no "
        "longer stands in for another CPU"
    )


def test_make_test_runs_nbval_in_both_configurations():
    makefile = (ROOT / "Makefile").read_text()
    assert "OTHER_CPU := " + " ".join(f"{k}={v}" for k, v in OTHER_CPU.items()) in (
        makefile
    )
    test_recipe = makefile.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    assert "--nbval" in test_recipe and "test-other-cpu" in test_recipe
    other_recipe = makefile.split("\ntest-other-cpu: ", 1)[1].split("\n\n", 1)[0]
    assert "$(OTHER_CPU)" in other_recipe and "--nbval" in other_recipe


# A number in scientific notation below 1e-6 (or an exact zero written so) is, in this
# book, the size of a rounding error: another machine prints other digits. Stated as
# a bound ("below 1e-6", "< 1e-5") or as a round power of ten (a setting such as
# eps=1e-12), it is a fact and may stay.
SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([-+])(\d+)")
BOUND_WORDS = ("below", "<", "≤", "under", "at most", "less than", "smaller than")


def rounding_noise(text: str) -> list[str]:
    """Lines of `text` that print a rounding error's digits as if they were a fact."""
    found = []
    for line in text.splitlines():
        for match in SCIENTIFIC.finditer(line):
            mantissa, sign, exponent = match.groups()
            tiny = (sign == "-" and int(exponent) >= 7) or float(mantissa) == 0.0
            round_power = mantissa == "1"
            before = line[: match.start()][-40:]
            if tiny and not round_power and not any(w in before for w in BOUND_WORDS):
                found.append(line.strip())
    return found


# A cell whose tiny numbers are facts of the math, not rounding errors (a gradient that
# vanishes to 3e-17 through 48 blocks, the same to 3 digits on every machine), says so
# with this tag; its numbers are still compared by nbval.
TINY_VALUES_ARE_FACTS = "tiny-values-are-facts"


def compared_outputs(notebook: dict):
    """(cell index, output text) of every output nbval compares for rounding noise."""
    for index, cell in enumerate(notebook["cells"]):
        tags = cell.get("metadata", {}).get("tags", [])
        skip = {"nbval-ignore-output", TINY_VALUES_ARE_FACTS}
        if cell["cell_type"] != "code" or skip & set(tags):
            continue
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            yield index, "".join(text)


def test_rounding_noise_detector():
    assert rounding_noise("dQ: largest difference 4e-16") == [
        "dQ: largest difference 4e-16"
    ]
    assert rounding_noise("max |a - b| = 0.0e+00")
    assert rounding_noise("gradient norm 2.98e-17, cosine 0.00")
    assert not rounding_noise("largest difference below 1e-6")
    assert not rounding_noise("all differences < 2e-7")
    assert not rounding_noise("eps 1e-12, learning rate 3.0e-04, count 1.2e+03")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_compared_outputs_print_no_rounding_noise(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    noisy = [
        f"cell {index}: {line}"
        for index, text in compared_outputs(notebook)
        for line in rounding_noise(text)
    ]
    assert not noisy, (
        f"{path.name} prints rounding errors in outputs nbval compares; print a "
        "bound ('below 1e-6') or tag the cell nbval-ignore-output:\n" + "\n".join(noisy)
    )


# `torch.equal` asks for the same bits. That holds for integers, masks, zeros and
# tensors built from literals, and for floats from one code path on the same inputs
# (a copy, a second call, a reshape); floats from two code paths agree only to a
# tolerance, which differs by machine. A call whose arguments are not plainly exact
# must say on its line, in a comment, why the bits are the same.
PLAINLY_EXACT = re.compile(
    r"zeros|ones\b|ones_like|torch\.tensor\(|arange|argmax|argsort|mask|ids\b"
    r"|isnan|\.long\(\)|\.bool\(\)"
)


def unexplained_equal_calls(source: str) -> list[str]:
    """`torch.equal(a, b)` calls in `source` with floats and no comment saying why."""
    import ast

    lines = source.splitlines()
    code = "\n".join("" if line.startswith(("%", "!")) else line for line in lines)
    found = []
    for node in ast.walk(ast.parse(code)):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.equal"):
            continue
        arguments = " ".join(ast.unparse(argument) for argument in node.args)
        # The comment may stand on the statement's lines or on the line above it.
        above = lines[node.lineno - 2 : node.lineno - 1] if node.lineno > 1 else []
        statement = [*above, *lines[node.lineno - 1 : node.end_lineno]]
        if not PLAINLY_EXACT.search(arguments) and not any("#" in s for s in statement):
            found.append(lines[node.lineno - 1].strip())
    return found


def test_equal_call_detector():
    assert unexplained_equal_calls("assert torch.equal(ours, theirs)")
    assert not unexplained_equal_calls("assert torch.equal(out, torch.zeros(3))")
    assert not unexplained_equal_calls(
        "assert torch.equal(f(x), f(x))  # one code path, run twice"
    )
    assert not unexplained_equal_calls("# a copy\nassert torch.equal(a, b)")
    assert not unexplained_equal_calls(
        "assert all(  # copies\n    torch.equal(a, b)\n)"
    )
    assert unexplained_equal_calls("x = 1\nassert torch.equal(a, b)\n# later")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_float_equality_is_explained(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    unexplained = [
        f"cell {index}: {line}"
        for index, cell in enumerate(notebook["cells"])
        if cell["cell_type"] == "code"
        for line in unexplained_equal_calls("".join(cell["source"]))
    ]
    assert not unexplained, (
        f"{path.name}: torch.equal on floats without a comment saying why the bits "
        "are the same; compare with a tolerance (torch.testing.assert_close) or say "
        "why on the line:\n" + "\n".join(unexplained)
    )
