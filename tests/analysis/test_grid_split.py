"""Loops spread over more blocks (croktile_driver/analysis/grid_split.py).

`grid_split.co.cpp` has two loop nests whose iterations the fast instance may run a block
each, and three it must run whole (thread data carried over, the same chunk
written every time, a row read after the previous iteration wrote it). Without a GPU
the emitted source shows which launches split, and the cpu build computes every result
right, and so does the opencl build on PoCL (whose few compute units make `rows` split); with
a GPU, the cuda build prints the same lines as the cpu build.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path


from helpers.croktilec import run_croktilec
from helpers.generated import code

PROGRAM = Path(__file__).resolve().parent / "grid_split.co.cpp"
CASES = ("rows", "tail", "carried", "same_chunk", "prefix")


def _host_part(text: str, fn: str) -> str:
    """The host code that launches `fn`'s kernel (from its kernel's end to the next one)."""
    start = text.index(f"{fn}__launch0(")
    end = text.find("__global__", start + 1)
    return text[start:end if end >= 0 else len(text)]


def test_only_independent_loops_are_spread(tmp_path):
    out = tmp_path / "grid_split.cu"
    res = run_croktilec("-t", "cuda", "-S", str(PROGRAM), "-o", str(out), cwd=tmp_path)
    assert res.rc == 0, res
    text = code(out.read_text())
    spread = {fn for fn in ("rows__v1", "rows", "tail", "carried", "same_chunk", "prefix")
              if "croktile::cuda::split_count(" in _host_part(text, fn)}
    # rows' generic instance keeps its run-time sized thread data in global scratch, one slot per thread
    assert spread == {"rows__v1", "tail"}
    assert "croktile_split = croktile::cuda::split_count(croktile_grid, 100);" in _host_part(text, "tail")
    kernel = text[text.index("tail__launch0("):]
    assert "const long long p = blockIdx.x / croktile_split;" in kernel
    # a launch that does not split runs the loop whole; one that does, one iteration per block
    assert re.search(r"if \(croktile_split == 1\) \{\n\s*for \(long long (j__\d+) = 0; \1 < 100; \+\+\1\)", kernel)
    assert re.search(r"\} else \{   // one iteration of the nest per block\n\s*const long long j__\d+ = croktile_part;", kernel)
    rows = text[text.index("rows__v1__launch0("):]
    assert "const long long jm = croktile_part / ((N / 1024));\n" in rows
    assert "const long long jn = croktile_part % (N / 1024);\n" in rows
    assert "croktile_split = croktile::cuda::split_count(croktile_grid, 64*(N / 1024));" in _host_part(text, "rows__v1")


def test_memory_report_names_the_spread_loop(tmp_path):
    res = run_croktilec("-t", "cuda", "-S", "--memory-report", str(PROGRAM), "-o", str(tmp_path / "g.cu"), cwd=tmp_path)
    assert res.rc == 0, res
    lines = PROGRAM.read_text().splitlines()
    rows = next(i for i, l in enumerate(lines, 1) if "foreach jm, jn" in l)
    tail = next(i for i, l in enumerate(lines, 1) if "foreach j in [100]" in l)
    assert f"the fast instance runs the loop over jm, jn (line {rows}) one iteration per block while the grid has " \
           "fewer than 64 blocks per SM" in res.err, res.err
    assert f"the loop over j (line {tail})" in res.err, res.err


def _build_and_run(target: str, tmp_path: Path) -> str:
    exe = tmp_path / f"grid_split_{target}"
    res = run_croktilec("-t", target, str(PROGRAM), "-o", str(exe), cwd=tmp_path, timeout=600)
    assert res.rc == 0, res
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_cpu_results(tmp_path):
    out = _build_and_run("cpu", tmp_path)
    assert out.splitlines() == [f"{case}: right" for case in CASES], out


def test_cuda_matches_cpu(gpu, tmp_path):  # noqa: F811
    assert _build_and_run("cuda", tmp_path) == _build_and_run("cpu", tmp_path)


def test_opencl_results(opencl, tmp_path):  # noqa: F811
    out = _build_and_run("opencl", tmp_path)
    assert out.splitlines() == [f"{case}: right" for case in CASES], out


def test_opencl_spreads_the_same_loops(tmp_path):
    out = tmp_path / "grid_split.cpp"
    res = run_croktilec("-t", "opencl", "-S", str(PROGRAM), "-o", str(out), cwd=tmp_path)
    assert res.rc == 0, res
    text = out.read_text()
    assert re.findall(r"croktile::opencl::split_count\(croktile_rt, ([^,]+), (.+?)\) : 1;", text) == \
        [("(M / 64)", "64*(N / 1024)"), ("200", "100")]
    assert text.count("const long p = get_group_id(0) / croktile_split;") == 4   # two kernels, two instances each
