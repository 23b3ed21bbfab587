"""encoderlib.utils and encoderlib.viz."""

import random

import matplotlib
import numpy as np
import pytest
import torch

import encoderlib
from encoderlib import plot_heatmap, set_seed

matplotlib.use("Agg")


def draws() -> tuple[float, float, list[float]]:
    return random.random(), float(np.random.rand()), torch.rand(3).tolist()


def test_set_seed_makes_every_generator_repeat():
    set_seed(123)
    first = draws()
    set_seed(123)
    assert draws() == first
    set_seed(124)
    assert draws() != first


def test_set_seed_rejects_non_integers():
    with pytest.raises(TypeError, match="expected seed as an int, got float"):
        set_seed(1.5)


def test_default_device_is_usable():
    device = encoderlib.default_device()
    assert isinstance(device, torch.device)
    assert torch.ones(2, device=device).sum().item() == 2.0
    if not torch.cuda.is_available() and not torch.backends.mps.is_available():
        assert device.type == "cpu"


def test_plot_heatmap_labels_everything():
    import matplotlib.pyplot as plt

    ax = plot_heatmap(
        torch.tensor([[0.25, 0.75], [0.5, 0.5]]),
        ["a", "b"],
        ["c", "d"],
        title="T",
        colorbar_label="w",
    )
    assert ax.get_title() == "T" and ax.get_xlabel() and ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["c", "d"]
    assert sorted(t.get_text() for t in ax.texts) == [
        "0.250",
        "0.500",
        "0.500",
        "0.750",
    ]
    assert ax.figure.axes[-1].get_ylabel() == "w"  # the colour bar
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "matrix, rows, error, message",
    [
        (torch.ones(2, 2, 2), None, ValueError, r"2-D matrix .* got shape \(2, 2, 2\)"),
        (torch.ones(2, 3), ["a"], ValueError, "expected 2 row_labels, got 1"),
        ([[1.0]], None, TypeError, "got list"),
    ],
)
def test_plot_heatmap_rejects_bad_input(matrix, rows, error, message):
    with pytest.raises(error, match=message):
        plot_heatmap(matrix, rows, title="bad")
