"""The cuda target.

Without a GPU (CI): every sample (device code in ``__cok__`` blocks) and ``features.co.cpp``
compiles with ``-t cuda -c`` where nvcc exists, and the emitted source shows the
mapping decisions (cooperative copies, masking to thread 0, barriers, cp.async,
the planned shared-memory launch). Memory planning is checked through
``--memory-report`` and the over-limit error.

With a GPU (the device machine): every program runs, prints ``Test Passed`` and
the same result elements as its ``cpu`` build; ``compute-sanitizer`` memcheck
and racecheck find nothing. These tests skip, saying why, where no GPU is present.
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

from helpers.croktilec import fails, ok, run_croktilec
from helpers.generated import code
from helpers.paths import REPO, TESTS

HERE = Path(__file__).resolve().parent

SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
FEATURES = TESTS / "targets" / "opencl" / "features.co.cpp"
PROGRAMS = {p.name[: -len(".co.cpp")]: p for p in SAMPLES}
PROGRAMS["features"] = FEATURES
PROGRAMS["cuda_features"] = HERE / "cuda_features.co.cpp"


def _parallel(jobs: Dict, fn):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(fn, *args) for key, args in jobs.items()}
        return {key: fut.result() for key, fut in futures.items()}


# ---------------------------------------------------------------------------------
# No GPU needed
# ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def objects(nvcc, tmp_path_factory) -> Dict[str, Tuple[object, Path]]:
    work = tmp_path_factory.mktemp("cuda-objects")
    jobs = {name: (src, work / f"{name}.o") for name, src in PROGRAMS.items()}
    return _parallel(jobs, lambda src, obj: (run_croktilec("-t", "cuda", "-c", str(src), "-o", str(obj),
                                                           cwd=work, timeout=600), obj))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiles_with_nvcc(objects, name):
    res, obj = objects[name]
    assert res.rc == 0, res
    assert obj.stat().st_size > 0


def _source(tmp_path: Path, src: Path, *flags) -> str:
    out = tmp_path / (src.name + ".cu")
    ok("-t", "cuda", "-S", *flags, str(src), "-o", str(out), cwd=tmp_path)
    return code(out.read_text())


def _kernel(text: str, name: str) -> str:
    start = text.index(f" {name}(")
    return text[start: text.index("\n}\n", start)].removesuffix("\n#endif")   # the body is device code only


def test_matmul_mapping(tmp_path):
    text = _source(tmp_path, REPO / "samples" / "matmul.co.cpp")
    k = _kernel(text, "matmul__launch0")
    # one block per instance; the shared buffers are offsets into one dynamic arena
    assert "const long long p = blockIdx.x;" in k
    assert re.search(r"int32_t\* lhs_load_buf__ptr = reinterpret_cast<int32_t\*>\(croktile_smem \+ \d+\);", k)
    # DMA into shared: every thread of the block, issued as cp.async (waited at the next
    # barrier), then the wait and a barrier before the masked call reads it
    assert "croktile::cuda::block_copy<0, true>(lhs_load_buf__ptr, lhs__ptr + (1152*p)" in k
    assert ("croktile::cuda::cp_async_wait_group<0>();\n    __syncthreads();\n    "
            "if (croktile_tid == 0) matmul_kernel<16, 4, 72>(") in k
    # and no copy into shared memory is in flight when the block ends
    assert k.rstrip().endswith("croktile::cuda::cp_async_wait_group<0>();  // no copy into shared memory outlives "
                               "the block")
    # the launch requests exactly the planned arena
    assert "croktile::cuda::launch(CROKTILE_KERNEL(matmul__launch0), croktile_grid, croktile_block, croktile_smem," in text
    report = run_croktilec("-t", "cuda", "-S", "--memory-report", str(REPO / "samples" / "matmul.co.cpp"),
                           "-o", str(tmp_path / "m.cu"), cwd=tmp_path).err
    arena = int(re.search(r"shared arena (\d+) bytes", report).group(1))
    # a plan of known size up to 48 KiB is a static array of exactly that size
    assert f"__shared__ __align__(16) unsigned char croktile_smem[{arena}];" in k
    assert "croktile_smem = (std::size_t)(0);" in text


def test_large_and_run_time_sized_arenas_are_dynamic_shared_memory(tmp_path):
    text = _source(tmp_path, HERE / "cuda_features.co.cpp")
    k = _kernel(text, "big_arena__launch0")
    assert "extern __shared__ __align__(16) unsigned char croktile_smem[];" in k
    assert "const std::size_t croktile_smem = (std::size_t)(65536);" in text   # the launch raises the limit
    text = _source(tmp_path, REPO / "samples" / "symbolic.co.cpp")
    k = _kernel(text, "affine_rows__launch0")
    assert "extern __shared__ __align__(16) unsigned char croktile_smem[];" in k
    assert re.search(r"int32_t\* rows_buf__ptr = reinterpret_cast<int32_t\*>\(croktile_smem \+ rows_buf__off\);", k)
    assert re.search(r"const long long y__off = rows_buf__off \+ ", text)     # one after the other


def test_async_copies_use_cp_async_and_waits_synchronise(tmp_path):
    text = _source(tmp_path, REPO / "samples" / "double_buffer.co.cpp")
    k = _kernel(text, "double_buffered__launch0")
    assert k.count("croktile::cuda::block_copy<0, true>(") == 2      # prologue and prefetch
    # in the loop, the prefetch of the next tile stays in flight while the current one is
    # waited for and used; after the loop everything is waited for
    assert re.search(r"cp_async_wait_group<1>\(\);  // wait cur; 1 later cp.async group\(s\) may stay in flight"
                     r"\n *__syncthreads\(\);", k)
    assert re.search(r"cp_async_wait_group<0>\(\);  // wait cur\n *__syncthreads\(\);", k)
    # swap rotates the two arena buffers (pointers), no copy
    assert "{ int32_t* croktile_t = cur_buf__ptr; cur_buf__ptr = nxt_buf__ptr; nxt_buf__ptr = croktile_t; }" in k
    # pipeline: l, r, b issued in that order; `wait l, r` leaves b in flight
    k = _kernel(_source(tmp_path, REPO / "samples" / "pipeline.co.cpp"), "fma_tiles__launch0")
    assert k.index("cp_async_wait_group<1>();  // wait l, r;") < k.index("cp_async_wait_group<0>();  // wait b")
    header = (REPO / "runtime" / "croktile_cuda.h").read_text()
    assert "cp.async.cg.shared.global" in header and "__CUDA_ARCH__ >= 800" in header


def test_before_sm80_async_copies_fall_back_and_compile(nvcc, tmp_path):
    res = ok("-t", "cuda", "-arch=sm_75", "-c", str(REPO / "samples" / "double_buffer.co.cpp"),
             "-o", str(tmp_path / "db.o"), cwd=tmp_path)
    assert (tmp_path / "db.o").stat().st_size > 0, res


def test_inner_parallel_is_threads_with_barriers(tmp_path):
    text = _source(tmp_path, REPO / "samples" / "masking.co.cpp")
    k = _kernel(text, "masked__launch0")
    assert "__launch_bounds__(32)" in text                     # 4 inner threads, rounded up to a warp
    inner = k.index("if (croktile_tid < 4) {   // one instance per thread\n    [[maybe_unused]] const long long q = croktile_tid;")
    before, after = k[:inner], k[inner:]
    # entering the inner level needs no barrier: its threads touch src and partial, not the
    # acc that thread 0's init_row wrote just before
    assert not before.rstrip().endswith("__syncthreads();")
    assert "if (croktile_tid == 0) init_row(" in before         # outer level: thread 0
    assert "__align__(16) int32_t sq_buf[8] = {};" in after or "int32_t sq" in after
    assert "const int32_t* const croktile_s = " in after       # per-thread copies, written out
    assert after.index("__syncthreads();") < after.index("if (croktile_tid == 0) accumulate_rows(")


def test_annotated_levels_are_warp_groups_warps_and_threads(tmp_path):
    """README "Parallel levels": `: group-4` is 128 threads per instance, `: group` 32, and
    the `: thread` level inside one is the thread within it (the reference's
    `threadIdx.x / 128`, `threadIdx.x % 128`); a group without a thread level runs on its
    warp's first thread."""
    text = _source(tmp_path, TESTS / "language" / "parallel" / "levels.co.cpp")
    k = _kernel(text, "annotated__launch0")
    assert "__launch_bounds__(256)" in text.split(" annotated__launch0(")[0].rsplit("\n", 1)[-1]
    # every thread of the block runs an instance: a scope, no test of the thread index
    assert ("{   // 'group-4': 2 x 128 threads\n    [[maybe_unused]] const long long g = "
            "croktile_tid / 128;\n    [[maybe_unused]] const long long t = croktile_tid % 128;") in k
    k = _kernel(text, "warps__launch0")
    assert "const long long w = croktile_tid / 32;" in k and "croktile_tid % 32;" in k
    k = _kernel(text, "lane0__launch0")
    assert "if (croktile_tid < 96 && croktile_tid % 32 == 0) {" in k
    assert "const long long croktile_block = 96;" in text


def test_barriers_only_where_threads_share_bytes(tmp_path):
    text = _source(tmp_path, HERE / "cuda_features.co.cpp")
    k = _kernel(text, "phases__launch0")
    body = [l.strip() for l in k.splitlines() if not l.strip().startswith("#line")]
    copies = [i for i, l in enumerate(body) if "block_copy<" in l]
    # the two loads touch different bytes: no barrier between them
    assert copies[1] == copies[0] + 1
    # x => out, then out => u: u has x's bytes (and reads what the block wrote to out)
    x_out = next(i for i in copies if "x_buf__ptr, croktile::cuda::box" in body[i])
    assert body[x_out + 1] == "__syncthreads();" and "block_copy<0, false>(u_buf__ptr" in body[x_out + 2]
    # u and v (an async copy) go to different bytes: no barrier; the wait synchronises
    assert "block_copy<0, true>(v_buf__ptr" in body[x_out + 3]
    assert body[x_out + 4].startswith("croktile::cuda::cp_async_wait_group<0>();") and body[x_out + 5] == "__syncthreads();"


def test_the_last_of_consecutive_shared_copies_loads_through_registers(tmp_path):
    """Two synchronous copies into shared memory in a row: the first is issued as cp.async,
    the last loads through registers while it is in flight; one wait and one barrier."""
    text = _source(tmp_path, REPO / "bench" / "call" / "call_costs.co.cpp")
    k = _kernel(text, "staged_add__launch0")
    body = [l.strip() for l in k.splitlines() if not l.strip().startswith("#line")]
    copies = [l for l in body if "block_copy<" in l]
    assert copies[0].startswith("croktile::cuda::block_copy<0, true>(x_buf__ptr, a__ptr")
    assert copies[1].startswith("croktile::cuda::block_copy<0, false>(y_buf__ptr, b__ptr")
    after = body.index(copies[1]) + 1
    assert body[after:after + 2] == ["croktile::cuda::cp_async_wait_group<0>();", "__syncthreads();"]
    # a copy that is alone stays a cp.async
    k = _kernel(_source(tmp_path, REPO / "samples" / "matmul.co.cpp"), "matmul__launch0")
    assert "block_copy<1, true>(rhs_load_buf__ptr" in k


def test_cok_functions_become_device_functions(tmp_path):
    text = _source(tmp_path, REPO / "samples" / "ele_add.co.cpp")
    assert re.search(r'extern "C" +__device__ +void kernel\(int \* a', text)


def test_arena_reuses_bytes_of_buffers_not_live_together(tmp_path):
    src = tmp_path / "reuse.co.cpp"
    src.write_text(
        "__device__ void touch(int* a, int n) { a[0] += n; }\n"
        "__co__ s32 [2, 256] reuse(s32 [2, 256] x) {\n"
        "  s32 [x.span] y;\n"
        "  parallel p by 2 {\n"
        "    a = dma.copy x.chunkat(p, _) => shared;\n"
        "    call touch(a.data, 1);\n"
        "    dma.copy a.data => y.chunkat(p, _);\n"
        "    b = dma.copy y.chunkat(p, _) => shared;\n"
        "    call touch(b.data, 2);\n"
        "    dma.copy b.data => y.chunkat(p, _);\n"
        "  }\n"
        "  return y;\n"
        "}\n")
    res = ok("-t", "cuda", "-S", "--memory-report", str(src), "-o", str(tmp_path / "r.cu"), cwd=tmp_path)
    assert re.search(r"reuse\.co\.cpp:4:3: memory plan of kernel 'reuse__launch0' \(profile 'cuda-sm80'\): "
                     r"shared arena 1024 bytes, limit 166912", res.err), res
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+\[(\d+), (\d+)\]\s+(\w+) \(shared s32 \[1, 256\]\)$", res.err, re.M)
    assert [(r[0], r[1], r[4]) for r in rows] == [("0", "1024", "a"), ("0", "1024", "b")], res.err
    (a_first, a_last), (b_first, b_last) = [(int(r[2]), int(r[3])) for r in rows]
    assert a_last < b_first


# a block of this needs 327680 bytes of shared memory: more than any GPU gives one
OVER_EVERY_LIMIT = (
    "__device__ void use(float* a, float* b) { a[0] = b[0]; }\n"
    "__co__ void big(f32 [4, 256, 256] x) {\n"
    "  parallel p by 4 {\n"
    "    shared f32 [128, 128] acc;\n"
    "    t = dma.copy x.chunkat(p, _, _) => shared;\n"
    "    call use(acc, t.data);\n"
    "  }\n"
    "}\n")


@pytest.mark.parametrize("arch, limit", [("sm_90a", 232448), ("SM_61", 49152)])
def test_an_arch_option_plans_with_its_gpus_limit_and_says_so(croktilec, tmp_path, arch, limit):
    """`-t cuda -arch=sm_90a` takes the default profile (cuda-sm80) with another GPU: the
    limit is that GPU's, and the messages name the option that set it, not the profile
    whose limit it is not; the memory report names the profile and the option."""
    src = tmp_path / "big.co.cpp"
    src.write_text(OVER_EVERY_LIMIT)
    res = croktilec("-t", "cuda", f"-arch={arch}", "-S", src, "-o", tmp_path / "big.cu")
    assert res.rc == 1, res
    [error] = res.errors()
    assert (error.line, error.col, error.msg) == (3, 3, "shared memory plan of this 'parallel' needs 327680 bytes "
                                                        f"per block, more than the {limit} bytes -arch={arch} allows")
    fits = tmp_path / "fits.co.cpp"
    fits.write_text(OVER_EVERY_LIMIT.replace("256, 256", "2, 64").replace("[128, 128]", "[16, 16]"))
    res = croktilec("-t", "cuda", f"-arch={arch}", "-S", "--memory-report", fits, "-o", tmp_path / "fits.cu")
    assert res.rc == 0, res
    assert re.search(rf"fits\.co\.cpp:3:3: memory plan of kernel 'big__launch0' \(profile 'cuda-sm80', "
                     rf"-arch={arch}\): shared arena \d+ bytes, limit {limit}$", res.err, re.M), res.err
    # the profile's own arch is no override: the profile is named, as without -arch
    res = croktilec("-t", "cuda", "-arch=sm_80", "-S", src, "-o", tmp_path / "big.cu")
    assert "more than the 166912 bytes profile 'cuda-sm80' allows" in res.errors()[0].msg, res


def test_live_buffers_never_overlap(tmp_path):
    res = ok("-t", "cuda", "-S", "--memory-report", str(REPO / "samples" / "pipeline.co.cpp"),
             "-o", str(tmp_path / "p.cu"), cwd=tmp_path)
    rows = [(int(o), int(b), int(f), int(l)) for o, b, f, l in
            re.findall(r"^\s+(\d+)\s+(\d+)\s+\[(\d+), (\d+)\]", res.err, re.M)]
    assert len(rows) == 4, res.err
    for i, (o1, b1, f1, l1) in enumerate(rows):
        assert o1 % 16 == 0
        for o2, b2, f2, l2 in rows[i + 1:]:
            if f1 <= l2 and f2 <= l1:
                assert o1 + b1 <= o2 or o2 + b2 <= o1, res.err


def test_plan_over_the_limit_is_a_compile_error(tmp_path):
    src = tmp_path / "big.co.cpp"
    src.write_text(
        "__device__ void use(float* a, float* b) { a[0] = b[0]; }\n"
        "__co__ void big(f32 [4, 256, 128] x) {\n"
        "  parallel p by 4 {\n"
        "    shared f32 [128, 128] acc;\n"
        "    t = dma.copy x.chunkat(p, _, _) => shared;\n"
        "    call use(acc, t.data);\n"
        "  }\n"
        "}\n")
    res = fails("-t", "cuda", "-S", str(src), "-o", str(tmp_path / "big.cu"), cwd=tmp_path)
    assert ("big.co.cpp:3:3: error: shared memory plan of this 'parallel' needs 196608 bytes per block, more "
            "than the 166912 bytes profile 'cuda-sm80' allows") in res.err, res
    assert "big.co.cpp:4:27: note: 'acc' (shared f32 [128, 128], 65536 bytes) is live at the same time" in res.err
    assert "big.co.cpp:5:40: note: 't' (shared f32 [1, 256, 128], 131072 bytes) is live at the same time" in res.err
    assert "    shared f32 [128, 128] acc;\n" in res.err and "^" in res.err
    assert not (tmp_path / "big.cu").exists()
    # the Hopper profile's limit is higher: the same program is fine there
    ok("-t", "cuda", "--profile", "cuda-sm90a", "-S", str(src), "-o", str(tmp_path / "big.cu"), cwd=tmp_path)


def test_jobs_use_nvcc_flags(tmp_path):
    src = REPO / "samples" / "ele_add.co.cpp"
    res = ok("-t", "cuda", "-###", "-Wall", "-Werror", "-Wl,--as-needed", str(src), "-o", "app", cwd=tmp_path)
    compile_job, link_job = [l for l in res.err.splitlines() if " -c " in l or " -o app" in l][-2:]
    assert compile_job.startswith("nvcc ") and "-arch=sm_80" in compile_job
    assert "-Xcompiler=-Wall" in compile_job and "-Werror=all-warnings" in compile_job
    assert "-iquote" not in compile_job and "-I " in compile_job and ".gen.cu" in compile_job
    assert "-Xlinker=--as-needed" in link_job
    res = ok("-t", "cuda", "-###", "-arch=sm_90a", str(src), "-o", "app", cwd=tmp_path)
    # an 'a' architecture is built for that code alone (nvcc's -arch=sm_90a adds compute_90 PTX)
    assert "-gencode=arch=compute_90a,code=sm_90a" in res.err and "-arch=sm_80" not in res.err
    res = ok("--profile", "cuda-sm90a", "-###", str(src), "-o", "app", cwd=tmp_path)
    assert "-gencode=arch=compute_90a,code=sm_90a" in res.err


# ---------------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def built(gpu, tmp_path_factory) -> Dict[Tuple[str, str], Tuple[object, Path]]:
    work = tmp_path_factory.mktemp("cuda-builds")
    jobs = {}
    for name, src in PROGRAMS.items():
        for target in ("cpu", "cuda"):
            jobs[(name, target)] = (src, target, work / f"{name}.{target}")
    return _parallel(jobs, lambda src, target, exe: (
        run_croktilec("-t", target, *(["--profile", "cuda-sm90a"] if target == "cuda" else []), str(src), "-o",
                      str(exe), cwd=work, timeout=600), exe))


def _exe(built, name: str, target: str) -> Path:
    res, exe = built[(name, target)]
    assert res.rc == 0, res
    return exe


def _run(argv, env=None, timeout=300) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, env=full)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_runs_on_the_gpu_like_cpu(built, name):
    outs = {}
    for target in ("cpu", "cuda"):
        run = _run([_exe(built, name, target)], env={"CROKTILE_DUMP": "1"})
        assert run.returncode == 0, f"{name} ({target}):\n{run.stdout}{run.stderr}"
        outs[target] = run.stdout
    if name not in ("features", "cuda_features"):
        assert "Test Passed" in outs["cuda"]
    assert outs["cuda"] == outs["cpu"], f"{name}: cuda and cpu results differ"
    if name == "features":   # failed range checks inside kernels, reported with their .co.cpp lines
        assert len(re.findall(r"features\.co\.cpp:\d+:\d+: runtime check failed", outs["cuda"])) == 3


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compute_sanitizer_is_clean(built, name, tool):
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        pytest.skip("compute-sanitizer is not installed")
    run = _run([sanitizer, "--tool", tool, "--error-exitcode", "99", _exe(built, name, "cuda")], timeout=600)
    assert run.returncode == 0, f"{name} under {tool}:\n{run.stdout[-4000:]}{run.stderr[-2000:]}"
    assert "ERROR SUMMARY: 0 errors" in run.stdout or "RACECHECK SUMMARY: 0 hazards" in run.stdout, run.stdout[-2000:]


def test_launch_failure_is_a_runtime_error_with_the_location(gpu, tmp_path):
    src = HERE / "cuda_errors.co.cpp"
    exe = tmp_path / "errors"
    res = run_croktilec("-t", "cuda", str(src), "-o", str(exe), cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    run = _run([exe])
    assert run.returncode == 0, run.stdout + run.stderr
    line = next(i for i, l in enumerate(src.read_text().splitlines(), 1) if "parallel p by 2" in l)
    assert "n=1024 ok 2" in run.stdout, run.stdout
    assert re.search(rf"n=1048576 error: \S*cuda_errors\.co\.cpp:{line}:3: the kernel needs \d+ bytes of shared "
                     r"memory; this device allows \d+", run.stdout), run.stdout



def test_kernels_with_vector_copies_get_a_fast_instance(tmp_path):
    """Aligned, non-overlapping global arrays take an instance without address tests and
    with __restrict__ pointers; the launch chooses it at run time."""
    out = tmp_path / "fast.cu"
    res = run_croktilec("-t", "cuda", "-S", str(HERE / "fast_instance.co.cpp"), "-o", str(out), cwd=tmp_path)
    assert res.rc == 0, res
    text = out.read_text()
    assert "template <bool CroktileFast>" in text
    assert "croktile::cuda::kernel_ptr<CroktileFast, float> a__ptr" in text
    assert "if (CroktileFast || (" in text
    assert re.search(r"if \(croktile::cuda::fast_instance\(\{\{a__mem\.get\(\), [^}]*, false\}, "
                     r"\{b__mem\.get\(\), [^}]*, false\}, \{c__mem\.get\(\), [^}]*, true\}\}\)\)", text), text


def test_fast_and_generic_instances_agree_on_the_gpu(gpu, tmp_path):
    """Distinct aligned arrays (fast instance), an in-place call and misaligned arrays
    (generic instance) all give the host's sums."""
    exe = tmp_path / "fast"
    res = run_croktilec("-t", "cuda", str(HERE / "fast_instance.co.cpp"), "-o", str(exe), cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    run = _run([exe])
    assert run.returncode == 0, run.stdout + run.stderr
    for case in ("distinct, aligned", "in place (c is a)", "one element off alignment"):
        assert f"{case}: right" in run.stdout, run.stdout
