"""Bad input to encoderlib.viz (chapters 1 and 10): clear errors.

Heat maps and tables get labels of the wrong kind or number, matrices of the
wrong rank and settings out of range; each raises a TypeError or ValueError from
encoderlib's own checks that names what was expected and what was received.
"""

import matplotlib
import torch
from bad_input import sweep

from encoderlib import toy
from encoderlib.viz import Table, plot_heatmap

matplotlib.use("Agg")

X = toy.toy_embeddings()


CASES = {
    "ch01 plot_heatmap of a list": (
        lambda: plot_heatmap([[1.0]], title="t"),
        TypeError,
        "expected matrix as a torch.Tensor, got list",
    ),
    "ch01 plot_heatmap of a 1-D tensor": (
        lambda: plot_heatmap(torch.ones(3), title="t"),
        ValueError,
        r"expected a 2-D matrix \(rows, columns\), got shape \(3,\)",
    ),
    "ch01 plot_heatmap of an empty matrix": (
        lambda: plot_heatmap(torch.ones(0, 3), title="t"),
        ValueError,
        r"expected a non-empty matrix, got shape \(0, 3\)",
    ),
    "ch01 plot_heatmap of a complex matrix": (
        lambda: plot_heatmap(torch.ones(2, 2, dtype=torch.complex64), title="t"),
        TypeError,
        "expected a real matrix, got torch.complex64",
    ),
    "ch01 plot_heatmap with labels as one str": (
        lambda: plot_heatmap(torch.ones(2, 2), "ab", title="t"),
        TypeError,
        "expected row_labels as a list of labels or None, got str",
    ),
    "ch01 plot_heatmap with too many column labels": (
        lambda: plot_heatmap(torch.ones(2, 2), None, ["a", "b", "c"], title="t"),
        ValueError,
        "expected 2 col_labels, got 3",
    ),
    "ch01 plot_heatmap with a title that is not a str": (
        lambda: plot_heatmap(torch.ones(2, 2), title=None),
        TypeError,
        "expected title as a str, got None",
    ),
    "ch01 plot_heatmap with digits < 0": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", digits=-2),
        ValueError,
        "expected digits >= 0, got -2",
    ),
    "ch01 plot_heatmap with vmin > vmax": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", vmin=1.0, vmax=0.0),
        ValueError,
        "expected vmin <= vmax, got vmin=1.0, vmax=0.0",
    ),
    "ch01 plot_heatmap with ax a str": (
        lambda: plot_heatmap(torch.ones(2, 2), title="t", ax="left"),
        TypeError,
        "expected ax as a matplotlib Axes or None, got str",
    ),
    "ch01 Table with rows of the wrong length": (
        lambda: Table([(1, 2), (3,)], ["a", "b"]),
        ValueError,
        "expected rows of 2 values like the headers, got 1 in row 1",
    ),
    "ch01 Table with a row too long": (
        lambda: Table([(1, 2, 3)], ["a", "b"]),
        ValueError,
        "expected rows of 2 values like the headers, got 3 in row 0",
    ),
    "ch01 Table with headers as one str": (
        lambda: Table([(1, 2)], "ab"),
        TypeError,
        "expected headers as a list, got str",
    ),
    "ch01 Table with rows None": (
        lambda: Table(None, ["a"]),
        TypeError,
        "expected rows as a list, got None",
    ),
    "ch01 Table with a row that is a str": (
        lambda: Table(["ab"], ["a", "b"]),
        TypeError,
        "expected each row as a list of values, got str in row 0",
    ),
    "ch01 Table with a row that is a number": (
        lambda: Table([1.5], ["a"]),
        TypeError,
        "expected each row as a list of values, got float in row 0",
    ),
    "ch01 Table with too few formats": (
        lambda: Table([(1, 2)], ["a", "b"], formats=[".1f"]),
        ValueError,
        "expected 2 formats, one per column, got 1",
    ),
    "ch01 Table with formats as one str": (
        lambda: Table([(1, 2)], ["a", "b"], formats=".1f"),
        TypeError,
        "expected formats as a list, got str",
    ),
    "ch01 Table with a format that is not a str": (
        lambda: Table([(1, 2)], ["a", "b"], formats=[3, ""]),
        TypeError,
        "expected each format as a str such as '.3f', got int for column 0",
    ),
    "ch01 Table with a value its format cannot show": (
        lambda: Table([("cat", 2)], ["a", "b"], formats=[".3f", ""]),
        ValueError,
        "expected a value that format spec '.3f' of column 'a' can format, "
        "got 'cat' in row 0",
    ),
    "ch01 Table with a title that is not a str": (
        lambda: Table([(1,)], ["a"], title=1),
        TypeError,
        "expected title as a str or None, got int",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
