"""Chapter 18's compile study: the tiny classifier's training step, compiled and timed.

For every run (rows 0, 1, ...): `compiled_step_timings` from the chapter, in a
fresh interpreter with an empty inductor cache: the seconds of the first call of
the compiled step (forward and backward of the tiny classifier on 32 random
sentences, compiled with `torch.compile(model, dynamic=False)`), then the median
milliseconds of 30 eager and 30 compiled steps. One CPU thread, under a minute
per run. Run `make study CH=18`.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from studies.common import Study, chapter_namespace, main

ROOT = Path(__file__).resolve().parent.parent

CHAPTER = "18_training_at_scale"


def chapter() -> dict:
    """The chapter's study cells (run once: `chapter_namespace` caches them)."""
    return chapter_namespace(CHAPTER)


def run_seed(seed: int, device: str) -> tuple[float, float, float]:
    """(first call s, eager ms, compiled ms) of one run, in a fresh interpreter
    with an empty inductor cache: a process that compiled before keeps the code
    it generated in memory, and would compile the second run in seconds."""
    code = (
        "import json, torch; torch.set_num_threads(1)\n"
        "from studies.ch18_compile import chapter\n"
        f"print(json.dumps(chapter()['compiled_step_timings']({device!r})))"
    )
    with tempfile.TemporaryDirectory(prefix="inductor-") as cache:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the compile run failed:\n{done.stderr[-2000:]}")
    first, eager, compiled = json.loads(done.stdout.strip().splitlines()[-1])
    return first, eager, compiled


def render(rows: dict[int, tuple[float, float, float]]) -> str:
    """The chapter's table: run, first call (s), eager and compiled step (ms)."""
    lines = [
        f"{seed} {first:.1f} {eager:.2f} {compiled:.2f}"
        for seed, (first, eager, compiled) in sorted(rows.items())
    ]
    return '"""\n' + "\n".join(lines) + '\n"""'


def parse(text: str) -> dict[int, tuple[float, float, float]]:
    """The chapter's table back into rows."""
    rows = {}
    for line in text.strip().splitlines():
        seed, first, eager, compiled = line.split()
        rows[int(seed)] = (float(first), float(eager), float(compiled))
    return rows


def agree(recorded: tuple, computed: tuple) -> bool:
    """Times are measurements of a machine and its load, never asserted: a rerun
    agrees when it completes with positive, finite times in every field."""
    return len(computed) == len(recorded) and all(
        0 < t < float("inf") for t in computed
    )


STUDIES = [
    Study(
        chapter=CHAPTER,
        name="RECORDED_COMPILE",
        seeds=range(2),
        run_seed=run_seed,
        render=render,
        parse=parse,
        agree=agree,
        test_seed=0,
        description="compiling the tiny classifier's training step, two runs",
        seeded=False,
    )
]

if __name__ == "__main__":
    main(STUDIES)
