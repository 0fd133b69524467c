"""The DMA forms' program on factor with a slow, really asynchronous DMA engine (the
settings of tests/factor): a `wait` that did not wait (a `dma.any` rotation, a selected
future, `after`, a copy swapped into a `dma.any` that has no copy of its own) would let a
later read see data not landed yet."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from runtime.targets import build_for_targets, program
from dialect.test_dialect import CORPUS_FLAGS, expected_output

CASES = [Path(__file__).parent / "cases" / "dma" / name for name in ("dma_forms.co.cpp", "any_infer.co.cpp")]
SLOW_DMA = {"CROKTILE_FACTOR_DMA_LATENCY_US": "300", "CROKTILE_FACTOR_CORES": "3"}


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_dma_forms_with_slow_dma(tmp_path, tmp_path_factory, case):
    # test_dialect.py's factor build of the case (the session's shared one)
    exe = program(build_for_targets(case, tmp_path, ["factor"], shared=tmp_path_factory,
                                     options=CORPUS_FLAGS), "factor")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **SLOW_DMA))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == expected_output(case.read_text(encoding="utf-8"))
