"""The checkout's folders, wherever a test file lies."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
SAMPLES = REPO / "samples"
RUNTIME = REPO / "runtime"
