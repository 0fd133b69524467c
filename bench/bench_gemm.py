#!/usr/bin/env python3
"""GEMM written in Croktile against cuBLAS (issue #25), on the GPU machine.

Loads samples/gemm/gemm.co.cpp with `croktile.load(target="cuda", profile="cuda-sm90a")`
and times C = A B^T on PyTorch tensors against what a PyTorch user calls instead, in the
same process: `torch.matmul(A, B.T)` (cuBLAS) for f16 and bf16, `torch._scaled_mm`
(cuBLASLt, use_fast_accum=True: the tensor cores' accumulation, as ours) for fp8 e4m3
with an f16 result. Calls alternate with the baseline's, each timed alone by CUDA events
(both see the same clocks, which drift within a run): medians, TFLOP/s and the median of
the pairs' ratios, per call and (`burst_*`) for bursts of BURST calls back to back, whose
times are the kernels' without the host's launch work; each result's error
against the f32 product of the same inputs at most twice the baseline's (or 1e-2). Prints
one JSON object.

    python bench/bench_gemm.py [--reps 60] [--shapes 4096,4096,4096 8192,8192,8192 128,8192,8192]
    python bench/bench_gemm.py --variants f16=samples/gemm/gemm.co.cpp bf16=samples/gemm/gemm.co.cpp:-DELEM=bf16 \
        fp8=samples/gemm/gemm.co.cpp:-DELEM=f8_e4m3,-DOUT=f16,-DBK=128

A variant is LABEL=PATH[:OPTION,OPTION...] (a sample and the croktilec options it is built
with, e.g. the macros of its tile sizes): a sweep times them all in one run.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_timing import BURST, paired_ms

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "samples/gemm/gemm.co.cpp"
FP8 = "-DELEM=f8_e4m3,-DOUT=f16,-DBK=128"
# the sample as shipped, and for M = 128 (one row of tiles) with 64 x 64 tiles in plain
# row order: 128 x 256 tiles leave most SMs idle there (the best of a sweep on an H100)
SKINNY = "-DGROUP=1,-DBM=64,-DBN=64"
VARIANTS = [f"f16={SAMPLE}", f"bf16={SAMPLE}:-DELEM=bf16", f"fp8={SAMPLE}:{FP8}",
            f"f16_m128={SAMPLE}:{SKINNY}", f"bf16_m128={SAMPLE}:-DELEM=bf16,{SKINNY}",
            f"fp8_m128={SAMPLE}:{FP8},{SKINNY}"]


def inputs(kind: str, m: int, n: int, k: int):
    """A, B and the baseline for the variant's element type (-DELEM=...)."""
    import torch
    if kind == "fp8":
        a = (torch.randn(m, k, device="cuda") / 2).to(torch.float8_e4m3fn)
        b = (torch.randn(n, k, device="cuda") / 2).to(torch.float8_e4m3fn)
        one = torch.ones((), device="cuda")
        # the tensor cores' own fp8 accumulation, as the sample's wgmma (the default promotes
        # partial sums to f32 on the CUDA cores: more exact, slower; both are reported)
        return a, b, lambda: torch._scaled_mm(a, b.T, scale_a=one, scale_b=one, out_dtype=torch.float16,
                                              use_fast_accum=True)
    dtype = torch.bfloat16 if kind == "bf16" else torch.float16
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(n, k, device="cuda", dtype=dtype)
    return a, b, lambda: torch.matmul(a, b.T)


def kind_of(options) -> str:
    return "fp8" if "-DELEM=f8_e4m3" in options else "bf16" if "-DELEM=bf16" in options else "f16"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--shapes", nargs="*", default=["4096,4096,4096", "8192,8192,8192", "128,8192,8192"])
    ap.add_argument("--variants", nargs="*", default=VARIANTS)
    args = ap.parse_args()
    import torch
    import croktile
    rows = {"gpu": torch.cuda.get_device_name()}
    for variant in args.variants:
        label, _, spec = variant.partition("=")
        path, _, opts = spec.partition(":")
        options = [o for o in opts.split(",") if o]
        kind = kind_of(options)
        try:
            mod = croktile.load(str(ROOT / path), target="cuda", profile="cuda-sm90a", options=["-O3"] + options)
        except croktile.Error as e:
            rows[label] = {"error": str(e)[-2000:]}
            continue
        for shape in args.shapes:
            m, n, k = (int(x) for x in shape.split(","))
            a, b, baseline = inputs(kind, m, n, k)
            try:
                ours = torch.as_tensor(mod.gemm(a, b), device="cuda")
            except croktile.Error as e:   # a shape the variant's tiling does not take
                rows[f"{label} {shape}"] = {"error": str(e)[-500:]}
                continue
            exact = a.float() @ b.float().T
            err = ((ours.float() - exact).abs() / (1 + exact.abs())).max().item()
            err_ref = ((baseline().float() - exact).abs() / (1 + exact.abs())).max().item()
            # calls alternated with the baseline's: clocks drift within a run
            t_ours, t_ref, ratio = paired_ms(lambda: mod.gemm(a, b), baseline, args.reps)
            # and in bursts of calls back to back: the kernels' own times
            b_ours, b_ref, b_ratio = paired_ms(lambda: mod.gemm(a, b), baseline, args.reps // 4 + 1, BURST)
            flops = 2.0 * m * n * k
            rows[f"{label} {shape}"] = {"croktile_ms": t_ours, "baseline_ms": t_ref,
                                        "croktile_tflops": flops / t_ours / 1e9,
                                        "baseline_tflops": flops / t_ref / 1e9, "ratio": ratio,
                                        "burst_croktile_tflops": flops / b_ours / 1e9,
                                        "burst_baseline_tflops": flops / b_ref / 1e9, "burst_ratio": b_ratio,
                                        "max_rel_err": err, "baseline_max_rel_err": err_ref,
                                        "right": err <= max(2 * err_ref, 1e-2)}
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
