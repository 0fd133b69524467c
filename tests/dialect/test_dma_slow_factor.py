"""The DMA forms' program on factor with a slow, really asynchronous DMA engine (the
settings of tests/factor): a `wait` that did not wait (a `dma.any` rotation, a selected
future, `after`) would let a later read see data not landed yet."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from runtime.targets import build_for_targets, program
from dialect.test_dialect import expected_output

CASE = Path(__file__).parent / "cases" / "dma" / "dma_forms.co.cpp"
SLOW_DMA = {"CROKTILE_FACTOR_DMA_LATENCY_US": "300", "CROKTILE_FACTOR_CORES": "3"}


def test_dma_forms_with_slow_dma(tmp_path):
    exe = program(build_for_targets(CASE, tmp_path, ["factor"]), "factor")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **SLOW_DMA))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == expected_output(CASE.read_text(encoding="utf-8"))
