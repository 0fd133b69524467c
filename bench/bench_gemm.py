#!/usr/bin/env python3
"""GEMM written in Croktile against cuBLAS (issue #25), on the GPU machine.

Loads samples/gemm/gemm_f16.co.cpp with `croktile.load(target="cuda", profile="cuda-sm90a")`
and times C = A B^T on PyTorch f16 tensors against `torch.matmul(A, B.T)` (cuBLAS) in the
same process: CUDA-event medians, TFLOP/s and the ratio, each result checked against
PyTorch's. Prints one JSON object.

    python bench/bench_gemm.py [--reps 20] [--shapes 4096,4096,4096 8192,8192,8192 128,8192,8192]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_timing import median_ms

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "gemm" / "gemm_f16.co.cpp"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--shapes", nargs="*", default=["4096,4096,4096", "8192,8192,8192", "128,8192,8192"])
    args = ap.parse_args()
    import torch
    import croktile
    mod = croktile.load(str(SAMPLE), target="cuda", profile="cuda-sm90a", options=["-O3"])
    rows = {"gpu": torch.cuda.get_device_name()}
    for shape in args.shapes:
        m, n, k = (int(x) for x in shape.split(","))
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(n, k, device="cuda", dtype=torch.float16)
        ours = torch.as_tensor(mod.gemm(a, b), device="cuda")
        ref = torch.matmul(a, b.T)
        err = ((ours.float() - ref.float()).abs() / (1 + ref.float().abs())).max().item()
        t_ours = median_ms(lambda: mod.gemm(a, b), args.reps)
        t_ref = median_ms(lambda: torch.matmul(a, b.T), args.reps)
        flops = 2.0 * m * n * k
        rows[shape] = {"croktile_ms": t_ours, "cublas_ms": t_ref, "croktile_tflops": flops / t_ours / 1e9,
                       "cublas_tflops": flops / t_ref / 1e9, "ratio": t_ref / t_ours, "max_rel_err": err,
                       "right": err < 2e-2}
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
