"""OpenCL start-up: wall time of a sample built with `-t opencl`, cold and warm PoCL cache.

The device program is built on first use (clBuildProgram). PoCL keeps compiled
kernels in a cache (POCL_CACHE_DIR, default ~/.cache/pocl), so the first run on a
machine pays for the OpenCL C compile and later runs mostly do not. Each round runs
the program with POCL_CACHE_DIR pointing at a new empty directory ("cold"), then
again with the same directory ("warm"); the cpu build of the same sample is the
baseline. Times are whole processes (start-up, platform discovery, build, the
kernels and the host check).

    python bench/bench_opencl_startup.py [--runs 5] [--sample samples/matmul.co.cpp] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def croktilec():
    """This checkout's driver (an installed `croktilec` may predate the opencl target)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return [sys.executable, "-m", "croktile_driver"], env


def timed(argv, env) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "Test Passed" not in proc.stdout:
        sys.exit(f"{argv[0]} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sample", default=os.path.join(ROOT, "samples", "matmul.co.cpp"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cmd, env = croktilec()
    with tempfile.TemporaryDirectory(prefix="croktile-bench-") as work:
        exes = {}
        for target in ("cpu", "opencl"):
            exe = os.path.join(work, f"app-{target}")
            subprocess.run(cmd + ["-t", target, args.sample, "-o", exe], env=env, check=True)
            exes[target] = exe
        cold, warm, cpu = [], [], []
        for i in range(args.runs):
            cache = os.path.join(work, f"pocl-cache-{i}")
            os.mkdir(cache)
            run_env = dict(os.environ, POCL_CACHE_DIR=cache)
            cold.append(timed([exes["opencl"]], run_env))
            warm.append(timed([exes["opencl"]], run_env))
            cpu.append(timed([exes["cpu"]], dict(os.environ)))

    def stats(xs):
        return {"median_ms": round(statistics.median(xs) * 1000, 1), "min_ms": round(min(xs) * 1000, 1),
                "max_ms": round(max(xs) * 1000, 1)}
    result = {"sample": os.path.relpath(args.sample, ROOT), "runs": args.runs,
              "opencl_cold_cache": stats(cold), "opencl_warm_cache": stats(warm), "cpu": stats(cpu)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"sample: {result['sample']}  ({args.runs} rounds; whole-process wall time)")
    print(f"{'run':<34}{'median':>10}{'min':>10}{'max':>10}")
    for label, key in (("opencl, empty POCL_CACHE_DIR", "opencl_cold_cache"),
                       ("opencl, second run (cache warm)", "opencl_warm_cache"),
                       ("cpu target (baseline)", "cpu")):
        s = result[key]
        print(f"{label:<34}{s['median_ms']:>8.1f}ms{s['min_ms']:>8.1f}ms{s['max_ms']:>8.1f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
