"""`croktilec --time` (issue #39): each job's wall time on standard error as it ends, and
nvcc's own phases under its job; the build's result is unchanged."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers.croktilec import ok
from helpers.programs import ADD_PROGRAM

LINE = re.compile(r"^croktilec: time: +(\S.*?) (\d+\.\d\d) s$")   # (phases indented)


@pytest.fixture
def src(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    return tmp_path


def _times(err: str):
    return [(m[1], float(m[2])) for m in map(LINE.match, err.splitlines()) if m]


def test_each_job_says_its_time_and_the_program_still_runs(src):
    res = ok("--time", "add.co.cpp", "-o", "app", cwd=src)
    jobs = [what for what, _ in _times(res.err)]
    assert len(jobs) == 3 and jobs[0] == "transpile add.co.cpp", res.err
    assert jobs[1].endswith("(compile)") and jobs[2].endswith("(link)"), res.err
    assert all(seconds >= 0 for _, seconds in _times(res.err))
    assert subprocess.run([str(src / "app")], capture_output=True, text=True).returncode == 0


def test_without_the_flag_nothing_is_said(src):
    res = ok("add.co.cpp", "-o", "app", cwd=src)
    assert "time:" not in res.err


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_lists_its_phases(src):
    res = ok("-time", "-t", "cuda", "-c", "add.co.cpp", "-o", "add.o", cwd=src)
    times = _times(res.err)
    names = [what.strip() for what, _ in times]
    assert names[0] == "transpile add.co.cpp" and names[1] == "nvcc (compile)", res.err
    # its phases, indented under it: the front ends and the device assembler at least
    assert {"cudafe++", "cicc", "ptxas"} <= set(names[2:]), res.err
    assert (src / "add.o").is_file() and not list(src.glob("*.csv"))
