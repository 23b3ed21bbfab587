"""Chapter 13's equality check in three numeric settings: our MiniLM against HF's.

Each row is one numeric setting of the book's tests (0: as built, 1: ATen's portable
kernels with MKL's reproducible path and one thread, 2: AVX2 kernels): the largest
difference between encoderlib's and `transformers`' last hidden states at the 50
real-token positions of the chapter's five sentences. Each setting runs the chapter's
cells in a fresh Python process, because these switches act when torch starts. One
CPU thread, about 20 s per setting. Run `make study CH=13`.
"""

import os
import subprocess
import sys
import types
from pathlib import Path

from studies.common import ROOT, Study, chapter_namespace, main

CHAPTER = "13_a_real_pretrained_encoder"
# The chapter's names for the settings, and the environment each one sets.
SETTINGS = {
    "default": {},
    "portable, 1 thread": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_CBWR": "COMPATIBLE",
        "OMP_NUM_THREADS": "1",
    },
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
}
SWITCHES = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "OMP_NUM_THREADS")


def real_difference() -> float:
    """The largest |ours - Hugging Face| at real tokens, in this process's setting."""
    # The chapter's export cells define dataclasses, which look up their module.
    sys.modules.setdefault(f"study_{CHAPTER}", types.ModuleType(f"study_{CHAPTER}"))
    names = chapter_namespace(CHAPTER)
    return (names["ours"] - names["theirs"]).abs()[names["real"]].max().item()


def run_seed(seed: int, device: str) -> float:
    """Row `seed`: the difference in the `seed`-th setting, in a fresh process."""
    if device != "cpu":
        raise ValueError("chapter 13 compares the two models on the CPU only")
    environment = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    environment.update(list(SETTINGS.values())[seed])
    command = [
        sys.executable,
        "-c",
        f"from studies.{Path(__file__).stem} import real_difference; "
        "print(real_difference())",
    ]
    result = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True
    )
    if result.returncode:
        raise RuntimeError(result.stderr[-3000:])
    return float(result.stdout.strip().splitlines()[-1])


def render(rows: dict[int, float]) -> str:
    """The chapter's dict: one line per setting, the difference to two digits."""
    lines = [
        f"    {name!r}: {float(f'{rows[i]:.1e}')!r},".replace("'", '"')
        for i, name in enumerate(SETTINGS)
        if i in rows
    ]
    return "{\n" + "\n".join(lines) + "\n}"


def parse(table: dict[str, float]) -> dict[int, float]:
    """The chapter's dict back into rows 0, 1, 2."""
    return {i: table[name] for i, name in enumerate(SETTINGS) if name in table}


def agree(recorded: float, computed: float) -> bool:
    """The chapter's tolerance: below the 1e-5 bound, within 5e-6 of the record."""
    return computed <= 1e-5 and abs(recorded - computed) <= 5e-6


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_REAL_DIFFERENCE",
        seeds=range(3),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=1,
        description="largest difference at real tokens, rows = numeric settings",
        seeded=False,
    )
]

if __name__ == "__main__":
    main(STUDIES)
