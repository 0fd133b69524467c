"""croktile::mma and croktile::wgmma on the portable targets (runtime/croktile_mma*.h built with g++): every
form of the instruction table computes, over a tile of several instructions, what a
double-precision product of the same operands gives (within the accumulator type's
rounding), with b in both memory orders, sparse forms decoding the reference's metadata;
and the runtime's table is the compiler's (croktile_driver/ir/mma_forms.py).
croktile::wgmma over 64 x N x K tiles (N from 8 to 256, every operand type, the three
swizzles, K in chunks) likewise."""
import shutil
import subprocess

import pytest

from croktile_driver.ir import mma_forms
from helpers import mma_harness as h


def test_runtime_table_is_the_compilers():
    assert sorted(h.header_forms()) == sorted(tuple(f) for f in mma_forms.FORMS)


def test_find_form_and_choose_shape():
    assert mma_forms.find_form(16, 8, 16, "f16", "f16", "f32").ptx == \
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert mma_forms.find_form(16, 8, 8, "f32", "f32", "f32").ta == "tf32"
    assert mma_forms.find_form(16, 8, 16, "f16", "f16", "s32") is None
    assert mma_forms.find_form(16, 8, 64, "f8_e4m3", "f8_e5m2", "f32", sparse=True).min_sm == 89
    assert mma_forms.choose_shape(64, 64, 64, "f16", "f16", "f32").shape == "m16n8k16"
    assert mma_forms.choose_shape(16, 8, 8, "f16", "f16", "f32").shape == "m16n8k8"
    assert mma_forms.choose_shape(8, 8, 4, "f16", "f16", "f16").shape == "m8n8k4"
    assert mma_forms.choose_shape(8, 32, 16, "bf16", "bf16", "f32").shape == "m8n8k16"
    assert mma_forms.find_form(8, 8, 16, "f16", "f16", "f32").ptx == \
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert mma_forms.choose_shape(32, 16, 64, "s8", "u8", "s32").shape == "m16n8k32"
    assert mma_forms.choose_shape(8, 32, 16, "s8", "s8", "s32").shape == "m8n8k16"
    assert mma_forms.choose_shape(32, 32, 32, "f64", "f64", "f64", sm=80).shape == "m8n8k4"
    assert mma_forms.choose_shape(32, 32, 32, "f64", "f64", "f64", sm=90).shape == "m16n8k16"
    assert mma_forms.choose_shape(64, 64, 64, "f8_e4m3", "f8_e4m3", "f32", sm=80) is None
    assert mma_forms.choose_shape(16, 8, 64, "f16", "f16", "f32", sparse=True).shape == "m16n8k32"
    assert mma_forms.choose_shape(12, 8, 16, "f16", "f16", "f32") is None


def test_every_form_on_the_portable_target(tmp_path):
    cxx = shutil.which("g++")
    if not cxx:
        pytest.skip("g++ is not installed")
    h.write_cases(tmp_path)
    exe = tmp_path / "mma_cpu"
    subprocess.run([cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{h.RUNTIME}", f"-I{tmp_path}",
                    str(h.HARNESS), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert h.failures(out) == []
    cases = h.parse(out)
    assert sorted(cases) == sorted((h.name(f), v) for f in mma_forms.FORMS for v in ("rc.g", "rr.g"))


def test_wgmma_on_the_portable_target(tmp_path):
    cxx = shutil.which("g++")
    if not cxx:
        pytest.skip("g++ is not installed")
    exe = tmp_path / "wgmma_cpu"
    subprocess.run([cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{h.RUNTIME}",
                    str(h.WGMMA_HARNESS), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert h.failures(out) == []
    assert len(h.parse(out)) == 11
