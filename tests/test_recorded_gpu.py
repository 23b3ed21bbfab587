"""The GPU numbers in the chapters are the ones the scripts printed on a GPU.

`benchmarks/recorded/gpu_speed_h200.txt` is the whole output of one run of
`python benchmarks/gpu_speed.py --repeats 3 --no-compile` on an NVIDIA H200, and
the other `*_h200.txt` files there hold what `operator_count.py --device cuda`,
`gpu_graphs.py` and the studies of chapters 15 and 16 printed on it. The chapters
cannot run them (no GPU in CI), so each holds the rows it shows as a `GPU_*`
constant; these tests read both and require them to agree, and every such constant
to be checked.
"""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "recorded" / "gpu_speed_h200.txt"
OPERATORS = ROOT / "benchmarks" / "recorded" / "operator_count_h200.txt"
FLASH = ROOT / "benchmarks" / "recorded" / "ch16_flash_attention_h200.txt"
LONGER = ROOT / "benchmarks" / "recorded" / "ch15_vit_longer_h200.txt"
GRAPHS = ROOT / "benchmarks" / "recorded" / "gpu_graphs_h200.txt"
DTYPES = ("fp32", "fp16", "bf16")


def recorded_rows() -> tuple[dict, dict]:
    """Inference rows {(model, texts, batch, dtype): (ours ms, HF ms, ratio)} and
    training rows {model: (ours ms, HF ms, ratio)} of the recorded output."""
    inference, training, columns = {}, {}, {}
    for line in RECORDED.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| "):
            continue
        if cells[0] == "model":  # by name: gpu_speed.py has added columns
            columns = {name: i for i, name in enumerate(cells)}
        elif "tokens" in columns and len(cells) == len(columns):
            key = (cells[0], cells[1], int(cells[2]), cells[3])
            names = ("encoderlib ms", "HF ms", "ratio")
            inference[key] = tuple(float(cells[columns[n]]) for n in names)
        elif len(cells) == 4:
            training[cells[0]] = tuple(float(c) for c in cells[1:])
    return inference, training


def chapter_constants(stem: str) -> dict:
    """The literal `GPU_*` assignments in a chapter's code cells."""
    notebook = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text())
    constants = {}
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or "GPU_" not in source:
            continue
        for node in ast.parse(source).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id.startswith("GPU_"):
                assert "NVIDIA H200" in source and "_h200.txt" in source, target.id
                constants[target.id] = ast.literal_eval(node.value)
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


def recorded_operators() -> dict:
    """{model: (encoderlib, Hugging Face)}: float32, one sentence, on the H200."""
    text = OPERATORS.read_text().split("\n\n")[0]
    assert "NVIDIA H200, float32" in text
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[1] == "1 × 15 tokens":
            rows[cells[0]] = (int(cells[2]), int(cells[3]))
    return rows


def test_chapter_8_operator_counts_equal_the_recorded_run():
    constants = chapter_constants("08_the_stack")
    recorded = recorded_operators()
    assert constants["GPU_OPERATORS"]
    for model, counts in constants["GPU_OPERATORS"].items():
        assert counts == recorded[model], model


def test_chapter_16_flash_table_equals_the_study_run():
    lines = FLASH.read_text().splitlines()
    assert "device cuda (NVIDIA H200)" in lines[2]
    recorded = []
    for line in lines[6:]:
        n, name, math_ms, fused_ms, speed_up, math_mb, _, fused_mb = line.split()
        numbers = (float(math_ms), float(fused_ms), float(speed_up))
        recorded.append((int(n), name, *numbers, int(math_mb), int(fused_mb)))
    assert len(recorded) == 6
    assert chapter_constants("16_efficient_attention")["GPU_FLASH_H200"] == recorded


def test_chapter_15_longer_runs_equal_the_study_run():
    text = LONGER.read_text()
    assert "device cuda (NVIDIA H200)" in text
    recorded = ast.literal_eval(text[text.index("{") : text.index("}") + 1])
    constants = chapter_constants("15_vision_transformer")
    assert constants["GPU_LONGER_H200"] == recorded


def test_chapter_19_graph_ratios_equal_the_recorded_run():
    recorded = {}
    for line in GRAPHS.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 11 and cells[1] == "short":
            key = (cells[0], int(cells[2]), cells[3])
            recorded[key] = (float(cells[7]), float(cells[8]))
    assert GRAPHS.read_text().startswith("device: NVIDIA H200; torch 2.11")
    assert len(recorded) == 3 * 3  # MiniLM: three precisions, batches 1, 32, 256
    constants = chapter_constants("19_serving")["GPU_GRAPHS_RATIOS"]
    assert constants
    for key, ratios in constants.items():
        assert ratios == recorded[key], key


def test_every_gpu_constant_is_checked():
    # A GPU_ constant these tests do not know would be a number nobody checks.
    checked = {
        "08_the_stack": {"GPU_SPEED_RATIOS", "GPU_OPERATORS"},
        "15_vision_transformer": {"GPU_LONGER_H200"},
        "16_efficient_attention": {"GPU_FLASH_H200"},
        "18_training_at_scale": {
            "GPU_SPEED_PRECISION_MS",
            "GPU_SPEED_TRAINING",
            "GPU_SPEED_MATMUL_TFLOPS",
        },
        "19_serving": {
            "GPU_SPEED_BATCH_1",
            "GPU_SPEED_BERT_BATCH_32_MS",
            "GPU_GRAPHS_RATIOS",
        },
    }
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        assert set(chapter_constants(path.stem)) == checked.get(path.stem, set())
