"""The cuda build of a generated source in two halves at once (targets/cuda/split_build.py,
the default; CROKTILE_SPLIT_BUILD=0 makes it one nvcc job).

Without a GPU: the sample GEMM's object holds its kernels' image beside host code that
loads it as a library, and links into a program; its depfile lists what both halves read;
a source with device code of the user's own, or a flag the split does not know, is one
nvcc job (no image); the -S output is the same with and without the split, and nvcc
builds it by itself. With a GPU: the split program passes its self-check (its kernels
found by name), as does a program whose kernels record a failed check (found by name too).
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from helpers.croktilec import run_croktilec
from helpers.paths import REPO, RUNTIME

GEMM = REPO / "samples" / "gemm" / "gemm.co.cpp"
SPLIT = {"CROKTILE_SPLIT_BUILD": "1"}
ONE_JOB = {"CROKTILE_SPLIT_BUILD": "0"}

# a __co__ function with a runtime check (its kernel records a failure in a device variable)
CHECKED = """\
#include <iostream>
__co__ auto pick(s32 [N] a, int i) {
  s32 [N] out;
  parallel p by 1 : block {
    parallel t by 32 : thread {
      foreach j in [cdiv(N, 32)] {
        out.at(j # t) = a.at((j # t + i) % N);
      }
    }
  }
  return out;
}
int main() {
  auto a = croktile::make_spandata<croktile::s32>(64);
  for (int k = 0; k < 64; ++k) a[k] = k;
  auto o = pick(a.view(), 3);
  for (int k = 0; k < 64; ++k) if (o[k] != (k + 3) % 64) { std::cout << "wrong " << k << "\\n"; return 1; }
  std::cout << "Test Passed\\n";
}
"""

DEVICE_CODE = """\
__device__ int twice(int x) { return 2 * x; }
__co__ auto f(s32 [64] a) {
  s32 [64] out;
  parallel p by 64 : block { out.at(p) = a.at(p); }
  return out;
}
int main() { return 0; }
"""


def _symbols(obj: Path) -> str:
    return subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout


def test_the_object_holds_the_kernels_image_and_links(nvcc, tmp_path: Path):
    if os.environ.get("CROKTILE_SPLIT_BUILD") == "0":
        pytest.skip("CROKTILE_SPLIT_BUILD=0 is set: this checks the default build")
    # the default build: no variable
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-c", GEMM, "-o", tmp_path / "g.o", "-MD", "-MF",
                        tmp_path / "g.d", cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    syms = _symbols(tmp_path / "g.o")
    assert " R croktile_image_" in syms                      # the fatbinary, in read-only data
    assert "U cudaLibraryLoadData" in syms and "U cudaLaunchKernel" in syms
    assert "__cudaRegisterFatBinary" not in syms              # no nvcc host pass
    deps = (tmp_path / "g.d").read_text()
    assert str(GEMM) in deps
    assert "croktile_wgmma.h" in deps                         # read by the device half only
    assert "croktile_cuda_split.h" in deps                    # read by the host half only
    assert not list(tmp_path.glob("*.fatbin")) and not list(tmp_path.glob(".croktile-*"))
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", tmp_path / "g.o", "-o", tmp_path / "app", cwd=tmp_path,
                        env=SPLIT, timeout=300)
    assert res.rc == 0, res
    assert (tmp_path / "app").stat().st_size > 0


SPELLING = """\
#include <iostream>
#include "croktile.h"
#include "croktile_cuda.h"
extern "C" const unsigned char CROKTILE_SPLIT_HOST[] = {0};
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) std::cout << croktile::cuda::detail::kernel_spelling(argv[i]) << "\\n";
}
"""


def test_each_kernel_of_the_image_is_found_by_the_name_host_code_gives(nvcc, tmp_path: Path):
    """The launches name kernels as the source spells them (CROKTILE_KERNEL(k<true>)); the
    image holds them under their mangled names, which the host half demangles to match
    (run here on the image's own names: no GPU needed)."""
    gen = tmp_path / "g.cu"
    assert run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", GEMM, "-o", gen, cwd=tmp_path).rc == 0
    fatbin = tmp_path / "g.fatbin"
    subprocess.run([os.environ.get("NVCC") or "nvcc", "-std=c++17", f"-I{RUNTIME}", f"-I{GEMM.parent}",
                    "-gencode=arch=compute_90a,code=sm_90a", "-DCROKTILE_SPLIT_DEVICE", "-fatbin", str(gen), "-o",
                    str(fatbin)], check=True, capture_output=True, timeout=600)
    mangled = sorted(set(re.findall(rb"\.text\.(_Z[A-Za-z0-9_]+)", fatbin.read_bytes())))
    spelled = set(re.findall(r"CROKTILE_KERNEL\(([^)]*)\)", gen.read_text()))
    assert len(mangled) == len(spelled) == 2, (mangled, spelled)
    prog = tmp_path / "spell.cpp"
    prog.write_text(SPELLING)
    include = subprocess.run([os.environ.get("NVCC") or "nvcc", "--dryrun", "-E", "-x", "cu", os.devnull],
                             capture_output=True, text=True).stderr
    cuda_include = re.search(r'INCLUDES="-I([^"]+)"', include).group(1)
    subprocess.run(["g++", "-std=c++17", f"-I{RUNTIME}", f"-I{cuda_include}", "-DCROKTILE_SPLIT_HOST=image", str(prog),
                    "-o", str(tmp_path / "spell")], check=True, capture_output=True, timeout=300)
    out = subprocess.run([str(tmp_path / "spell"), *[m.decode() for m in mangled]], capture_output=True, text=True,
                         check=True).stdout
    assert set(out.split()) == spelled


def test_the_source_is_the_same_and_nvcc_builds_it_alone(nvcc, tmp_path: Path):
    split = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", GEMM, "-o", "-", cwd=tmp_path, env=SPLIT)
    plain = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", GEMM, "-o", "-", cwd=tmp_path, env=ONE_JOB)
    assert split.rc == 0 and split.out == plain.out
    assert split.out.splitlines()[1].startswith("// croktilec: split build")
    # every kernel's body is device code only
    assert split.out.count("__global__ void") == split.out.count("#if defined(__CUDA_ARCH__)")


@pytest.mark.parametrize("text, splits", [(DEVICE_CODE, False), (CHECKED, True)], ids=["device_code", "checked"])
def test_only_plain_host_code_is_split(nvcc, tmp_path: Path, text: str, splits: bool):
    src = tmp_path / "p.co.cpp"
    src.write_text(text)
    res = run_croktilec("-t", "cuda", "-arch=sm_80", "-c", src, "-o", tmp_path / "p.o", cwd=tmp_path, env=SPLIT,
                        timeout=300)
    assert res.rc == 0, res
    assert (" R croktile_image_" in _symbols(tmp_path / "p.o")) == splits


def test_a_flag_it_does_not_know_is_one_nvcc_job(nvcc, tmp_path: Path):
    src = tmp_path / "p.co.cpp"
    src.write_text(CHECKED)
    res = run_croktilec("-t", "cuda", "-arch=sm_80", "-Xptxas=-v", "-c", src, "-o", tmp_path / "p.o", cwd=tmp_path,
                        env=SPLIT, timeout=300)
    if res.rc != 0 and "Xptxas" in res.err:
        pytest.skip("croktilec does not pass -Xptxas= on")
    assert res.rc == 0, res
    assert " R croktile_image_" not in _symbols(tmp_path / "p.o")


def test_an_error_in_the_users_code_is_reported_once_at_its_line(nvcc, tmp_path: Path):
    src = tmp_path / "p.co.cpp"
    text = CHECKED.replace("int main() {", "int main() {\n  undeclared_thing();")
    src.write_text(text)
    line = text.splitlines().index("  undeclared_thing();") + 1
    res = run_croktilec("-t", "cuda", "-arch=sm_80", "-c", src, "-o", tmp_path / "p.o", cwd=tmp_path, env=SPLIT,
                        timeout=300)
    assert res.rc == 1
    assert f"p.co.cpp({line})" in res.err or f"p.co.cpp:{line}" in res.err, res.err
    assert not (tmp_path / "p.o").exists()


@pytest.mark.usefixtures("gpu")
@pytest.mark.parametrize("program", ["gemm", "checked"])
def test_the_split_program_runs(tmp_path: Path, program: str):
    src = GEMM
    if program == "checked":
        src = tmp_path / "p.co.cpp"
        src.write_text(CHECKED)
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", src, "-o", tmp_path / "app", cwd=tmp_path, env=SPLIT,
                        timeout=600)
    assert res.rc == 0, res
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "Test Passed" in run.stdout, run.stdout + run.stderr
