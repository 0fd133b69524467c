"""croktile::mma on a GPU: tests/runtime/mma/harness.cpp built with nvcc for sm_90a runs
every form of the instruction table on one warp (operands from global memory and from
shared memory, where loads go through ldmatrix, plain and in the swizzled layouts of
croktile::swizzle::copy_2d through load_swizzled/store_swizzled), checks each result against a
double-precision product itself, and must print what the portable (g++) build prints,
element by element, within the accumulator type's rounding; compute-sanitizer memcheck
finds nothing. wgmma_harness.cpp likewise runs croktile::wgmma on one warp group, with
operands written by croktile::swizzle::copy_2d and by TMA (whose shared bytes must be
copy_2d's, and whose store must give the operand back); memcheck and racecheck find
nothing. Skips, saying why, without nvcc or a GPU."""
import shutil
import subprocess

import pytest

from croktile_driver.ir import mma_forms
from helpers import mma_harness as h

# |gpu - cpu| <= TOL * (1 + |cpu|): the two sum an instruction's products in other orders.
TOL = {"s32": 0.0, "f64": 1e-14, "f32": 1e-5, "f16": 1e-3}


NVCC_FLAGS = ("-x", "cu", "-std=c++17", "-O2", "-gencode=arch=compute_90a,code=sm_90a")


def build(tmp_path, compiler, *flags, source=h.HARNESS):
    tmp_path.mkdir()
    h.write_cases(tmp_path)
    exe = tmp_path / compiler.rsplit("/", 1)[-1]
    subprocess.run([compiler, *flags, f"-I{h.RUNTIME}", f"-I{tmp_path}", str(source), "-o", str(exe)], check=True)
    return exe


def compilers():
    nvcc, cxx = shutil.which("nvcc"), shutil.which("g++")
    if not nvcc or not cxx:
        pytest.skip("nvcc or g++ is not installed")
    return nvcc, cxx


def sanitized(exe, *tools, api_errors=True):
    sanitizer = shutil.which("compute-sanitizer")
    for tool in tools if sanitizer else ():
        quiet = [] if api_errors else ["--report-api-errors", "no"]
        run = subprocess.run([sanitizer, "--tool", tool, *quiet, "--error-exitcode", "1", str(exe)],
                             capture_output=True, text=True)
        report = [l for l in run.stdout.splitlines() if l.startswith("=========")]
        assert run.returncode == 0, (tool, "\n".join(report[:40]))


def close(got, want, tol):
    return [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > tol * (1 + abs(w))]


@pytest.mark.usefixtures("gpu")
def test_every_form_on_the_gpu_matches_the_portable_build(tmp_path):
    nvcc, cxx = compilers()
    gpu_exe = build(tmp_path / "gpu", nvcc, *NVCC_FLAGS)
    cpu_exe = build(tmp_path / "cpu", cxx, "-std=c++17", "-O1")
    gpu_out = subprocess.run([str(gpu_exe)], check=True, capture_output=True, text=True).stdout
    cpu_out = subprocess.run([str(cpu_exe)], check=True, capture_output=True, text=True).stdout
    assert h.failures(gpu_out) == []
    gpu_cases, cpu_cases = h.parse(gpu_out), h.parse(cpu_out)
    assert sorted(gpu_cases) == sorted((h.name(f), v) for f in mma_forms.FORMS
                                       for v in ("rc.g", "rr.g", "rc.s", "rr.s", "rc.z", "rr.z"))
    for f in mma_forms.FORMS:
        for variant in ("rc", "rr"):
            want = cpu_cases[(h.name(f), variant + ".g")]
            for memory in (".g", ".s", ".z"):
                got = gpu_cases[(h.name(f), variant + memory)]
                bad = close(got, want, TOL[f.tc])
                assert not bad, (h.name(f), variant + memory, bad[:3])
    sanitized(gpu_exe, "memcheck")


@pytest.mark.usefixtures("gpu")
def test_wgmma_and_tma_on_the_gpu_match_the_portable_build(tmp_path):
    nvcc, cxx = compilers()
    gpu_exe = build(tmp_path / "gpu", nvcc, *NVCC_FLAGS, source=h.WGMMA_HARNESS)
    cpu_exe = build(tmp_path / "cpu", cxx, "-std=c++17", "-O1", source=h.WGMMA_HARNESS)
    gpu_out = subprocess.run([str(gpu_exe)], check=True, capture_output=True, text=True).stdout
    cpu_out = subprocess.run([str(cpu_exe)], check=True, capture_output=True, text=True).stdout
    assert h.failures(gpu_out) == []
    gpu_cases, cpu_cases = h.parse(gpu_out), h.parse(cpu_out)
    assert sorted(gpu_cases) == sorted((name, v) for name, _ in cpu_cases for v in ("copy", "tma"))
    for (name, variant), got in gpu_cases.items():
        bad = close(got, cpu_cases[(name, "copy")], TOL[name.split(".")[3]])
        assert not bad, (name, variant, bad[:3])
    # the harness checks that the driver refuses a misaligned map: an API error on purpose
    sanitized(gpu_exe, "memcheck", "racecheck", api_errors=False)
