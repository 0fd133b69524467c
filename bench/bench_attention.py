#!/usr/bin/env python3
"""Fused attention forward written in Croktile against PyTorch's SDPA (issues #25, #35), on
the GPU machine.

Loads samples/attention/attention.co.cpp with `croktile.load(target="cuda",
profile="cuda-sm90a")` and times O = softmax(Q K^T / sqrt(d)) V on PyTorch tensors in
SDPA's layout (q [batch, heads, queries, d], k and v [batch, kv-heads, seq, d]: grouped-query
attention when --kv-heads is smaller) against `torch.nn.functional.scaled_dot_product_attention`
with the flash backend and with the cuDNN backend, in the same process: calls alternated
with each baseline's, each timed alone by CUDA events; medians, TFLOP/s (4 b h sq sk d, half
of it causal) and the median of the pairs' ratios, per call and (`burst_*`) for bursts of
BURST calls back to back, whose times are the kernels' without the host's launch work; each
result's error against SDPA's math backend in f32 at most twice the flash backend's (or
1e-2). --queries N times N queries onto each sequence's cache (a prefill, non-causal).
Prints one JSON object.

    python bench/bench_attention.py [--reps 30] [--seqs 1024 4096 8192] [--batch 4] [--heads 32] [--kv-heads 8]
    python bench/bench_attention.py --variants d64=samples/attention/attention.co.cpp:-DHDIM=64

A variant is LABEL=PATH[:OPTION,OPTION...] (the sample and its croktilec options: -DHDIM,
-DCAUSAL, -DELEM, tile sizes), so a sweep times them all in one run.

Decode (flash-decoding, samples/attention/decode.co.cpp, whose function is `decode` with
attention's arguments): --function names the function, --batches several batch sizes, and
--all-backends times every SDPA backend (flash, efficient, cuDNN, math; a backend that
refuses the shape or runs out of memory is reported as such) in bursts, each with the GB/s
of reading the K and V cache (`kv_gbps`: its bytes over the time) and our ratio to the
fastest; --kernel-times adds the kernels' own times from torch.profiler (the sum of the
durations of the kernels a call launches, without the gaps between them):

    python bench/bench_attention.py --function decode --queries 1 --heads 32 --kv-heads 8 \
        --batches 1 8 64 --seqs 1024 8192 32768 131072 --all-backends --kernel-times \
        --variants decode=samples/attention/decode.co.cpp:-DHDIM=128
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_timing import BURST, kernel_ms, paired_ms

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "samples/attention/attention.co.cpp"
VARIANTS = [f"d{d}{'_causal' if c else ''}={SAMPLE}:-DHDIM={d},-DCAUSAL={c}" for d in (64, 128) for c in (0, 1)] + \
    [f"d64_bf16={SAMPLE}:-DHDIM=64,-DELEM=bf16"]


def backend_rows(ours_call, sdpa, kv_bytes: float, reps: int, kernel_times: bool) -> dict:
    """Every SDPA backend against ours, in bursts (calls alternated): ms, GB/s of the K and V
    cache, the ratio to ours; `fastest` names the quickest backend and ours against it."""
    import torch
    from torch.nn.attention import SDPBackend
    out, best = {}, None
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                          ("cudnn", SDPBackend.CUDNN_ATTENTION), ("math", SDPBackend.MATH)):
        try:
            o_ms, t_ms, ratio = paired_ms(ours_call, sdpa(backend), reps // 4 + 1, BURST)
            row = {"burst_ms": t_ms, "kv_gbps": kv_bytes / t_ms / 1e6, "burst_ratio": ratio}
            if kernel_times:
                row["kernel_ms"] = kernel_ms(sdpa(backend), 5)
        except RuntimeError as e:   # no kernel for this shape or build, or out of memory
            row = {"error": str(e).splitlines()[0][:200]}
            torch.cuda.empty_cache()
        out[f"sdpa_{name}"] = row
        if "burst_ms" in row and (best is None or row["burst_ms"] < out[best]["burst_ms"]):
            best = f"sdpa_{name}"
    if best is not None:
        out["fastest"] = best
        out["burst_ratio_fastest"] = out[best]["burst_ratio"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=None, help="key/value heads (default: --heads)")
    ap.add_argument("--queries", type=int, default=None, help="queries per sequence (default: the sequence)")
    ap.add_argument("--seqs", nargs="*", type=int, default=[1024, 4096, 8192])
    ap.add_argument("--variants", nargs="*", default=VARIANTS)
    ap.add_argument("--root", default=str(ROOT), help="where the variants' paths start")
    ap.add_argument("--function", default="attention", help="the __co__ function to call (decode.co.cpp: decode)")
    ap.add_argument("--batches", nargs="*", type=int, default=None, help="several batch sizes (default: --batch)")
    ap.add_argument("--all-backends", action="store_true",
                    help="time every SDPA backend, with the GB/s of the K and V cache")
    ap.add_argument("--kernel-times", action="store_true", help="add the kernels' times from torch.profiler")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import croktile
    rows = {"gpu": torch.cuda.get_device_name()}
    for variant in args.variants:
        label, _, spec = variant.partition("=")
        path, _, opts = spec.partition(":")
        options = [o for o in opts.split(",") if o]
        d = next((int(o.split("=")[1]) for o in options if o.startswith("-DHDIM=")), 64)
        causal = "-DCAUSAL=1" in options
        dtype = torch.bfloat16 if "-DELEM=bf16" in options else torch.float16
        try:
            mod = croktile.load(str(Path(args.root) / path), target="cuda", profile="cuda-sm90a",
                                options=["-O3"] + options)
        except croktile.Error as e:
            rows[label] = {"error": str(e)[-3000:]}
            continue
        h = args.heads
        hkv = args.kv_heads or h
        for b, s in [(b, s) for b in (args.batches or [args.batch]) for s in args.seqs]:
            key = f"{label} b{b} s{s}" if args.batches else f"{label} s{s}"
            sq = args.queries or s
            q4 = torch.randn(b, h, sq, d, device="cuda", dtype=dtype)
            k4, v4 = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype) for _ in range(2))
            scale = d ** -0.5
            gqa = {"enable_gqa": True} if hkv != h else {}

            def sdpa(backend):
                def run():
                    with sdpa_kernel(backend):
                        return F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal, scale=scale, **gqa)
                return run
            flash, cudnn = sdpa(SDPBackend.FLASH_ATTENTION), sdpa(SDPBackend.CUDNN_ATTENTION)

            function = getattr(mod, args.function)

            def ours_call():
                return function(q4, k4, v4, scale)
            try:
                ours = torch.as_tensor(ours_call(), device="cuda")
            except croktile.Error as e:
                rows[key] = {"error": str(e)[-500:]}
                continue
            # a few heads in f32 are the reference (the whole of it does not fit at 8k)
            n = 2
            kv = max(1, n * hkv // h)
            exact = F.scaled_dot_product_attention(q4[:1, :n].float(), k4[:1, :kv].float(), v4[:1, :kv].float(),
                                                   is_causal=causal, scale=scale, **({"enable_gqa": True} if kv != n else {}))
            err = (ours[:1, :n].float() - exact).abs().max().item()
            err_ref = (flash()[:1, :n].float() - exact).abs().max().item()
            # calls alternated with the baseline's: clocks drift within a run
            t_ours, t_ref, ratio = paired_ms(ours_call, flash, args.reps)
            # and in bursts of calls back to back: the kernels' own times
            b_ours, b_ref, b_ratio = paired_ms(ours_call, flash, args.reps // 4 + 1, BURST)
            try:
                c_ours, c_ref, c_ratio = paired_ms(ours_call, cudnn, args.reps // 4 + 1, BURST)
            except RuntimeError:   # no cuDNN backend for this shape or build
                c_ours = c_ref = c_ratio = None
            flops = 4.0 * b * h * sq * s * d / (2 if causal else 1)
            row = {"croktile_ms": t_ours, "sdpa_flash_ms": t_ref,
                   "croktile_tflops": flops / t_ours / 1e9, "sdpa_flash_tflops": flops / t_ref / 1e9,
                   "ratio": ratio, "burst_croktile_tflops": flops / b_ours / 1e9,
                   "burst_sdpa_flash_tflops": flops / b_ref / 1e9, "burst_ratio": b_ratio,
                   "max_abs_err": err, "sdpa_flash_max_abs_err": err_ref,
                   "right": err <= max(2 * err_ref, 1e-2)}
            if c_ref is not None:
                row.update(burst_sdpa_cudnn_tflops=flops / c_ref / 1e9, burst_ratio_cudnn=c_ratio)
            kv_bytes = 2.0 * b * hkv * s * d * k4.element_size()   # the K and V cache, read once
            row.update(kv_mib=kv_bytes / 2**20, burst_croktile_ms=b_ours,
                       burst_croktile_kv_gbps=kv_bytes / b_ours / 1e6)
            if args.kernel_times:
                row["croktile_kernel_ms"] = kernel_ms(ours_call, 5)
                row["croktile_kernel_kv_gbps"] = kv_bytes / row["croktile_kernel_ms"] / 1e6
            if args.all_backends:
                extra = backend_rows(ours_call, sdpa, kv_bytes, args.reps, args.kernel_times)
                kernels = [r["kernel_ms"] for r in extra.values() if isinstance(r, dict) and "kernel_ms" in r]
                if kernels:   # the quickest backend's kernels against ours
                    extra["kernel_ratio_fastest"] = min(kernels) / row["croktile_kernel_ms"]
                row.update(extra)
            rows[key] = row
            del q4, k4, v4, ours, exact
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
