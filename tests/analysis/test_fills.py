"""Zero fills only where the language needs them (issue #22, README "Zero fills").

The programs are the corpus's `data/fills.co.cpp` (data that may be read unwritten,
each declaration marked `// fill`) and `data/fills_none.co.cpp` (data written in full);
tests/language/test_corpus.py runs both on every target and checks their results (zeros
where unwritten). Here: which declarations are filled (-Wimplicit-fill), that the
generated source of every target has no fill for the second program and has fills for the
first, and --memory-report.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.corpus import CORPUS

CASES = CORPUS / "data"
PARTIAL = CASES / "fills.co.cpp"
WRITTEN = CASES / "fills_none.co.cpp"
# what each target emits to fill data: cpu std::fill_n; cuda cudaMemsetAsync (.zero) and
# fill kernels, device loops over croktile_i; opencl clEnqueueFillBuffer (fill_zero,
# fill_value) and kernel loops; factor memset and loops
FILL_CODE = re.compile(r"std::fill_n\(|\.zero\(|cuda::fill\(|fill_zero\(|fill_value\(|memset\(|croktile_i\] = "
                       r"|\] = \{\}|\] = \{0\}")
TARGETS = ["cpu", "cuda", "opencl", "factor"]


def marked_lines(path: Path):
    return {n for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"//\s*fill\s*$", line)}


def test_warned_declarations_are_the_marked_ones(croktilec):
    res = croktilec("-Wimplicit-fill", "-fsyntax-only", PARTIAL)
    assert res.rc == 0, res.err
    warned = {d.line for d in res.diags if d.kind == "warning"}
    assert warned == marked_lines(PARTIAL), res.err
    assert all("[-Wimplicit-fill]" in d.msg for d in res.diags if d.kind == "warning")
    # each warning names the buffer and is followed by a note at the read that needs the fill
    assert "warning: 'acc' is zero-filled: it may be read before every element is written" in res.err
    notes = [d for d in res.diags if d.kind == "note"]
    assert len(notes) == len(warned)
    assert any(n.msg == "an element is read here" and n.line == 37 for n in notes), res.err


def test_written_data_is_not_warned_of(croktilec):
    res = croktilec("-Wimplicit-fill", "-fsyntax-only", WRITTEN)
    assert res.rc == 0 and res.err == "", res.err


def test_the_warning_is_off_by_default_and_follows_the_last_flag(croktilec):
    assert croktilec("-fsyntax-only", PARTIAL).err == ""
    assert croktilec("-Wimplicit-fill", "-Wno-implicit-fill", "-fsyntax-only", PARTIAL).err == ""
    assert croktilec("-Wimplicit-fill", "-w", "-fsyntax-only", PARTIAL).err == ""
    res = croktilec("-Wimplicit-fill", "-Werror", "-fsyntax-only", PARTIAL)
    assert res.rc == 1
    assert "error: 'out' is zero-filled: it may be read before every element is written [-Wimplicit-fill] " \
           "[-Werror]" in res.err


@pytest.mark.parametrize("target", TARGETS)
def test_generated_source_fills_only_what_needs_it(target, croktilec, tmp_path):
    for path, filled in ((WRITTEN, False), (PARTIAL, True)):
        out = tmp_path / f"{path.stem}.gen"
        res = croktilec("-w", "-S", "-t", target, path, "-o", out)
        assert res.rc == 0, res.err
        # opencl and factor write the device source beside the host source
        text = "".join(p.read_text() for p in tmp_path.glob(f"{path.stem}.gen*"))
        assert bool(FILL_CODE.search(text)) == filled, (target, path.name, FILL_CODE.findall(text))


def test_memory_report_lists_the_fills(croktilec, tmp_path):
    res = croktilec("-S", "--memory-report", PARTIAL, "-o", tmp_path / "p.cpp")
    assert res.rc == 0, res.err
    assert f"{PARTIAL}:32:1: zero fills of 'sums': 1 of 2 declared buffers" in res.err
    assert re.search(r"^  acc \(global s32 \[4\] acc, line 33\): an element is read here \(line 37\)$",
                     res.err, re.M), res.err
    res = croktilec("-S", "--memory-report", WRITTEN, "-o", tmp_path / "w.cpp")
    assert "zero fills of 'tiles': 0 of 2 declared buffers" in res.err
