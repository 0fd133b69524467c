"""The tensor-core programs of the corpus (tests/language/mma: each checks its products against
ones computed in its own main) built with ``-t cuda`` for the arch each names and run on the
GPU: each must print what its cpu build prints, which is what its ``// expect-output`` lines
say; compute-sanitizer's memcheck, racecheck and synccheck find nothing. Skips, saying why,
without nvcc or a GPU."""
from __future__ import annotations

import concurrent.futures
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import corpus
from helpers.croktilec import run_croktilec

GPU_CASES = [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail["gpu"])]
                          if "gpu" in c.xfail else [])
             for c in corpus.all_cases() if c.area == "mma" and c.output is not None and c.cuda_arch]


def _run(exe: Path, *wrapper: str) -> subprocess.CompletedProcess:
    return subprocess.run([*wrapper, str(exe)], capture_output=True, text=True, timeout=600)


@pytest.mark.usefixtures("gpu")
@pytest.mark.parametrize("case", GPU_CASES)
def test_program_on_the_gpu_prints_what_cpu_prints(case: corpus.Case, tmp_path: Path):
    # the launches must take the kernels' fast instances (vector copies, TMA): a generic
    # one would pass the comparison too, without the code this test is about
    builds = {"cpu": ["-t", "cpu"],
              "cuda": ["-t", "cuda", f"-arch={case.cuda_arch}", "-DCROKTILE_REQUIRE_FAST_INSTANCE"]}

    def build(target: str) -> Path:
        exe = tmp_path / f"{case.stem}.{target}"
        res = run_croktilec(*builds[target], case.path, "-o", exe, cwd=tmp_path, timeout=600)
        assert res.rc == 0, res
        return exe
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        exes = dict(zip(builds, pool.map(build, builds)))
    out = {}
    for target, exe in exes.items():
        proc = _run(exe)
        assert proc.returncode == 0, f"{target}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        out[target] = proc.stdout.splitlines()
    assert out["cuda"] == out["cpu"] == case.output
    sanitizer = shutil.which("compute-sanitizer")
    for tool in ("memcheck", "racecheck", "synccheck") if sanitizer else ():
        proc = _run(exes["cuda"], sanitizer, "--tool", tool, "--error-exitcode", "1")
        assert proc.returncode == 0, (tool, proc.stdout[-3000:], proc.stderr[-2000:])
