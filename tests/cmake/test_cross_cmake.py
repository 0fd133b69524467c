"""samples/cmake configured with a cross CMAKE_TOOLCHAIN_FILE (toolchains/<triple>.cmake),
its vmul kernel on the factor target: the toolchain file's compiler builds every generated
source and the factor device module, croktilec runs on the build machine (found there also
when the toolchain file confines find_program to the target's root), and the program runs
under qemu-user.

The package is found as cross builds find build tools: ``-DCroktile_DIR=$(croktilec
--cmake-dir)`` (a toolchain file's CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY hides
CMAKE_PREFIX_PATH)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.croktilec import PKG_PARENT, ok
from helpers.cross import ARCHS, elf_machine
from helpers.paths import REPO

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def host_croktilec(tmp_path_factory) -> Path:
    """A directory with `croktilec` (this checkout's driver) to put first on PATH."""
    bin_dir = tmp_path_factory.mktemp("host-bin")
    shim = bin_dir / "croktilec"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH={PKG_PARENT} exec {sys.executable} -m croktile_driver "$@"\n')
    shim.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("arch", ARCHS, ids=lambda a: a.name)
def test_cmake_sample_cross_builds_and_runs(arch, host_croktilec, tmp_path):
    arch.need()
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    cmake_dir = ok("--cmake-dir", cwd=tmp_path).out.strip()
    env = {k: v for k, v in os.environ.items()
           if k not in ("CXX", "CC", "CMAKE_GENERATOR", "CMAKE_PREFIX_PATH", "CROKTILE_TOOLCHAINS")}
    env["PATH"] = f"{host_croktilec}{os.pathsep}{env.get('PATH', '')}"
    build = tmp_path / "build"

    def cmake(*argv):
        proc = subprocess.run(["cmake", *map(str, argv)], env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    cmake("-S", REPO / "samples" / "cmake", "-B", build, "-G", "Ninja",
          f"-DCMAKE_TOOLCHAIN_FILE={HERE / 'toolchains' / (arch.triple + '.cmake')}",
          f"-DCMAKE_MAKE_PROGRAM={shutil.which('ninja')}", f"-DCroktile_DIR={cmake_dir}",
          "-DSAMPLE_VMUL_TARGET=factor", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    found = next(line.split("=", 1)[1] for line in (build / "CMakeCache.txt").read_text().splitlines()
                 if line.startswith("CROKTILE_EXECUTABLE:"))
    assert not found.startswith(arch.root) and subprocess.run([found, "--version"]).returncode == 0, found
    cmake("--build", build, "--parallel", "2")

    compiler = f"{arch.triple}-g++"
    commands = json.loads((build / "compile_commands.json").read_text())
    compiled = {Path(c["file"]).name: Path(c["command"].split()[0]).name for c in commands}
    assert compiled == {"vadd.gen.cpp": compiler, "vmul.gen.cpp": compiler, "main.cpp": compiler,
                        "reference.cpp": compiler}, compiled
    module = build / "croktile" / "vmul" / "vmul.gen.so"
    assert elf_machine(module) == arch.elf_machine, "the factor device module is built for the target"
    assert elf_machine(build / "sample") == arch.elf_machine
    got = arch.run(build / "sample", cwd=build)
    assert got.returncode == 0 and got.stdout == "Test Passed\n", got.stdout + got.stderr


def test_a_device_cc_the_profile_names_builds_the_factor_module(host_croktilec, tmp_path):
    """Only a profile without device_cc leaves the module to CMake's compiler; a vendor's
    device compiler (here cc with a flag of its own) builds it as the profile says."""
    for tool in ("cmake", "ninja", "cc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    shutil.copy(REPO / "samples" / "cmake" / "kernels" / "vmul.co.cpp", src / "kernels")
    (src / "npu.yaml").write_text("profiles:\n  npu: {target: factor, device_cc: cc -DVENDOR_NPU=1, "
                                  "limits: {local_bytes: 65536, shared_bytes: 1048576}}\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX)\nfind_package(Croktile 0.1 REQUIRED)\n"
        "croktile_add_kernel(vmul kernels/vmul.co.cpp PROFILE npu)\n")
    build = tmp_path / "build"
    env = dict(os.environ, PATH=f"{host_croktilec}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCROKTILE_TOOLCHAIN_FILE={src / 'npu.yaml'}",
                           f"-DCroktile_DIR={ok('--cmake-dir', cwd=tmp_path).out.strip()}"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = subprocess.run(["ninja", "-C", build, "-t", "commands"], capture_output=True, text=True).stdout
    device = [line for line in commands.splitlines() if "vmul.gen.so" in line and "-shared" in line]
    assert len(device) == 1 and f"&& {shutil.which('cc')} -DVENDOR_NPU=1 -fPIC -shared " in device[0], device
