"""The factor target, run on factor-sim (the profile's device module executed on the CPU).

* ``tests/targets/opencl/features.co.cpp`` is built for ``cpu`` and for ``factor -kt``; both print
  the same, also when each DMA copy is delayed and the core count differs (the samples,
  ``samples/*.co.cpp``, are compared so in tests/samples/test_samples_targets.py).
* ``kt.co.cpp``: one function template with several instantiations through -kt wrappers
  (their names, one per instantiation); a template without -kt, a runtime template
  argument and functions without C linkage are compile-time errors.
* Scratchpads: an overflow is a compile-time error where the shapes are known and a
  ``croktile::runtime_error`` naming the buffer and its line otherwise
  (``scratchpad.co.cpp``); the sizes come from the profile.
* ``async.co.cpp``: a waited asynchronous copy is right under any DMA latency, and an
  unsynchronised one shows (the DMA engine really runs later).
* The driver: ``-S`` writes the host and device sources (deterministically), ``-###``
  prints every job, ``-c`` gives an object a plain link turns into a program that runs
  from anywhere, and CMake builds a factor kernel library.
"""
from __future__ import annotations

import concurrent.futures
import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import shared_builds
from helpers.croktilec import PKG_PARENT, fails, ok, run_croktilec as croktilec
from helpers.paths import REPO, TESTS
from helpers.programs import ADD_PROGRAM
from helpers.targets import SLOW_DMA

HERE = Path(__file__).resolve().parent
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
FEATURES = TESTS / "targets" / "opencl" / "features.co.cpp"
# a copy waits this long in its DMA engine before it happens: a missing wait shows


def run(exe: Path, *args, env=None, cwd=None) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(exe), *args], cwd=str(cwd or exe.parent), capture_output=True, text=True,
                          timeout=120, env=full)


def line_col(path: Path, text: str, at: str = None):
    """1-based line and column of `at` (default: the start of `text`) on the line holding `text`."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return number, line.index(at if at is not None else text) + 1
    raise AssertionError(f"{text!r} is not in {path}")


@pytest.fixture(scope="session", autouse=True)
def compilers():
    for tool in ("c++", "cc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """Every program of these tests, for cpu and for factor, compiled in parallel once (the
    cpu build of features.co.cpp is the session's shared one, which tests/targets/opencl compares
    with too)."""
    work = tmp_path_factory.mktemp("factor-builds")

    def build(*argv):
        exe = work / argv[-1]
        return croktilec(*argv[:-1], "-o", exe, cwd=work), exe
    jobs = {}
    for src in [FEATURES, HERE / "kt.co.cpp", HERE / "async.co.cpp", HERE / "scratchpad.co.cpp"]:
        name = src.name[: -len(".co.cpp")]
        flags = ["-t", "factor", "-kt"]
        if name == "kt":
            flags.append("--save-temps")      # keeps kt.gen.so, for the exported symbols
        jobs[(name, "factor")] = (build, *flags, src, f"{name}.factor")
        if src == FEATURES:
            jobs[(name, "cpu")] = (shared_builds.cpu_build, tmp_path_factory, src)
        else:
            jobs[(name, "cpu")] = (build, "-t", "cpu", src, f"{name}.cpu")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(*job) for key, job in jobs.items()}
        return {key: fut.result() for key, fut in futures.items()}


def exe(built, name: str, target: str) -> Path:
    res, path = built[(name, target)]
    assert res.rc == 0, res
    return path


# ---------------------------------------------------------------------------------
# Programs match the cpu target
# ---------------------------------------------------------------------------------

def test_features_match_cpu(built):
    reference = run(exe(built, "features", "cpu"))
    got = run(exe(built, "features", "factor"), env=SLOW_DMA)
    assert reference.returncode == 0 and got.returncode == 0, got.stdout + got.stderr
    assert got.stdout == reference.stdout
    # runtime checks inside the entry points: one level, the inner and the outer level of two
    failed = re.findall(r"shift 1: (\S+features\.co\.cpp:\d+:\d+): runtime check failed: chunkat index \d",
                        got.stdout)
    assert len(set(failed)) == 3, got.stdout


# ---------------------------------------------------------------------------------
# -kt
# ---------------------------------------------------------------------------------

WRAPPERS = ["croktile_kt__scale__2", "croktile_kt__scale__3", "croktile_kt__affine__m1_5",
            "croktile_kt__affine__16_0"]


def test_kt_instantiations_run_through_c_wrappers(built, tmp_path):
    got, reference = run(exe(built, "kt", "factor")), run(exe(built, "kt", "cpu"))
    assert got.returncode == 0 and got.stdout == reference.stdout and "Test Passed" in got.stdout, got.stdout

    ok("-t", "factor", "-kt", "-S", HERE / "kt.co.cpp", "-o", tmp_path / "kt.cpp", cwd=tmp_path)
    device = (tmp_path / "kt.dev.cpp").read_text()
    assert device.count('extern "C" croktile_kt_ret<') == len(WRAPPERS)
    for name in WRAPPERS:     # one wrapper per instantiation, in the order of first use
        assert len(re.findall(rf"\b{name}\(croktile_kt_arg<", device)) == 1, name
    assert [m for m in re.findall(r"croktile_kt__\w+", device) if m in WRAPPERS][:4] == WRAPPERS
    # the explicit instantiation of each specialisation, typed by the specialisation itself
    assert ("template croktile_kt_ret<decltype(affine<-1, 5>)> affine<-1, 5>(croktile_kt_arg<decltype("
            "affine<-1, 5>), 0>, croktile_kt_arg<decltype(affine<-1, 5>), 1>);") in device
    entry = device[device.index("void templates__launch0("):]
    assert entry.count("croktile_kt__scale__2(") == 2 and "add(t_buf__ptr, u__ptr, (int)(16));" in entry
    assert "scale<" not in entry and "affine<" not in entry
    # the module exports its entry point and ABI stamp, not the __cok__ functions or wrappers
    module = ctypes.CDLL(str(exe(built, "kt", "factor").parent / "kt.gen.so"))
    assert hasattr(module, "templates__launch0")
    assert ctypes.c_int.in_dll(module, "croktile_factor_abi").value == 2
    for hidden in ["add"] + WRAPPERS:
        assert not hasattr(module, hidden), hidden


TEMPLATE_CALL = """\
__cok__ {
  template <int K> void scale(int* x, int n) { for (int i = 0; i < n; ++i) x[i] *= K; }
  template <typename T, int K> void typed(T* x) { x[0] = K; }
  void plain(int* x) { x[0] = 1; }
}
__co__ void f(s32 [8] a, int m) {
  parallel p by 1 {
    t = dma.copy a => local;
    call BODY;
  }
}
"""


@pytest.mark.parametrize("body, flags, message", [
    ("scale<3>(t.data, 8)", [],
     "t.co.cpp:9:5: error: 'scale' is a function template, and device functions have C linkage on target "
     "'factor': compile with -kt to generate an extern \"C\" wrapper for 'scale<3>'"),
    ("scale<m>(t.data, 8)", ["-kt"],
     "t.co.cpp:9:16: error: template argument 1 of 'scale' is not a compile-time constant ('m' is a runtime "
     "value)"),
    ("scale(t.data, 8)", ["-kt"],
     "t.co.cpp:9:5: error: 'scale' is a function template; on target 'factor' call it with its template "
     "arguments ('scale<...>'), which -kt turns into an extern \"C\" wrapper"),
    ("typed<3>(t.data)", ["-kt"],
     "t.co.cpp:9:5: error: function template 'typed' has a type template parameter 'T'; tileflow code gives "
     "integer template arguments, so -kt cannot wrap it"),
    ("scale<1, 2>(t.data, 8)", ["-kt"],
     "t.co.cpp:9:5: error: function template 'scale' has 1 template parameters, the call gives 2 (-kt wraps "
     "one specialisation)"),
    ("plain(t.data)", ["-kt"],
     "t.co.cpp:9:5: error: 'plain' does not have C linkage; on target 'factor' the device functions that "
     "tileflow code calls must be declared extern \"C\"\n"),
])
def test_device_call_errors(tmp_path, body, flags, message):
    (tmp_path / "t.co.cpp").write_text(TEMPLATE_CALL.replace("BODY", body))
    res = fails("-t", "factor", *flags, "t.co.cpp", "-o", "app", cwd=tmp_path)
    assert res.err.startswith(message), res.err
    assert not (tmp_path / "app").exists()


def test_kt_makes_the_template_call_work(tmp_path):
    (tmp_path / "t.co.cpp").write_text(TEMPLATE_CALL.replace("BODY", "scale<3>(t.data, 8)"))
    ok("-t", "factor", "-kt", "-S", "t.co.cpp", cwd=tmp_path)
    device = (tmp_path / "t.gen.dev.cpp").read_text()
    assert "croktile_kt__scale__3(t_buf__ptr, (int)(8));" in device
    assert "extern \"C\" croktile_kt_ret<decltype(scale<3>)> croktile_kt__scale__3(" in device


def test_device_function_outside_cok_is_an_error(tmp_path):
    """A __device__ function builds on cpu and cuda only."""
    src = tmp_path / "add.co.cpp"
    src.write_text(ADD_PROGRAM)
    res = fails("-t", "factor", "-S", src, "-o", tmp_path / "x.cpp", cwd=tmp_path)
    line, col = line_col(src, "call kernel(")
    assert f"add.co.cpp:{line}:{col}: error: 'kernel' is a __device__ function; on target 'factor' device " \
           "code must be in a '__cok__ { }' block" in res.err, res.err
    assert "note: 'kernel' is defined here" in res.err
    assert list(tmp_path.iterdir()) == [src]


# ---------------------------------------------------------------------------------
# Scratchpads
# ---------------------------------------------------------------------------------

OVERFLOW = """\
__cok__ { extern "C" void touch(int* x, int n) { for (int i = 0; i < n; ++i) x[i] += 1; } }
__co__ s32 [2, 8] g(s32 [2, 8] a) {
  s32 [a.span] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p, _) => local;
    local s32 [128, 128] tile;
    shared f32 [600, 500] acc;
    call touch(tile, 8);
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}
"""


INSTANCE_SIZED = """\
__cok__ { extern "C" void touch(int* x, int n) { for (int i = 0; i < n; ++i) x[i] += 1; } }
__co__ s32 [4] g(s32 [4] a, int k) {
  s32 [a.span] out;
  parallel p by 2 {
    with i in [p + k] {
      foreach i {
        t = dma.copy a.chunkat(i) => local;
        call touch(t.data, 1);
      }
    }
    parallel q by 2 {
      local s32 [q + 1] v;
      call touch(v, 1);
    }
    dma.copy a.chunkat(p) => out.chunkat(p);
  }
  return out;
}
"""


def test_scratchpad_sized_by_an_instance_is_an_error(tmp_path):
    """The host lays the scratchpads out before the launch, so a size that depends on the
    instance (a chunk by a bound from p, a buffer sized by q) is an error at the buffer,
    as on opencl and cuda; the generated host code named p and did not compile."""
    (tmp_path / "i.co.cpp").write_text(INSTANCE_SIZED)
    res = fails("-t", "factor", "i.co.cpp", "-o", "app", cwd=tmp_path)
    messages = [l for l in res.err.splitlines() if l.startswith("i.co.cpp:")]
    assert messages == [
        "i.co.cpp:7:38: error: the size of 't' must be known when the kernel is launched on target 'factor'",
        "i.co.cpp:12:25: error: the size of 'v' must be known when the kernel is launched on target 'factor'",
    ], res.err
    assert list(tmp_path.iterdir()) == [tmp_path / "i.co.cpp"]


def test_scratchpad_overflow_at_compile_time(tmp_path):
    (tmp_path / "o.co.cpp").write_text(OVERFLOW)
    res = fails("-t", "factor", "o.co.cpp", "-o", "app", cwd=tmp_path)
    messages = [l for l in res.err.splitlines() if l.startswith("o.co.cpp:")]
    assert messages == [
        "o.co.cpp:6:26: error: local buffer 'tile' (s32 [128, 128]) needs 65536 bytes and does not fit in the "
        "local scratchpad of a factor thread: it would end at byte 65568, and profile 'factor-sim' allows 65536",
        "o.co.cpp:5:37: note: local buffer 't' (s32 [1, 8]), 32 bytes, is in the same scratchpad",
        "o.co.cpp:7:27: error: shared buffer 'acc' (f32 [600, 500]) needs 1200000 bytes and does not fit in the "
        "shared scratchpad of a factor core: it would end at byte 1200000, and profile 'factor-sim' allows 1048576",
    ], res.err
    assert list(tmp_path.iterdir()) == [tmp_path / "o.co.cpp"]


def test_scratchpad_sizes_come_from_the_profile(tmp_path):
    (tmp_path / "small.yaml").write_text("profiles:\n  factor-sim: {limits: {local_bytes: 200}}\n")
    src = REPO / "samples" / "ele_add.co.cpp"
    res = fails("-t", "factor", "--toolchain-file", "small.yaml", "-S", src, cwd=tmp_path)
    line, col = line_col(src, "rhs_load = dma.copy", "local")
    assert f"ele_add.co.cpp:{line}:{col}: error: local buffer 'rhs_load' (s32 [1, 1, 32]) needs 128 bytes and " \
           "does not fit in the local scratchpad of a factor thread: it would end at byte 256, and profile " \
           "'factor-sim' allows 200" in res.err, res.err
    (tmp_path / "none.yaml").write_text("profiles:\n  npu: {target: factor, device_cc: cc}\n")
    res = fails("--toolchain-file", "none.yaml", "--profile", "npu", "-S", src, cwd=tmp_path)
    assert res.err.startswith("croktilec: error: profile 'npu' (target factor) gives no limits.local_bytes and "
                              "limits.shared_bytes: the factor target needs the sizes of its local and shared "
                              "scratchpads"), res.err


def test_memory_report_lists_the_scratchpads(tmp_path):
    src = HERE / "scratchpad.co.cpp"
    res = ok("-t", "factor", "-S", "--memory-report", src, "-o", "s.cpp", cwd=tmp_path)
    line, col = line_col(src, "parallel p by 1", "parallel")
    head = f"{src}:{line}:{col}: scratchpads of entry point 'columns__launch0' (profile 'factor-sim'): "
    report = res.err[res.err.index(head):].splitlines()
    assert report[:4] == [
        head + "local 0 of 65536 bytes per thread, shared 0 of 1048576 bytes per core + run-time sized buffers",
        "  pad       offset     bytes  buffer",
        "  shared  run time     4*M*N  shared buffer 'c' (s32 [M, N])",
        "  shared  run time      12*M  shared buffer 'col' (s32 [M, 3])"], res.err   # one for the block


def test_scratchpad_overflow_at_run_time(built):
    src = HERE / "scratchpad.co.cpp"
    got = run(exe(built, "scratchpad", "factor"))
    assert got.returncode == 0, got.stdout + got.stderr
    r_line, r_col = line_col(src, "r = dma.copy", "local")
    c_line, c_col = line_col(src, "shared s32 [M, 3] col;", "col")
    lines = got.stdout.splitlines()
    assert lines[0] == "rows 2x8: ok 6" and lines[2] == "columns 1000x1: ok 1", got.stdout
    assert lines[1] == (
        f"rows 2x20000: runtime_error: {src}:{r_line}:{r_col}: local buffer 'r' (s32 [M / 2, N]) needs 80000 bytes "
        "and does not fit in the local scratchpad of a factor thread: it would end at byte 80000, and profile "
        "'factor-sim' allows 65536")
    assert lines[3] == (
        f"columns 100000x1: runtime_error: {src}:{c_line}:{c_col}: shared buffer 'col' (s32 [M, 3]) needs "
        "1200000 bytes and does not fit in the shared scratchpad of a factor core: it would end at byte 1600000, "
        "and profile 'factor-sim' allows 1048576")
    assert "runtime_error" not in run(exe(built, "scratchpad", "cpu")).stdout   # cpu has no scratchpads


# ---------------------------------------------------------------------------------
# Asynchronous copies
# ---------------------------------------------------------------------------------

def test_waited_async_copy_is_right_and_a_missing_wait_shows(built):
    cpu = run(exe(built, "async", "cpu"))
    assert cpu.stdout == "waited: 0 wrong of 512\nunsynced: " + " ".join(map(str, range(16))) + "\n"
    late = run(exe(built, "async", "factor"), env={"CROKTILE_FACTOR_DMA_LATENCY_US": "50000"})
    assert late.returncode == 0, late.stdout + late.stderr
    # waited copies are right; the copy whose source was overwritten before its wait saw the new data
    assert late.stdout == "waited: 0 wrong of 512\nunsynced: " + " ".join(map(str, range(100, 116))) + "\n"


def test_async_copies_go_through_the_dma_engine(tmp_path):
    ok("-t", "factor", "-S", HERE / "async.co.cpp", "-o", tmp_path / "a.cpp", cwd=tmp_path)
    device = (tmp_path / "a.dev.cpp").read_text()
    waited = device[device.index("void waited__launch0("):device.index("void unsynced__launch0(")]
    assert waited.count("__ticket = croktile_rt->dma(croktile_core, &croktile_copy, 1);") == 3
    assert "croktile_rt->wait(croktile_core, f__ticket);" in waited
    assert "croktile_rt->wait(croktile_core, g__ticket);" in waited
    assert "croktile_rt->wait(croktile_core, s__ticket);" in waited


# ---------------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------------

def test_S_writes_host_and_device_sources(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "factor", "-S", src, cwd=tmp_path)
    assert res.err == ""
    host, device = (tmp_path / "ele_add.gen.cpp").read_text(), (tmp_path / "ele_add.gen.dev.cpp").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ele_add.gen.cpp", "ele_add.gen.dev.cpp"]
    # the device source: the __cok__ code as written (C linkage kept), and the entry point
    cok_line = next(i for i, l in enumerate(src.read_text().splitlines(), 1) if l.startswith("__cok__"))
    assert f'#line {cok_line} "{src}"' in device and 'extern "C" void kernel(int * a' in device
    assert "CROKTILE_FACTOR_EXPORT void ele_add__launch0(croktile_factor_core* croktile_core" in device
    assert device.count("c[i] = a[i] + b[i];") == 1 and "c[i] = a[i] + b[i];" not in host
    # the host source: embeds the module, launches the entry point by name
    assert "CROKTILE_FACTOR_EMBED(croktile_factor_module_" in host
    assert 'croktile::factor::launch(croktile_factor_module, "ele_add__launch0", (long long)(6)' in host
    assert "int main()" in host and "int main()" not in device


def test_S_is_deterministic(tmp_path):
    outs = []
    for seed in ("1", "2"):
        d = tmp_path / seed
        d.mkdir()
        for src in SAMPLES + [FEATURES, HERE / "kt.co.cpp"]:
            ok("-t", "factor", "-kt", "-S", src, "-o", d / (src.name + ".cpp"), cwd=d, env={"PYTHONHASHSEED": seed})
        outs.append({p.name: p.read_bytes() for p in d.iterdir()})
    assert outs[0] == outs[1] and len(outs[0]) == 2 * (len(SAMPLES) + 2)


def test_dry_run_prints_every_job(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "factor", "-kt", "-###", src, "-o", "app", cwd=tmp_path)
    jobs = res.err.splitlines()
    assert len(jobs) == 4, res.err
    transpile, device, host, link = jobs
    assert transpile.startswith("croktilec -S -t factor --profile factor-sim -kt -o ")
    assert re.match(r"cc .*-fPIC -shared -fvisibility=hidden -iquote \S+ (\S+)\.gen\.dev\.cpp -o \1\.gen\.so$",
                    device), device
    module = device.split(" -o ")[-1]
    assert re.search(rf"'-DCROKTILE_FACTOR_MODULE=\"{re.escape(module)}\"' -c \S+\.gen\.cpp -o", host), host
    assert link.endswith(" -ldl -pthread") and " -o app " in link, link
    assert list(tmp_path.iterdir()) == []


def test_object_links_into_a_program_that_runs_anywhere(tmp_path):
    """-c: one object carries host and device code; a plain link makes a program of it."""
    src = REPO / "samples" / "ele_add.co.cpp"
    build, elsewhere = tmp_path / "build", tmp_path / "elsewhere"
    build.mkdir()
    elsewhere.mkdir()
    ok("-t", "factor", "-c", src, "-o", "ele.o", cwd=build)
    assert sorted(p.name for p in build.iterdir()) == ["ele.o"]
    subprocess.run(["c++", "ele.o", "-o", str(elsewhere / "app"), "-pthread", "-ldl"], cwd=str(build), check=True)
    shutil.rmtree(build)
    got = run(elsewhere / "app", cwd="/")
    assert got.returncode == 0 and "Test Passed" in got.stdout, got.stdout + got.stderr


def test_depfile_lists_the_headers_of_cok_code(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "two.h").write_text("#define TWO 2\n")
    (tmp_path / "d.co.cpp").write_text(
        '__cok__ {\n#include "inc/two.h"\n  extern "C" void f(int* a) { a[0] = TWO; }\n}\n'
        "__co__ void g() { parallel p by 1 { local s32 [4] x; call f(x); } }\n")
    ok("-t", "factor", "-c", "-MMD", "d.co.cpp", cwd=tmp_path)
    deps = (tmp_path / "d.d").read_text()
    assert deps.startswith("d.o: \\\n  d.co.cpp \\\n") and "inc/two.h" in deps, deps
    assert ".gen." not in deps


def test_device_compile_error_points_at_the_co_cpp(tmp_path):
    (tmp_path / "bad.co.cpp").write_text(
        '__cok__ {\n  extern "C" void f(int* a) {\n    a[0] = undefined_thing;\n  }\n}\n'
        "__co__ void g() { parallel p by 1 { local s32 [4] x; call f(x); } }\n"
        "int main() { g(); }\n")
    res = fails("-t", "factor", "bad.co.cpp", "-o", "app", cwd=tmp_path)
    assert re.search(r"bad\.co\.cpp:3:\d+: error: 'undefined_thing' was not declared", res.err), res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.co.cpp"]


def test_cmake_builds_a_factor_kernel_library(tmp_path):
    """croktile_add_kernel(... TARGET factor KERNEL_TEMPLATES): transpile, device module, library."""
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed")
    cmake_dir = ok("--cmake-dir", cwd=tmp_path).out.strip()
    driver = tmp_path / "croktilec"
    driver.write_text(f"#!/bin/sh\nPYTHONPATH={PKG_PARENT} exec {sys.executable} -m croktile_driver \"$@\"\n")
    driver.chmod(0o755)
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    kernel = (HERE / "kt.co.cpp").read_text()
    (src / "kernels" / "k.co.cpp").write_text(kernel[: kernel.index("int main()")])
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(f LANGUAGES CXX)\nfind_package(Croktile 0.1 REQUIRED)\n"
        "croktile_add_kernel(k kernels/k.co.cpp TARGET factor KERNEL_TEMPLATES)\n"
        "add_executable(app main.cpp)\ntarget_link_libraries(app PRIVATE k)\n")
    (src / "main.cpp").write_text(
        '#include <cstdio>\n#include "k.h"\nint main() {\n  static int a[4][16];\n'
        "  for (int i = 0; i < 64; ++i) a[i / 16][i % 16] = i - 20;\n"
        "  auto r = templates(croktile::make_spanview<2>(&a[0][0], {4, 16}));\n"
        "  int wrong = 0;\n  for (int i = 0; i < 64; ++i) wrong += r[i / 16][i % 16] != (15 - 18 * (i - 20)) * 16;\n"
        '  std::printf("%s\\n", wrong ? "WRONG" : "Test Passed");\n  return wrong;\n}\n')
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", "CMAKE_GENERATOR", "CROKTILE_TOOLCHAINS")}
    build = tmp_path / "build"
    configure = subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={cmake_dir}",
                                f"-DCROKTILE_EXECUTABLE={driver}"], capture_output=True, text=True, env=env)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    make = subprocess.run(["cmake", "--build", build], capture_output=True, text=True, env=env)
    assert make.returncode == 0, make.stdout + make.stderr
    assert "Building the factor device module of k.co.cpp" in make.stdout
    got = run(build / "app", cwd=tmp_path)
    assert got.returncode == 0 and got.stdout == "Test Passed\n", got.stdout + got.stderr
