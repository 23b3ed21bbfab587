"""Bad input to encoderlib.viz (chapters 1 and 10): clear errors.

Heat maps and tables get labels of the wrong kind or number, matrices of the
wrong rank and settings out of range; each raises a TypeError or ValueError from
encoderlib's own checks that names what was expected and what was received.
"""

import matplotlib
import torch
from bad_input import sweep

from encoderlib import toy
from encoderlib.progress import TrainingHistory
from encoderlib.viz import Table, plot_heatmap, plot_training_history

matplotlib.use("Agg")

X = toy.toy_embeddings()
HISTORY = TrainingHistory(steps=[1, 2, 3], losses=[0.7, 0.6, 0.5],
                          learning_rates=[1e-3] * 3)  # fmt: skip


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
    "ch10 plot_training_history: history None": (
        lambda: plot_training_history(None, title="x"),
        TypeError,
        r"expected a TrainingHistory \(what train returns\), got NoneType",
    ),
    "ch10 plot_training_history: title None": (
        lambda: plot_training_history(HISTORY, title=None),
        TypeError,
        "expected title as a str, got None",
    ),
    "ch10 plot_training_history: label as an int": (
        lambda: plot_training_history(HISTORY, title="x", label=3),
        TypeError,
        r"expected label as a str or None, got int 3",
    ),
    "ch10 plot_training_history: metrics as one str": (
        lambda: plot_training_history(HISTORY, title="x", metrics="loss"),
        TypeError,
        "expected metrics as a list of names, got the str 'loss'",
    ),
    "ch10 plot_training_history: an unrecorded metric": (
        lambda: plot_training_history(HISTORY, title="x", metrics=["f1"]),
        ValueError,
        r"no evaluation metric \['f1'\]; recorded: \[\]",
    ),
    "ch10 plot_training_history: smoothing as a float": (
        lambda: plot_training_history(HISTORY, title="x", smoothing=2.5),
        TypeError,
        "expected smoothing as an int >= 1, got float 2\\.5",
    ),
    "ch10 plot_training_history: smoothing 0": (
        lambda: plot_training_history(HISTORY, title="x", smoothing=0),
        ValueError,
        "expected smoothing as an int >= 1, got 0",
    ),
    "ch10 plot_training_history: an empty history": (
        lambda: plot_training_history(TrainingHistory(), title="x"),
        ValueError,
        "the history is empty: nothing to plot",
    ),
    "ch10 plot_training_history: too few Axes": (
        lambda: plot_training_history(HISTORY, title="x", ax=[None]),
        ValueError,
        "expected 2 Axes, got 1",
    ),
    "ch10 plot_training_history: something else than Axes": (
        lambda: plot_training_history(HISTORY, title="x", ax=[1, 2]),
        TypeError,
        "expected matplotlib Axes in ax, got int",
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)


def test_an_empty_table_prints_its_headers():
    assert str(Table([], ["a", "b"])).splitlines()[0].split() == ["a", "b"]


def test_a_table_still_formats_tensor_rows():
    table = Table(torch.eye(2), ["x", "y"], formats=[".1f", ".1f"])
    assert str(table).splitlines()[-1].split() == ["0.0", "1.0"]
