"""Several GPU architectures in one build: `-arch=sm_80,sm_90a` and `-arch=native`.

Without a GPU: the list and native (a fake nvidia-smi on PATH) become one -gencode per
architecture; bad lists and a machine without a GPU are one-line errors; an instruction
one of the listed architectures lacks is an error at its statement naming that one; the
-S output holds each architecture's build in its own namespace and a dispatcher, and nvcc
builds it by itself (and stops a build for another architecture, naming the flags);
croktile_add_kernel's ARCH reaches the transpile and CUDA_ARCHITECTURES; croktile.load
keys -arch=native by the machine's GPUs.

With a GPU: a tensor-core program built for sm_80 and sm_90a runs the newest build the
GPU runs, and the sm_80 one when CROKTILE_CUDA_ARCH forces it, passing its checks both
times (CROKTILE_CUDA_ARCH_REPORT=1 says which ran); croktile.load builds and runs such a
module.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import corpus
from helpers.croktilec import PKG_PARENT, croktilec_cmd, run_croktilec
from helpers.paths import REPO, RUNTIME, TESTS

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "multi_arch.co.cpp"                        # mma.sync over tma.copy tiles
SM80 = TESTS / "language" / "mma" / "run_sm80.co.cpp"       # the sm_80 tensor-core forms
WGMMA = TESTS / "language" / "mma" / "err_cuda_wgmma_arch.co.cpp"
GENCODE_80 = "-gencode=arch=compute_80,code=[sm_80,compute_80]"
GENCODE_90A = "-gencode=arch=compute_90a,code=sm_90a"


def _jobs(croktilec, *args) -> str:
    res = croktilec("-t", "cuda", "-###", *args, PROGRAM, "-o", "app")
    assert res.rc == 0, res
    return res.err


def _compile_job(jobs: str) -> str:
    return next(line for line in jobs.splitlines() if line.startswith("nvcc ") and " -c " in line)


def test_a_list_is_a_gencode_per_architecture(croktilec):
    jobs = _jobs(croktilec, "-arch=sm_90a,sm_80")
    compile_job = _compile_job(jobs)
    link_job = jobs.splitlines()[-1]
    for job in (compile_job, link_job):
        assert GENCODE_80 in job and GENCODE_90A in job, job
        assert " -arch=" not in job, job
    assert "croktilec -S -t cuda --profile cuda-sm80 -arch=sm_90a,sm_80 " in jobs, "the transpile job shows -arch"


@pytest.mark.parametrize("arch, message", [
    ("sm_80,foo", "-arch=sm_80,foo: 'foo' is not a GPU architecture (a list names real ones, as in sm_80,sm_90a, "
                  "or native)"),
    ("compute_80,sm_90a", "'compute_80' is not a GPU architecture"),
    ("sm_80,,sm_90a", "-arch=sm_80,,sm_90a: an empty name in the list"),
    ("sm_90,sm_90a", "-arch=sm_90,sm_90a: sm_90 and sm_90a are one GPU; list sm_90a alone"),
])
@pytest.mark.parametrize("stage", ["-S", "-fsyntax-only", "-###"])
def test_a_bad_list_is_a_one_line_error(croktilec, tmp_path, arch, message, stage):
    out = tmp_path / "out.cu"
    res = croktilec("-t", "cuda", f"-arch={arch}", stage, PROGRAM, "-o", out)
    assert res.rc == 1
    assert len(res.err.splitlines()) == 1 and res.err.startswith("croktilec: error: ") and message in res.err, res
    assert not out.exists()


def _fake_smi(tmp_path: Path, monkeypatch, body: str) -> None:
    """An nvidia-smi first on PATH that answers the compute-capability query with `body`
    (shell lines) and fails on any other."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    smi = bin_dir / "nvidia-smi"
    smi.write_text('#!/bin/sh\n[ "$*" = "--query-gpu=compute_cap --format=csv,noheader" ] || exit 64\n'
                   + body + "\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize("arch, answer, flags", [
    ("native", "printf '9.0\\n8.0\\n'", [GENCODE_80, GENCODE_90A]),
    ("native", "printf '9.0\\n9.0\\n'", [GENCODE_90A]),          # one GPU model: a plain build
    ("native", "echo 8.6", ["-arch=sm_86"]),
    ("native,sm_80", "echo 9.0", [GENCODE_80, GENCODE_90A]),
])
def test_native_is_the_gpus_nvidia_smi_lists(croktilec, tmp_path, monkeypatch, arch, answer, flags):
    _fake_smi(tmp_path, monkeypatch, answer)
    compile_job = _compile_job(_jobs(croktilec, f"-arch={arch}"))
    found = [f for f in compile_job.split() if f.startswith(("-gencode", "'-gencode", "-arch"))]
    assert [f.strip("'") for f in found] == flags, compile_job


@pytest.mark.parametrize("answer, message", [
    ("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'; exit 9",
     "-arch=native: no GPU found (nvidia-smi exited with status 9: NVIDIA-SMI has failed because it could not "
     "communicate with the NVIDIA driver.)"),
    ("true", "-arch=native: no GPU found (nvidia-smi lists none)"),
    ("echo '[N/A]'", "-arch=native: nvidia-smi printed '[N/A]' for a compute capability"),
    (None, "-arch=native: no GPU found (nvidia-smi is not on PATH)"),
])
def test_native_without_a_gpu_is_an_error(croktilec, tmp_path, monkeypatch, answer, message):
    if answer is None:
        monkeypatch.setenv("PATH", str(tmp_path))   # nothing there
    else:
        _fake_smi(tmp_path, monkeypatch, answer)
    for stage in ("-###", "-fsyntax-only"):
        res = croktilec("-t", "cuda", "-arch=native", stage, PROGRAM)
        assert (res.rc, res.err) == (1, f"croktilec: error: {message}\n"), res


def test_print_toolchains_gives_the_architectures_for_build_systems(croktilec, tmp_path, monkeypatch):
    """CMake's croktile_add_kernel reads them (the library's CUDA_ARCHITECTURES)."""
    def archs(*args):
        res = croktilec("--print-toolchains", "--format=json", "-t", "cuda", *args)
        assert res.rc == 0, res
        return json.loads(res.out)["archs"]
    assert archs() == ["sm_80"]
    assert archs("-arch=sm_90a,sm_80") == ["sm_80", "sm_90a"]
    _fake_smi(tmp_path, monkeypatch, "echo 9.0")
    assert archs("-arch=native") == ["sm_90a"]
    res = croktilec("--print-toolchains", "--format=json", "-t", "cuda", "-arch=sm_80,x")
    assert res.rc == 1 and "'x' is not a GPU architecture" in res.err, res


@pytest.mark.parametrize("path, arch, message", [
    (WGMMA, "sm_80,sm_90a", "warp-group tensor-core operations (wgmma) need -arch=sm_90a; sm_80 (of "
                            "-arch=sm_80,sm_90a) has none"),
    (SM80, "sm_75,sm_90a", "needs sm_80 or newer; sm_75 (of -arch=sm_75,sm_90a) has no such instruction"),
])
def test_what_one_listed_architecture_lacks_is_an_error_naming_it(croktilec, tmp_path, path, arch, message):
    """At each statement, as a build for that architecture alone reports it; -S too."""
    single = croktilec("-t", "cuda", f"-arch={arch.split(',')[0]}", "-fsyntax-only", path)
    assert single.rc == 1 and single.errors(), single
    for stage in ("-fsyntax-only", "-S"):
        out = tmp_path / "out.cu"
        res = croktilec("-t", "cuda", f"-arch={arch}", stage, path, "-o", out)
        assert res.rc == 1
        assert [(d.line, d.col) for d in res.errors()] == [(d.line, d.col) for d in single.errors()], res
        assert all(message in d.msg for d in res.errors()), res
        assert not out.exists()


def test_each_architecture_plans_with_its_gpus_shared_memory(croktilec, tmp_path):
    src = tmp_path / "big.co.cpp"
    src.write_text("__co__ void big(f32 [4, 45056] x) {\n"
                   "  parallel p by 4 : block {\n"
                   "    t = dma.copy x.chunkat(p, _) => shared;\n"
                   "    dma.copy t => x.chunkat(p, _);\n"
                   "  }\n"
                   "}\n")
    res = croktilec("-t", "cuda", "-arch=sm_80,sm_90a", "-S", src, "-o", tmp_path / "big.cu")
    assert res.rc == 1
    [error] = res.errors()
    assert (error.line, error.msg) == (2, "shared memory plan of this 'parallel' needs 180224 bytes per block, more "
                                          "than the 166912 bytes sm_80 (of -arch=sm_80,sm_90a) allows"), res
    assert croktilec("-t", "cuda", "-arch=sm_90a", "-S", src, "-o", tmp_path / "big.cu").rc == 0


def test_the_source_holds_each_build_and_a_dispatcher(croktilec, tmp_path):
    def source(arch: str) -> str:
        out = tmp_path / f"{arch}.cu"
        res = croktilec("-t", "cuda", f"-arch={arch}", "-S", PROGRAM, "-o", out,
                        "--emit-header", tmp_path / f"{arch}.h")
        assert res.rc == 0, res
        return out.read_text()
    text = source("sm_80,sm_90a")
    assert text == source("sm_90a,sm_80"), "the order of the list does not matter"
    builds = dict(re.findall(r"^namespace croktile_(sm_\w+) \{\n(.*?)^\}  // namespace croktile_\1$", text,
                             re.M | re.S))
    assert sorted(builds) == ["sm_80", "sm_90a"]
    # the sm_90a build loads its tiles on the copy engine, the sm_80 build with the block's threads
    assert "croktile::tma::load_async" in builds["sm_90a"] and "croktile::tma::" not in builds["sm_80"]
    assert "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)" in builds["sm_80"]
    assert "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL))" \
        in builds["sm_90a"]
    # the host form, the device form and the destination form each dispatch
    assert text.count("switch (croktile_cuda_build(") == 3
    plain = re.sub(r"^\s*#line .*\n", "", text, flags=re.M)
    assert "  case 0: return croktile_sm_80::mm(lhs, rhs);\n  default: return croktile_sm_90a::mm(lhs, rhs);" in plain
    # what callers see is what a build for one architecture declares
    single = croktilec("-t", "cuda", "-arch=sm_80", "-S", PROGRAM, "-o", tmp_path / "one.cu",
                       "--emit-header", tmp_path / "one.h")
    assert single.rc == 0 and (tmp_path / "one.h").read_text() == (tmp_path / "sm_80,sm_90a.h").read_text()


def test_nvcc_builds_the_source_by_itself(nvcc, tmp_path):
    """-S's output builds with the flags it names (the program then refuses a forced
    architecture it was not built for, before it needs a GPU); compiled for another
    architecture it stops with an error naming those flags."""
    gen = tmp_path / "multi_arch.gen.cu"
    res = run_croktilec("-t", "cuda", "-arch=sm_80,sm_90a", "-S", PROGRAM, "-o", gen, cwd=tmp_path)
    assert res.rc == 0, res
    stop = re.search(r'^#error "generated by croktilec -arch=sm_80,sm_90a: compile with nvcc (.*)"$',
                     gen.read_text(), re.M)
    assert stop and stop.group(1).split() == [GENCODE_80, GENCODE_90A]
    base = [os.environ.get("NVCC") or "nvcc", "-std=c++17", f"-I{RUNTIME}", str(gen)]
    builds = {"listed": base + stop.group(1).split() + ["-o", str(tmp_path / "app")],
              "other": base + ["-arch=sm_75", "-c", "-o", str(tmp_path / "other.o")]}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(builds, pool.map(lambda argv: subprocess.run(argv, capture_output=True, text=True,
                                                                      timeout=600), builds.values())))
    assert done["listed"].returncode == 0 and not done["listed"].stderr, done["listed"].stderr
    assert done["other"].returncode != 0 and stop.group(0)[1:] in done["other"].stderr, done["other"].stderr
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, CROKTILE_CUDA_ARCH="sm_70"))
    assert (run.returncode, run.stdout) == (1, f"error: {PROGRAM}:8:1: "
                                               "CROKTILE_CUDA_ARCH=sm_70 is not an architecture this program was "
                                               "built for (sm_80, sm_90a)\n"), run


# ---------------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------------

def _newest_build() -> str:
    """The build the dispatcher takes on device 0: sm_90a on a 9.0 GPU, else sm_80."""
    cc = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", "-i", "0"],
                        capture_output=True, text=True).stdout.strip()
    return "sm_90a" if cc == "9.0" else "sm_80"


@pytest.mark.usefixtures("gpu")
@pytest.mark.parametrize("path, output", [(SM80, corpus.read_case(SM80).output), (PROGRAM, ["mm ok"])],
                         ids=["run_sm80", "multi_arch"])
def test_one_binary_runs_the_newest_build_or_the_forced_one(tmp_path, path, output):
    exe = tmp_path / "app"
    res = run_croktilec("-t", "cuda", "-arch=sm_80,sm_90a", "-DCROKTILE_REQUIRE_FAST_INSTANCE", path, "-o", exe,
                        cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    newest = _newest_build()
    for forced, build in ((None, newest), ("sm_80", "sm_80"), ("sm_90a", "sm_90a")):
        env = dict(os.environ, CROKTILE_CUDA_ARCH_REPORT="1")
        if forced:
            env["CROKTILE_CUDA_ARCH"] = forced
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
        if build == "sm_90a" and newest != "sm_90a":   # another GPU cannot run it: an error, no result
            assert run.returncode != 0 and "cannot run CROKTILE_CUDA_ARCH=sm_90a" in run.stdout + run.stderr, run
            continue
        assert (run.returncode, run.stdout.splitlines()) == (0, output), (forced, run.stdout, run.stderr)
        suffix = " (CROKTILE_CUDA_ARCH)" if forced else ""
        assert re.search(rf"^croktile: device 0 \(compute capability \d+\.\d+\) runs the {build} build"
                         rf"{re.escape(suffix)}$", run.stderr, re.M), run.stderr
    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump:   # one binary: a cubin per architecture, and sm_80's PTX for newer GPUs
        listed = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", str(exe)], capture_output=True,
                                text=True).stdout
        # (cuobjdump names the entries app.N.sm_80.cubin, app.N.sm_90a.cubin, app.N.sm_80.ptx)
        assert ".sm_80.cubin" in listed and ".sm_90a.cubin" in listed and ".sm_80.ptx" in listed, listed


@pytest.mark.usefixtures("gpu")
def test_croktile_load_builds_several_architectures(tmp_path, monkeypatch):
    """The options reach the build (and its cache key): one module, the dispatcher inside."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("nanobind")
    import croktile
    monkeypatch.setenv("CROKTILE_CACHE_DIR", str(tmp_path / "cache"))
    ops = TESTS / "python" / "kernels" / "ops.co.cpp"
    module = croktile.load(ops, target="cuda", options=["-arch=sm_80,sm_90a"])
    a = np.arange(64 * 96, dtype=np.int32).reshape(64, 96)
    assert np.array_equal(np.asarray(module.add(a, a)), 2 * a)
    builds = lambda: [p for p in (tmp_path / "cache" / "modules").glob("ops-*") if p.is_dir()]   # (not the .lock)
    assert len(builds()) == 1
    croktile.load(ops, target="cuda", options=["-arch=sm_80,sm_90a"])   # from the cache
    assert len(builds()) == 1


def test_croktile_load_keys_native_by_the_gpus(tmp_path, monkeypatch):
    """A cache shared by machines of other GPUs keeps a build of `-arch=native` for each."""
    from croktile._load import _request_key
    keys = []
    for answer in ("echo 9.0", "echo 8.0"):
        _fake_smi(tmp_path / answer[-3:], monkeypatch, answer)
        keys.append(_request_key(str(PROGRAM), ["-t", "cuda", "-arch=native"], ""))
    assert keys[0] != keys[1]
    assert _request_key(str(PROGRAM), ["-t", "cuda", "-arch=sm_80"], "") == \
        _request_key(str(PROGRAM), ["-t", "cuda", "-arch=sm_80"], "")


CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(multi LANGUAGES CXX CUDA)
find_package(Croktile 0.1 REQUIRED)
croktile_add_kernel(listed k.co.cu TARGET cuda ARCH sm_80 sm_90a)
croktile_add_kernel(native k.co.cu TARGET cuda OPTIONS -Werror -arch=native)
"""


def test_croktile_add_kernel_takes_the_architectures(nvcc, tmp_path, monkeypatch):
    """ARCH (or -arch= in OPTIONS) is the transpile's -arch and the library's
    CUDA_ARCHITECTURES, native resolved when CMake configures; the listed library builds."""
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    (src / "k.co.cu").write_text(PROGRAM.read_text().split("int main()")[0])
    wrapper = tmp_path / "croktilec"   # this checkout's driver, as the package installs it
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(PKG_PARENT)} exec "
                       f"{shlex.join(croktilec_cmd())} \"$@\"\n")
    wrapper.chmod(0o755)
    _fake_smi(tmp_path, monkeypatch, "echo 9.0")
    build = tmp_path / "build"
    env = dict(os.environ, CROKTILE_SERVER="0")
    configure = subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={REPO / 'cmake'}",
                                f"-DCROKTILE_EXECUTABLE={wrapper}"], capture_output=True, text=True, env=env)
    assert configure.returncode == 0, configure.stdout + configure.stderr

    def commands(target: str) -> str:
        return subprocess.run(["ninja", "-C", build, "-t", "commands", target], capture_output=True, text=True,
                              check=True).stdout
    listed, native = commands("listed"), commands("native")
    assert " -arch=sm_80,sm_90a " in listed and "--generate-code=arch=compute_80,code=[compute_80,sm_80]" in listed \
        and "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a]" in listed, listed
    assert " -Werror -arch=sm_90a " in native and "compute_80" not in native \
        and "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a]" in native, native
    done = subprocess.run(["ninja", "-C", build, "listed"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
