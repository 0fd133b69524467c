"""cuda target benchmarks: generated kernels against baselines run in the same process.

    python bench/bench_cuda.py                 # all three (a, b need an NVIDIA GPU)
    python bench/bench_cuda.py --compile-only  # (c) only: needs nvcc, no GPU
    python bench/bench_cuda.py --json

(a) bench/cuda/stream_add.co.cpp: c = a + b over 256 MiB f32 arrays, two-level
    parallel; kernel GB/s (CUDA events) against cudaMemcpy device-to-device GB/s in
    the same process. Target: ratio >= 0.85.
(b) bench/cuda/tiled_mm.co.cpp: shared-memory tiled batched 64x64 products calling a
    user device function, against a hand-written kernel with the same tiling in the
    same binary. Target: hand time / croktile time >= 0.95.
(c) wall time of `croktilec -t cuda -c` against `nvcc -c` on the emitted source with
    the same flags, interleaved runs. Target: overhead under 10%.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE = os.environ.get("CROKTILE_BENCH_PROFILE", "cuda-sm90a")


def croktilec() -> list:
    found = shutil.which("croktilec")
    return [found] if found else [sys.executable, "-m", "croktile_driver"]


def driver_env() -> dict:
    env = dict(os.environ)
    if croktilec()[0] == sys.executable:
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def build_and_run(name: str, tmp: str) -> dict:
    src = os.path.join(ROOT, "bench", "cuda", f"{name}.co.cpp")
    exe = os.path.join(tmp, name)
    subprocess.run(croktilec() + ["-t", "cuda", "--profile", PROFILE, src, "-o", exe], check=True, env=driver_env())
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    sys.stderr.write(out)
    return {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+)", out)}


def compile_overhead(tmp: str, runs: int) -> dict:
    src = os.path.join(ROOT, "bench", "cuda", "tiled_mm.co.cpp")
    driver = croktilec() + ["-t", "cuda", "--profile", PROFILE]
    env = driver_env()
    gen = os.path.join(tmp, "tiled.gen.cu")
    subprocess.run(driver + ["-S", src, "-o", gen], check=True, env=env)
    jobs = subprocess.run(driver + ["-###", "-c", src, "-o", os.path.join(tmp, "x.o")], check=True, env=env,
                          capture_output=True, text=True).stderr.splitlines()
    nvcc = shlex.split(next(j for j in jobs if " -c " in j and not j.split()[0].endswith(("croktilec", "python3"))))
    nvcc[nvcc.index("-c") + 1] = gen
    nvcc[nvcc.index("-o") + 1] = os.path.join(tmp, "direct.o")

    def timed(argv) -> float:
        start = time.perf_counter()
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start
    ours, direct, transpile = [], [], []
    timed(nvcc)   # warm the file cache
    for _ in range(runs):
        ours.append(timed(driver + ["-c", src, "-o", os.path.join(tmp, "ours.o")]))
        direct.append(timed(nvcc))
        transpile.append(timed(driver + ["-S", src, "-o", os.path.join(tmp, "again.gen.cu")]))
    o, d = statistics.median(ours), statistics.median(direct)
    return {"croktilec_c_s": round(o, 3), "nvcc_c_s": round(d, 3), "croktilec_S_s": round(statistics.median(transpile), 3),
            "compile_overhead": round(o / d - 1, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result: dict = {"profile": PROFILE}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.compile_only:
            result.update(build_and_run("stream_add", tmp))
            result.update(build_and_run("tiled_mm", tmp))
        result.update(compile_overhead(tmp, args.runs))
    checks = {"compile_overhead": result["compile_overhead"] < 0.10}
    if "stream_ratio" in result:
        checks["stream_ratio"] = result["stream_ratio"] >= 0.85
        checks["tiled_ratio"] = result["tiled_ratio"] >= 0.95
    result["meets"] = checks
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for k, v in result.items():
            print(f"{k:24} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
