"""Driver overhead: `croktilec -o` on a sample against `c++` compiling the emitted source.

Both are timed in the same session, interleaved, so machine noise hits both alike;
the result is the ratio of the medians and the difference in milliseconds.

    python bench/bench_driver_overhead.py [--runs 7] [--sample samples/ele_add.co.cpp]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def croktilec() -> list:
    found = shutil.which("croktilec")
    return [found] if found else [sys.executable, "-m", "croktile_driver"]


def timed(argv, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sample", default=os.path.join(ROOT, "samples", "ele_add.co.cpp"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    driver = croktilec()
    env = dict(os.environ, PYTHONPATH=ROOT) if driver[0] == sys.executable else None
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "sample.gen.cpp")
        subprocess.run(driver + ["-S", args.sample, "-o", gen], check=True, env=env)
        # the compile job exactly as the driver would run it, taken from -###
        jobs = subprocess.run(driver + ["-###", args.sample, "-o", os.path.join(tmp, "app")],
                              check=True, env=env, capture_output=True, text=True).stderr.splitlines()
        import shlex
        compile_job = shlex.split(next(j for j in jobs if " -c " in j))
        src_index = compile_job.index("-c") + 1
        compile_job[src_index] = gen
        out_index = compile_job.index("-o") + 1
        compile_job[out_index] = os.path.join(tmp, "direct.o")
        link = ["c++", os.path.join(tmp, "direct.o"), "-o", os.path.join(tmp, "direct"), "-pthread"]
        driver_times, direct_times = [], []
        for _ in range(args.runs):
            driver_times.append(timed(driver + [args.sample, "-o", os.path.join(tmp, "app")], env))
            direct_times.append(timed(compile_job) + timed(link))
    d, c = statistics.median(driver_times), statistics.median(direct_times)
    result = {"sample": os.path.relpath(args.sample, ROOT), "runs": args.runs,
              "croktilec_median_s": round(d, 4), "cxx_median_s": round(c, 4),
              "ratio": round(d / c, 3), "overhead_ms": round((d - c) * 1000, 1),
              "driver": " ".join(driver)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"driver: {result['driver']}")
        print(f"croktilec -o      median {d * 1000:8.1f} ms")
        print(f"c++ -c + link     median {c * 1000:8.1f} ms")
        print(f"ratio {result['ratio']}  (driver overhead {result['overhead_ms']} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
