"""The reference compiler's language (issue #13), one data-driven corpus: every
``cases/<group>/*.co.cpp`` file is one test. See ``cases/README.md``.

- A file with ``// expect-error: TEXT`` comments must be rejected with exactly those
  diagnostics at those lines (the frontend corpus's rules: ``tests/frontend/cases``).
- Any other file is a program: it is built for cpu, factor and opencl (where PoCL runs),
  run, and each must print exactly its ``// expect-output: LINE`` lines, in order (the
  values worked out by hand or by Python, not by croktile); with nvcc it is also built
  with ``-t cuda -c``, and run where a GPU is. ``// targets: cpu factor`` narrows the list
  (say in the file why a target is left out). The programs are built with ``CORPUS_FLAGS``.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from driver.util import run_croktilec
from frontend.test_cases import verify_case
from runtime.targets import build_for_targets, program

CASES_DIR = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES_DIR.rglob("*.co.cpp"))
OUTPUT_RE = re.compile(r"//\s*expect-output:\s?(.*?)\s*$")
TARGETS_RE = re.compile(r"//\s*targets:\s*(.*?)\s*$")
# The cases check the language's results, which -O1 gives as -O2 does (the samples, tests/runtime
# and tests/opencl build at the profiles' -O2); -O1 takes ~15% less compile time on every target.
CORPUS_FLAGS = ["-O1"]


def expected_output(text: str) -> List[str]:
    return [m.group(1) for line in text.splitlines() for m in [OUTPUT_RE.search(line)] if m]


def wanted_targets(text: str) -> List[str]:
    for line in text.splitlines():
        m = TARGETS_RE.search(line)
        if m:
            return m.group(1).split()
    return ["cpu", "factor", "opencl", "cuda"]


def _case_id(path: Path) -> str:
    return str(path.relative_to(CASES_DIR))


ERROR_CASES = [p for p in CASE_FILES if "expect-error" in p.read_text(encoding="utf-8")]
RUN_CASES = [p for p in CASE_FILES if p not in ERROR_CASES]


@pytest.mark.parametrize("path", ERROR_CASES, ids=[_case_id(p) for p in ERROR_CASES])
def test_rejected(path: Path, croktilec):
    verify_case(path, croktilec)


@pytest.mark.parametrize("path", RUN_CASES, ids=[_case_id(p) for p in RUN_CASES])
def test_runs(path: Path, tmp_path: Path, tmp_path_factory):
    text = path.read_text(encoding="utf-8")
    expected = expected_output(text)
    assert expected, f"{path.name}: a program case needs '// expect-output:' lines"
    targets = wanted_targets(text)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        # nvcc's build (the longest) runs beside the other targets' builds and runs
        cuda = pool.submit(_cuda_build, path, tmp_path / "cuda") if "cuda" in targets and shutil.which("nvcc") \
            else None
        # shared builds: test_dma_slow_factor.py runs the factor builds of two cases again
        built = build_for_targets(path, tmp_path, [t for t in targets if t != "cuda"], shared=tmp_path_factory,
                                  options=CORPUS_FLAGS)
        ran = []
        for target in [t for t in ("cpu", "factor", "opencl") if t in targets]:
            if target not in built[0]:
                continue
            exe = program(built, target)
            proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, f"{target}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            assert proc.stdout.splitlines() == expected, f"{target} printed:\n{proc.stdout}"
            ran.append(target)
        assert "cpu" in ran or "cpu" not in targets
        if cuda is not None:
            _cuda_run(cuda.result(), expected)


def _has_gpu() -> bool:
    return bool(shutil.which("nvidia-smi")) and \
        subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


def _cuda_build(path: Path, work: Path) -> Path:
    """Compiled with nvcc everywhere (linked where a GPU is to run it): the object or program."""
    work.mkdir()
    has_gpu = _has_gpu()
    out = work / ("cuda.exe" if has_gpu else "cuda.o")
    args = ["-t", "cuda", "--profile", os.environ.get("CROKTILE_CUDA_PROFILE", "cuda-sm80"), *CORPUS_FLAGS]
    args += [] if has_gpu else ["-c"]
    res = run_croktilec(*args, path, "-o", out, cwd=work, timeout=600)
    assert res.rc == 0, res
    return out


def _cuda_run(out: Path, expected: List[str]) -> None:
    """Run and compared where a GPU is."""
    if out.suffix == ".exe":
        proc = subprocess.run([str(out)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"cuda: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert proc.stdout.splitlines() == expected, f"cuda printed:\n{proc.stdout}"
