"""The cost of calling Croktile from Python (issue #14).

1. Call overhead: ``mod.small_add(a, b)`` on two 4 x 16 int32 NumPy arrays (cpu target),
   against the same host-array call made from C++ inside the same module (the
   ``bench_small_add_cxx`` loop of bench/python/small_add.co.cpp, reached by ctypes),
   in one process: the difference is what the binding adds (argument import and checks,
   result wrapping as a NumPy array, GIL release).
2. A cached ``croktile.load``: fresh processes load the already-built module; the time
   of the ``load`` call, and of ``import croktile`` before it.

    python bench/bench_python.py            # table
    python bench/bench_python.py --json

Targets (issue #14): overhead under 20 microseconds, cached load under 50 ms. The cache is
a temporary one ($CROKTILE_CACHE_DIR), built once at the start (not timed).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "python" / "small_add.co.cpp"
M, N = 4, 16


def call_overhead(mod, repeats: int, number: int) -> dict:
    import numpy as np
    a = np.ones((M, N), np.int32)
    b = np.full((M, N), 2, np.int32)
    assert (mod.small_add(a, b) == 3).all()
    lib = ctypes.CDLL(mod.__file__)   # the module already loaded: the same library
    lib.bench_small_add_cxx.restype = ctypes.c_double
    lib.bench_small_add_cxx.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    py, cxx = [], []
    for _ in range(repeats):   # interleaved, so that both see the same machine state
        cxx.append(lib.bench_small_add_cxx(M, N, number) / 1e3)
        py.append(min(timeit.repeat(lambda: mod.small_add(a, b), number=number, repeat=1)) / number * 1e6)
    py_us, cxx_us = statistics.median(py), statistics.median(cxx)
    return {"input": f"2 x int32 [{M}, {N}]", "python_us": py_us, "cxx_us": cxx_us,
            "overhead_us": py_us - cxx_us, "ratio": py_us / cxx_us}


LOAD_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import croktile
t1 = time.perf_counter()
croktile.load(sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "load_ms": (t2 - t1) * 1e3}))
"""


def cached_load(runs: int) -> dict:
    loads, imports = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", LOAD_SCRIPT, str(SOURCE)], capture_output=True, text=True,
                             check=True)
        r = json.loads(out.stdout)
        loads.append(r["load_ms"])
        imports.append(r["import_ms"])
    return {"load_ms": statistics.median(loads), "load_ms_max": max(loads),
            "import_croktile_ms": statistics.median(imports), "runs": runs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--load-runs", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="croktile-bench-") as cache:
        os.environ["CROKTILE_CACHE_DIR"] = cache
        import croktile
        try:
            mod = croktile.load(SOURCE)
        except croktile.Error as exc:
            print(f"bench_python: cannot build {SOURCE.name}: {exc}", file=sys.stderr)
            return 1
        call = call_overhead(mod, args.repeats, args.number)
        load = cached_load(args.load_runs)
    if args.json:
        print(json.dumps({"call": call, "load": load}, indent=2))
        return 0
    print(f"call of small_add on {call['input']} (cpu target), median of {args.repeats} x {args.number} calls:")
    print(f"  Python  mod.small_add(a, b)     {call['python_us']:8.2f} us")
    print(f"  C++     small_add(view, view)   {call['cxx_us']:8.2f} us")
    print(f"  overhead of the Python call     {call['overhead_us']:8.2f} us  (ratio {call['ratio']:.2f}; "
          f"target < 20 us)")
    print(f"cached croktile.load, median of {load['runs']} fresh processes:")
    print(f"  croktile.load(...)              {load['load_ms']:8.2f} ms  (max {load['load_ms_max']:.2f}; "
          f"target < 50 ms)")
    print(f"  import croktile (before it)     {load['import_croktile_ms']:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
