#!/usr/bin/env python3
"""A Llama decoder layer on Croktile kernels (samples/llama/llama_layer.py, issue #38)
against the same layer in PyTorch, eager and under torch.compile (default mode), on the GPU
machine. Prints one JSON object.

For each configuration (8B: D 4096, Hq 32, Hkv 8, d 128, F 14336; 70B: D 8192, Hq 64, F
28672), on random bf16 weights with Hugging Face's names:

- accuracy: the layer's prefill and decode outputs against an f32 reference, beside
  PyTorch's own bf16 layer's error against it (`error`, `torch_error`);
- prefill at each (B, S) of --prefill: ms per call of ours, eager and compiled, each timed
  alone by CUDA events, calls alternated (bench/torch_timing.py), and our speed-up over
  torch.compile;
- decode at each B of --batches and cache length of --cached: each side's step captured in
  a CUDA graph (the step at one position, replayed), and the time the weights' and caches'
  bytes take at the device-to-device copy bandwidth measured in the same run (`memory_ms`);
- --kernel-times: per kernel (torch.profiler), the time of each of ours in a call.

    python bench/bench_llama.py                                   # both configurations, every shape
    python bench/bench_llama.py --config 8b --prefill 1x512 --batches 1 --cached 1000 --kernel-times

Issue #38's goals: prefill >= 1.05x torch.compile at (1,512), (1,2000), (1,8192), (8,1000)
(8B) and (1,2000) (70B); decode >= 1.2x at B 1/16/64 with 1000/8000 cached positions (8B)
and B 16 / 8000 (70B), or 0.9 of the memory's speed where 1.2x would beat it.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
from pathlib import Path

from torch_timing import kernel_table, paired_ms

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"8b": dict(dim=4096, heads=32, kv_heads=8, head_dim=128, inter=14336),
           "70b": dict(dim=8192, heads=64, kv_heads=8, head_dim=128, inter=28672)}
# the shapes the issue asks for, per configuration
PREFILL = {"8b": ["1x512", "1x2000", "1x8192", "8x1000"], "70b": ["1x2000"]}
DECODE = {"8b": [(b, n) for b in (1, 16, 64) for n in (1000, 8000)], "70b": [(16, 8000)]}
EPS, THETA = 1e-5, 500000.0


def load_layer_module():
    spec = importlib.util.spec_from_file_location("llama_layer", ROOT / "samples" / "llama" / "llama_layer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_weights(c, seed=0):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    d, hd = c["dim"], c["head_dim"]

    def mat(n, k):
        return (torch.randn(n, k, generator=g, device="cuda") / math.sqrt(k)).bfloat16()

    return {"input_layernorm.weight": (1 + 0.1 * torch.randn(d, generator=g, device="cuda")).bfloat16(),
            "self_attn.q_proj.weight": mat(c["heads"] * hd, d), "self_attn.k_proj.weight": mat(c["kv_heads"] * hd, d),
            "self_attn.v_proj.weight": mat(c["kv_heads"] * hd, d), "self_attn.o_proj.weight": mat(d, c["heads"] * hd),
            "post_attention_layernorm.weight": (1 + 0.1 * torch.randn(d, generator=g, device="cuda")).bfloat16(),
            "mlp.gate_proj.weight": mat(c["inter"], d), "mlp.up_proj.weight": mat(c["inter"], d),
            "mlp.down_proj.weight": mat(d, c["inter"])}


class TorchLayer:
    """Hugging Face's LlamaDecoderLayer in plain PyTorch (SDPA for attention, the caches
    written in place), in the weights' dtype: the baseline, eager or compiled."""

    def __init__(self, w, c, dtype):
        import torch
        self.w = {k: v.to(dtype) for k, v in w.items()}
        self.c, self.dtype = c, dtype
        hd = c["head_dim"]
        self.inv_freq = 1.0 / THETA ** (torch.arange(0, hd, 2, dtype=torch.int64, device="cuda").float() / hd)

    def _norm(self, h, weight):
        import torch
        h32 = h.float()
        return weight * (h32 * torch.rsqrt(h32.pow(2).mean(-1, keepdim=True) + EPS)).to(self.dtype)

    def _rope(self, t, positions):
        import torch
        freqs = positions.float()[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), -1)
        cos, sin = emb.cos().to(self.dtype), emb.sin().to(self.dtype)
        half = t.shape[-1] // 2
        return t * cos + torch.cat((-t[..., half:], t[..., :half]), -1) * sin

    def _layer(self, x, k_cache, v_cache, positions, keys):
        import torch
        import torch.nn.functional as F
        c, w = self.c, self.w
        b, s, _ = x.shape
        hd = c["head_dim"]
        h = self._norm(x, w["input_layernorm.weight"])
        q = (h @ w["self_attn.q_proj.weight"].T).view(b, s, c["heads"], hd).transpose(1, 2)
        k = (h @ w["self_attn.k_proj.weight"].T).view(b, s, c["kv_heads"], hd).transpose(1, 2)
        v = (h @ w["self_attn.v_proj.weight"].T).view(b, s, c["kv_heads"], hd).transpose(1, 2)
        q, k = self._rope(q, positions), self._rope(k, positions)
        k_cache[:, :, positions] = k
        v_cache[:, :, positions] = v
        o = F.scaled_dot_product_attention(q, k_cache[:, :, :keys], v_cache[:, :, :keys], is_causal=s > 1,
                                           enable_gqa=True)
        r = x + o.transpose(1, 2).reshape(b, s, -1) @ w["self_attn.o_proj.weight"].T
        g = self._norm(r, w["post_attention_layernorm.weight"])
        act = F.silu(g @ w["mlp.gate_proj.weight"].T) * (g @ w["mlp.up_proj.weight"].T)
        return r + act @ w["mlp.down_proj.weight"].T

    def prefill(self, x, k_cache, v_cache):
        import torch
        s = x.shape[1]
        return self._layer(x, k_cache, v_cache, torch.arange(s, device="cuda"), s)

    def decode(self, x1, k_cache, v_cache, positions, keys):
        return self._layer(x1, k_cache, v_cache, positions, keys)


def copy_bandwidth():
    """Device-to-device copy bandwidth in bytes/s (read and write counted), 1 GiB copies."""
    import torch
    from torch_timing import median_ms
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = median_ms(lambda: b.copy_(a), 20)
    return 2 * a.numel() / (ms * 1e-3)


def graphed(fn):
    """fn captured in a CUDA graph (after warm-up calls on a side stream): its replay."""
    import torch
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def rounded(table: dict) -> dict:
    return {k: round(v, 4) for k, v in table.items()}


def max_error(y, ref):
    return (y.float() - ref).abs().max().item()


def bench_config(name, args, bandwidth, layer_module):
    import torch
    c = CONFIGS[name]
    w = random_weights(c)
    prefills = args.prefill or PREFILL[name]
    decodes = [(b, n) for b in args.batches for n in args.cached] if args.batches else DECODE[name]
    max_seq = max([n + 1 for _, n in decodes] + [int(shape.split("x")[1]) for shape in prefills])
    ours = layer_module.LlamaLayer(w, num_heads=c["heads"], num_kv_heads=c["kv_heads"], rms_eps=EPS,
                                   rope_theta=THETA, max_seq=max_seq, target="cuda")
    eager = TorchLayer(w, c, torch.bfloat16)
    compiled_prefill = torch.compile(eager.prefill)
    compiled_decode = torch.compile(eager.decode)
    reference = TorchLayer(w, c, torch.float32)
    result = {"prefill": [], "decode": []}
    gen = torch.Generator(device="cuda").manual_seed(1)
    kv = (c["kv_heads"], max_seq, c["head_dim"])

    for shape in prefills:
        b, s = (int(v) for v in shape.split("x"))
        x = torch.randn(b, s, c["dim"], generator=gen, device="cuda").bfloat16()
        kc, vc = (torch.zeros(b, *kv, dtype=torch.bfloat16, device="cuda") for _ in range(2))
        row = {"batch": b, "seq": s}
        if shape == prefills[0]:   # accuracy on the first shape
            rk, rv = (torch.zeros(b, *kv, device="cuda") for _ in range(2))
            ref = reference.prefill(x.float(), rk, rv)
            row["error"] = max_error(ours.prefill(x)[0], ref)
            row["torch_error"] = max_error(eager.prefill(x, kc, vc), ref)
            del rk, rv, ref
        ms, eager_ms, _ = paired_ms(lambda: ours.prefill(x), lambda: eager.prefill(x, kc, vc), args.reps)
        _, compiled_ms, ratio = paired_ms(lambda: ours.prefill(x), lambda: compiled_prefill(x, kc, vc), args.reps)
        row.update(ms=round(ms, 4), eager_ms=round(eager_ms, 4), compiled_ms=round(compiled_ms, 4),
                   speedup_vs_compiled=round(ratio, 3))
        if args.kernel_times:
            row["kernels"] = rounded(kernel_table(lambda: ours.prefill(x)))
        result["prefill"].append(row)
        del kc, vc

    weight_bytes = sum(t.numel() * t.element_size() for t in w.values())
    for b, n in decodes:
        x1 = torch.randn(b, 1, c["dim"], generator=gen, device="cuda").bfloat16()
        kc, vc = (torch.randn(b, *kv, generator=gen, device="cuda").bfloat16() for _ in range(2))
        tkc, tvc = kc.clone(), vc.clone()
        positions = torch.tensor([n], device="cuda")
        row = {"batch": b, "cached": n}
        if n == 1000 or args.batches:
            ref = reference.decode(x1.float(), kc.float(), vc.float(), positions, n + 1)
            row["error"] = max_error(ours.decode(x1, kc, vc, n), ref)
            row["torch_error"] = max_error(eager.decode(x1, tkc, tvc, positions, n + 1), ref)
        ours_step = graphed(lambda: ours.decode(x1, kc, vc, n))
        eager_step = graphed(lambda: eager.decode(x1, tkc, tvc, positions, n + 1))
        compiled_step = graphed(lambda: compiled_decode(x1, tkc, tvc, positions, n + 1))
        ms, eager_ms, _ = paired_ms(ours_step, eager_step, args.reps)
        _, compiled_ms, ratio = paired_ms(ours_step, compiled_step, args.reps)
        cache_bytes = 2 * b * c["kv_heads"] * (n + 1) * c["head_dim"] * 2
        memory_ms = (weight_bytes + cache_bytes) / bandwidth * 1e3
        row.update(ms=round(ms, 4), eager_ms=round(eager_ms, 4), compiled_ms=round(compiled_ms, 4),
                   speedup_vs_compiled=round(ratio, 3), memory_ms=round(memory_ms, 4),
                   fraction_of_memory_speed=round(memory_ms / ms, 3))
        if args.kernel_times:
            row["kernels"] = rounded(kernel_table(lambda: ours.decode(x1, kc, vc, n)))
        result["decode"].append(row)
        del kc, vc, tkc, tvc
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), action="append", help="8b, 70b (default both)")
    ap.add_argument("--prefill", nargs="*", help="BxS shapes (default: the issue's)")
    ap.add_argument("--batches", nargs="*", type=int, help="decode batch sizes (with --cached)")
    ap.add_argument("--cached", nargs="*", type=int, default=[1000, 8000], help="decode cache lengths")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--kernel-times", action="store_true", help="per-kernel times from torch.profiler")
    args = ap.parse_args()
    import torch
    torch.manual_seed(0)
    bandwidth = copy_bandwidth()
    module = load_layer_module()
    out = {"device": torch.cuda.get_device_name(), "copy_gbps": round(bandwidth / 1e9, 1)}
    for name in args.config or ["8b", "70b"]:
        out[name] = bench_config(name, args, bandwidth, module)
        torch.cuda.empty_cache()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
