"""The GPU numbers in chapters 8, 18 and 19 are the ones `gpu_speed.py` printed.

`benchmarks/recorded/gpu_speed_h200.txt` is the whole output of one run of
`python benchmarks/gpu_speed.py --repeats 3 --no-compile` on an NVIDIA H200. The
chapters cannot run it (no GPU in CI), so each holds the rows it shows as a
`GPU_SPEED_*` constant; these tests read both and require them to agree.
"""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "recorded" / "gpu_speed_h200.txt"
DTYPES = ("fp32", "fp16", "bf16")


def recorded_rows() -> tuple[dict, dict]:
    """Inference rows {(model, texts, batch, dtype): (ours ms, HF ms, ratio)} and
    training rows {model: (ours ms, HF ms, ratio)} of the recorded output."""
    inference, training = {}, {}
    for line in RECORDED.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] == "model":
            continue
        if len(cells) == 13:
            key = (cells[0], cells[1], int(cells[2]), cells[3])
            inference[key] = (float(cells[5]), float(cells[6]), float(cells[7]))
        elif len(cells) == 4:
            training[cells[0]] = tuple(float(c) for c in cells[1:])
    return inference, training


def chapter_constants(stem: str) -> dict:
    """The literal `GPU_SPEED_*` assignments in a chapter's code cells."""
    notebook = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text())
    constants = {}
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or "GPU_SPEED_" not in source:
            continue
        assert "NVIDIA H200" in source and "gpu_speed_h200.txt" in source
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and node.targets[0].id.startswith(
                "GPU_SPEED_"
            ):
                constants[node.targets[0].id] = ast.literal_eval(node.value)
    return constants


INFERENCE, TRAINING = recorded_rows()


def test_the_recorded_run_is_whole():
    header = RECORDED.read_text().splitlines()[0]
    assert header.startswith("device: NVIDIA H200; torch 2.11")
    assert len(INFERENCE) == 3 * 6 * 3 - 6  # ModernBERT has no fp16 rows
    assert set(TRAINING) == {"MiniLM-L6", "BERT-base", "ModernBERT-base"}


@pytest.mark.parametrize("stem", ["08_the_stack", "18_training_at_scale", "19_serving"])
def test_chapter_rows_equal_the_recorded_run(stem):
    constants = chapter_constants(stem)
    assert constants, f"{stem} holds no GPU_SPEED_ constant"
    for (model, texts, batch), ratios in constants.get("GPU_SPEED_RATIOS", {}).items():
        expected = tuple(
            INFERENCE[model, texts, batch, d][2]
            if (model, texts, batch, d) in INFERENCE
            else None
            for d in DTYPES
        )
        assert ratios == expected, (model, texts, batch)
    for model, ms in constants.get("GPU_SPEED_PRECISION_MS", {}).items():
        assert ms == tuple(INFERENCE[model, "long", 256, d][0] for d in DTYPES)
    for model, row in constants.get("GPU_SPEED_TRAINING", {}).items():
        assert row == TRAINING[model]
    for (model, dtype), row in constants.get("GPU_SPEED_BATCH_1", {}).items():
        assert row == INFERENCE[model, "short", 1, dtype]
    if "GPU_SPEED_MATMUL_TFLOPS" in constants:
        lines = RECORDED.read_text().splitlines()
        line = next(text for text in lines if text.startswith("matrix product"))
        rates = line.split(": ")[1].removesuffix(" TFLOP/s").split(", ")
        expected = {name: float(rate) for name, rate in map(str.split, rates)}
        assert constants["GPU_SPEED_MATMUL_TFLOPS"] == expected
    if "GPU_SPEED_BERT_BATCH_32_MS" in constants:
        expected = INFERENCE["BERT-base", "short", 32, "fp32"][0]
        assert constants["GPU_SPEED_BERT_BATCH_32_MS"] == expected
