"""The fixtures every test folder may use, and the order the test files run in: the slowest first.

Fixtures (their helpers are in ``helpers/``, the one package tests import besides their own):
``croktilec`` runs ``croktile_driver.cli.main`` in-process and captures what it prints;
``opencl``, ``nvcc`` and ``gpu`` skip a test, saying why, where the machine cannot run it.

scripts/test.sh runs the suite on two xdist workers with ``--dist loadfile`` (a file's tests,
and its fixtures' builds, stay on one worker) and ``--no-loadscope-reorder``, so the workers
take the files in this order. Started last, a file of several minutes runs alone on one
worker while the other has nothing left to do; started first, the short files fill in
beside it and the two workers end together.
"""
from __future__ import annotations

import resource

import pytest

from helpers import inprocess, platforms
from helpers.paths import TESTS

# The files that take longest, slowest first: their tests' summed processor time (the cpu_s of
# --junitxml, which does not grow when the machine is busy) on the 2-core machine, 2026-11-29: from
# about 430 s (the corpus: its builds run on a thread pool beside its other tests) down to about
# 25 s; test_interrupts.py waits more than it computes (about 45 s), and goes beside the busy ones.
# The other files follow in the order pytest collected them.
SLOWEST_FIRST = [
    "language/test_corpus.py",
    "python/test_load.py",
    "driver/test_file_names.py",
    "samples/test_samples_cross.py",
    "python/test_tune.py",
    "targets/cuda/test_multi_arch.py",
    "targets/cuda/test_cuda.py",
    "targets/opencl/test_opencl.py",
    "frontend/fuzz/test_generated.py",
    "runtime/device_data/test_dlpack.py",
    "targets/factor/test_factor.py",
    "samples/test_samples_targets.py",
    "driver/test_interrupts.py",
    "samples/test_samples_attention.py",
    "samples/test_samples_decode.py",
    "samples/test_samples_gemm_skinny.py",
    "targets/cuda/test_split_build.py",
    "cmake/test_python_wheel.py",
    "docs/test_code_blocks.py",
    "cmake/test_cmake_kernels.py",
    "cmake/test_cmake_sample.py",
    "cmake/test_cmake_ccache.py",
    "runtime/device_data/test_calls.py",
    "runtime/test_runtime_checks.py",
]

_CPU_START = pytest.StashKey[float]()


def pytest_collection_modifyitems(items):
    stale = [name for name in SLOWEST_FIRST if not (TESTS / name).is_file()]
    if stale:   # a file moved or renamed: its place in the order would be lost without a word
        raise pytest.UsageError(f"tests/conftest.py: SLOWEST_FIRST names files that are not there: {stale}")
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def key(item):
        path = item.nodeid.split("::", 1)[0]
        name = path.split("tests/", 1)[-1]
        return rank.get(name, len(rank))
    items.sort(key=key)   # stable: within a file, and among the rest, pytest's order stays


def _cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_CPU_START] = _cpu_seconds()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each test's processor time, its own and its subprocesses' (setup, call and teardown;
    threads of a module's fixture count where they run), is the property ``cpu_s`` of its
    JUnit record (``--junitxml``): unlike the wall time of ``--durations`` it does not grow
    when the machine is busy."""
    if call.when == "teardown" and _CPU_START in item.stash:
        item.user_properties.append(("cpu_s", round(_cpu_seconds() - item.stash[_CPU_START], 3)))
    yield


@pytest.fixture
def croktilec(capsys):
    """``croktilec(*args) -> helpers.inprocess.Result``: ``cli.main`` in-process, output captured."""
    return inprocess.runner(capsys)


@pytest.fixture(scope="session")
def opencl():
    """Skips without an OpenCL platform (fails with CROKTILE_REQUIRE_OPENCL=1)."""
    platforms.need_opencl()


@pytest.fixture(scope="session")
def nvcc():
    if not platforms.nvcc():
        pytest.skip("nvcc is not installed")


@pytest.fixture(scope="session")
def gpu():
    problem = platforms.gpu_problem()
    if problem:
        pytest.skip(problem)
