"""The samples built on x86-64 for aarch64 and riscv64, run under qemu-user, print what
they print on x86-64.

* ``samples/*.co.cpp`` with the built-in ``cpu-aarch64`` / ``cpu-riscv64`` profiles;
* the same samples (device code in ``__cok__`` blocks) with ``factor-aarch64`` /
  ``factor-riscv64`` and ``-kt`` (and ``ele_add`` without it): the factor device module is
  embedded in the executable and loaded on the target (it once arrived empty on aarch64),
  and with ``CROKTILE_DUMP=1`` every result element matches the cpu target's on x86-64.

Everything is built once, in parallel; the cross builds at -O1 (the flags do not change the
results). The x86-64 references are the session's shared cpu builds (shared_builds.cpu_build),
which tests/samples runs and compares the opencl and factor builds with too.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
from pathlib import Path

import pytest

from helpers import shared_builds
from helpers.croktilec import run_croktilec

from helpers.cross import ARCHS, elf_machine
from helpers.paths import REPO

SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
DUMP = {"CROKTILE_DUMP": "1"}


def stem(path: Path) -> str:
    return path.name[: -len(".co.cpp")]


# (arch or "x86-64", profile, sample, -kt) for every program the tests run
def builds():
    plan = []
    for src in SAMPLES:
        plan.append(("x86-64", "cpu", src, False))
    for arch in ARCHS:
        plan += [(arch.name, f"cpu-{arch.name}", src, False) for src in SAMPLES]
        plan += [(arch.name, f"factor-{arch.name}", src, True) for src in SAMPLES]
        plan.append((arch.name, f"factor-{arch.name}", REPO / "samples" / "ele_add.co.cpp", False))
    return plan


def exe_name(arch: str, profile: str, src: Path, kt: bool) -> str:
    return f"{stem(src)}.{profile}{'.kt' if kt else ''}.{arch}"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every program, compiled in parallel once (for the architectures whose tools are here)."""
    here = {a.name for a in ARCHS if a.missing() is None}
    if not here:
        ARCHS[0].need()   # skips (or fails) saying what is missing, before building the references
    here.add("x86-64")
    work = tmp_path_factory.mktemp("cross")

    def build(name, *argv):
        return run_croktilec(*argv, "-o", work / name, cwd=work), work / name
    jobs = {}
    for arch, profile, src, kt in builds():
        if arch == "x86-64":
            jobs[exe_name(arch, profile, src, kt)] = (shared_builds.cpu_build, tmp_path_factory, src)
        elif arch in here:
            name = exe_name(arch, profile, src, kt)
            jobs[name] = (build, name, "-O1", "--profile", profile, *(["-kt"] if kt else []), src)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {name: pool.submit(*job) for name, job in jobs.items()}
        return {name: fut.result() for name, fut in futures.items()}


def program(built, arch: str, profile: str, src: Path, kt: bool) -> Path:
    res, path = built[exe_name(arch, profile, src, kt)]
    assert res.rc == 0, res
    return path


def run_native(exe: Path, env) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe)], cwd=str(exe.parent), env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=60)


def check_same_output(built, arch, profile, src, kt, env):
    reference = run_native(program(built, "x86-64", "cpu", src, False), env)
    assert reference.returncode == 0 and "Test Passed" in reference.stdout, reference.stdout + reference.stderr
    exe = program(built, arch.name, profile, src, kt)
    assert elf_machine(exe) == arch.elf_machine, f"{exe.name} is not an {arch.name} program"
    got = arch.run(exe, env)
    assert got.returncode == 0, f"{exe.name} under qemu-{arch.name}:\n{got.stdout}{got.stderr}"
    assert got.stdout == reference.stdout, f"{exe.name}: {arch.name} and x86-64 outputs differ"


@pytest.mark.parametrize("src", SAMPLES, ids=stem)
@pytest.mark.parametrize("arch", ARCHS, ids=lambda a: a.name)
def test_cpu_sample_runs_on_the_target(built, arch, src):
    arch.need()
    check_same_output(built, arch, f"cpu-{arch.name}", src, False, {})


@pytest.mark.parametrize("src", SAMPLES, ids=stem)
@pytest.mark.parametrize("arch", ARCHS, ids=lambda a: a.name)
def test_factor_kt_sample_matches_x86_64_cpu(built, arch, src):
    arch.need()
    check_same_output(built, arch, f"factor-{arch.name}", src, True, DUMP)


@pytest.mark.parametrize("arch", ARCHS, ids=lambda a: a.name)
def test_factor_sample_without_kt(built, arch):
    arch.need()
    check_same_output(built, arch, f"factor-{arch.name}", REPO / "samples" / "ele_add.co.cpp", False, DUMP)
