"""What this machine can run, each with why not: OpenCL programs (PoCL in CI), nvcc, a GPU.

Each probe runs once per process. ``CROKTILE_REQUIRE_OPENCL=1`` (scripts/test.sh sets it once
it installed PoCL) makes a missing OpenCL platform a failure instead of a skip.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import shutil
import subprocess

import pytest


@functools.lru_cache(maxsize=None)
def opencl_problem() -> str:
    """Why OpenCL programs cannot run here, or '' when they can."""
    cxx = shutil.which(os.environ.get("CXX") or "c++")
    if cxx is None:
        return "no C++ compiler"
    probe = subprocess.run([cxx, "-x", "c++", "-fsyntax-only", "-"], input="#include <CL/cl.h>\n",
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return "the OpenCL headers are not installed (Debian: opencl-headers ocl-icd-opencl-dev)"
    name = ctypes.util.find_library("OpenCL")
    if name is None:
        return "no OpenCL ICD loader (libOpenCL) is installed (Debian: ocl-icd-opencl-dev)"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        return f"cannot load {name}: {exc}"
    count = ctypes.c_uint(0)
    err = lib.clGetPlatformIDs(0, None, ctypes.byref(count))
    if err != 0 or count.value == 0:
        return "no OpenCL platform is installed (Debian: pocl-opencl-icd)"
    return ""


def need_opencl() -> None:
    """Skips the calling test without OpenCL (fails it with CROKTILE_REQUIRE_OPENCL=1)."""
    problem = opencl_problem()
    if problem:
        if os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
        pytest.skip(problem)


def nvcc() -> str:
    """nvcc's path ($NVCC or on PATH), or ''."""
    return shutil.which(os.environ.get("NVCC") or "nvcc") or ""


@functools.lru_cache(maxsize=None)
def has_gpu() -> bool:
    """An NVIDIA GPU and its driver are here (nvidia-smi lists a GPU)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    res = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return res.returncode == 0 and "GPU" in res.stdout


def gpu_problem() -> str:
    """Why cuda programs cannot run here, or '' when they can."""
    if not nvcc():
        return "nvcc is not installed"
    if shutil.which("nvidia-smi") is None:
        return "no NVIDIA driver (nvidia-smi) on this machine"
    if not has_gpu():
        return "no NVIDIA GPU on this machine"
    return ""
