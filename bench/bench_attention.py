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
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_timing import BURST, paired_ms

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "samples/attention/attention.co.cpp"
VARIANTS = [f"d{d}{'_causal' if c else ''}={SAMPLE}:-DHDIM={d},-DCAUSAL={c}" for d in (64, 128) for c in (0, 1)] + \
    [f"d64_bf16={SAMPLE}:-DHDIM=64,-DELEM=bf16"]


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
        b, h = args.batch, args.heads
        hkv = args.kv_heads or h
        for s in args.seqs:
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

            def ours_call():
                return mod.attention(q4, k4, v4, scale)
            try:
                ours = torch.as_tensor(ours_call(), device="cuda")
            except croktile.Error as e:
                rows[f"{label} s{s}"] = {"error": str(e)[-500:]}
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
            rows[f"{label} s{s}"] = row
            del q4, k4, v4, ours, exact
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
