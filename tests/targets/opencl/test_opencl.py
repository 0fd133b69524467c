"""The opencl target, run for real on an OpenCL platform (PoCL in CI).

* The samples (``samples/*.co.cpp``, device code in ``__cok__`` blocks) run on opencl
  and print the cpu build's result elements: tests/samples/test_samples_targets.py.
* ``features.co.cpp`` covers what the samples do not (work-group copies with
  events and ``swap`` of ``__local`` buffers, symbolic shared/local sizes, three
  levels, float arguments, host-level copies, checks inside kernels), compared
  with cpu the same way.
* ``-S`` writes the host ``.cpp`` and the device ``.cl``; a ``__device__`` function
  called from tileflow code is a compile-time error; a device-code error is a build
  error at its ``.co.cpp`` line (the device program is checked by clang at build
  time), or, with that check off, a ``croktile::runtime_error`` holding the build log
  with ``.co.cpp`` lines; an OpenCL error names the failing call and the location.
* ``reserved_names.co.cpp``: C/C++ names that OpenCL C reserves are renamed in the
  device program; the result is the cpu target's.

Without an OpenCL platform (or headers) the tests that run programs skip with
the reason; ``CROKTILE_REQUIRE_OPENCL=1`` (set by scripts/test.sh when it
installed PoCL) turns that skip into a failure.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Tuple

import pytest

from helpers import shared_builds
from helpers.croktilec import fails, ok, run_croktilec
from helpers.generated import code
from helpers.paths import REPO
from helpers.programs import ADD_PROGRAM

HERE = Path(__file__).resolve().parent
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))


# the programs whose cpu builds the session shares (shared_builds.cpu_build)
SHARED_CPU_BUILDS = {"features.co.cpp"}


def _build(src: Path, target: str, out: Path):
    return run_croktilec("-t", target, str(src), "-o", str(out), cwd=out.parent, timeout=300), out


@pytest.fixture(scope="session")
def built(opencl, tmp_path_factory) -> Dict[Tuple[str, str], Path]:
    """Every program of these tests for both targets, compiled in parallel once (the cpu
    build of features.co.cpp is the session's shared one, which tests/targets/factor compares with
    too)."""
    work = tmp_path_factory.mktemp("opencl-builds")
    jobs = {}
    for src in [HERE / "features.co.cpp", HERE / "errors.co.cpp", HERE / "reserved_names.co.cpp",
                HERE / "reserved_declarators.co.cpp"]:
        name = src.name[: -len(".co.cpp")]
        jobs[(name, "opencl")] = (_build, src, "opencl", work / f"{name}.opencl")
        if src.name in SHARED_CPU_BUILDS:
            jobs[(name, "cpu")] = (shared_builds.cpu_build, tmp_path_factory, src)
        elif src.name != "errors.co.cpp":
            jobs[(name, "cpu")] = (_build, src, "cpu", work / f"{name}.cpu")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(*job) for key, job in jobs.items()}
        return {key: fut.result() for key, fut in futures.items()}


def _exe(built, name: str, target: str) -> Path:
    res, exe = built[(name, target)]
    assert res.rc == 0, res
    return exe


def _run(exe: Path, *args, env=None) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(exe), *args], cwd=str(exe.parent), capture_output=True, text=True,
                          timeout=120, env=full)


def test_features_match_cpu(built):
    runs = {t: _run(_exe(built, "features", t)) for t in ("cpu", "opencl")}
    for t, run in runs.items():
        assert run.returncode == 0, f"features ({t}):\n{run.stdout}{run.stderr}"
    assert runs["opencl"].stdout == runs["cpu"].stdout
    out = runs["opencl"].stdout
    for what in ("group_pipeline:", "sym_inner:", "sym_inner2:", "three_levels:", "floats:", "launches:",
                 "checked:", "checked_inner:", "checked_outer:"):
        assert what in out
    # failed range checks in three kernels: one level (return), the inner level of two (leave
    # the instance), the outer level of two (the whole group returns)
    fails_at = re.findall(r"shift 1: (\S+features\.co\.cpp:\d+:\d+): runtime check failed: chunkat index \d", out)
    assert len(fails_at) == 3 and len(set(fails_at)) == 3, out


def test_features_use_work_group_copies_and_local_memory(tmp_path):
    """The device program maps shared memory, async copies and masking as documented."""
    ok("-t", "opencl", "-S", str(HERE / "features.co.cpp"), "-o", str(tmp_path / "f.cpp"), cwd=tmp_path)
    cl = (tmp_path / "f.cl").read_text()
    kernel = cl[cl.index("__kernel void group_pipeline__launch0"):]
    kernel = kernel[: kernel.index("\n}\n")]
    assert "async_work_group_copy(" in kernel and "wait_group_events(" in kernel
    assert "__local int32_t res[128] __attribute__((aligned(16)));" in kernel   # outer-level `local` = work-group memory
    assert "if (croktile_lid == 0) bump__l(" in kernel      # outer-level call: work-item 0 only
    assert "event_t croktile_e = cur__ev; cur__ev = nxt__ev;" in kernel   # swap moves the pending copy
    assert "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);" in kernel
    sym = cl[cl.index("__kernel void sym_inner__launch0"):]
    assert "__local int32_t* row," in sym                  # symbolic shared: a __local argument
    assert "__global unsigned char* croktile_scratch" in sym   # symbolic local: per work-item global slice


def test_S_writes_host_and_device_sources(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "opencl", "-S", str(src), "-o", str(tmp_path / "ele.gen.cpp"), cwd=tmp_path)
    assert res.err == ""
    host = (tmp_path / "ele.gen.cpp").read_text()
    cl = (tmp_path / "ele.gen.cl").read_text()
    assert "__kernel void ele_add__launch0(" in cl
    assert 'extern "C"' not in cl and "extern" not in cl
    cok_line = next(i for i, l in enumerate(src.read_text().splitlines(), 1) if l.startswith("__cok__"))
    assert f'#line {cok_line} "{src}"' in cl               # the __cok__ block, at its line
    assert "typedef int int32_t;" in cl
    # the host program embeds exactly that device program and never compiles the __cok__ code
    assert cl in host
    assert "croktile::opencl::runtime::get(" in host and "clBuildProgram" not in host
    assert host.count("c[i] = a[i] + b[i];") == 1           # only inside the embedded device text
    # the default names
    ok("-t", "opencl", "-S", str(src), cwd=tmp_path)
    assert (tmp_path / "ele_add.gen.cpp").read_text() == host
    assert (tmp_path / "ele_add.gen.cl").read_text() == cl


def test_S_is_deterministic(tmp_path):
    outs = []
    for seed in ("1", "2"):
        d = tmp_path / seed
        d.mkdir()
        for src in SAMPLES + [HERE / "features.co.cpp"]:
            run_croktilec("-t", "opencl", "-S", str(src), "-o", str(d / (src.name + ".cpp")), cwd=d,
                          env={"PYTHONHASHSEED": seed})
        outs.append({p.name: p.read_bytes() for p in d.iterdir()})
    assert outs[0] == outs[1] and len(outs[0]) == 2 * (len(SAMPLES) + 1)


def test_S_to_stdout_writes_no_device_file(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "opencl", "-S", str(src), "-o", "-", cwd=tmp_path)
    assert "__kernel void ele_add__launch0(" in res.out
    assert list(tmp_path.iterdir()) == []


def test_save_temps_keeps_both_sources_and_dry_run_shows_the_jobs(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "opencl", "-###", str(src), "-o", "app", cwd=tmp_path)
    assert "-t opencl" in res.err and "-lOpenCL" in res.err
    assert not (tmp_path / "app").exists()


def test_device_function_is_an_error(tmp_path):
    """A __device__ function builds on cpu and cuda only."""
    src = tmp_path / "add.co.cpp"
    src.write_text(ADD_PROGRAM)
    res = fails("-t", "opencl", "-S", str(src), "-o", str(tmp_path / "x.cpp"), cwd=tmp_path)
    line = next(i for i, l in enumerate(src.read_text().splitlines(), 1) if "call kernel(" in l)
    assert re.search(rf"add\.co\.cpp:{line}:\d+: error: 'kernel' is a __device__ function; "
                     r".*'__cok__ \{ \}' block", res.err), res
    assert "note: 'kernel' is defined here" in res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["add.co.cpp"]


def test_undefined_device_function_is_an_error(tmp_path):
    (tmp_path / "u.co.cpp").write_text(
        "__cok__ { extern \"C\" void f(int* a) { a[0] = 1; } }\n"
        "__co__ void g() { parallel p by 2 { local s32 [4] x; call f(x); call nowhere(x); } }\n")
    res = fails("-t", "opencl", "-S", "u.co.cpp", cwd=tmp_path)
    assert "u.co.cpp:2:" in res.err and "'nowhere' is not defined in a '__cok__ { }' block" in res.err
    assert "'f'" not in res.err


BAD_DEVICE_CODE = r"""#include <cstdio>
__cok__ {
  extern "C" void f(int* a, int n) {
    for (int i = 0; i < n; ++i) a[i] = undefined_thing;
  }
}
__co__ s32 [4] g() {
  s32 [4] o;
  parallel p by 1 { local s32 [4] x; call f(x, 4); dma.copy x => o; }
  return o;
}
int main() {
  for (int i = 0; i < 2; ++i) {
    try { g(); } catch (const croktile::runtime_error& e) { std::printf("caught: %s\n", e.what()); }
  }
}
"""


def test_device_build_error_reports_co_cpp_lines(opencl, tmp_path):
    """With the build-time check turned off (device_cc: ""), the platform's compiler still
    reports the error when the program first runs."""
    (tmp_path / "bad.co.cpp").write_text(BAD_DEVICE_CODE)
    (tmp_path / "unchecked.yaml").write_text('profiles:\n  opencl-pocl:\n    device_cc: ""\n')
    ok("-t", "opencl", "--toolchain-file", "unchecked.yaml", "bad.co.cpp", "-o", "bad", cwd=tmp_path)
    run = _run(tmp_path / "bad")
    assert run.returncode == 0, run.stdout + run.stderr
    caught = [l for l in run.stdout.split("caught: ")[1:]]
    assert len(caught) == 2 and caught[0] == caught[1], run.stdout    # the failure is kept, not retried
    msg = caught[0]
    assert msg.startswith("bad.co.cpp:7:1: clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)"), msg
    assert "build log:" in msg
    # the OpenCL compiler's message points at the __cok__ line in the .co.cpp file
    assert re.search(r"bad\.co\.cpp:4:\d+: .*undefined_thing", msg), msg


def test_opencl_errors_name_the_call_and_the_location(built):
    exe = _exe(built, "errors", "opencl")
    good = _run(exe)
    assert good.returncode == 0 and good.stdout == "twice: 10\n", good.stdout + good.stderr
    wide = _run(exe, "wide")          # wider than a work-group may be: the work-items loop
    assert wide.returncode == 0 and wide.stdout == "wide: 0 wrong\n", wide.stdout + wide.stderr

    no_gpu = _run(exe, env={"CROKTILE_OPENCL_DEVICE_TYPE": "gpu"})
    if no_gpu.returncode == 0:
        pytest.skip("this machine has an OpenCL GPU")
    assert no_gpu.returncode == 2, no_gpu.stdout + no_gpu.stderr
    assert re.match(r"runtime_error: \S*errors\.co\.cpp:\d+:1: clGetDeviceIDs failed: CL_DEVICE_NOT_FOUND \(-1\)",
                    no_gpu.stdout), no_gpu.stdout

    huge = _run(exe, "huge")
    assert huge.returncode == 2, huge.stdout + huge.stderr
    line = next(i for i, l in enumerate((HERE / "errors.co.cpp").read_text().splitlines(), 1)
                if "s32 [n, 1024, 1024] big;" in l)
    assert re.match(rf"runtime_error: \S*errors\.co\.cpp:{line}:\d+: clCreateBuffer failed: "
                    r"CL_INVALID_BUFFER_SIZE \(-61\)", huge.stdout), huge.stdout


def test_platform_and_device_selection(built):
    exe = _exe(built, "errors", "opencl")
    for env in ({"CROKTILE_OPENCL_PLATFORM": "0", "CROKTILE_OPENCL_DEVICE": "0"},
                {"CROKTILE_OPENCL_PLATFORM": "", "CROKTILE_OPENCL_DEVICE_TYPE": "all"}):
        run = _run(exe, env=env)
        assert run.returncode == 0 and run.stdout == "twice: 10\n", (env, run.stdout, run.stderr)
    bad = _run(exe, env={"CROKTILE_OPENCL_DEVICE": "no-such-device-xyz"})
    assert bad.returncode == 2
    assert "CROKTILE_OPENCL_DEVICE='no-such-device-xyz' matches no device" in bad.stdout
    assert "errors.co.cpp:" in bad.stdout
    bad = _run(exe, env={"CROKTILE_OPENCL_PLATFORM": "99"})
    assert bad.returncode == 2 and "CROKTILE_OPENCL_PLATFORM=99: there are" in bad.stdout


def test_reserved_names_match_cpu(built):
    runs = {t: _run(_exe(built, "reserved_names", t)) for t in ("cpu", "opencl")}
    for t, run in runs.items():
        assert run.returncode == 0, f"reserved_names ({t}):\n{run.stdout}{run.stderr}"
    assert len(runs["cpu"].stdout.split()) == 32
    assert runs["opencl"].stdout == runs["cpu"].stdout


def test_reserved_declarators_match_cpu(built):
    """'} event_t;' after a struct body is a declaration too, and the generated kernels'
    events do not take the renamed event_t."""
    runs = {t: _run(_exe(built, "reserved_declarators", t)) for t in ("cpu", "opencl")}
    for t, run in runs.items():
        assert run.returncode == 0, f"reserved_declarators ({t}):\n{run.stdout}{run.stderr}"
    assert len(runs["cpu"].stdout.split()) == 8
    assert runs["opencl"].stdout == runs["cpu"].stdout


def test_reserved_names_are_renamed_only_where_declared(tmp_path):
    """A reserved word the __cok__ code declares is renamed; OpenCL C code that uses the
    keywords and types as such (under CROKTILE_OPENCL) is left alone and passes the check."""
    ok("-t", "opencl", "-S", str(HERE / "reserved_names.co.cpp"), "-o", str(tmp_path / "r.cpp"), cwd=tmp_path)
    cl = (tmp_path / "r.cl").read_text()
    for name in ("half", "global", "local", "kernel", "constant", "read_only", "write_only", "read_write",
                 "restrict", "uint", "float4", "int2", "image2d_t", "sampler_t"):
        assert f"#define {name} croktile_cl_{name} " in cl, name
    assert "#define event_t" not in cl and "#define float2 " not in cl
    (tmp_path / "native.co.cpp").write_text(
        "__cok__ {\n"
        "#ifdef CROKTILE_OPENCL\n"
        "  constant int table[2] = {3, 4};\n"
        "  static int put(float4 v, half* unused) { return (int)(v.x + v.w); }\n"
        "  extern \"C\" void f(int* a) { uint n = 1; a[0] = put((float4)(1.0f, 2.0f, 3.0f, 4.0f), 0) + table[n]; }\n"
        "#else\n"
        "  extern \"C\" void f(int* a) { a[0] = 5; }\n"
        "#endif\n"
        "}\n"
        "__co__ void g(s32 [4] x) { parallel p by 1 { call f(x); } }\n")
    ok("-t", "opencl", "-c", "native.co.cpp", "-o", "native.o", cwd=tmp_path)
    ok("-t", "opencl", "-S", "native.co.cpp", "-o", "native.cpp", cwd=tmp_path)
    assert "croktile_cl_" not in (tmp_path / "native.cl").read_text()


# Device programs OpenCL C rejects: each is a build error at the marked .co.cpp line
# ("// error: TEXT" ends it; the caret stands under `at`), exit status 1, nothing written.
CHECKED_ERRORS = {
    "undeclared": ("__cok__ { extern \"C\" void f(int* a, int n) {\n"
                   "  for (int i = 0; i < n; ++i) a[i] = undefined_thing; // error: use of undeclared identifier 'undefined_thing'\n"
                   "} }\n", "undefined_thing"),
    "cplusplus_reference": ("__cok__ { extern \"C\" void f(int* a, int n) {\n"
                            "  int& r = a[0]; r = n; // error: expected identifier\n"
                            "} }\n", "& r"),
    "type_error": ("__cok__ { struct P { int x; };\n"
                   "extern \"C\" void f(int* a, int n) { struct P p = {n};\n"
                   "  a[0] = p + 1; // error: invalid operands to binary expression\n"
                   "} }\n", "+ 1"),
    "renamed_name_in_message": ("__cok__ { static int half(int a, int b) { return a + b; }\n"
                                "extern \"C\" void f(int* a, int n) {\n"
                                "  a[0] = half(n); // error: too few arguments to function call, expected 2, have 1\n"
                                "} }\n", ")"),
    # a namespace before the called function: the function is still found, the check
    # reports the namespace (it said 'f' was not in a __cok__ block)
    "namespace": ("__cok__ { namespace q { static int one() { return 1; } } // error: unknown type name 'namespace'\n"
                  "extern \"C\" void f(int* a, int n) { a[0] = n; } }\n", "namespace"),
    "variable_length_array": ("__cok__ { extern \"C\" void f(int* a, int n) {\n"
                              "  int t[n]; t[0] = n; a[0] = t[0]; // error: variable length arrays are not supported in OpenCL\n"
                              "} }\n", "n]"),
    "call_from_tileflow": ("__cok__ { extern \"C\" void f(int* a, int n) { a[0] = n; } }\n"
                           "__co__ void h(s32 [4] x) { parallel p by 1 { local s32 [4] t; call f(t, 4); call f(t, t); } } // error: incompatible pointer to integer conversion\n",
                           "t); }"),
}


@pytest.mark.parametrize("case", sorted(CHECKED_ERRORS))
def test_device_program_errors_are_build_errors(tmp_path, case):
    text, at = CHECKED_ERRORS[case]
    if "__co__" not in text:
        text += "__co__ void g(s32 [4] x) { parallel p by 1 { call f(x, 4); } }\n"
    (tmp_path / "bad.co.cpp").write_text(text)
    line_no, line = next((i, l) for i, l in enumerate(text.splitlines(), 1) if "// error: " in l)
    message = line.split("// error: ")[1]
    code = line.split(" // error: ")[0]
    col = code.index(at) + 1
    res = fails("-t", "opencl", "bad.co.cpp", "-o", "bad", cwd=tmp_path)
    lines = res.err.splitlines()
    first = next(i for i, l in enumerate(lines) if ": error: " in l)
    assert lines[first].startswith(f"bad.co.cpp:{line_no}:{col}: error: {message}"), res.err
    assert lines[first + 1] == line and lines[first + 2] == " " * (col - 1) + "^", res.err
    assert "croktile_cl_" not in res.err and "expanded from macro" not in res.err
    assert not (tmp_path / "bad").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.co.cpp"]
    for stage in ("-c", "-S"):        # -S too: build systems (CMake) compile what it writes
        again = fails("-t", "opencl", stage, "bad.co.cpp", cwd=tmp_path)
        assert again.err.startswith(res.err.split("\ncroktilec: error:")[0]), again.err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.co.cpp"]
    fails("-t", "opencl", "-S", "bad.co.cpp", "-o", os.devnull, cwd=tmp_path)   # checks only
    assert "__kernel" in ok("-t", "opencl", "-S", "bad.co.cpp", "-o", "-", cwd=tmp_path).out   # shown unchecked


PRELUDE_NAMES = """\
__cok__ {
  typedef TYPE s32;
  typedef float f32;
  typedef unsigned char u8;
  extern "C" void f(s32* a, s32 n) { for (s32 i = 0; i < n; ++i) a[i] += (u8)3 + (f32)0.5f; }
}
__co__ void g(s32 [4] x) { parallel p by 1 { call f(x, 4); } }
"""


def test_cok_code_may_declare_the_preludes_names(tmp_path):
    """Device code that typedefs s32, f32, u8 itself (as the cpu target needs) repeats the
    prelude's typedefs: valid C11 and C++, only a warning in OpenCL C 1.2, and it was shown
    with a note in the prelude of a deleted temporary file. A conflicting one is an error
    whose note names the prelude."""
    (tmp_path / "t.co.cpp").write_text(PRELUDE_NAMES.replace("TYPE", "int"))
    assert ok("-t", "opencl", "-c", "t.co.cpp", cwd=tmp_path).err == ""
    (tmp_path / "t.co.cpp").write_text(PRELUDE_NAMES.replace("TYPE", "short"))
    res = fails("-t", "opencl", "-c", "t.co.cpp", cwd=tmp_path)
    assert res.err.startswith("t.co.cpp:2:17: error: typedef redefinition with different types"), res.err
    assert re.search(r"^<croktile OpenCL C prelude>:\d+:\d+: note: previous definition is here\n"
                     r"typedef int32_t s32;$", res.err, re.M), res.err
    assert "croktile-" not in res.err and ".gen.cl" not in res.err


def test_renamed_name_in_a_note_is_shown_as_written(tmp_path):
    text, _ = CHECKED_ERRORS["renamed_name_in_message"]
    (tmp_path / "bad.co.cpp").write_text(text + "__co__ void g(s32 [4] x) { parallel p by 1 { call f(x, 4); } }\n")
    res = fails("-t", "opencl", "bad.co.cpp", "-o", "bad", cwd=tmp_path)
    assert re.search(r"^bad\.co\.cpp:1:\d+: note: 'half' declared here$", res.err, re.M), res.err


def test_dry_run_shows_the_device_check(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    jobs = [l.split() for l in ok("-t", "opencl", "-###", str(src), "-o", "app", cwd=tmp_path).err.splitlines()]
    check = next(i for i, j in enumerate(jobs) if "-fsyntax-only" in j)
    compile_ = next(i for i, j in enumerate(jobs) if "-c" in j)
    assert check < compile_
    assert re.fullmatch(r".*/clang(-\d+)?", jobs[check][0]) and "-cl-std=CL1.2" in jobs[check]
    assert jobs[check][-1].endswith(".gen.cl")
    jobs = [l.split() for l in ok("-t", "opencl", "-S", "-###", str(src), cwd=tmp_path).err.splitlines()]
    assert len(jobs) == 2 and "-fsyntax-only" in jobs[1]
    (tmp_path / "off.yaml").write_text('profiles:\n  opencl-pocl:\n    device_cc: ""\n')
    res = ok("-t", "opencl", "--toolchain-file", "off.yaml", "-###", str(src), "-o", "app", cwd=tmp_path)
    assert "-fsyntax-only" not in res.err and "warning" not in res.err


def test_no_clang_is_a_warning_once(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    empty = tmp_path / "bin"
    empty.mkdir()
    res = ok("-t", "opencl", "-###", str(src), str(REPO / "samples" / "matmul.co.cpp"), "-o", "app",
             cwd=tmp_path, env={"PATH": str(empty)})
    assert res.err.count("warning: no OpenCL C compiler found") == 1, res.err
    assert "the device program is not checked at build time" in res.err and "-fsyntax-only" not in res.err
    res = ok("-w", "-t", "opencl", "-###", str(src), "-o", "app", cwd=tmp_path, env={"PATH": str(empty)})
    assert "warning" not in res.err


def test_print_toolchains_shows_the_checker(tmp_path):
    res = ok("--print-toolchains", "-t", "opencl", cwd=tmp_path)
    assert re.search(r"device clang \[/\S*/clang(-\d+)?\]", res.out), res.out


def test_the_newest_versioned_clang_is_found(tmp_path):
    """Without `clang` on PATH (Debian), the highest clang-NN checks the program."""
    real = shutil.which("clang-15") or pytest.skip("no clang-15 here")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("clang-9", "clang-15", "clang-format-99"):
        (bin_dir / name).symlink_to(real)
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "opencl", "-###", str(src), "-o", "app", cwd=tmp_path, env={"PATH": str(bin_dir)})
    check = next(l.split() for l in res.err.splitlines() if "-fsyntax-only" in l)
    assert check[0] == str(bin_dir / "clang-15")


def test_kernels_with_vector_copies_get_a_fast_instance(tmp_path):
    """A kernel whose vector copies test global addresses is in the device program twice:
    the generic kernel and `<name>__fast` (restrict pointers, no address tests, opencl_fast.py);
    the launch takes the fast one when every global buffer is aligned and no written one
    overlaps another. A kernel whose work-items are its instances one to one has a fixed
    work-group size, and its loops are written for unrolling."""
    ok("-t", "opencl", "-S", str(HERE / "fast_instance.co.cpp"), "-o", str(tmp_path / "f.cpp"), cwd=tmp_path)
    cl = code((tmp_path / "f.cl").read_text())
    host = (tmp_path / "f.cpp").read_text()

    def kernel(name: str) -> str:
        text = cl[cl.index(f" void {name}("):]
        return text[: text.index("\n}\n")]
    for name in ("add_tiles__launch0", "add_into__v1__launch0"):
        generic, fast = kernel(name), kernel(name + "__fast")
        assert "__attribute__((reqd_work_group_size(64, 1, 1)))" in cl.split(f" void {name}(")[0].rsplit("\n", 1)[-1]
        assert "const long croktile_lsize = 64;" in generic
        assert "__global float* a__ptr," in generic and "restrict" not in generic
        assert "__global float* restrict a__ptr," in fast and "__global float* restrict c__ptr" in fast
        assert "(uint64_t)a__ptr" in generic and "if (1) {   // the fast instance: 16-byte aligned" in fast
        assert "CROKTILE_" not in generic + fast
        assert re.search(rf"croktile_fast \? \"{name}__fast\" : \"{name}\"", host), name
    # the fast one where no written buffer overlaps another
    assert re.search(r"croktile::opencl::fast_instance\(croktile_rt, \{\{a__mem\.get\(\), [^}]*, false\}, "
                     r"\{b__mem\.get\(\), [^}]*, false\}, \{c__mem\.get\(\), [^}]*, true\}\}\);", host), host
    # the group's copy into shared tiles: a loop of constant count per work-item, unrolled
    tiles = kernel("add_tiles__launch0__fast")
    assert re.search(r"#pragma unroll\n\s*for \(long croktile_r = 0; croktile_r < 1; \+\+croktile_r\) \{\n"
                     r"\s*const long croktile_t = croktile_lid \+ croktile_r \* 64;", tiles), tiles
    # a work-item's loop of run-time count over copies and a call: unrolled 8 times
    for name in ("add_into__v1__launch0__fast", "add_into__launch0"):
        assert re.search(r"#pragma unroll 8\n\s*for \(long k__0 = 0; k__0 < \(N / 256\); \+\+k__0\)",
                         kernel(name)), name


def test_fast_and_generic_instances_match_cpu(opencl, tmp_path):
    """Distinct arrays and parts of one array (sub-buffers) take the fast instance; an
    in-place call (the same cl_mem twice, or two sub-buffers at one place) the generic one
    (built with CROKTILE_REQUIRE_FAST_INSTANCE, taking it is an error that says so); host
    arrays one element off alignment are right too. Every result is the cpu target's."""
    src = HERE / "fast_instance.co.cpp"
    builds = {"cpu": ("-t", "cpu"), "opencl": ("-t", "opencl"),
              "require": ("-t", "opencl", "-DCROKTILE_REQUIRE_FAST_INSTANCE")}
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futures = {k: pool.submit(run_croktilec, *flags, str(src), "-o", str(tmp_path / k), cwd=tmp_path, timeout=300)
                   for k, flags in builds.items()}
        for k, fut in futures.items():
            assert fut.result().rc == 0, (k, fut.result())
    runs = {k: _run(tmp_path / k) for k in builds}
    for k, run in runs.items():
        assert run.returncode == 0 and "Test Passed" in run.stdout, (k, run.stdout, run.stderr)
    assert runs["opencl"].stdout == runs["cpu"].stdout
    lines = runs["require"].stdout.splitlines()
    generic = [l for l in lines if l.endswith(": generic instance")]
    assert generic == [f"{k} in place ({how}): generic instance" for k in ("add_into", "add_tiles")
                       for how in ("c is a", "two parts at one place")], lines
    right = [l for l in lines if ": right" in l]
    assert len(right) == 8 and all(l in runs["cpu"].stdout for l in right), lines
