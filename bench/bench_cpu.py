"""The cpu target at memory speed (issue #21): the streaming add c = a + b of 3 x 256 MiB f32.

In one process: `bench/cpu/stream_add.co.cpp` built with `croktile.load` (target cpu) into
a temporary cache; its static and symbolic functions called from Python on NumPy arrays
and from C++ (the module's own timing loop, reached by ctypes) on the same arrays; and the
baselines `np.add(a, b)` (a fresh result, as our functions return), `np.add(a, b, out=c)`
and a memcpy of one array into another already in memory. Each round times every row
once (the machine is shared: all rows see the same load); every time is the median over
the rounds; ratios are
the baseline's time over ours (>= 1.0: as fast or faster), and the memcpy ratio compares
bandwidth (bytes moved per second: 3 x 256 MiB for the add, 2 x 256 MiB for the copy).

    python bench/bench_cpu.py            # table
    python bench/bench_cpu.py --json

Targets: >= 1.0x np.add(a, b), and at least 1 / 1.3 of memcpy's bandwidth.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "cpu" / "stream_add.co.cpp"
M = N = 8192                       # 256 MiB of f32 per array


def run(reps: int) -> dict:
    import numpy as np
    import croktile
    mod = croktile.load(str(SOURCE), options=["-O3", "-march=native"])
    lib = ctypes.CDLL(mod.__file__)
    lib.bench_stream_add_cxx.restype = ctypes.c_double
    lib.bench_stream_add_cxx.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong,
                                         ctypes.c_int, ctypes.c_int]
    lib.bench_memcpy_cxx.restype = ctypes.c_double
    lib.bench_memcpy_cxx.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, N), dtype=np.float32)
    b = rng.standard_normal((M, N), dtype=np.float32)
    expect = a + b
    for f in (mod.stream_add_static, mod.stream_add_symbolic):
        if not np.array_equal(np.asarray(f(a, b)), expect):
            sys.exit(f"bench_cpu: {f.__name__} gave a wrong result")
    del expect
    out = np.empty_like(a)
    out[...] = 0
    pa, pb, po = a.ctypes.data, b.ctypes.data, out.ctypes.data

    def once(fn) -> float:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3
    # one of each per round, so that every row sees the same load (a shared 2-core machine)
    cases = {
        "python_static_ms": lambda: once(lambda: mod.stream_add_static(a, b)),
        "python_symbolic_ms": lambda: once(lambda: mod.stream_add_symbolic(a, b)),
        "cxx_static_ms": lambda: lib.bench_stream_add_cxx(pa, pb, M, N, 0, 1),
        "cxx_symbolic_ms": lambda: lib.bench_stream_add_cxx(pa, pb, M, N, 1, 1),
        "np_add_ms": lambda: once(lambda: np.add(a, b)),
        "np_add_out_ms": lambda: once(lambda: np.add(a, b, out=out)),
        "memcpy_ms": lambda: lib.bench_memcpy_cxx(po, pa, a.nbytes, 1),
    }
    samples = {k: [] for k in cases}
    for _ in range(reps):
        for key, fn in cases.items():
            samples[key].append(fn())
    rows = {k: statistics.median(v) for k, v in samples.items()}
    if min(rows.values()) < 0:
        sys.exit("bench_cpu: a C++ timing loop found a wrong result")
    copy_gbs = 2 * a.nbytes / rows["memcpy_ms"] / 1e6
    for key in ("python_static", "python_symbolic", "cxx_static", "cxx_symbolic"):
        ms = rows[key + "_ms"]
        rows[key + "_vs_np_add"] = rows["np_add_ms"] / ms
        rows[key + "_vs_memcpy_bw"] = (3 * a.nbytes / ms / 1e6) / copy_gbs
    rows["symbolic_over_static"] = rows["cxx_symbolic_ms"] / rows["cxx_static_ms"]
    rows["meets"] = all(rows[k + "_vs_np_add"] >= 1.0 and rows[k + "_vs_memcpy_bw"] >= 1 / 1.3
                        for k in ("python_static", "python_symbolic", "cxx_static", "cxx_symbolic"))
    rows["cores"] = os.cpu_count()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    os.environ.setdefault("CROKTILE_CACHE_DIR", tempfile.mkdtemp(prefix="croktile-bench-cpu-"))
    rows = run(args.reps)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for key, value in rows.items():
        print(f"{key:32} {value:.3f}" if isinstance(value, float) else f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
