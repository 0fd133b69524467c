"""samples/gemm/: GEMMs written in the language (issue #25). Each builds and passes on the
cpu, factor and opencl targets (portable tensor-core arithmetic; opencl on PoCL, with a
work-group of two work-items, one per warp group, whose tile loads are cooperative copies:
toolchains/opencl.py KernelEmitter.eligible); its cuda build for sm_90a loads
its tiles with the copy engine (tma.copy -> cp.async.bulk.tensor) and multiplies with
wgmma; on a GPU machine the cuda build passes, taking the kernels' fast instances, and
compute-sanitizer finds nothing. The speed is bench/bench_gemm.py's."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec
from helpers.platforms import opencl_problem

GEMMS = sorted((Path(__file__).resolve().parents[2] / "samples" / "gemm").glob("*.co.cpp"))
IDS = [p.name[: -len(".co.cpp")] for p in GEMMS]


@pytest.mark.parametrize("target", ["cpu", "factor", "opencl"])
@pytest.mark.parametrize("src", GEMMS, ids=IDS)
def test_gemm_passes_on_the_host_targets(src: Path, target: str, tmp_path: Path):
    problem = opencl_problem() if target == "opencl" else ""
    if problem:
        if os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
        pytest.skip(problem)
    res = run_croktilec("-t", target, src, "-o", tmp_path / "g", cwd=tmp_path, timeout=300)
    assert res.rc == 0, res
    run = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr


def test_gemm_cuda_uses_tma_and_wgmma(tmp_path: Path):
    # the K loop's waits of gemm.co.cpp (gemm_skinny.co.cpp's build: test_samples_gemm_skinny.py)
    src = GEMMS[IDS.index("gemm")]
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", src, "-o", tmp_path / "g.cu", cwd=tmp_path)
    assert res.rc == 0, res
    assert "never waited" not in res.err, res.err   # the pipelined loop's prefetches are waited
    text = (tmp_path / "g.cu").read_text()
    assert "croktile::tma::load_async(" in text and "croktile::tma::store_async(" in text
    assert "croktile::wgmma::mma_async(" in text
    # the K loop: one barrier, before the loads of step k + 2, which lets the four
    # multiplies of step k run on (cuda_wgmma_waits.py); the loads' readers wait on mbarriers
    start = text.index("for (long long k__0")
    loop = text[start:text.index("croktile_t = ", start)]   # up to the rotation
    waits = [line.strip() for line in loop.splitlines()
             if ("wgmma::wait<" in line or "__syncthreads" in line) and "check_fail" not in line]
    # a failed check leaves the kernel with no multiply in flight (else ptxas adds the wait
    # and says so on every build, C7517)
    fails = [line for line in loop.splitlines() if "check_fail" in line]
    assert fails and all("croktile::wgmma::wait<0>(); return;" in line for line in fails), fails
    assert [w.split(";")[0] for w in waits] == ["__syncthreads()",   # the generic instance's copies
                                                 "croktile::wgmma::wait<4>()", "__syncthreads()"], waits


@pytest.mark.usefixtures("gpu")
@pytest.mark.parametrize("src", GEMMS, ids=IDS)
def test_gemm_passes_on_the_gpu(src: Path, tmp_path: Path):
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-DCROKTILE_REQUIRE_FAST_INSTANCE", src, "-o", tmp_path / "g",
                        cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    assert "warpgroup.wait is injected" not in res.err, res.err   # ptxas's C7517: a wait we did not place
    run = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr
    sanitizer = shutil.which("compute-sanitizer")
    for tool in ("memcheck", "racecheck", "synccheck") if sanitizer else ():
        proc = subprocess.run([sanitizer, "--tool", tool, "--error-exitcode", "1", str(tmp_path / "g")],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (tool, proc.stdout[-3000:])
