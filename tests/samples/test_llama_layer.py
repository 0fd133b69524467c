"""samples/llama/llama_layer.py (issue #38): a Llama decoder layer whose arithmetic runs in
Croktile kernels, on the cpu target at a small configuration (D 256, Hq 4, Hkv 2, d 64,
F 512), against Hugging Face's LlamaDecoderLayer written here in plain PyTorch: in f32 (the
reference) and in bf16 as Hugging Face runs it (its error against f32 is the tolerance).
Prefill at odd lengths, one above the skinny GEMM's 256 rows (the tiled GEMM, several key
tiles); decode steps after a prefill, and on caches the caller made, of random contents,
at the first position and past a key tile. On the GPU machine the layer with target cuda,
heads of 64 and of 128 (4 query heads per key/value head), prefill and decode."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

LAYER = Path(__file__).resolve().parents[2] / "samples" / "llama" / "llama_layer.py"
D, HQ, HKV, HD, F = 256, 4, 2, 64, 512
EPS, THETA, MAX_SEQ = 1e-5, 500000.0, 320


def _weights(seed: int = 3, dim=D, heads=HQ, kv_heads=HKV, head_dim=HD, inter=F):
    g = torch.Generator().manual_seed(seed)

    def mat(n, k):   # rows of unit-variance outputs for unit-variance inputs
        return (torch.randn(n, k, generator=g) / math.sqrt(k)).bfloat16()

    return {
        "input_layernorm.weight": (1 + 0.1 * torch.randn(dim, generator=g)).bfloat16(),
        "self_attn.q_proj.weight": mat(heads * head_dim, dim),
        "self_attn.k_proj.weight": mat(kv_heads * head_dim, dim),
        "self_attn.v_proj.weight": mat(kv_heads * head_dim, dim),
        "self_attn.o_proj.weight": mat(dim, heads * head_dim),
        "post_attention_layernorm.weight": (1 + 0.1 * torch.randn(dim, generator=g)).bfloat16(),
        "mlp.gate_proj.weight": mat(inter, dim), "mlp.up_proj.weight": mat(inter, dim),
        "mlp.down_proj.weight": mat(dim, inter),
    }


def reference(w, x, k_past, v_past, dtype, heads=HQ, kv_heads=HKV):
    """Hugging Face's LlamaDecoderLayer (eager) in `dtype`, for x [B, S, D] at positions
    P..P+S-1 after the keys and values k_past, v_past [B, Hkv, P, d]: (y, k, v) with k, v
    the S new rotated keys and values. RMSNorm and softmax in f32 as Hugging Face does."""
    hd = w["self_attn.q_proj.weight"].shape[0] // heads
    w = {name: t.to(dtype) for name, t in w.items()}
    x, k_past, v_past = x.to(dtype), k_past.to(dtype), v_past.to(dtype)
    b, s, _ = x.shape
    p = k_past.shape[2]

    def rmsnorm(h, weight):
        h32 = h.float()
        return weight * (h32 * torch.rsqrt(h32.pow(2).mean(-1, keepdim=True) + EPS)).to(dtype)

    def split_heads(t, n):
        return t.view(b, s, n, hd).transpose(1, 2)

    def rotate_half(t):
        return torch.cat((-t[..., hd // 2:], t[..., :hd // 2]), -1)

    h = rmsnorm(x, w["input_layernorm.weight"])
    q = split_heads(h @ w["self_attn.q_proj.weight"].T, heads)
    k = split_heads(h @ w["self_attn.k_proj.weight"].T, kv_heads)
    v = split_heads(h @ w["self_attn.v_proj.weight"].T, kv_heads)
    inv_freq = 1.0 / THETA ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd)
    freqs = torch.arange(p, p + s).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), -1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
    q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    keys = torch.cat((k_past, k), 2).repeat_interleave(heads // kv_heads, 1)
    values = torch.cat((v_past, v), 2).repeat_interleave(heads // kv_heads, 1)
    scores = (q @ keys.transpose(2, 3)) / math.sqrt(hd)
    scores = scores + torch.triu(torch.full((s, p + s), float("-inf")), p + 1).to(dtype)
    probs = torch.softmax(scores.float(), -1).to(dtype)
    o = (probs @ values).transpose(1, 2).reshape(b, s, heads * hd)
    r = x + o @ w["self_attn.o_proj.weight"].T
    g = rmsnorm(r, w["post_attention_layernorm.weight"])
    act = torch.nn.functional.silu(g @ w["mlp.gate_proj.weight"].T) * (g @ w["mlp.up_proj.weight"].T)
    return r + act @ w["mlp.down_proj.weight"].T, k, v


def _check(y, w, x, k_past, v_past, heads=HQ, kv_heads=HKV):
    """y within twice the error of PyTorch's own bf16 layer against the f32 reference (and
    at least bf16's rounding of y); returns the reference's new keys and values."""
    ref, k, v = reference(w, x, k_past, v_past, torch.float32, heads, kv_heads)
    torch_bf16 = reference(w, x, k_past, v_past, torch.bfloat16, heads, kv_heads)[0].float()
    assert y.shape == ref.shape and y.dtype == torch.bfloat16
    ours, theirs = (y.float() - ref).abs().max().item(), (torch_bf16 - ref).abs().max().item()
    assert ours <= max(2 * theirs, 2 ** -8 * ref.abs().max().item()), (ours, theirs)
    return k, v


def _close(rows, ref):
    """Cache rows against the reference's f32 keys or values: within bf16's roundings of the
    normalised input and of the projection (2% of the largest)."""
    return (rows.float() - ref).abs().max() <= 0.02 * ref.abs().max()


def _layer_module():
    spec = importlib.util.spec_from_file_location("llama_layer", LAYER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def layer():
    """One layer for the module: its kernels build once (croktile.load caches them)."""
    weights = _weights()
    return weights, _layer_module().LlamaLayer(weights, num_heads=HQ, num_kv_heads=HKV, rms_eps=EPS,
                                               rope_theta=THETA, max_seq=MAX_SEQ, target="cpu")


def _x(b, s, seed, dim=D):
    return torch.randn(b, s, dim, generator=torch.Generator().manual_seed(seed)).bfloat16()


@pytest.mark.parametrize("b,s", [(1, 5), (2, 17), (1, 300)], ids=["b1-s5", "b2-s17", "b1-s300-tiled-gemm"])
def test_prefill_matches_hugging_face(layer, b, s):
    """y as the reference computes it; the caches hold the rotated keys and the values at
    rows 0..S-1 and zeros after them."""
    w, lay = layer
    x = _x(b, s, seed=s)
    empty = torch.zeros(b, HKV, 0, HD)
    y, k_cache, v_cache = lay.prefill(x)
    k, v = _check(y, w, x, empty, empty)
    assert k_cache.shape == v_cache.shape == (b, HKV, MAX_SEQ, HD) and k_cache.dtype == torch.bfloat16
    assert _close(k_cache[:, :, :s], k) and _close(v_cache[:, :, :s], v)
    assert not k_cache[:, :, s:].any() and not v_cache[:, :, s:].any()


def test_decode_steps_after_prefill(layer):
    """Two decode steps at positions 17 and 18 after a prefill of 17: each attends to the
    prefill's keys and the steps' own, as the reference does over the whole sequence."""
    w, lay = layer
    x = _x(2, 19, seed=19)
    _, k_cache, v_cache = lay.prefill(x[:, :17])
    for pos in (17, 18):
        past_k, past_v = k_cache[:, :, :pos].float().clone(), v_cache[:, :, :pos].float().clone()
        y = lay.decode(x[:, pos:pos + 1], k_cache, v_cache, pos)
        k, v = _check(y, w, x[:, pos:pos + 1], past_k, past_v)
        assert _close(k_cache[:, :, pos:pos + 1], k) and _close(v_cache[:, :, pos:pos + 1], v)


@pytest.mark.parametrize("pos", [0, 70], ids=["first-position", "past-a-key-tile"])
def test_decode_on_caches_the_caller_made(layer, pos):
    """Caches of random contents, and large values past pos (a key there would take all the
    weight): decode reads rows 0..pos-1 as they are, writes row pos and leaves the others
    alone."""
    w, lay = layer
    g = torch.Generator().manual_seed(pos)
    k_cache, v_cache = (torch.randn(1, HKV, MAX_SEQ, HD, generator=g).bfloat16() for _ in range(2))
    k_cache[:, :, pos:] = 64.0
    v_cache[:, :, pos:] = 1000.0
    before_k, before_v = k_cache.clone(), v_cache.clone()
    x = _x(1, 1, seed=100 + pos)
    y = lay.decode(x, k_cache, v_cache, pos)
    _check(y, w, x, before_k[:, :, :pos].float(), before_v[:, :, :pos].float())
    others = torch.ones(MAX_SEQ, dtype=torch.bool)
    others[pos] = False
    assert torch.equal(k_cache[:, :, others], before_k[:, :, others])
    assert torch.equal(v_cache[:, :, others], before_v[:, :, others])


def test_decode_outside_the_caches_is_an_error(layer):
    _, lay = layer
    k_cache, v_cache = lay.new_caches(1)
    with pytest.raises(ValueError, match="inside the caches' 320 rows, not 1 at 320"):
        lay.decode(_x(1, 1, seed=0), k_cache, v_cache, MAX_SEQ)


@pytest.mark.parametrize("dim,heads,kv_heads,head_dim,inter", [(256, 4, 2, 64, 512), (1024, 8, 2, 128, 2048)],
                         ids=["d64-gqa2", "d128-gqa4"])
def test_layer_on_gpu(gpu, dim, heads, kv_heads, head_dim, inter):
    """On the GPU machine, target cuda: a prefill of 300 positions (the tiled GEMM) and a
    decode step after it (the skinny GEMM, flash-decoding), as the reference computes them."""
    weights = _weights(5, dim, heads, kv_heads, head_dim, inter)
    lay = _layer_module().LlamaLayer({k: t.cuda() for k, t in weights.items()}, num_heads=heads,
                                     num_kv_heads=kv_heads, rms_eps=EPS, rope_theta=THETA, max_seq=MAX_SEQ,
                                     target="cuda")
    x = _x(2, 301, seed=7, dim=dim)
    y, k_cache, v_cache = lay.prefill(x[:, :300].cuda())
    empty = torch.zeros(2, kv_heads, 0, head_dim)
    _check(y.cpu(), weights, x[:, :300], empty, empty, heads, kv_heads)
    past_k, past_v = k_cache[:, :, :300].float().cpu(), v_cache[:, :, :300].float().cpu()
    y = lay.decode(x[:, 300:].cuda(), k_cache, v_cache, 300)
    _check(y.cpu(), weights, x[:, 300:], past_k, past_v, heads, kv_heads)
