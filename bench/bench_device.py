"""Device-resident data benchmarks (issue #12): what a __co__ call costs beside its kernel.

    python bench/bench_device.py                   # builds and runs; needs an NVIDIA GPU
    python bench/bench_device.py --calls 20000     # (b) with another number of calls
    python bench/bench_device.py --json out.json   # also writes the results as JSON
    python bench/bench_device.py --compile-only    # builds only: nvcc, no GPU

bench/device/device_calls.co.cpp, built by this checkout's driver with `-t cuda --profile
cuda-sm90a` ($CROKTILEC names another driver, $CROKTILE_BENCH_PROFILE another profile),
measures in one run:
(a) c = a + b over 3 x 256 MiB f32 in device memory: host wall time of call +
    croktile::synchronize over the CUDA events around the same call. Target <= 1.1.
(b) 10,000 back-to-back calls of a small kernel on one stream: wall time per call minus
    the GPU time per call (the calls queued behind a gate kernel, so they run back to
    back). Target < 10 us. The same calls captured in a CUDA graph and replayed.
(c) the host-array call of (a) (copies in and out on every call) for comparison.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "bench", "device", "device_calls.co.cpp")
PROFILE = os.environ.get("CROKTILE_BENCH_PROFILE", "cuda-sm90a")
TARGETS = {"a_ratio": 1.1, "b_overhead_us": 10.0}

# (row, key printed by the program, what it is)
ROWS = [
    ("(a) returning form", None, ""),
    ("  wall: call + synchronize (ms)", "a_return_wall_ms", ""),
    ("  CUDA events around the call (ms)", "a_return_events_ms", "pool allocation, zero-fill, kernel"),
    ("  kernel alone (ms)", "a_return_kernel_ms", "croktile::cuda::timing()"),
    ("  wall / events", "a_return_ratio", "target <= 1.1"),
    ("  wall / kernel", "a_return_wall_over_kernel", ""),
    ("(a) destination passing", None, ""),
    ("  wall: call + synchronize (ms)", "a_into_wall_ms", ""),
    ("  CUDA events around the call (ms)", "a_into_events_ms", ""),
    ("  kernel alone (ms)", "a_into_kernel_ms", ""),
    ("  wall / events", "a_into_ratio", "target <= 1.1"),
    ("  wall / kernel", "a_into_wall_over_kernel", ""),
    ("(b) small calls, returning form", None, ""),
    ("  wall per call (us)", "b_return_wall_us_per_call", ""),
    ("  GPU time per call (us)", "b_return_gpu_us_per_call", "queued behind a gate"),
    ("  host overhead per call (us)", "b_return_overhead_us_per_call", "target < 10"),
    ("  host enqueue time per call (us)", "b_return_enqueue_us_per_call", ""),
    ("  graph replay per call (us)", "b_return_graph_us_per_call", ""),
    ("(b) small calls, destination passing", None, ""),
    ("  wall per call (us)", "b_into_wall_us_per_call", ""),
    ("  GPU time per call (us)", "b_into_gpu_us_per_call", "queued behind a gate"),
    ("  host overhead per call (us)", "b_into_overhead_us_per_call", "target < 10"),
    ("  host enqueue time per call (us)", "b_into_enqueue_us_per_call", ""),
    ("  graph replay per call (us)", "b_into_graph_us_per_call", ""),
    ("(c) host-array form of (a)", None, ""),
    ("  wall per call (ms)", "c_wall_ms", "copies in and out"),
    ("  kernel alone (ms)", "c_kernel_ms", ""),
    ("  wall / kernel", "c_wall_over_kernel", ""),
]


def croktilec() -> list:
    """The driver of this checkout (an installed croktilec may be older), or $CROKTILEC."""
    override = os.environ.get("CROKTILEC")
    return shlex.split(override) if override else [sys.executable, "-m", "croktile_driver"]


def driver_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def build(tmp: str) -> str:
    exe = os.path.join(tmp, "device_calls")
    argv = croktilec() + ["-t", "cuda", "--profile", PROFILE, SOURCE, "-o", exe]
    if subprocess.run(argv, env=driver_env()).returncode != 0:
        raise SystemExit(f"bench_device: building failed: {shlex.join(argv)}")
    return exe


def measure(exe: str, calls: int) -> dict:
    """The program's "key value" lines as numbers; its output is echoed to stderr."""
    got = subprocess.run([exe, str(calls)], capture_output=True, text=True)
    sys.stderr.write(got.stdout + got.stderr)
    if got.returncode != 0:
        raise SystemExit(f"bench_device: {os.path.basename(exe)} exited with status {got.returncode}")
    out = got.stdout
    return {k: float(v) for k, v in re.findall(r"^(\w+) ([-+0-9.eE]+|inf|nan)$", out, re.M)}


def verdicts(result: dict) -> dict:
    """Whether each target is met; the results must also be right."""
    checks = {
        "results_right": all(result.get(k) == 1 for k in ("a_results_right", "b_results_right", "c_results_right")),
        "a_return_ratio": result["a_return_ratio"] <= TARGETS["a_ratio"],
        "a_into_ratio": result["a_into_ratio"] <= TARGETS["a_ratio"],
        "b_return_overhead": result["b_return_overhead_us_per_call"] < TARGETS["b_overhead_us"],
        "b_into_overhead": result["b_into_overhead_us_per_call"] < TARGETS["b_overhead_us"],
        "b_ran_back_to_back": result["b_return_gate_overrun"] == 0 and result["b_into_gate_overrun"] == 0,
    }
    return checks


def table(result: dict) -> str:
    lines = []
    for row, key, note in ROWS:
        if key is None:
            lines.append(row)
        else:
            lines.append(f"{row:40} {result[key]:12.4g}  {note}")
    for name, ok in result["meets"].items():
        lines.append(f"{name:40} {'MEETS' if ok else 'MISSES':>12}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=10000, help="back-to-back calls in (b)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    ap.add_argument("--compile-only", action="store_true", help="build the program only (no GPU needed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        if args.compile_only:
            print(f"built {os.path.basename(SOURCE)} for cuda (profile {PROFILE})")
            return 0
        result: dict = {"profile": PROFILE, **measure(exe, args.calls)}
    result["meets"] = verdicts(result)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0 if result["meets"]["results_right"] else 1


if __name__ == "__main__":
    sys.exit(main())
