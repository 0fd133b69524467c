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

    python bench/bench_gemm.py --tune BN=128,256 STAGES=3,4 [--variants f16=samples/gemm/gemm.co.cpp]

A variant of samples/gemm/gemm_skinny.co.cpp (the form for few rows of A, issue #35) is
built per shape with the row tile MT of the table in its header comment and
docs/language/tensor-cores.md (skinny_mt; unless its options or --tune set MT). --skinny times the
shapes of issue #35 (M 1, 7, 64, 128, 256 by N, K 4096 and 14336) with the skinny variants
in f16 and bf16 and the sample's own skinny tiling for comparison:

    python bench/bench_gemm.py --skinny [--reps 60]

With --tune, each variant is a croktile.autotune search over those macros (the product of
the values; a macro the variant's options also set is taken from the search): per shape the
first call builds and times every combination on that shape's tensors (CUDA events; a
result further than the tolerance from the f32 product is rejected), and the chosen one is
then timed against the baseline as above. Each row adds "tuned" (the chosen macros, their
-D flags, the search's wall time with builds, each combination's ms, the skipped ones).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import time
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
# the form for few rows of A and issue #35's shapes (--skinny)
SKINNY_SAMPLE = "samples/gemm/gemm_skinny.co.cpp"
SKINNY_VARIANTS = [f"skinny_f16={SKINNY_SAMPLE}", f"skinny_bf16={SKINNY_SAMPLE}:-DELEM=bf16",
                   f"f16_m128={SAMPLE}:{SKINNY}"]
SKINNY_SHAPES = [f"{m},{n},{k}" for m in (1, 7, 64, 128, 256) for n in (4096, 14336) for k in (4096, 14336)]


def _skinny_tiles():
    spec = importlib.util.spec_from_file_location("skinny_tiles", ROOT / "samples" / "gemm" / "skinny_tiles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SKINNY_TILES = _skinny_tiles()


def skinny_mt(m: int, n: int) -> int:
    """gemm_skinny.co.cpp's row tile for M rows of A and N of B (samples/gemm/skinny_tiles.py);
    128 past 256 rows too (every MT computes every M)."""
    return SKINNY_TILES.skinny_mt(m, n) or 128


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


def parse_space(items):
    """--tune's NAME=V1,V2 words as croktile.autotune's space (values that read as ints are ints)."""
    space = {}
    for item in items:
        name, eq, values = item.partition("=")
        if not eq or not name.isidentifier() or not values:
            raise SystemExit(f"bench_gemm.py: error: --tune {item!r}: expected NAME=VALUE,VALUE,...")
        space[name] = [int(v) if v.lstrip("-").isdigit() else v for v in values.split(",") if v]
    return space


def relative_error(out, exact) -> float:
    return ((out.float() - exact).abs() / (1 + exact.abs())).max().item()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--shapes", nargs="*", default=["4096,4096,4096", "8192,8192,8192", "128,8192,8192"])
    ap.add_argument("--variants", nargs="*", default=VARIANTS)
    ap.add_argument("--tune", nargs="*", default=[], metavar="NAME=V1,V2",
                    help="tune these macros per shape with croktile.autotune (e.g. BN=128,256 STAGES=3,4)")
    ap.add_argument("--skinny", action="store_true",
                    help="issue #35's shapes (M 1..256, N, K 4096 and 14336) and the skinny variants")
    args = ap.parse_args()
    if args.skinny:
        args.shapes, args.variants = SKINNY_SHAPES, SKINNY_VARIANTS
    space = parse_space(args.tune)
    import torch
    import croktile
    rows = {"gpu": torch.cuda.get_device_name()}
    reference = {}   # the current shape's f32 product and tolerance, for --tune's check
    for variant in args.variants:
        label, _, spec = variant.partition("=")
        path, _, opts = spec.partition(":")
        options = [o for o in opts.split(",") if o]
        kind = kind_of(options)
        if space:   # the search sets these macros: the variant's own values of them go
            options = [o for o in options if o.split("=", 1)[0][2:] not in space or not o.startswith("-D")]
        # the skinny form's row tile follows M (skinny_mt), unless the variant or the search sets it
        per_m = (Path(path) == Path(SKINNY_SAMPLE) and "MT" not in space
                 and not any(o.startswith("-DMT=") for o in options))
        builds = {}

        def build(mt):
            """The variant's module (with -DMT=mt where given), built once."""
            if mt not in builds:
                flags = ["-O3"] + options + ([f"-DMT={mt}"] if mt else [])
                if space:   # a combination further from the f32 product than the shape's tolerance is rejected
                    builds[mt] = croktile.autotune(str(ROOT / path), space, target="cuda", profile="cuda-sm90a",
                                                   options=flags, check=lambda out, a, b: relative_error(
                                                       torch.as_tensor(out, device="cuda"),
                                                       reference["exact"]) <= reference["tol"])
                else:
                    builds[mt] = croktile.load(str(ROOT / path), target="cuda", profile="cuda-sm90a", options=flags)
            return builds[mt]
        if not per_m:
            try:
                build(None)
            except croktile.Error as e:
                rows[label] = {"error": str(e)[-2000:]}
                continue
        for shape in args.shapes:
            m, n, k = (int(x) for x in shape.split(","))
            try:
                mod = build(skinny_mt(m, n) if per_m else None)
            except croktile.Error as e:
                rows[f"{label} {shape}"] = {"error": str(e)[-2000:]}
                continue
            a, b, baseline = inputs(kind, m, n, k)
            exact = a.float() @ b.float().T
            err_ref = relative_error(baseline(), exact)
            gemm, tuned = mod.gemm, None
            if space:
                reference.update(exact=exact, tol=max(2 * err_ref, 1e-2))
                start = time.perf_counter()
                try:
                    choice = mod.choice("gemm", a, b)   # builds (once per variant) and times, or the disk's choice
                except croktile.Error as e:   # no combination builds, runs and is right on this shape
                    rows[f"{label} {shape}"] = {"error": str(e)[-2000:]}
                    continue
                tuned = {"config": choice.config, "defines": choice.defines, "cached": choice.cached,
                         "search_s": time.perf_counter() - start,
                         "ms": {v: t * 1e3 for v, t in choice.times.items()}, "skipped": choice.skipped}
                gemm = mod.module(choice.config).gemm   # the chosen build's own function: no per-call dispatch
            try:
                ours = torch.as_tensor(gemm(a, b), device="cuda")
            except croktile.Error as e:   # a shape the variant's tiling does not take
                rows[f"{label} {shape}"] = {"error": str(e)[-500:]}
                continue
            err = relative_error(ours, exact)
            # calls alternated with the baseline's: clocks drift within a run
            t_ours, t_ref, ratio = paired_ms(lambda: gemm(a, b), baseline, args.reps)
            # and in bursts of calls back to back: the kernels' own times
            b_ours, b_ref, b_ratio = paired_ms(lambda: gemm(a, b), baseline, args.reps // 4 + 1, BURST)
            flops = 2.0 * m * n * k
            rows[f"{label} {shape}"] = {"croktile_ms": t_ours, "baseline_ms": t_ref,
                                        "croktile_tflops": flops / t_ours / 1e9,
                                        "baseline_tflops": flops / t_ref / 1e9, "ratio": ratio,
                                        "burst_croktile_tflops": flops / b_ours / 1e9,
                                        "burst_baseline_tflops": flops / b_ref / 1e9, "burst_ratio": b_ratio,
                                        "max_rel_err": err, "baseline_max_rel_err": err_ref,
                                        "right": err <= max(2 * err_ref, 1e-2)}
            if tuned:
                rows[f"{label} {shape}"]["tuned"] = tuned
            if per_m:
                rows[f"{label} {shape}"]["MT"] = skinny_mt(m, n)
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
