"""Helpers of the CMake tests: run commands, drive cmake, read what a build did."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "cmake"


def run(argv, cwd=None, env=None, check=True, timeout=300) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=str(cwd) if cwd else None, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}")
    return proc


@dataclass
class Install:
    root: Path
    venv: Path
    wheel: Path
    env: dict

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def croktilec(self) -> Path:
        return self.venv / "bin" / "croktilec"

    @property
    def cmake_dir(self) -> str:
        return run([self.croktilec, "--cmake-dir"], env=self.env).stdout.strip()

    def profile(self, *select) -> dict:
        out = run([self.croktilec, "--print-toolchains", "--format=json", *select], env=self.env).stdout
        data = json.loads(out)
        return data["profiles"][data["selected"] or data["default"]]

    def configure(self, source: Path, build: Path, generator: str = "Ninja", *defines: str,
                  check: bool = True) -> subprocess.CompletedProcess:
        return run(["cmake", "-S", source, "-B", build, "-G", generator,
                    f"-DCMAKE_PREFIX_PATH={self.cmake_dir}", *defines], env=self.env, check=check)

    def build(self, build: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return run(["cmake", "--build", build, *args], env=self.env, check=check)


def steps(build_output: str) -> dict:
    """What a build did, from the progress lines both generators print."""
    return {"transpiled": re.findall(r"Transpiling (\S+) for", build_output),
            "compiled": sorted(re.findall(r"Building (?:CXX|CUDA) object (\S+)", build_output)),
            "linked": re.findall(r"Linking \w+ (?:static library|executable) (\S+)", build_output)}


def opencl_runs_here() -> Optional[str]:
    """Why the sample's second kernel cannot use opencl here, or None when it can."""
    if not (Path("/usr/include/CL/cl.h").exists() or Path("/usr/local/include/CL/cl.h").exists()):
        return "no OpenCL headers"
    vendors = Path("/etc/OpenCL/vendors")
    if not (vendors.is_dir() and any(vendors.glob("*.icd"))):
        return "no OpenCL platform (ICD) to run the kernel"
    return None


def copy_sample(dest: Path) -> Path:
    shutil.copytree(SAMPLE, dest)
    return dest


def ninja_explain(build: Path, env: dict) -> str:
    return run(["ninja", "-C", build, "-n", "-d", "explain"], env=env).stdout


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def write_project(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root

