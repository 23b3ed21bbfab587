"""encoderlib on its core dependencies alone, as `pip install encoderlib` leaves it.

pyproject.toml promises that the package runs on `dependencies`; the extras
(`notebooks`, `serving`, `pretrained`, `book`) add what the chapters, ONNX and
the MiniLM weights need. A fresh interpreter that refuses to import every
package of the extras then runs what a user of the core install calls first:
the toy encoder, a `SentenceEncoder`'s `encode` and `train`, with their default
progress bars. A core code path that imports an extra (tqdm did, until it became
a core dependency) fails here with the module it asked for.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
MODULE_NAMES = {"scikit-learn": "sklearn"}  # distributions imported by another name


def requirement_name(requirement: str) -> str:
    """'tqdm>=4.60' → 'tqdm', 'encoderlib[serving]' → 'encoderlib'."""
    for stop in "<>=![; ":
        requirement = requirement.split(stop)[0]
    return requirement.strip().lower()


def extra_modules() -> set[str]:
    """Top-level module names of every extra's distributions, core ones left out."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {requirement_name(r) for r in project["dependencies"]}
    extras = {
        requirement_name(r)
        for requirements in project["optional-dependencies"].values()
        for r in requirements
    }
    names = extras - core - {"encoderlib"}
    return {MODULE_NAMES.get(n, n.replace("-", "_")) for n in names}


def test_the_extras_are_known_by_their_module_names():
    blocked = extra_modules()
    assert {"matplotlib", "sklearn", "transformers", "onnxruntime"} <= blocked
    assert not {"torch", "einops", "tqdm"} & blocked  # the core dependencies


def test_encode_and_train_run_on_the_core_dependencies_alone():
    script = textwrap.dedent(
        f"""
        import sys

        BLOCKED = {sorted(extra_modules())!r}
        for name in BLOCKED:  # import fails, importlib.util.find_spec says None
            sys.modules[name] = None
        import torch
        import encoderlib
        from encoderlib import toy

        print(toy.run_toy_encoder().sentence_vector.shape)
        vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "cat", "sat"]
        model = encoderlib.Encoder(encoderlib.EncoderConfig.tiny(vocab_size=8))
        encoder = encoderlib.SentenceEncoder(
            encoderlib.WordPieceTokenizer(vocab), model.eval(), pooling="mean"
        )
        print(tuple(encoder.encode(["a cat sat", "a cat"]).shape))
        batches = [torch.randn(4, 2)] * 3
        history = encoderlib.train(
            torch.nn.Linear(2, 1), lambda m, b: m(b).pow(2).mean(), batches
        )
        print(len(history.losses))
        loaded = sorted(
            m for m, module in sys.modules.items()
            if m.split(".")[0] in BLOCKED and module is not None
        )
        print("extras imported:", loaded)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "torch.Size([3])" and "(2, 64)" in lines
    assert lines[-1] == "extras imported: []"
