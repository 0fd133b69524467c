"""Events that deadlock only at run time (tests/language/events has the rest): the
wait gives up after CROKTILE_EVENT_TIMEOUT_MS and the program fails with the wait's
line instead of hanging, on cpu, factor, opencl (where the deadlock shows at once) and
(built everywhere nvcc is, run where a GPU is) cuda."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pytest

from helpers.croktilec import run_croktilec
from helpers.platforms import has_gpu, opencl_problem

# Two instances that each wait for the other first: no wait is unmatched, so only a
# run shows the cycle.
SOURCE = """__co__ void crossed() {
  parallel p by 2 {
    shared event a, b;
    parallel q by 2 {
      inthreads (q == 0) { wait a; trigger b; }
      inthreads (q == 1) { wait b; trigger a; }
    }
  }
}

int main() {
  crossed();
  return 0;
}
"""
# either wait may give up first
REPORT = re.compile(r"dl\.co\.cpp:(5:28|6:28): runtime check failed: wait on event '[ab]' did not end within "
                    r"300 ms \(deadlock\? CROKTILE_EVENT_TIMEOUT_MS sets the time\)")
# opencl runs the waiting instances as resumable ones (opencl_events.py): it sees the
# deadlock in the first round in which no instance can go on, without a time bound
OPENCL_REPORT = re.compile(r"dl\.co\.cpp:(5:28|6:28): runtime check failed: wait on event '[ab]' cannot end: no "
                           r"instance that is still running can trigger it \(deadlock\)")


@pytest.mark.parametrize("target", ["cpu", "factor", "opencl"])
def test_deadlock_is_reported_with_the_line(tmp_path, target):
    problem = opencl_problem() if target == "opencl" else ""
    if problem:
        pytest.skip(problem)
    (tmp_path / "dl.co.cpp").write_text(SOURCE)
    res = run_croktilec("-t", target, "dl.co.cpp", "-o", "dl", cwd=tmp_path)
    assert res.rc == 0, res
    start = time.monotonic()
    proc = subprocess.run([str(tmp_path / "dl")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CROKTILE_EVENT_TIMEOUT_MS": "300"})   # (PoCL needs PATH: ld)
    assert time.monotonic() - start < 30
    assert proc.returncode != 0
    assert (OPENCL_REPORT if target == "opencl" else REPORT).search(proc.stderr), proc.stderr


@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc is not installed")
def test_cuda_deadlock_is_reported_with_the_line(tmp_path):
    (tmp_path / "dl.co.cpp").write_text(SOURCE)
    gpu = has_gpu()
    out = "dl" if gpu else "dl.o"
    res = run_croktilec("-t", "cuda", "-DCROKTILE_EVENT_TIMEOUT_MS=300", *([] if gpu else ["-c"]), "dl.co.cpp",
                        "-o", out, cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    if not gpu:
        pytest.skip("built; no GPU to run it on")
    proc = subprocess.run([str(tmp_path / out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert REPORT.search(proc.stderr), proc.stderr


def test_while_over_events_is_refused_at_build(tmp_path):
    src = tmp_path / "w.co.cpp"
    src.write_text("__co__ void f() {\n  parallel p by 2 {\n    shared event e;\n    trigger e;\n"
                   "    while (e);\n  }\n}\n")
    res = run_croktilec("-t", "cpu", "-c", src, "-o", tmp_path / "w.o", cwd=tmp_path)
    assert res.rc == 1, res
    assert "w.co.cpp:5:12: error: 'while' over events is not supported yet by the code generators" in res.err, res
    assert not (tmp_path / "w.o").exists()
    assert run_croktilec("-fsyntax-only", src, cwd=tmp_path).rc == 0
