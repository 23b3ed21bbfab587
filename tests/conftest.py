"""Shared test setup: tools/ on sys.path, the offline environment, tiny models.

- The repository's tools/ scripts (export.py, setup_cell.py, diagrams.py, ...)
  import as top-level modules, and tests/bad_input.py (the one bad-input runner)
  imports as `bad_input`.
- Every test runs offline, as CI does: Hugging Face's hub and datasets libraries
  are told never to reach the network (`make test` sets the same variables), so
  nothing can hang on a download.
- Under xdist (`make test` runs two workers) each worker's torch gets its share of
  the cores' threads, so that the workers' thread pools do not wait on each other.
- `@pytest.mark.cuda` marks a test that needs a CUDA GPU: skipped without one,
  and what `benchmarks/gpu_checks.sh` selects (`-m cuda`) on a GPU machine.
- `tiny_config` and `tiny_encoder` build the small BERT-shaped encoder that most
  tests need, seeded, in eval mode; a test that needs other sizes passes
  overrides: `tiny_config(n_layers=1)`.
"""

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from encoderlib import Encoder, EncoderConfig

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))  # studies/ imports as a package

OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
for variable in OFFLINE:  # before any test module imports datasets or transformers
    os.environ.setdefault(variable, "1")


# xdist's workers share the machine's cores: each gets its share of torch's threads.
# With torch's default (a thread per core) in both of two workers, their OpenMP
# threads wait on one another: on the 2-core CI machine a test that took 7 s alone
# took 34 s beside another such test, and 13 s with one thread each.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // _WORKERS))


def pytest_configure(config: pytest.Config) -> None:
    """Register the `cuda` marker (the suite runs with --strict-markers)."""
    config.addinivalue_line(
        "markers", "cuda: needs a CUDA GPU; skipped without one (gpu_checks.sh -m cuda)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests marked `cuda` on a machine without a CUDA GPU."""
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if item.get_closest_marker("cuda") is not None:
            item.add_marker(skip)


@pytest.fixture
def tiny_config() -> Callable[..., EncoderConfig]:
    """Build a small BERT-shaped `EncoderConfig`: 50 tokens, 2 layers of 16, 2 heads."""

    def build(**overrides):
        sizes = dict(vocab_size=50, d_model=16, n_heads=2, n_layers=2, d_ff=32)
        return EncoderConfig(**{**sizes, "max_len": 32, "dropout": 0.0, **overrides})

    return build


@pytest.fixture
def tiny_encoder(tiny_config) -> Callable[..., Encoder]:
    """Build a seeded `Encoder` of `tiny_config(**overrides)` in eval mode."""

    def build(seed: int = 0, **overrides):
        torch.manual_seed(seed)
        return Encoder(tiny_config(**overrides)).eval()

    return build
