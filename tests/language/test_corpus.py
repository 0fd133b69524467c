"""The ``.co.cpp`` corpus: every file under tests/language/ is a case; its comments say what to
expect (README.md). Adding a case is adding a file.

- ``test_diagnostics``: every file through ``croktilec -fsyntax-only`` (and its
  ``// compile-flags:``), in-process: exactly its expected errors and warnings, each at its
  line with the source line and a caret, its expected notes, exit status 1 for an error case.
- ``test_runs``: a program (``// expect-output:`` or ``// expect-same-output:``) built for
  cpu, factor and opencl (PoCL) and run: each prints exactly its expect-output lines, or
  what the cpu build prints.
- ``test_cuda``: a program compiled with ``-t cuda`` where nvcc is; linked and run where a GPU
  is, printing its expect-output lines. ``test_cuda_quiet``: that build warns of nothing (nvcc
  included) but the file's expected warnings.

The programs' builds (the slow part) start together when the first test of this file does, on
as many threads as there are cores, in the order the tests take them, while the in-process
diagnostics tests run; each is a session-shared build (helpers/shared_builds.py), which
tests/targets/factor/test_dma_slow_factor.py runs again.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from helpers import corpus
from helpers.platforms import has_gpu, need_opencl, nvcc, opencl_problem

CASES = corpus.all_cases()
PROGRAMS = [c for c in CASES if c.is_program]


def _params(pairs, test_of):
    """pytest params of (case, *rest), with the case's `// xfail-TEST:` as a strict xfail."""
    out = []
    for case, *rest in pairs:
        reason = case.xfail.get(test_of(case, *rest))
        ident = "-".join([case.id, *rest])
        out.append(pytest.param(case, *rest, id=ident,
                                marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else []))
    return out


RUNS = [(c, t) for c in PROGRAMS for t in c.runs_on()]
CUDA = [(c,) for c in PROGRAMS if c.built_for_cuda()]


class Builds:
    """The programs' builds, started on a thread pool: ``get(case, target)`` waits for one."""

    def __init__(self, tmp_path_factory, wanted: List[Tuple[corpus.Case, str]]):
        self.factory = tmp_path_factory
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
        self.futures: Dict[Tuple[str, str], concurrent.futures.Future] = {}
        self.outputs: Dict[Tuple[str, str], subprocess.CompletedProcess] = {}
        for case, target in wanted:
            self._submit(case, target)

    def _submit(self, case: corpus.Case, target: str) -> concurrent.futures.Future:
        key = (case.id, target)
        if key not in self.futures:
            self.futures[key] = self.pool.submit(corpus.build, self.factory, case, target)
        return self.futures[key]

    def get(self, case: corpus.Case, target: str):
        return self._submit(case, target).result()

    def program(self, case: corpus.Case, target: str) -> Path:
        res, exe = self.get(case, target)
        assert res.rc == 0, res
        return exe

    def run(self, case: corpus.Case, target: str) -> subprocess.CompletedProcess:
        """The program's run on ``target`` (once: a second asker gets the first run)."""
        key = (case.id, target)
        if key not in self.outputs:
            exe = self.program(case, target)
            self.outputs[key] = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
        return self.outputs[key]

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


def _runnable(target: str) -> bool:
    if target == "opencl":
        return not opencl_problem()    # the test says why (or fails)
    return target != "cuda" or bool(nvcc())


@pytest.fixture(scope="module")
def builds(request, tmp_path_factory):
    """Every build the selected tests of this file need, started now in the tests' order."""
    wanted = []
    for item in request.session.items:
        if item.module is not request.module or not hasattr(item, "callspec"):
            continue
        case = item.callspec.params.get("case")
        target = item.callspec.params.get("target", "cuda" if item.originalname.startswith("test_cuda") else None)
        if case is None or target is None or not _runnable(target):
            continue
        if target == "cuda" and case.no_cuda:
            continue
        if target == "opencl" and case.not_on_opencl:
            continue
        if case.same_output is not None and target != "cpu" and target != "cuda":
            wanted.append((case, "cpu"))     # the others are compared with it
        wanted.append((case, target))
    builder = Builds(tmp_path_factory, wanted)
    yield builder
    builder.close()


@pytest.fixture(scope="module", autouse=True)
def _start_builds(request):
    """The builds start with the first test of this file (a diagnostics test runs beside them)."""
    if any(item.module is request.module and item.originalname != "test_diagnostics"
           for item in request.session.items):
        request.getfixturevalue("builds")


@pytest.mark.parametrize("case", _params([(c,) for c in CASES], lambda c: "diagnostics"))
def test_diagnostics(case: corpus.Case, croktilec):
    corpus.check_diagnostics(case, croktilec)


@pytest.mark.parametrize("case, target", _params(RUNS, lambda c, t: t))
def test_runs(case: corpus.Case, target: str, builds: Builds):
    if target == "opencl":
        need_opencl()
        if case.not_on_opencl:
            pytest.skip(f"{case.path.name}: {case.not_on_opencl}")
    proc = builds.run(case, target)
    assert proc.returncode == 0, f"{target}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    printed = proc.stdout.splitlines()
    if case.output is not None:
        assert printed == case.output, f"{target} printed:\n{proc.stdout}"
        return
    # expect-same-output: N lines, all different, on cpu; the same lines on every other target
    cpu = builds.run(case, "cpu")
    assert cpu.returncode == 0, f"cpu: exit {cpu.returncode}\n{cpu.stdout}\n{cpu.stderr}"
    reference = cpu.stdout.splitlines()
    assert len(reference) == case.same_output and len(set(reference)) == case.same_output, reference
    assert printed == reference, f"{target} printed:\n{proc.stdout}\ncpu printed:\n{cpu.stdout}"


@pytest.mark.parametrize("case", _params(CUDA, lambda c: "cuda"))
def test_cuda(case: corpus.Case, builds: Builds):
    """Compiled with nvcc everywhere; linked and run where a GPU is (a program of
    expect-same-output is compiled only: a GPU sums in its own order)."""
    if not nvcc():
        pytest.skip("nvcc is not installed")
    if case.no_cuda:
        pytest.skip(f"{case.path.name}: {case.no_cuda}")
    res, out = builds.get(case, "cuda")
    assert res.rc == 0, res
    assert out.stat().st_size > 0
    if has_gpu() and case.output is not None:
        proc = subprocess.run([str(out)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"cuda: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert proc.stdout.splitlines() == case.output, f"cuda printed:\n{proc.stdout}"


@pytest.mark.parametrize("case", _params(CUDA, lambda c: "cuda-quiet"))
def test_cuda_quiet(case: corpus.Case, builds: Builds):
    """The cuda build says nothing but the file's expected warnings: no warning of nvcc's."""
    if not nvcc():
        pytest.skip("nvcc is not installed")
    if case.no_cuda:
        pytest.skip(f"{case.path.name}: {case.no_cuda}")
    res, _ = builds.get(case, "cuda")
    assert res.rc == 0, res
    assert not corpus.unexpected_output(case, res.err), res.err
