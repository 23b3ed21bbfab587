"""The benchmarks compare like with like: same weights, same outputs, a full table."""

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def encoder_speed():
    path = ROOT / "benchmarks" / "encoder_speed.py"
    spec = importlib.util.spec_from_file_location("encoder_speed", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["encoder_speed"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_encoder_speed_times_two_equal_models(encoder_speed, norm_first, padded):
    size = encoder_speed.Size("test", 64, 4, 2, 4, 16, norm_first=norm_first)
    ours, theirs = encoder_speed.build(size)
    ids, mask = encoder_speed.batch(size, padded)
    assert (mask is not None) == padded and (mask is None or not mask.all())
    with torch.inference_mode():
        ours_out = ours.eval()(ids, mask)
        theirs_out = theirs.eval()(ids, mask)
    real = torch.ones_like(ids, dtype=torch.bool) if mask is None else mask
    assert torch.allclose(ours_out[real], theirs_out[real], atol=1e-5)


def test_encoder_speed_prints_a_full_table(encoder_speed, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["encoder_speed.py", "--quick", "--no-memory"])
    encoder_speed.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if "| d=64" in line]
    assert len(rows) == 4  # full and padded batches, inference and training
    ratios = [float(row.split("|")[6]) for row in rows]
    assert all(ratio > 0 for ratio in ratios)
