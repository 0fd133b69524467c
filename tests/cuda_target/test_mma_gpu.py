"""croktile::mma on a GPU: tests/runtime/mma/harness.cpp built with nvcc for sm_90a runs
every form of the instruction table on one warp (operands from global memory and from
shared memory, where loads go through ldmatrix), checks each result against a
double-precision product itself, and must print what the portable (g++) build prints,
element by element, within the accumulator type's rounding; compute-sanitizer memcheck
finds nothing. Skips, saying why, without nvcc or a GPU."""
import shutil
import subprocess

import pytest

from croktile_driver.frontend import mma_forms
from cuda_target.test_cuda import gpu  # noqa: F401  (the fixture that skips, saying why, without a GPU)
from runtime import mma_harness as h

# |gpu - cpu| <= TOL * (1 + |cpu|): the two sum an instruction's products in other orders.
TOL = {"s32": 0.0, "f64": 1e-14, "f32": 1e-5, "f16": 1e-3}


def build(tmp_path, compiler, *flags):
    h.write_cases(tmp_path)
    exe = tmp_path / compiler.rsplit("/", 1)[-1]
    subprocess.run([compiler, *flags, f"-I{h.RUNTIME}", f"-I{tmp_path}", str(h.HARNESS), "-o", str(exe)],
                   check=True)
    return exe


@pytest.mark.usefixtures("gpu")
def test_every_form_on_the_gpu_matches_the_portable_build(tmp_path):
    nvcc = shutil.which("nvcc")
    cxx = shutil.which("g++")
    if not nvcc or not cxx:
        pytest.skip("nvcc or g++ is not installed")
    (tmp_path / "gpu").mkdir()
    (tmp_path / "cpu").mkdir()
    gpu_exe = build(tmp_path / "gpu", nvcc, "-x", "cu", "-std=c++17", "-O2", "-gencode=arch=compute_90a,code=sm_90a")
    cpu_exe = build(tmp_path / "cpu", cxx, "-std=c++17", "-O1")
    gpu_out = subprocess.run([str(gpu_exe)], check=True, capture_output=True, text=True).stdout
    cpu_out = subprocess.run([str(cpu_exe)], check=True, capture_output=True, text=True).stdout
    assert h.failures(gpu_out) == []
    gpu_cases, cpu_cases = h.parse(gpu_out), h.parse(cpu_out)
    assert sorted(gpu_cases) == sorted((h.name(f), v) for f in mma_forms.FORMS
                                       for v in ("rc.g", "rr.g", "rc.s", "rr.s"))
    for f in mma_forms.FORMS:
        for variant in ("rc", "rr"):
            want = cpu_cases[(h.name(f), variant + ".g")]
            for memory in (".g", ".s"):
                got = gpu_cases[(h.name(f), variant + memory)]
                bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want))
                       if abs(g - w) > TOL[f.tc] * (1 + abs(w))]
                assert not bad, (h.name(f), variant + memory, bad[:3])
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer:
        run = subprocess.run([sanitizer, "--tool", "memcheck", "--error-exitcode", "1", str(gpu_exe)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-2000:]
