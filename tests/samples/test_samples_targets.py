"""Every program in ``samples/`` on every target, from the one source.

* Each sample's device code is in ``__cok__ { extern "C" ... }`` blocks (spec 1's separate
  source form), which every target builds; none has a ``__device__`` function, which only
  cpu and cuda build.
* Each is built for ``cpu``, ``opencl`` (on PoCL) and ``factor`` (``-kt`` where its device
  code has function templates: shared_builds.FACTOR_KT); every build prints ``Test Passed``
  and, with ``CROKTILE_DUMP=1``, the same result elements as the cpu build; on factor also
  when each DMA copy is delayed and the core count differs.
* ``-t cuda -S`` transpiles every sample (tests/targets/cuda compiles and, on a GPU, runs them).

The builds are the session's shared ones (shared_builds.sample_build; the cpu builds are
those tests/samples/test_samples_cpu.py and test_samples_cross.py run too), made in parallel once.
Without an OpenCL platform the opencl tests skip with the reason (``CROKTILE_REQUIRE_OPENCL=1``
turns that into a failure), as in tests/targets/opencl.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
from pathlib import Path

import pytest

from helpers import shared_builds
from helpers.croktilec import ok
from helpers.platforms import opencl_problem
from helpers.targets import SLOW_DMA

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
NAMES = [p.name[: -len(".co.cpp")] for p in SAMPLES]
SOURCES = dict(zip(NAMES, SAMPLES))


def _opencl_skip() -> None:
    problem = opencl_problem()
    if problem:
        if os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every sample for cpu, factor and (where it runs here) opencl, in parallel."""
    targets = ["cpu", "factor"] + ([] if opencl_problem() else ["opencl"])
    jobs = {(name, t): (shared_builds.sample_build, tmp_path_factory, src, t)
            for name, src in SOURCES.items() for t in targets}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(*job) for key, job in jobs.items()}
        return {key: fut.result() for key, fut in futures.items()}


def _dump(built, name: str, target: str, env=None) -> str:
    """The program's output with CROKTILE_DUMP=1: every result element, then Test Passed."""
    res, exe = built[(name, target)]
    assert res.rc == 0, res
    run = subprocess.run([str(exe)], cwd=str(exe.parent), capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, CROKTILE_DUMP="1", **(env or {})))
    assert run.returncode == 0, f"{name} ({target}, {env or {}}) exited {run.returncode}:\n{run.stdout}{run.stderr}"
    assert "Test Passed" in run.stdout, f"{name} ({target}):\n{run.stdout}{run.stderr}"
    return run.stdout


def test_device_code_is_in_cok_blocks():
    assert NAMES, "no samples found"
    for src in SAMPLES:
        text = src.read_text()
        assert re.search(r"^__cok__ \{", text, re.M), f"{src.name}: no __cok__ block"
        assert "__device__" not in text, f"{src.name}: a __device__ function builds on cpu and cuda only"


@pytest.mark.parametrize("target", ["opencl", "factor"])
@pytest.mark.parametrize("name", NAMES)
def test_sample_matches_cpu(built, name, target):
    if target == "opencl":
        _opencl_skip()
    reference = _dump(built, name, "cpu")
    dumped = [l for l in reference.splitlines() if l.strip() and "Test Passed" not in l]
    assert len(dumped) >= 24, f"{name}: CROKTILE_DUMP printed too little:\n{reference[:500]}"
    for env in ({}, SLOW_DMA) if target == "factor" else ({},):
        assert _dump(built, name, target, env) == reference, f"{name}: {target} ({env}) and cpu results differ"


def test_cuda_transpiles_every_sample(tmp_path):
    """One croktilec run writes <name>.gen.cu for every sample (no nvcc needed): a kernel per
    launch, and the __cok__ functions as __device__ functions."""
    ok("-t", "cuda", "-S", *SAMPLES, cwd=tmp_path)
    for name in NAMES:
        text = (tmp_path / f"{name}.gen.cu").read_text()
        assert re.search(r"^__global__ void .*__launch0\(", text, re.M), name
        assert re.search(r"^\s*(extern \"C\"|template <[^>]*>) __device__ ", text, re.M), name
