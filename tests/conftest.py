"""Shared test setup: the repository root on sys.path for the tools/ scripts."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
