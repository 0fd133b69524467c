"""Symbolic shapes and the opencl target on the GPU (issue #21), in one run.

1. `bench/gpu/forms.co.cpp` built for cuda and for opencl (NVIDIA's OpenCL,
   CROKTILE_OPENCL_PLATFORM=NVIDIA): each build times its kernels with constant and with
   symbolic shapes through the device form (call + synchronize, medians). Reported: the
   symbolic over static ratio per kernel and build (target <= 1.05), and the opencl over
   cuda ratio per kernel and form (target <= 1.2).
2. The streaming add of 3 x 256 MiB from Python on PyTorch CUDA tensors:
   `bench/cpu/stream_add.co.cpp` loaded with `croktile.load(target="cuda")`, its static and
   symbolic functions against `torch.add(a, b)`, CUDA-event medians in one process
   (target: torch's time over ours >= 1.0).

    python bench/bench_gpu_forms.py --cuda forms.cuda --opencl forms.opencl [--json]

The executables are built beforehand (croktilec -t cuda --profile cuda-sm90a -O3
bench/gpu/forms.co.cpp -o forms.cuda; croktilec -t opencl -O3 ... -o forms.opencl); one
that is not given is built here.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FORMS = HERE / "gpu" / "forms.co.cpp"
ADD = HERE / "cpu" / "stream_add.co.cpp"


def build(target: str, out: str) -> str:
    argv = [sys.executable, "-m", "croktile_driver", "-t", target, "-O3", str(FORMS), "-o", out]
    if target == "cuda":
        argv[5:5] = ["--profile", "cuda-sm90a"]
    subprocess.run(argv, check=True)
    return os.path.abspath(out)


def run_forms(exe: str, env: dict, reps: int) -> dict:
    proc = subprocess.run([exe, str(reps)], env=env, capture_output=True, text=True, timeout=400)
    if proc.returncode != 0:
        return {"error": (proc.stdout + proc.stderr)[-2000:]}
    out = {}
    for line in proc.stdout.splitlines():
        name, _, ms_static, _, ms_symbolic, _, right = line.split()
        out[name] = {"static_ms": float(ms_static), "symbolic_ms": float(ms_symbolic), "right": right == "1",
                     "symbolic_over_static": float(ms_symbolic) / float(ms_static)}
    return out


def python_add(reps: int) -> dict:
    import torch
    import croktile
    from torch_timing import median_ms
    mod = croktile.load(str(ADD), target="cuda", profile="cuda-sm90a", options=["-O3"])
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")

    expect = torch.add(a, b)
    right = all(torch.equal(torch.as_tensor(f(a, b), device="cuda"), expect)
                for f in (mod.stream_add_static, mod.stream_add_symbolic))
    out = {"torch_add_ms": median_ms(lambda: torch.add(a, b), reps),
           "static_ms": median_ms(lambda: mod.stream_add_static(a, b), reps),
           "symbolic_ms": median_ms(lambda: mod.stream_add_symbolic(a, b), reps), "right": right}
    out["static_vs_torch"] = out["torch_add_ms"] / out["static_ms"]
    out["symbolic_vs_torch"] = out["torch_add_ms"] / out["symbolic_ms"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuda")
    ap.add_argument("--opencl")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-python", action="store_true")
    args = ap.parse_args()
    env = dict(os.environ)
    results = {"cuda": run_forms(args.cuda or build("cuda", "forms.cuda"), env, args.reps)}
    env["CROKTILE_OPENCL_PLATFORM"] = env.get("CROKTILE_OPENCL_PLATFORM", "NVIDIA")
    results["opencl"] = run_forms(args.opencl or build("opencl", "forms.opencl"), env, args.reps)
    if "error" not in results["cuda"] and "error" not in results["opencl"]:
        results["opencl_over_cuda"] = {
            name: {form: results["opencl"][name][form] / results["cuda"][name][form]
                   for form in ("static_ms", "symbolic_ms")} for name in results["cuda"]}
    if not args.no_python:
        try:
            results["python_add"] = python_add(args.reps)
        except Exception as e:   # noqa: BLE001 (reported with the rest)
            results["python_add"] = {"error": f"{type(e).__name__}: {e}"[-2000:]}
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
