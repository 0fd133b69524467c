"""The tensor-core corpus's files and the comments that drive them (cases/README.md);
tests/cuda_target/test_mma_programs_gpu.py runs the same programs on a GPU."""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

CASES_DIR = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES_DIR.glob("*.co.cpp"))
ERROR_CASES = [p for p in CASE_FILES if p.name.startswith("err_")]
ACCEPTED_CASES = [p for p in CASE_FILES if p not in ERROR_CASES]
RUN_CASES = [p for p in CASE_FILES if p.name.startswith("run_")]

_OUTPUT_RE = re.compile(r"//\s*expect-output:\s?(.*?)\s*$")
_ARCH_RE = re.compile(r"//\s*cuda-arch:\s*(\S+)")
_XFAIL_RE = re.compile(r"//\s*xfail-([\w-]+):\s*(.*?)\s*$", re.M)
_NOT_ON_OPENCL_RE = re.compile(r"//\s*not-on-opencl:\s*(.*?)\s*$", re.M)


def expected_output(path: Path) -> List[str]:
    return [m.group(1) for line in path.read_text(encoding="utf-8").splitlines()
            for m in [_OUTPUT_RE.search(line)] if m]


def cuda_arch(path: Path) -> Optional[str]:
    """The arch a file is compiled for with -t cuda; None for `none` (the file says why)."""
    m = _ARCH_RE.search(path.read_text(encoding="utf-8"))
    assert m, f"{path.name}: an accepted case names its '// cuda-arch:' (an sm_NN or 'none: why')"
    return None if m.group(1).startswith("none") else m.group(1)


def xfail_reason(path: Path, test: str) -> Optional[str]:
    """Why `test` (rejected, accepted, cpu-run, portable-run, cuda-compile, cuda-quiet or gpu-run) of
    this file is expected to fail: its `// xfail-TEST: REASON` comment, a known bug."""
    for m in _XFAIL_RE.finditer(path.read_text(encoding="utf-8")):
        if m.group(1) == test:
            return m.group(2)
    return None


def not_on_opencl(path: Path) -> Optional[str]:
    """Why a run case is not built for opencl (`// not-on-opencl: REASON`: constructs that
    target rejects with a diagnostic, which an err_ case checks)."""
    m = _NOT_ON_OPENCL_RE.search(path.read_text(encoding="utf-8"))
    return m.group(1) if m else None


def case_id(path: Path) -> str:
    return path.name[: -len(".co.cpp")]
