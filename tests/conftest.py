"""The order the test files run in: the slowest first.

scripts/test.sh runs the suite on two xdist workers with ``--dist loadfile`` (a file's tests,
and its fixtures' builds, stay on one worker) and ``--no-loadscope-reorder``, so the workers
take the files in this order. Started last, a file of several minutes runs alone on one
worker while the other has nothing left to do; started first, the short files fill in
beside it and the two workers end together.
"""
from __future__ import annotations

# The files that take longest, slowest first: their tests' summed durations (--durations=0)
# on the 2-core CI machine, 2026-11-27, from about 600 s (test_dialect.py) down to about 50 s.
# The other files follow in the order pytest collected them.
SLOWEST_FIRST = [
    "dialect/test_dialect.py",
    "mma/test_mma.py",
    "python/test_load.py",
    "opencl/test_opencl.py",
    "driver/test_file_names.py",
    "cuda_target/test_cuda.py",
    "device_data/test_dlpack.py",
    "factor/test_factor.py",
    "samples/test_samples_targets.py",   # the samples' opencl and factor builds (about 45 s, 2026-11-28)
    "cross/test_cross_samples.py",
    "fuzz/test_generated.py",
    "cmake/test_cmake_kernels.py",
    "mutation/test_mutations.py",
    "samples/test_samples_attention.py",
    "cmake/test_python_wheel.py",
    "cmake/test_cmake_sample.py",
    "runtime/test_runtime_checks.py",
]


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def key(item):
        path = item.nodeid.split("::", 1)[0]
        name = path.split("tests/", 1)[-1]
        return rank.get(name, len(rank))
    items.sort(key=key)   # stable: within a file, and among the rest, pytest's order stays
