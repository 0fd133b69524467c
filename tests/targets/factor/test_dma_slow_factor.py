"""The DMA forms' programs of the corpus (tests/language/dma) on factor with a slow, really
asynchronous DMA engine (helpers.targets.SLOW_DMA): a `wait` that did not wait (a `dma.any`
rotation, a selected future, `after`, a copy swapped into a `dma.any` that has no copy of its
own, a wait that finds its future waited already on some paths only) would let a later read
see data not landed yet. The programs are the corpus's factor builds
(tests/language/test_corpus.py builds them too: one build per session)."""
from __future__ import annotations

import os
import subprocess

import pytest

from helpers import corpus
from helpers.targets import SLOW_DMA

CASES = [corpus.read_case(corpus.CORPUS / name)
         for name in ("dma/dma_forms.co.cpp", "dma/any_infer.co.cpp", "dma/double_wait.co.cpp",
                      "mma/run_tma_waits.co.cpp")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.name)
def test_dma_forms_with_slow_dma(tmp_path_factory, case):
    res, exe = corpus.build(tmp_path_factory, case, "factor")
    assert res.rc == 0, res
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **SLOW_DMA))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == case.output
