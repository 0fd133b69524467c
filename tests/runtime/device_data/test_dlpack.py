"""DLPack tensors in and out of ``__co__`` functions (issue #12, ``runtime/croktile_dlpack.h``).

``dlpack/calls.co.cpp`` plays a framework: it describes memory of the target's device (or of
the host) by DLTensors built by hand, with strides, a byte_offset and several dtypes, calls
``__co__`` functions through ``croktile::dlpack::to_view`` (device form) and ``to_host_view``
(host form), hands results back with ``from_view`` and ``to_managed`` and prints one line per
case. The lines are compared with values computed here, and error cases with the exact
``croktile::runtime_error`` text. The cpu build runs under AddressSanitizer, so a result
handed over with ``to_managed`` must be freed by its deleter exactly once (a leak or a double
free fails it), and the shape storage of a copied ``borrowed_tensor`` must be its own.

cpu, factor and opencl (PoCL) programs run, and cuda where a GPU is present; cuda is also
compiled with ``-t cuda -c`` (the header under nvcc, no GPU needed). ``dlpack/abi.cpp`` and small
translation units written here check the header alone: the ABI's layout, the use of an official
``dlpack/dlpack.h``, and its compile errors.

``dlpack/torch_ext.co.cpp`` is an extension library as a user writes one: NumPy arrays (cpu,
factor) and, where PyTorch is installed, torch tensors (cpu, and cuda where a GPU is present) go
through it by DLPack capsules, legacy and versioned, and come back.
"""
from __future__ import annotations

import concurrent.futures
import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

from helpers.croktilec import run_croktilec
from helpers.paths import REPO
from helpers.platforms import gpu_problem, opencl_problem

pytestmark = pytest.mark.device_data

HERE = Path(__file__).resolve().parent
RUNTIME = REPO / "runtime"
HEADER = RUNTIME / "croktile_dlpack.h"
SOURCE = HERE / "dlpack" / "calls.co.cpp"
ABI = HERE / "dlpack" / "abi.cpp"

# DLPack type codes
INT, UINT, FLOAT, BFLOAT, BOOL = 0, 1, 2, 4, 6
VIEW = "croktile::dlpack::to_view: "
HOST = "croktile::dlpack::to_host_view: "
HOST_DEVICES = "device kDLCPU, kDLCUDAHost or kDLCUDAManaged expected"
CANNOT_OFFSET = ("byte_offset 0 expected (a kDLOpenCL tensor's data is a buffer handle, which cannot be "
                 "offset), got {}")



def cuda_devices() -> str:
    """How the runtime counts this machine's GPUs in a message: "1 CUDA device"."""
    out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout if shutil.which("nvidia-smi") else ""
    n = sum(1 for line in out.splitlines() if line.startswith("GPU "))
    return f"{n} CUDA device" + ("" if n == 1 else "s")

def floats(values) -> str:
    return " ".join(f"{v:g}" for v in values)


def described(shape: List[int], device: str) -> str:
    """What the program prints of a compact row-major float32 DLTensor."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return (f"ndim {len(shape)} shape {' '.join(map(str, shape))} strides {' '.join(map(str, strides))} "
            f"float32 device {device}:0 byte_offset 0")


def dtype_table() -> str:
    types = [(f"int{b}", INT, b) for b in (8, 16, 32, 64)] + [(f"uint{b}", UINT, b) for b in (8, 16, 32, 64)]
    types += [("float32", FLOAT, 32), ("float64", FLOAT, 64), ("float16", FLOAT, 16), ("bfloat16", BFLOAT, 16),
              ("bool", BOOL, 8), ("float32", FLOAT, 32)]   # the last is const float
    return " ".join(f"{name}={code}/{bits}/1" for name, code, bits in types)


def expected(target: str) -> Dict[str, str]:
    """Every line of calls.co.cpp's output on ``target``, by case."""
    offsets = target != "opencl"          # pointers take a byte_offset, a cl_mem does not
    device = {"opencl": "kDLOpenCL", "cuda": "kDLCUDA"}.get(target, "kDLCPU")
    a = [i * 0.5 for i in range(14)]      # the framework's device buffer
    h = [i * 0.25 for i in range(13)]     # its host buffer
    ones = [float(i) for i in range(12)]
    out = {
        "dtypes": dtype_table(),
        "offset_error": "no error" if offsets else VIEW + CANNOT_OFFSET.format(8),
        "null_strides": "3x4 " + floats(2 * v for v in a[:12]),
        "size1_row": "1x12 " + floats(a[:12]),
        "size1_column": "12x1 " + floats(a[:12]),
        "empty": "0x4",
        "copy_into": floats([-1, -1] + a[:12] if offsets else a[:12] + [-1, -1]),
        "add_s32": "4 11 22 33 2000000040",
        "copy_f16": "2x3 " + floats(i * 0.25 - 1 for i in range(6)),
        "copy_bf16": "3 1.5 -256 0.125",
        "copy_u8": "3x2 0 1 127 128 200 255",
        "host": "4x3 " + floats(4 * v for v in h[1:13]),
        "host_managed": "2x6 " + floats(h[:12]),
        "host_const": "12 " + floats(h[:12]),
        "export_data": described([3, 4], device),
        "export_same_memory": "yes",
        "export_reimport": "3x4 " + floats(2 * v for v in ones),
        "export_host": described([2, 6], "kDLCPU"),
        "export_host_data": described([6, 2], "kDLCPU"),
        "managed_moved_from": "empty",
        "managed": described([3, 4], device),
        "managed_again": "3x4 " + floats(20 * v for v in ones),
        "managed_deleter_calls_in_use": "0",
        "managed_deleter_calls": "1",
        "managed_host": described([2, 3], "kDLCPU"),
        "managed_host_again": "2x3 " + floats(6 * v for v in ones[:6]),
        "managed_host_deleter_calls": "2",
        "versioned_version": "1.0 flags 0",
        "versioned": described([3, 4], device),
        "versioned_again": "3x4 " + floats(20 * v for v in ones),
        "versioned_host": described([2, 3], "kDLCPU"),
        "versioned_host_again": "2x3 " + floats(6 * v for v in ones[:6]),
        "versioned_major": HOST + "DLPack version 1.x expected, got 2.0",
        "versioned_deleter_calls": "1",
    }
    if offsets:
        out["offset"] = "3x4 " + floats(3 * v for v in a[2:14])
    wrong_device = {   # a kDLCUDA tensor of device 9
        "opencl": "device kDLOpenCL expected (a cl_mem of the opencl target's context), got kDLCUDA (device 9)",
        "cuda": "kDLCUDA device 9 does not exist (" + cuda_devices() + ")",
    }.get(target, HOST_DEVICES + " (host memory, as on the cpu and factor targets), got kDLCUDA (device 9)")
    strides = "compact row-major strides [4, 1] expected for shape [3, 4], got {}; make the tensor contiguous " \
              "first (e.g. .contiguous() in PyTorch)"
    out.update({
        "ndim": VIEW + "ndim 2 expected, got 3",
        "ndim_host": HOST + "ndim 3 expected, got 1",
        "dtype": VIEW + "dtype float32 expected, got int64",
        "dtype_host": HOST + "dtype float32 expected, got int64",
        "dtype_bf16": HOST + "dtype float16 expected, got bfloat16",
        "dtype_unknown": HOST + "dtype float32 expected, got type code 9 of 8 bits",
        "lanes": VIEW + "dtype float32 expected, got float32x4 (vector types, lanes other than 1, are not supported)",
        "column_major": VIEW + strides.format("[1, 3]"),
        "padded_rows": HOST + strides.format("[5, 1]"),
        "broadcast": HOST + strides.format("[0, 1]"),
        "wrong_device": VIEW + wrong_device,
        "wrong_device_host": HOST + HOST_DEVICES + " (host memory), got kDLOpenCL (device 0)",
        "unknown_device": HOST + HOST_DEVICES + " (host memory), got device type 99 (device 2)",
        "null_data": VIEW + "the tensor's data is NULL, but its shape [3, 4] has 12 elements",
        "null_data_host": HOST + "the tensor's data is NULL, but its shape [3, 4] has 12 elements",
        "negative": VIEW + "dimension 1 of the tensor's shape [3, -4] is negative",
        "null_shape": HOST + "the tensor's shape is NULL",
        "misaligned": VIEW + ("the first element (data + byte_offset 2) is not aligned to 4 bytes, the alignment of "
                              "float32" if offsets else CANNOT_OFFSET.format(2)),
        "misaligned_host": HOST + "the first element (data + byte_offset 6) is not aligned to 4 bytes, the "
                                  "alignment of float32",
        "too_large": HOST + "the tensor's shape [1099511627776, 1099511627776] is too large: its size in bytes "
                            "does not fit in 63 bits",
    })
    return out


# ---------------------------------------------------------------------------
# The program, built for every target that runs here, and run once each
# ---------------------------------------------------------------------------

Run = Tuple[subprocess.CompletedProcess, Dict[str, str]]

# -fsanitize=address on cpu: the hand-over must free once, copies must not point into the dead.
BUILD_FLAGS = {"cpu": ["-fsanitize=address"], "factor": [], "opencl": [], "cuda": []}


def run_and_parse(exe: Path) -> Run:
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
    proc = subprocess.run([str(exe)], cwd=str(exe.parent), capture_output=True, text=True, timeout=120, env=env)
    lines = {}
    for line in proc.stdout.splitlines():
        case, _, text = line.partition(": ")
        assert case not in lines, f"case {case!r} printed twice"
        lines[case] = text
    return proc, lines


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Tuple[Dict[str, Run], Dict[str, str]]:
    """calls.co.cpp's output on each target that runs here, and why the others cannot."""
    work = tmp_path_factory.mktemp("dlpack")
    problems = {"opencl": opencl_problem(), "cuda": gpu_problem()}
    if problems["opencl"] and os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
        pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problems['opencl']}")
    targets = [t for t in BUILD_FLAGS if not problems.get(t)]

    def build_and_run(target: str) -> Run:
        exe = work / f"calls.{target}"
        res = run_croktilec("-t", target, *BUILD_FLAGS[target], SOURCE, "-o", exe, cwd=work, timeout=300)
        assert res.rc == 0 and not res.err, res
        return run_and_parse(exe)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(targets)) as pool:
        return dict(zip(targets, pool.map(build_and_run, targets))), problems


def target_run(runs, target: str) -> Run:
    done, problems = runs
    if target not in done:
        pytest.skip(problems[target])
    return done[target]


@pytest.mark.parametrize("target", list(BUILD_FLAGS))
def test_framework_tensors_on_target(runs, target):
    """Every case prints what croktile_dlpack.h promises: views of the framework's memory used in
    place (offsets, strides that do not matter, empty tensors, writes into it), several dtypes,
    exports, the hand-over and back, and each error's text."""
    proc, lines = target_run(runs, target)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines == expected(target)


def test_hand_over_frees_once(runs):
    """Under AddressSanitizer (cpu): the device_data and spanned_data handed over with to_managed are
    freed by the deleter, once (no leak, no double free), and no DLTensor points into a dead copy."""
    proc, lines = target_run(runs, "cpu")
    assert "Sanitizer" not in proc.stderr, proc.stderr
    assert proc.returncode == 0
    assert lines["managed_deleter_calls"] == "1" and lines["managed_host_deleter_calls"] == "2"


def test_cuda_compiles(tmp_path):
    """The header under nvcc, in a cuda program (which runs where a GPU is present)."""
    if shutil.which(os.environ.get("NVCC") or "nvcc") is None:
        pytest.skip("nvcc is not installed")
    res = run_croktilec("-t", "cuda", "-c", SOURCE, "-o", tmp_path / "calls.o", cwd=tmp_path, timeout=300)
    assert res.rc == 0 and not res.err, res
    assert (tmp_path / "calls.o").stat().st_size > 0


# ---------------------------------------------------------------------------
# The header alone: the DLPack ABI, an official dlpack.h, compile errors
# ---------------------------------------------------------------------------

def cxx() -> str:
    found = shutil.which(os.environ.get("CXX") or "c++")
    if found is None:
        pytest.skip("no C++ compiler")
    return found


def compile_tu(source: str, work: Path, *flags: str) -> subprocess.CompletedProcess:
    """``source`` checked with -fsyntax-only (all warnings errors) against the runtime headers."""
    tu = work / f"tu{len(list(work.glob('tu*.cpp')))}.cpp"
    tu.write_text(source)
    return subprocess.run([cxx(), "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                           f"-I{RUNTIME}", *flags, str(tu)], capture_output=True, text=True, timeout=120)


def system_has_dlpack() -> bool:
    probe = subprocess.run([cxx(), "-std=c++17", "-fsyntax-only", "-x", "c++", "-"],
                           input="#include <dlpack/dlpack.h>\n", capture_output=True, text=True)
    return probe.returncode == 0


def stand_in(work: Path, macros: str) -> Path:
    """A dlpack.h standing in for the official one: the ABI as croktile_dlpack.h declares it,
    under ``macros`` (the official header's guard and version macros), and a marker."""
    text = HEADER.read_text()
    abi = text[text.index('extern "C" {'): text.index('}  // extern "C"') + 1]
    header = work / "dlpack" / "dlpack.h"
    header.parent.mkdir(parents=True, exist_ok=True)
    header.write_text(f"#ifndef DLPACK_DLPACK_H_\n{macros}\n#include <stdint.h>\n{abi}\n"
                      "#define CROKTILE_TEST_STAND_IN 1\n#endif\n")
    return header


USES_STAND_IN = """
#include "croktile_cpu.h"
#include "croktile_dlpack.h"
#if !defined(CROKTILE_TEST_STAND_IN) || defined(CROKTILE_DLPACK_DECLARED_HERE)
#error "the stand-in dlpack.h was not used"
#endif
int main() {
  float x[2] = {1, 2};
  std::int64_t shape[1] = {2};
  DLTensor t{x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  return static_cast<int>(croktile::dlpack::to_view<float, 1>(t).size());
}
"""

CURRENT = "#define DLPACK_DLPACK_H_\n#define DLPACK_MAJOR_VERSION 1\n#define DLPACK_MINOR_VERSION 1"
BEFORE_1_0 = "#define DLPACK_DLPACK_H_\n#define DLPACK_VERSION 80"


def test_abi_matches_the_specification(tmp_path):
    """The DLPack types croktile_dlpack.h declares itself (where no dlpack.h is found) have the
    specification's values, field types and layout, and the element types map as documented."""
    flags = [] if system_has_dlpack() else ["-DCROKTILE_TEST_EXPECT_DECLARED_HERE"]
    res = subprocess.run([cxx(), "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                          f"-I{RUNTIME}", *flags, str(ABI)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("macros", [CURRENT, BEFORE_1_0], ids=["dlpack-1.x", "dlpack-0.x"])
def test_official_header_on_the_include_path_is_used(tmp_path, macros):
    stand_in(tmp_path, macros)
    res = compile_tu(USES_STAND_IN, tmp_path, f"-I{tmp_path}")
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("macros", [CURRENT, BEFORE_1_0], ids=["dlpack-1.x", "dlpack-0.x"])
def test_dlpack_included_first_is_not_declared_again(tmp_path, macros):
    """A framework's copy of dlpack.h (e.g. ATen/dlpack.h) included first, from anywhere."""
    header = stand_in(tmp_path / "elsewhere", macros)
    res = compile_tu(f'#include "{header}"\n' + USES_STAND_IN, tmp_path)
    assert res.returncode == 0, res.stderr


def errors_of(res: subprocess.CompletedProcess) -> str:
    assert res.returncode != 0, "compiled"
    return "\n".join(line for line in res.stderr.splitlines() if re.search(r"error", line))


def test_dlpack_before_0_6_is_refused(tmp_path):
    header = stand_in(tmp_path / "old", "#define DLPACK_DLPACK_H_\n#define DLPACK_VERSION 50")
    res = compile_tu(f'#include "{header}"\n' + USES_STAND_IN, tmp_path)
    assert "croktile_dlpack.h: DLPack 0.6 or newer is needed (kDLCUDA, DLDevice)" in errors_of(res)


def test_needs_a_target_header_first(tmp_path):
    res = compile_tu('#include "croktile_dlpack.h"\n', tmp_path)
    assert ("croktile_dlpack.h: include a target's runtime header first (croktile_cpu.h, croktile_factor.h, "
            "croktile_cuda.h or croktile_opencl.h)") in errors_of(res)


def test_element_type_without_a_dtype(tmp_path):
    res = compile_tu('#include "croktile_cpu.h"\n#include "croktile_dlpack.h"\n'
                     "void f(const DLTensor& t) { croktile::dlpack::to_view<long double, 1>(t); }\n", tmp_path)
    assert ("croktile::dlpack: no DLPack dtype for this element type (use an integer type of 8 to 64 bits, float, "
            "double, croktile::f16, croktile::bf16, croktile::f8_e4m3, croktile::f8_e5m2 or bool)") in errors_of(res)


def test_from_view_of_a_temporary_is_refused(tmp_path):
    """A DLTensor of a temporary's memory would dangle at once: to_managed hands it over instead."""
    res = compile_tu('#include "croktile_cpu.h"\n#include "croktile_dlpack.h"\n'
                     "void f() { auto t = croktile::dlpack::from_view(croktile::make_device_data<float>(4)); }\n",
                     tmp_path)
    assert re.search(r"use of deleted function .*from_view", errors_of(res))


# ---------------------------------------------------------------------------
# PyTorch: an extension library passes torch tensors to __co__ functions and back
# ---------------------------------------------------------------------------

EXTENSION = HERE / "dlpack" / "torch_ext.co.cpp"


def build_extension(target: str, work: Path) -> Path:
    """torch_ext.co.cpp as a shared library (compiled by croktilec, linked as a user would)."""
    obj, lib = work / f"torch_ext.{target}.o", work / f"libtorch_ext.{target}.so"
    res = run_croktilec("-t", target, "-c", "-fPIC", EXTENSION, "-o", obj, cwd=work, timeout=300)
    assert res.rc == 0 and not res.err, res
    linker = [shutil.which("nvcc") or "nvcc"] if target == "cuda" else [cxx(), "-pthread"]
    link = subprocess.run(linker + ["-shared", str(obj), "-o", str(lib)], capture_output=True, text=True)
    assert link.returncode == 0, link.stderr
    return lib


class Extension:
    """torch_ext's C functions on a framework's arrays, through DLPack capsules and ctypes:
    ``to_capsule`` makes a capsule of an array, ``from_capsule`` an array of one; ``versioned``
    capsules ("dltensor_versioned", DLPack 1.x) or legacy ones ("dltensor")."""

    def __init__(self, lib: Path, to_capsule: Callable, from_capsule: Callable, versioned: bool):
        self.to_capsule, self.from_capsule = to_capsule, from_capsule
        self.name = b"dltensor_versioned" if versioned else b"dltensor"
        library = ctypes.CDLL(str(lib))
        suffix = "_versioned" if versioned else ""
        self.scale_fn = getattr(library, "croktile_scale" + suffix)
        self.scale_fn.restype = ctypes.c_void_p
        self.scale_fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        self.copy_fn = getattr(library, "croktile_copy_into" + suffix)
        self.copy_fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        self.deleted = library.croktile_deleted   # how many results the framework has released

    def borrow(self, array):
        """A DLPack capsule of ``array`` (which keeps it alive) and its managed tensor's address."""
        capsule = self.to_capsule(array)
        return capsule, capsule_pointer(capsule, self.name)

    def scale(self, array, k: int):
        """k * array, an array of croktile's memory, or the error's text."""
        capsule, pointer = self.borrow(array)
        error = ctypes.create_string_buffer(1024)
        result = self.scale_fn(pointer, k, error, len(error))
        if not result:
            return error.value.decode()
        return self.from_capsule(new_capsule(result, self.name, None))

    def copy_into(self, src, dst) -> str:
        """Copies src into dst's memory; '' or the error's text."""
        (src_capsule, src_pointer), (dst_capsule, dst_pointer) = self.borrow(src), self.borrow(dst)
        error = ctypes.create_string_buffer(1024)
        return "" if self.copy_fn(src_pointer, dst_pointer, error, len(error)) == 0 else error.value.decode()


capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype, capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
new_capsule = ctypes.pythonapi.PyCapsule_New
new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

class Producer:
    """What from_dlpack takes: an object with __dlpack__ (here: a capsule made elsewhere)."""

    def __init__(self, capsule, device: Tuple[int, int]):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


STRIDES = "croktile::dlpack::to_view: compact row-major strides {} expected for shape {}, got {}; make the tensor " \
          "contiguous first (e.g. .contiguous() in PyTorch)"
WRONG_DTYPE = "croktile::dlpack::to_view: dtype float32 expected, got {}"


@pytest.mark.parametrize("protocol", ["legacy", "versioned"])
@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_torch_tensors_in_and_out(tmp_path, target, protocol):
    """torch tensors (slices included) used in place by __co__ functions, results handed to torch
    without a copy and freed when torch drops them, and torch's non-contiguous tensors, other
    dtypes and other devices refused with croktile's message."""
    torch = pytest.importorskip("torch")
    if target == "cuda" and (gpu_problem() or not torch.cuda.is_available()):
        pytest.skip(gpu_problem() or "torch sees no CUDA device")
    lib = build_extension(target, tmp_path)
    if protocol == "legacy":
        ext = Extension(lib, torch.utils.dlpack.to_dlpack, torch.utils.dlpack.from_dlpack, versioned=False)
    else:
        kdl = (2, 0) if target == "cuda" else (1, 0)
        ext = Extension(lib, lambda tensor: tensor.__dlpack__(max_version=(1, 0)),
                        lambda capsule: torch.from_dlpack(Producer(capsule, kdl)), versioned=True)
    device = torch.device(target)
    rows = torch.arange(20, dtype=torch.float32, device=device).reshape(5, 4)

    a = rows[1:4]                                   # a slice: its memory starts at element 4
    result = ext.scale(a, 3)
    assert not isinstance(result, str), result
    assert result.device.type == target and result.dtype == torch.float32 and result.shape == (3, 4)
    assert torch.equal(result, a * 3)
    again = ext.scale(result, 2)                    # croktile's memory, back through DLPack
    assert torch.equal(again, a * 6)
    assert ext.deleted() == 0
    del result, again
    assert ext.deleted() == 2                       # torch released both, once each
    assert isinstance(ext.scale(torch.zeros(0, 4, device=device), 1), torch.Tensor)

    big = torch.zeros(5, 4, device=device)
    assert ext.copy_into(a, big[1:4]) == ""         # writes land in torch's memory, at the slice
    assert torch.equal(big[1:4], a) and not big[0].any() and not big[4].any()

    view = "croktile::dlpack::to_view: "
    assert ext.scale(a.t(), 1) == STRIDES.format("[3, 1]", "[4, 3]", "[1, 4]")
    assert ext.scale(rows[:, 1:3], 1) == STRIDES.format("[2, 1]", "[5, 2]", "[4, 1]")
    assert ext.scale(torch.zeros(4, device=device).expand(3, 4), 1) == STRIDES.format("[4, 1]", "[3, 4]", "[0, 1]")
    for dtype, name in [(torch.int64, "int64"), (torch.float16, "float16"), (torch.bfloat16, "bfloat16"),
                        (torch.bool, "bool"), (torch.uint8, "uint8"), (torch.float64, "float64")]:
        assert ext.scale(torch.zeros(3, 4, dtype=dtype, device=device), 1) == WRONG_DTYPE.format(name)
    assert ext.scale(torch.zeros(2, 3, 4, device=device), 1) == view + "ndim 2 expected, got 3"
    if target == "cuda":
        assert ext.scale(torch.zeros(3, 4), 1) == view + (
            "device kDLCUDA, kDLCUDAManaged or kDLCUDAHost expected (memory the cuda target's kernels can use), "
            "got kDLCPU (device 0)")
    elif torch.cuda.is_available():
        assert ext.scale(torch.zeros(3, 4, device="cuda"), 1) == view + (
            "device kDLCPU, kDLCUDAHost or kDLCUDAManaged expected (host memory, as on the cpu and factor "
            "targets), got kDLCUDA (device 0)")




@pytest.mark.parametrize("target", ["cpu", "factor"])
def test_numpy_arrays_in_and_out(tmp_path, target):
    """NumPy arrays (host memory, which is the device memory of cpu and factor) the same way, as
    DLPack 1.x tensors (NumPy makes legacy ones read-only): used in place, results handed to NumPy
    (writable) and freed once, NumPy's other layouts and dtypes refused."""
    np = pytest.importorskip("numpy")
    ext = Extension(build_extension(target, tmp_path), lambda array: array.__dlpack__(max_version=(1, 0)),
                    lambda capsule: np.from_dlpack(Producer(capsule, (1, 0))), versioned=True)
    rows = np.arange(20, dtype=np.float32).reshape(5, 4)

    a = rows[1:4]
    result = ext.scale(a, 3)
    assert not isinstance(result, str), result
    assert result.dtype == np.float32 and result.shape == (3, 4) and np.array_equal(result, a * 3)
    assert result.flags.writeable
    again = ext.scale(result, 2)
    assert np.array_equal(again, a * 6)
    assert ext.deleted() == 0
    del result, again
    assert ext.deleted() == 2
    assert ext.scale(np.zeros((0, 4), dtype=np.float32), 1).shape == (0, 4)

    big = np.zeros((5, 4), dtype=np.float32)
    assert ext.copy_into(a, big[1:4]) == ""
    assert np.array_equal(big[1:4], a) and not big[0].any() and not big[4].any()

    assert ext.scale(a.T, 1) == STRIDES.format("[3, 1]", "[4, 3]", "[1, 4]")
    assert ext.scale(rows[::2], 1) == STRIDES.format("[4, 1]", "[3, 4]", "[8, 1]")
    assert ext.scale(np.broadcast_to(np.zeros(4, dtype=np.float32), (3, 4)), 1) == \
        STRIDES.format("[4, 1]", "[3, 4]", "[0, 1]")
    for dtype, name in [(np.int64, "int64"), (np.float16, "float16"), (np.bool_, "bool"), (np.uint8, "uint8"),
                        (np.float64, "float64"), (np.int32, "int32")]:
        assert ext.scale(np.zeros((3, 4), dtype=dtype), 1) == WRONG_DTYPE.format(name)


def test_second_target_backend_by_name(tmp_path):
    """A program with kernels of two targets: to_view gives the first target's device_view, and
    the other's when its backend is named."""
    if opencl_problem().startswith("the OpenCL headers"):
        pytest.skip(opencl_problem())
    res = compile_tu("""
#include "croktile_cpu.h"
#include "croktile_opencl.h"
#include "croktile_dlpack.h"
#include <type_traits>
void f(const DLTensor& t) {
  auto host = croktile::dlpack::to_view<float, 2>(t);
  auto cl = croktile::dlpack::to_view<float, 2, croktile::opencl::backend>(t);
  static_assert(std::is_same<decltype(host), croktile::host::device_view<float, 2>>::value, "first target");
  static_assert(std::is_same<decltype(cl), croktile::opencl::device_view<float, 2>>::value, "named target");
  static_assert(std::is_same<decltype(cl.data()), cl_mem>::value, "a cl_mem");
}
""", tmp_path)
    assert res.returncode == 0, res.stderr
