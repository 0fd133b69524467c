"""Tensor cores, TMA and their futures (issue #20), one data-driven corpus: every
``cases/*.co.cpp`` file is one or more tests. See ``cases/README.md``.

- ``err_*``: rejected with exactly their ``// expect-error`` diagnostics, at those lines
  (the frontend corpus's rules, ``-fsyntax-only`` plus the file's ``// compile-flags``).
- every other file: accepted by ``-fsyntax-only`` without a diagnostic, and compiled with
  ``-t cuda -arch=<its // cuda-arch> -c`` where nvcc is (all of them at once, in parallel),
  without a warning.
- ``run_*``: built with ``-t cpu`` and run; must print exactly its ``// expect-output``
  lines (each program checks its results against products computed in its own main);
  built with ``-t factor`` and ``-t opencl`` too, it must print the same.
- ``same_bits``: built on cpu, factor and opencl, it must print the same digests of its
  results' bits on each (random fractions: the rounding of every sum shows).
- ``// xfail-TEST: REASON`` (TEST: rejected, accepted, cpu-run, portable-run, cuda-compile,
  cuda-quiet or gpu-run): a known compiler bug; that test of the file must fail until it is fixed.

tests/cuda_target/test_mma_programs_gpu.py runs the ``run_*`` programs on a GPU.
"""
from __future__ import annotations

import concurrent.futures
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from driver.util import run_croktilec
from frontend.test_cases import verify_case
from opencl.test_opencl import _opencl_problem

from .corpus import (ACCEPTED_CASES, CASES_DIR, ERROR_CASES, RUN_CASES, case_id, cuda_arch, expected_output,
                     not_on_opencl, xfail_reason)


def _params(paths, test: str):
    return [pytest.param(p, id=case_id(p), marks=[pytest.mark.xfail(strict=True, reason=r)]
                         if (r := xfail_reason(p, test)) else []) for p in paths]


def _build_and_run(target: str, path: Path, work: Path) -> subprocess.CompletedProcess:
    exe = work / f"{case_id(path)}.{target}"
    res = run_croktilec("-t", target, path, "-o", exe, cwd=work, timeout=300)
    assert res.rc == 0, res
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.mark.parametrize("path", _params(ERROR_CASES, "rejected"))
def test_rejected(path: Path, croktilec):
    verify_case(path, croktilec)


@pytest.mark.parametrize("path", _params(ACCEPTED_CASES, "accepted"))
def test_accepted(path: Path, croktilec):
    verify_case(path, croktilec)


@pytest.mark.parametrize("path", _params(RUN_CASES, "cpu-run"))
def test_runs_on_cpu(path: Path, tmp_path: Path):
    assert _build_and_run("cpu", path, tmp_path).stdout.splitlines() == expected_output(path)


@pytest.mark.parametrize("target", ["factor", "opencl"])
@pytest.mark.parametrize("path", _params(RUN_CASES, "portable-run"))
def test_runs_on_the_other_portable_targets(path: Path, target: str, tmp_path: Path):
    """The factor and opencl targets compute the fragments with the cpu target's portable
    arithmetic (toolchains/opencl_mma.py): the same programs print what they print on cpu."""
    problem = _opencl_problem() if target == "opencl" else ""
    if problem:
        pytest.skip(problem)
    if target == "opencl" and (why := not_on_opencl(path)):
        pytest.skip(f"{path.name}: {why}")
    assert _build_and_run(target, path, tmp_path).stdout.splitlines() == expected_output(path)


SAME_BITS = CASES_DIR / "same_bits.co.cpp"


@pytest.fixture(scope="module")
def cpu_bits(tmp_path_factory) -> List[str]:
    """What same_bits prints on cpu: a digest of each result's bits."""
    lines = _build_and_run("cpu", SAME_BITS, tmp_path_factory.mktemp("same-bits")).stdout.splitlines()
    assert len(lines) == 5 and len(set(lines)) == 5, lines
    return lines


@pytest.mark.parametrize("target", ["factor", "opencl"])
def test_portable_targets_round_as_cpu(target: str, cpu_bits: List[str], tmp_path: Path):
    """Results of random fractions (f16 and fp8 accumulators, tf32, 2:4 sparse, a warp
    group's multiply) have the cpu target's bits: same accumulation types, same rounding."""
    problem = _opencl_problem() if target == "opencl" else ""
    if problem:
        pytest.skip(problem)
    assert _build_and_run(target, SAME_BITS, tmp_path).stdout.splitlines() == cpu_bits


CUDA_CASES = [p for p in ACCEPTED_CASES if cuda_arch(p)]


@pytest.fixture(scope="module")
def cuda_objects(tmp_path_factory):
    """Every accepted case compiled with -t cuda -c, in parallel: {file name: Result}."""
    if not shutil.which("nvcc"):
        pytest.skip("nvcc is not installed")
    work = tmp_path_factory.mktemp("mma-cuda")

    def build(path: Path):
        return run_croktilec("-t", "cuda", f"-arch={cuda_arch(path)}", "-c", path,
                             "-o", work / f"{case_id(path)}.o", cwd=work, timeout=600)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip([p.name for p in CUDA_CASES], pool.map(build, CUDA_CASES)))


@pytest.mark.parametrize("path", _params(CUDA_CASES, "cuda-compile"))
def test_cuda_compiles(path: Path, cuda_objects):
    res = cuda_objects[path.name]
    assert res.rc == 0, res
    assert (Path(res.argv[res.argv.index("-o") + 1])).stat().st_size > 0


@pytest.mark.parametrize("path", _params(CUDA_CASES, "cuda-quiet"))
def test_cuda_compiles_quietly(path: Path, cuda_objects):
    """A program without mistakes compiles without a warning (nvcc's included)."""
    res = cuda_objects[path.name]
    assert res.rc == 0 and res.err == "", res


# A synchronous `inthreads` that writes shared data ends in a barrier of its level's
# instances (toolchains/inthreads.py); cuda has one only where each instance is a thread
# (or warp) of its own, at most 32 of them or whole warps: 40 one-thread instances are
# none of these, an error at the block (found while generating code, so not -fsyntax-only).
UNSYNCABLE = """__co__ auto f(s32 [4, 40] a) {
  s32 [4, 40] out;
  parallel b by 4 : block {
    shared s32 [1, 40] row;
    parallel t by 40 : thread {
      inthreads (t == 0) {
        foreach j in [40]
          row.at(0, j) = a.at(b, j);
      }
      out.at(b, t) = row.at(0, t);
    }
  }
  return out;
}
"""


def test_cuda_inthreads_barrier_needs_whole_warps(tmp_path: Path):
    (tmp_path / "bar.co.cpp").write_text(UNSYNCABLE)
    res = run_croktilec("-t", "cuda", "-S", "bar.co.cpp", "-o", "bar.cu", cwd=tmp_path)
    assert res.rc == 1, res
    assert res.err.splitlines()[:3] == [
        "bar.co.cpp:6:7: error: this 'inthreads' block ends in a barrier of the instances of its level, and on "
        "target 'cuda' each instance must then be a thread (or a warp or warp group) of its own, at most 32 of "
        "them or whole warps; make the level 'group'/'group-4' or its size at most 32 or a multiple of 32, or "
        "use 'inthreads.async' with events",
        "      inthreads (t == 0) {",
        "      ^"], res.err
    assert not (tmp_path / "bar.cu").exists()
    (tmp_path / "bar.co.cpp").write_text(UNSYNCABLE.replace("inthreads", "inthreads.async"))
    assert run_croktilec("-t", "cuda", "-S", "bar.co.cpp", "-o", "bar.cu", cwd=tmp_path).rc == 0


RUN_TMA = CASES_DIR / "run_tma.co.cpp"
TILE_COPY = """__co__ auto twice(f32 [8, 64] a) {
  f32 [8, 64] out;
  parallel p by 2 : block {
    shared f32 [8, 32] t;
    tma.copy a.chunkat(_, p) => t;
    foreach {i, j} in [8, 32]
      t.at(i, j) = t.at(i, j) * 2.0f;
    tma.copy t => out.chunkat(_, p);
  }
  return out;
}
"""


def test_tma_copies_use_the_copy_engine_from_sm_90(tmp_path: Path):
    """On sm_90 and newer each block-level `tma.copy` of run_tma.co.cpp (loads, the double
    buffer's futures, stores, swizzled tiles, the symbolic GEMM's instance) is a bulk
    tensor copy on a map the host encodes once per launch, completed on an mbarrier; the
    kernel keeps the cooperative copy for a launch whose data the engine cannot take."""
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", RUN_TMA, "-o", "t.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "t.cu").read_text()
    loads, stores = text.count("croktile::tma::load_async("), text.count("croktile::tma::store_async(")
    # mm_swizzled: 2 loads; add_pipelined: 4 loads, 2 stores; twice_stored_async: 1 load, 1 store;
    # gemm_tma's instance: 2 loads, 1 store
    assert (loads, stores) == (9, 4), (loads, stores)
    assert text.count("croktile::mbarrier::wait_parity(") >= loads
    assert text.count("croktile::tma::box_map<") == 2 + 3 + 2 + 3
    # the async store is not waited where it is issued, but before its shared row is
    # loaded again, at its `wait` and before the block ends
    kernel = text[text.index("twice_stored_async__launch0("):]
    kernel = kernel[:kernel.index("\n}\n")]
    issued = kernel.index("croktile::tma::store_async(")
    assert "store_wait_all" not in kernel[issued:issued + 200]
    load = kernel.index("croktile::tma::load_async(")
    assert "store_wait_all<0>" in kernel[:load]
    assert kernel.count("store_wait_all<0>") == 3, kernel
    assert "croktile::cuda::generic_instance(" in text and "block_copy<" in text


@pytest.mark.parametrize("arch, engine", [("sm_90", True), ("sm_80", False)])
def test_tma_copy_engine_by_arch(arch: str, engine: bool, tmp_path: Path):
    """Older GPUs have no copy engine: `tma.copy` is the block's cooperative copy there."""
    (tmp_path / "twice.co.cpp").write_text(TILE_COPY)
    res = run_croktilec("-t", "cuda", f"-arch={arch}", "-S", "twice.co.cpp", "-o", "t.cu", cwd=tmp_path)
    assert res.rc == 0, res
    text = (tmp_path / "t.cu").read_text()
    counts = (text.count("croktile::tma::load_async("), text.count("croktile::tma::store_async("))
    assert counts == ((1, 1) if engine else (0, 0)), counts
    assert ("CUtensorMap" in text) == engine
