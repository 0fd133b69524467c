"""A NumPy reference of scaled dot-product attention in PyTorch's layout and meaning, for the
attention samples' tests (prefill and decode)."""
from __future__ import annotations

import numpy as np


def sdpa_reference(q, k, v, causal: bool, scale: float):
    """SDPA's meaning: q [B, Hq, Sq, d], k and v [B, Hkv, Sk, d], each key/value head shared
    by Hq / Hkv query heads; causal aligned bottom-right (query i sees keys j <= i + Sk - Sq)."""
    group = q.shape[1] // k.shape[1]
    k, v = (np.repeat(x.astype(np.float64), group, axis=1) for x in (k, v))
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k) * scale
    if causal:
        sq, sk = s.shape[-2:]
        s = np.where(np.triu(np.ones((sq, sk), bool), 1 + sk - sq), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("bhij,bhjd->bhid", p / p.sum(-1, keepdims=True), v)
