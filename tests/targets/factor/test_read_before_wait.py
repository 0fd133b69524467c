"""Read-before-wait (issue #11) on factor-sim, where a DMA engine really runs copies later.

``read_before_wait.co.cpp`` is right as written and gives the cpu target's results on
factor-sim with DMA latency. Without its lines marked ``the fix`` it is the program of
the issue (a ``wait`` only inside ``foreach ... if``; a loop that reads a buffer while
the previous iteration's copy into it is in flight), which ran and gave 24 of 32 and 32
of 64 wrong elements there; now the compiler rejects it at each read.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import fails, ok

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "read_before_wait.co.cpp"
FIX = "// the fix"
RIGHT = "masked: 0 wrong of 32\ncarried: 0 wrong of 64\n"


@pytest.fixture(scope="module", autouse=True)
def compilers():
    if shutil.which("c++") is None:
        pytest.skip("c++ is not installed")


def line_of(lines, text: str, after: int = 0) -> int:
    """1-based number of the first line after line `after` that holds `text`."""
    return next(n for n, line in enumerate(lines, 1) if n > after and text in line)


def run(exe: Path, env=None) -> str:
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_fixed_program_is_right_under_dma_latency(tmp_path):
    ok("-t", "cpu", PROGRAM, "-o", tmp_path / "cpu", cwd=tmp_path)
    ok("-t", "factor", PROGRAM, "-o", tmp_path / "factor", cwd=tmp_path)
    assert run(tmp_path / "cpu") == RIGHT
    assert run(tmp_path / "factor", {"CROKTILE_FACTOR_DMA_LATENCY_US": "50000"}) == RIGHT


def test_the_program_of_the_issue_is_rejected_at_each_read(tmp_path):
    lines = PROGRAM.read_text().splitlines()
    assert sum(FIX in line for line in lines) == 2
    broken = [line for line in lines if FIX not in line]
    src = tmp_path / "issue.co.cpp"
    src.write_text("\n".join(broken) + "\n")
    res = fails("-t", "factor", src, "-o", tmp_path / "issue", cwd=tmp_path)
    assert not (tmp_path / "issue").exists()

    masked = line_of(broken, "__co__ s32 [4, 8] masked")
    masked_wait = line_of(broken, "wait f;", masked)
    masked_read = line_of(broken, "call copy_plus(f.data", masked)
    col = broken[masked_read - 1].index("data") + 1
    assert (f"issue.co.cpp:{masked_read}:{col}: error: 'f.data' is read before 'wait f': the asynchronous "
            "copy may not have finished") in res.err
    assert (f"issue.co.cpp:{masked_wait}:9: note: this 'wait' does not run for the instances that the "
            "'foreach ... if' condition excludes") in res.err

    carried = line_of(broken, "__co__ s32 [4, 2, 8] carried")
    carried_read = line_of(broken, "call copy_plus(buf", carried)
    copy = line_of(broken, "f = dma.copy.async", carried)
    col = broken[carried_read - 1].index("buf") + 1
    assert (f"issue.co.cpp:{carried_read}:{col}: error: 'f' is read before 'wait f': the asynchronous copy "
            "into it may not have finished") in res.err
    assert (f"issue.co.cpp:{copy}:9: note: the asynchronous copy 'f' is issued in an earlier iteration "
            "of the loop") in res.err
