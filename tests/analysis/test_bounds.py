"""Stated bounds (frontend/bounds.py): `assert(S <= c)` before the parallel gives thread
buffers sized by S a static allocation on every target, and --memory-report says that no
buffer stays in global scratch."""
from __future__ import annotations


import pytest

from helpers.corpus import CORPUS
from helpers.croktilec import ok

CASE = CORPUS / "data" / "stated_bounds.co.cpp"


@pytest.mark.parametrize("target, declaration", [
    ("cpu", "int32_t x_buf[64];"),
    ("cuda", "__align__(16) int32_t x_buf[64];"),
    ("opencl", "int32_t x_buf[64] __attribute__((aligned(16)));"),
])
def test_bounded_thread_buffers_are_static_arrays(tmp_path, target, declaration):
    out = tmp_path / ("g.cu" if target == "cuda" else "g.cpp")
    ok("-t", target, "-S", str(CASE), "-o", str(out), cwd=tmp_path)
    text = out.read_text() + ((tmp_path / "g.cl").read_text() if target == "opencl" else "")
    assert declaration in text, text


def test_memory_report_names_no_scratch_for_the_bounded_instance(tmp_path):
    res = ok("-t", "cuda", "--memory-report", "-S", str(CASE), "-o", str(tmp_path / "g.cu"), cwd=tmp_path)
    line = next(l for l in res.err.splitlines() if "'row_sums': the call takes instance" in l)
    assert "when 2 divides M" in line and "no buffer in global scratch" in line, line
