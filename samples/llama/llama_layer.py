"""A Llama decoder layer (Hugging Face's LlamaDecoderLayer) whose arithmetic all runs in
Croktile kernels loaded with `croktile.load`; PyTorch only allocates, reshapes and holds
the weights (issue #38, docs/llama.md).

    layer = LlamaLayer(weights, num_heads=32, num_kv_heads=8, rms_eps=1e-5,
                       rope_theta=500000.0, max_seq=16384, target="cuda")
    y, k_cache, v_cache = layer.prefill(x)           # x [B, S, D] -> y [B, S, D]
    y = layer.decode(x1, k_cache, v_cache, pos)      # x1 [B, 1, D]; writes position pos

Load it by path (`importlib.util.spec_from_file_location`); it finds the kernels beside it
and in samples/gemm/ and samples/attention/. A layer is

    h = RMSNorm(x) ; qkv = h Wqkv^T ; q, k, v = RoPE(qkv) (k, v into the caches)
    o = causal GQA attention(q, caches[0..n)) ; r = x + o Wo^T
    g = RMSNorm(r) ; y = r + (silu(g Wgate^T) * g Wup^T) Wdown^T

with these kernels: rmsnorm, rope_cache, heads_to_rows, add_rmsnorm (the residual add and
the second RMSNorm in one pass), silu_mul, add (ops.co.cpp); the projections by samples/gemm/gemm.co.cpp, or gemm_skinny.co.cpp for at most 256 rows
(decode, small batches); attention by samples/attention/attention.co.cpp (prefill) and
decode.co.cpp (decode), both built with -DKEYS_ARG=1: they read the caches in place and
take the number of valid keys as an argument.
"""
import importlib.util
import math
from pathlib import Path

import croktile
import torch

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent


def _skinny_tiles():
    """samples/gemm/skinny_tiles.py: the skinny GEMM's row tile by shape."""
    spec = importlib.util.spec_from_file_location("skinny_tiles", SAMPLES / "gemm" / "skinny_tiles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


skinny_rows = _skinny_tiles().skinny_mt   # MT for m rows and n weight rows; 0: gemm.co.cpp


class LlamaLayer:
    """One decoder layer on bf16 weights with Hugging Face's names (see the module's doc)."""

    def __init__(self, weights, num_heads=32, num_kv_heads=8, rms_eps=1e-5, rope_theta=500000.0,
                 max_seq=16384, target="cuda", profile=None, options=None):
        w = {name: t.to(torch.bfloat16).contiguous() for name, t in weights.items()}
        self.hidden = w["input_layernorm.weight"].shape[0]
        self.heads, self.kv_heads = num_heads, num_kv_heads
        self.head_dim = w["self_attn.q_proj.weight"].shape[0] // num_heads
        if num_heads % num_kv_heads or self.head_dim not in (64, 128):
            raise ValueError(f"LlamaLayer: {num_heads} query heads over {num_kv_heads} key/value heads of "
                             f"{self.head_dim}: the heads must divide evenly and a head must be 64 or 128 wide")
        self.eps, self.theta, self.max_seq = float(rms_eps), float(rope_theta), int(max_seq)
        self.device = w["input_layernorm.weight"].device
        # rearranged once: one projection for Q, K and V, one for gate and up (rows of the
        # [N, K] operand: out = h W^T is what the GEMMs compute)
        self.ln1 = w["input_layernorm.weight"]
        self.ln2 = w["post_attention_layernorm.weight"]
        self.w_qkv = torch.cat([w["self_attn.q_proj.weight"], w["self_attn.k_proj.weight"],
                                w["self_attn.v_proj.weight"]]).contiguous()
        self.w_o = w["self_attn.o_proj.weight"]
        self.w_gu = torch.cat([w["mlp.gate_proj.weight"], w["mlp.up_proj.weight"]]).contiguous()
        self.w_down = w["mlp.down_proj.weight"]
        self.inter = w["mlp.gate_proj.weight"].shape[0]

        self.target = target
        if profile is None and target == "cuda":
            profile = "cuda-sm90a"
        if options is None:
            options = ["-O3"] if target == "cuda" else []
        self._load_args = dict(target=target, profile=profile, options=list(options))
        self._modules = {}
        group = num_heads // num_kv_heads
        d = self.head_dim
        self.ops = self._load(HERE / "ops.co.cpp")
        self.gemm = self._load(SAMPLES / "gemm" / "gemm.co.cpp", ELEM="bf16")
        self.attention = self._load(SAMPLES / "attention" / "attention.co.cpp", ELEM="bf16", HDIM=d, CAUSAL=1,
                                    KEYS_ARG=1)
        # the query heads of a key/value head packed into one tile of the decode kernel
        self.decode_attention = self._load(SAMPLES / "attention" / "decode.co.cpp", ELEM="bf16", HDIM=d, CAUSAL=0,
                                           KEYS_ARG=1, HEADS=4 if group % 4 == 0 else (2 if group % 2 == 0 else 1))

    def _load(self, path, **defines):
        key = (str(path), tuple(sorted(defines.items())))
        if key not in self._modules:
            self._modules[key] = croktile.load(str(path), defines={k: str(v) for k, v in defines.items()},
                                               **self._load_args)
        return self._modules[key]

    # -- calls: results as torch tensors (device arrays and CPU DeviceArrays by DLPack)

    def _new(self, *shape):
        return torch.empty(*shape, dtype=torch.bfloat16, device=self.device)

    def _result(self, fn, *args, shape):
        """fn(*args) as a tensor of `shape`: into a new tensor on cuda (out=, which a CUDA
        graph captures with PyTorch's memory), else the module's own result."""
        if self.target == "cuda":
            return fn(*args, out=self._new(*shape))
        return torch.from_dlpack(fn(*args))

    def _linear(self, h, weight):
        """h [M, K] times weight [N, K]^T: the skinny GEMM for few rows, else the tiled one."""
        m, n = h.shape[0], weight.shape[0]
        mt = skinny_rows(m, n)
        gemm = self._load(SAMPLES / "gemm" / "gemm_skinny.co.cpp", ELEM="bf16", MT=mt).gemm if mt else self.gemm.gemm
        return self._result(gemm, h, weight, shape=(m, n))

    def _rmsnorm(self, x, weight):
        return self._result(self.ops.rmsnorm, x, weight, self.eps, shape=x.shape)

    def _add(self, a, b):
        return self._result(self.ops.add, a, b, shape=a.shape)

    def _mlp_block(self, x2, attn):
        """The layer's second half: r = x + attn (the residual) and g = RMSNorm(r) in one
        kernel, then r + down(silu(gate(g)) * up(g))."""
        r, g = self._new(*x2.shape), self._new(*x2.shape)
        self.ops.add_rmsnorm(x2, attn, self.ln2, self.eps, r, g)
        gu = self._linear(g, self.w_gu)
        act = self._new(r.shape[0], self.inter)
        self.ops.silu_mul(gu, act)
        return self._add(r, self._linear(act, self.w_down))

    def _qkv(self, x2, b, s, k_cache, v_cache, start):
        """RMSNorm, the QKV projection and the rotary embedding: q [B, Hq, S, d] returned, the
        keys and values written into the caches at rows start..start+S-1."""
        qkv = self._linear(self._rmsnorm(x2, self.ln1), self.w_qkv)
        q = self._new(b, self.heads, s, self.head_dim)
        self.ops.rope_cache(qkv.view(b, s, -1), q, k_cache, v_cache, int(start), self.theta)
        return q

    def new_caches(self, batch):
        """Key and value caches [B, Hkv, max_seq, d], zero-filled."""
        shape = (batch, self.kv_heads, self.max_seq, self.head_dim)
        return (torch.zeros(shape, dtype=torch.bfloat16, device=self.device),
                torch.zeros(shape, dtype=torch.bfloat16, device=self.device))

    def prefill(self, x):
        """x [B, S, D] at positions 0..S-1 -> (y [B, S, D], k_cache, v_cache) with the
        caches' rows 0..S-1 filled."""
        b, s, dim = x.shape
        if s > self.max_seq:
            raise ValueError(f"LlamaLayer.prefill: {s} positions, the caches hold {self.max_seq}")
        x2 = x.contiguous().view(b * s, dim)
        k_cache, v_cache = self.new_caches(b)
        q = self._qkv(x2, b, s, k_cache, v_cache, 0)
        o = self._result(self.attention.attention, q, k_cache, v_cache, 1.0 / math.sqrt(self.head_dim), s,
                         shape=q.shape)
        rows = self._result(self.ops.heads_to_rows, o, shape=(b, s, self.heads * self.head_dim))
        attn = self._linear(rows.view(b * s, -1), self.w_o)
        return self._mlp_block(x2, attn).view(b, s, dim), k_cache, v_cache

    def decode(self, x1, k_cache, v_cache, pos):
        """x1 [B, 1, D] at position pos -> y [B, 1, D]; reads the caches' rows 0..pos-1,
        writes row pos and attends to 0..pos."""
        b, one, dim = x1.shape
        if one != 1 or not 0 <= pos < k_cache.shape[2]:
            raise ValueError(f"LlamaLayer.decode: one position per sequence inside the caches' "
                             f"{k_cache.shape[2]} rows, not {one} at {pos}")
        x2 = x1.contiguous().view(b, dim)
        q = self._qkv(x2, b, 1, k_cache, v_cache, pos)
        o = self._result(self.decode_attention.decode, q, k_cache, v_cache, 1.0 / math.sqrt(self.head_dim),
                         int(pos) + 1, shape=q.shape)
        # [B, Hq, 1, d] is already the rows [B, Hq d] of the output projection
        return self._mlp_block(x2, self._linear(o.view(b, -1), self.w_o)).view(b, 1, dim)
