"""croktile.load (issue #14): .co.cpp files built into Python modules on cpu, opencl (PoCL)
and factor, called with NumPy arrays and compared with NumPy; the errors users see; the
build cache (hit, miss after a header edit, two processes at once); croktilec
--python-module itself, and the cuda target's module compiled (no GPU needed)."""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import croktile
from helpers.croktilec import run_croktilec
from helpers.platforms import opencl_problem

pytestmark = pytest.mark.python

ROOT = Path(__file__).resolve().parents[2]
KERNELS = Path(__file__).resolve().parent / "kernels"
OPS = KERNELS / "ops.co.cpp"


def _line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` that holds `text`."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(f"{text!r} not in {path}")


def _target_or_skip(target: str) -> None:
    if target == "opencl":
        problem = opencl_problem()
        if problem and os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
        if problem:
            pytest.skip(problem)


@pytest.fixture(scope="module", params=["cpu", "opencl", "factor"])
def ops(request):
    _target_or_skip(request.param)
    return croktile.load(OPS, target=request.param)


@pytest.fixture(scope="module")
def ops_cpu():
    """ops[cpu]'s module: the same request (target="cpu"), so the cache's, not another build."""
    return croktile.load(OPS, target="cpu")


# ---------------------------------------------------------------------------
# Results against NumPy
# ---------------------------------------------------------------------------

def test_issue_example_ele_add():
    mod = croktile.load(ROOT / "samples" / "ele_add.co.cpp")
    out = mod.ele_add(np.ones((6, 17, 128), np.int32), np.full((6, 17, 128), 2, np.int32))
    assert isinstance(out, np.ndarray) and out.dtype == np.int32 and out.shape == (6, 17, 128)
    assert (out == 3).all()
    assert mod.target == "cpu"


@pytest.mark.parametrize("shape", [(3, 5), (8, 16), (1, 1)])
def test_symbolic_shapes(ops, shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(-1000, 1000, shape, dtype=np.int32)
    b = rng.integers(-1000, 1000, shape, dtype=np.int32)
    np.testing.assert_array_equal(ops.add(a, b), a + b)


def test_float_and_int_scalars(ops):
    x = np.linspace(-3, 5, 6 * 7, dtype=np.float32).reshape(6, 7)
    np.testing.assert_allclose(ops.axpb(x, 0.25, -4), 0.25 * x - 4, rtol=1e-6)
    np.testing.assert_allclose(ops.axpb(x, alpha=2.0, beta=7), 2 * x + 7, rtol=1e-6)


def test_destination_passing_and_int_result(ops):
    src = (np.arange(12, dtype=np.float32).reshape(3, 4) / 8).astype(np.float16)
    dst = np.zeros((3, 4), np.float16)
    assert ops.copy_into(src, dst) is None
    np.testing.assert_array_equal(dst, src)
    a = np.arange(9, dtype=np.int32)
    expect = a + 5
    assert ops.bump_all(a, 5) == 9 * 5
    np.testing.assert_array_equal(a, expect)


def test_inputs_are_used_in_place_and_results_own_their_memory(ops_cpu):
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    out = ops_cpu.add(a, a)
    assert not np.shares_memory(out, a)
    # read-only arrays are accepted (nothing writes them)
    ro = a.copy()
    ro.setflags(write=False)
    np.testing.assert_array_equal(ops_cpu.add(ro, ro), 2 * a)
    del a, ro
    np.testing.assert_array_equal(out, 2 * np.arange(20, dtype=np.int32).reshape(4, 5))


@pytest.mark.parametrize("target", ["cpu", "factor"])
def test_samples_matmul_and_where(target):
    options = ["-kt"] if target == "factor" else []
    folder = ROOT / "samples"
    rng = np.random.default_rng(7)
    mm = croktile.load(folder / "matmul.co.cpp", target=target, options=options)
    lhs = rng.integers(-50, 50, (96, 72), dtype=np.int32)
    rhs = rng.integers(-50, 50, (72, 24), dtype=np.int32)
    np.testing.assert_array_equal(mm.matmul(lhs, rhs), lhs @ rhs)
    wh = croktile.load(folder / "where.co.cpp", target=target, options=options)
    a = rng.integers(-9, 9, (2, 12, 20), dtype=np.int32)
    b = rng.integers(-9, 9, (2, 20, 12), dtype=np.int32)
    np.testing.assert_array_equal(wh.batched_matmul(a, b), a @ b)


# ---------------------------------------------------------------------------
# Errors: croktile.Error naming the parameter and its .co.cpp line, never a crash
# ---------------------------------------------------------------------------

def _where(param_decl: str) -> str:
    return f"ops.co.cpp:{_line_of(OPS, param_decl)}:"


def test_wrong_dtype(ops_cpu):
    a = np.ones((2, 3), np.int32)
    with pytest.raises(croktile.ArgumentError) as err:
        ops_cpu.add(a, a.astype(np.int64))
    msg = str(err.value)
    assert "argument 'b' of 'add'" in msg and "int32 expected, got int64" in msg
    assert _where("__co__ s32 [a.span] add(") in msg
    assert isinstance(err.value, ValueError) and isinstance(err.value, RuntimeError)


def test_wrong_rank(ops_cpu):
    with pytest.raises(croktile.ArgumentError, match=r"argument 'x' of 'axpb' \(f32 \[M, N\]\): an array of rank 2 "
                                                     r"expected, got rank 3") as err:
        ops_cpu.axpb(np.ones((2, 2, 2), np.float32), 1.0, 1)
    assert _where("axpb(f32 [M, N] x") in str(err.value)


def test_wrong_shape(ops_cpu):
    mod = croktile.load(ROOT / "samples" / "ele_add.co.cpp")
    with pytest.raises(croktile.Error, match=r"ele_add\.co\.cpp:15:\d+: .*dimension 1 of 'rhs' is 16, but the "
                                             r"declared shape needs 17"):
        mod.ele_add(np.ones((6, 17, 128), np.int32), np.ones((6, 16, 128), np.int32))
    # symbolic dimensions bound by one parameter and checked against another
    with pytest.raises(croktile.Error, match=r"ops\.co\.cpp:\d+:\d+: .*'b'") as err:
        ops_cpu.add(np.ones((2, 3), np.int32), np.ones((2, 4), np.int32))
    assert _where("__co__ s32 [a.span] add(") in str(err.value)


def test_non_contiguous(ops_cpu):
    a = np.ones((4, 6), np.int32)
    with pytest.raises(croktile.ArgumentError, match=r"argument 'a' of 'add'.*compact row-major strides \[3, 1\] "
                                                     r"expected .* got \[6, 2\]"):
        ops_cpu.add(a[:, ::2], a[:, :3])


def test_not_an_array(ops_cpu):
    with pytest.raises(croktile.ArgumentError, match=r"argument 'a' of 'add'.*an array expected.*got list") as err:
        ops_cpu.add([[1, 2]], np.ones((1, 2), np.int32))
    assert _where("__co__ s32 [a.span] add(") in str(err.value)


class _FakeDeviceArray:
    """A DLPack producer whose tensor claims to be in CUDA memory (no GPU needed)."""

    class _Tensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64),
                    ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]

    def __init__(self, shape):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.buffer = np.zeros(shape, np.int32)
        self.tensor = self._Tensor(self.buffer.ctypes.data, 2, 0, len(shape), 0, 32, 1, self.shape, None, 0, None,
                                   None)

    def __dlpack__(self, stream=None, **kwargs):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.tensor), b"dltensor", None)

    def __dlpack_device__(self):
        return (2, 0)


def test_wrong_device(ops_cpu):
    with pytest.raises(croktile.ArgumentError, match=r"argument 'a' of 'add'.*got kDLCUDA") as err:
        ops_cpu.add(_FakeDeviceArray((2, 3)), np.ones((2, 3), np.int32))
    assert _where("__co__ s32 [a.span] add(") in str(err.value)


def test_runtime_check_of_generated_code(ops):
    # 5 rows cannot be split in OPS_SPLIT (2) parts: the generated code's check
    with pytest.raises(croktile.Error, match=r"ops\.co\.cpp:\d+:\d+: runtime check failed: dimension 0 of 'x' "
                                             r"\(5\) is not divisible"):
        ops.axpb(np.ones((5, 2), np.float32), 1.0, 0)


def test_scalar_of_wrong_type(ops_cpu):
    with pytest.raises(TypeError, match="axpb"):
        ops_cpu.axpb(np.ones((2, 2), np.float32), "x", 1)


def test_build_error_carries_the_diagnostic(tmp_path):
    bad = tmp_path / "bad.co.cpp"
    bad.write_text("__co__ s32 [4] f(s32 [4] a) {\n  s32 [a.span] out;\n  return undefined_name;\n}\n")
    with pytest.raises(croktile.BuildError) as err:
        croktile.load(bad)
    msg = str(err.value)
    assert f"{bad}:3:" in msg and "error:" in msg and "undefined_name" in msg
    assert "Traceback" not in msg


def test_build_error_shows_the_callers_line_not_the_builds_internals(tmp_path):
    """The traceback of a failed build ends in croktile.load's call, with no frame of the
    code that ran the compiler (run as a user script runs it)."""
    bad = tmp_path / "bad.co.cpp"
    bad.write_text("__co__ s32 [4] f(s32 [4] a) {\n  return undefined_name;\n}\n")
    script = tmp_path / "user.py"
    script.write_text(f"import croktile\ncroktile.load({str(bad)!r})\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path))
    assert proc.returncode == 1
    assert f'File "{script}", line 2' in proc.stderr
    assert ", in _build" not in proc.stderr and proc.stderr.count("_load.py") <= 1
    assert f"{bad}:2:" in proc.stderr and "undefined_name" in proc.stderr


def test_relative_paths_in_options_resolve_against_the_callers_folder(tmp_path, monkeypatch):
    """-Iinc and --toolchain-file FILE, relative, mean what they mean on the command line."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sizes.h").write_text("#define LANES 4\n")
    src = tmp_path / "k.co.cpp"
    src.write_text('#include "sizes.h"\n__co__ s32 [LANES] twice(s32 [LANES] a) {\n'
                   "  s32 [a.span] out;\n  foreach i in [LANES] out.at(i) = a.at(i) * 2;\n  return out;\n}\n")
    monkeypatch.chdir(tmp_path)
    mod = croktile.load(src, options=["-Iinc"])
    assert mod.twice(np.arange(4, dtype=np.int32)).tolist() == [0, 2, 4, 6]
    (tmp_path / "bad.yaml").write_text("profiles: [not, a, mapping\n")
    with pytest.raises(croktile.BuildError) as err:
        croktile.load(src, options=["--toolchain-file", "bad.yaml"])
    assert "bad.yaml" in str(err.value)
    assert "No such file" not in str(err.value) and "not found" not in str(err.value)


# ---------------------------------------------------------------------------
# Documentation: docstrings and the type stub show the declared shapes
# ---------------------------------------------------------------------------

def test_docstrings_and_stub(ops_cpu):
    doc = ops_cpu.add.__doc__
    assert "a: s32 [M, N]" in doc and "b: s32 [M, N]" in doc and "returns: s32 [M, N]" in doc
    assert "alpha: float" in ops_cpu.axpb.__doc__ and "beta: int" in ops_cpu.axpb.__doc__
    module = Path(ops_cpu.__file__)
    stub = module.with_name(module.name.split(".", 1)[0] + ".pyi").read_text()
    assert "def add(a: ArrayLike, b: ArrayLike, *, stream: Any = None) -> Any:" in stub
    assert "def bump_all(a: ArrayLike, v: int, *, stream: Any = None) -> int:" in stub
    assert "def copy_into(src: ArrayLike, dst: ArrayLike, *, stream: Any = None) -> None:" in stub
    compile(stub, "stub.pyi", "exec")   # valid Python


# ---------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------

def _load_in_subprocess(source: Path, target: str) -> dict:
    code = textwrap.dedent("""
        import json, sys, time
        t = time.perf_counter()
        import croktile, numpy as np
        m = croktile.load(sys.argv[1], target=sys.argv[2])
        took = time.perf_counter() - t
        print(json.dumps({"file": m.__file__, "seconds": took,
                          "result": m.add(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32)).tolist()}))
    """)
    out = subprocess.run([sys.executable, "-c", code, str(source), target], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _copy_ops(folder: Path) -> Path:
    folder.mkdir()
    for name in ("ops.co.cpp", "ops_helpers.h"):
        shutil.copy(KERNELS / name, folder / name)
    return folder / "ops.co.cpp"


def test_cache_hit_runs_no_compiler(ops_cpu, croktile_cache):
    """ops_cpu's build (in this session's cache) is what a new process imports."""
    first = croktile.load(OPS, target="cpu")
    assert first is ops_cpu
    manifest = Path(first.__file__).parent / "manifest.json"
    stamp = manifest.stat().st_mtime_ns
    files = [f for f, _ in json.loads(manifest.read_text())["files"]]
    assert str(OPS) in files and str(KERNELS / "ops_helpers.h") in files
    again = _load_in_subprocess(OPS, "cpu")   # a new process: imports the cached module
    assert again["file"] == first.__file__ and again["result"] == [[2, 2], [2, 2]]
    assert manifest.stat().st_mtime_ns == stamp
    assert again["seconds"] < 2.0


def test_cache_miss_after_editing_an_included_header(tmp_path):
    source = _copy_ops(tmp_path / "edit")
    before = croktile.load(source)
    x = np.ones((6, 2), np.float32)
    np.testing.assert_array_equal(before.axpb(x, 1.0, 1), 2 * x)   # 6 rows split in 2
    header = source.parent / "ops_helpers.h"
    header.write_text(header.read_text().replace("#define OPS_SPLIT 2", "#define OPS_SPLIT 4"))
    after = croktile.load(source)
    assert after.__file__ != before.__file__
    with pytest.raises(croktile.Error, match=r"dimension 0 of 'x' \(6\) is not divisible by the bound of 'p' \(4\)"):
        after.axpb(x, 1.0, 1)
    assert croktile.load(source) is after   # unchanged since: the same module


def test_cache_miss_after_the_compiler_changes(ops_cpu, monkeypatch):
    """A new croktilec of the same version (another install, an edited checkout) builds
    again rather than importing what the old one generated (ops_cpu's build)."""
    import croktile._load as load_module
    before = croktile.load(OPS, target="cpu")
    assert before is ops_cpu
    monkeypatch.setattr(load_module, "_driver_digest", lambda: "another croktilec")
    after = croktile.load(OPS, target="cpu")
    assert after.__file__ != before.__file__
    np.testing.assert_array_equal(after.add(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32)), 2)


def test_two_processes_build_once(tmp_path):
    source = _copy_ops(tmp_path / "race")
    code = "import croktile, sys; print(croktile.load(sys.argv[1]).__file__)"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(source)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    files = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        files.append(out.strip())
    assert files[0] == files[1]   # a second build would have made a module of another name
    modules = [f for f in os.listdir(os.path.dirname(files[0])) if f.endswith(".so")]
    assert len(modules) == 1


def test_cached_load_is_fast(ops_cpu):
    t = time.perf_counter()
    croktile.load(OPS, target="cpu")
    assert time.perf_counter() - t < 0.5


# ---------------------------------------------------------------------------
# croktilec --python-module
# ---------------------------------------------------------------------------

def test_croktilec_python_module(tmp_path):
    import sysconfig
    out = tmp_path / ("opsmod" + sysconfig.get_config_var("EXT_SUFFIX"))
    res = run_croktilec("--python-module", "-o", out, "--emit-python-stub", tmp_path / "opsmod.pyi", OPS,
                        cwd=tmp_path, timeout=300)
    assert res.rc == 0, res
    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import opsmod; "
            "print(opsmod.add(np.ones((1, 3), np.int32), np.ones((1, 3), np.int32)).tolist())")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[[2, 2, 2]]"
    assert "def axpb(x: ArrayLike, alpha: float, beta: int" in (tmp_path / "opsmod.pyi").read_text()


def test_croktilec_python_module_errors(tmp_path):
    res = run_croktilec("--python-module", "-o", tmp_path / "bad-name.so", OPS, cwd=tmp_path)
    assert res.rc == 1 and "'bad-name' is not a valid Python module name" in res.err
    res = run_croktilec("--python-module", "-c", OPS, cwd=tmp_path)
    assert res.rc == 1 and "cannot be combined with -c or -S" in res.err
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(shutil.which(os.environ.get("NVCC", "nvcc")) is None, reason="nvcc not found")
def test_cuda_module_compiles(tmp_path):
    res = run_croktilec("-t", "cuda", "--python-module", "-o", tmp_path / "ops_cuda.so", OPS, cwd=tmp_path,
                        timeout=600)
    assert res.rc == 0, res
    assert (tmp_path / "ops_cuda.so").stat().st_size > 0
