"""The tensor-core instruction forms `mma` operations compile to, in one table.

A fragment tile (M x N accumulated over K) is computed by one instruction shape
repeated over the tile; sema picks the shape here, so a tile that no instruction
divides, or element types that no form multiplies, are errors at compile time with
the line. The runtime header (`croktile_mma.h`) has a specialisation per form.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple


class Form(NamedTuple):
    m: int
    n: int
    k: int
    a: str          # element type of A (and B unless b differs)
    b: str
    c: str          # accumulator
    sparse: bool
    sm: int         # the first architecture with the instruction


_F8 = ("f8_e4m3", "f8_e5m2")
_I8 = ("s8", "u8")


def _forms():
    out = []
    for m, n, k in ((16, 8, 16), (16, 8, 8)):
        for c in ("f16", "f32"):
            out.append(Form(m, n, k, "f16", "f16", c, False, 80))
        out.append(Form(m, n, k, "bf16", "bf16", "f32", False, 80))
    for m, n, k in ((16, 8, 8), (16, 8, 4)):
        out.append(Form(m, n, k, "f32", "f32", "f32", False, 80))   # tf32 inputs
    for m, n, k in ((16, 8, 32), (16, 8, 16), (8, 8, 16)):
        out += [Form(m, n, k, a, b, "s32", False, 80) for a in _I8 for b in _I8]
    out += [Form(16, 8, 32, a, b, c, False, 89) for a in _F8 for b in _F8 for c in ("f16", "f32")]
    for m, n, k in ((16, 8, 16), (16, 8, 8), (16, 8, 4)):
        out.append(Form(m, n, k, "f64", "f64", "f64", False, 90))
    out.append(Form(8, 8, 4, "f64", "f64", "f64", False, 80))
    out += [Form(8, 8, 4, "f16", "f16", c, False, 70) for c in ("f16", "f32")]
    for k in (16, 32):
        out += [Form(16, 8, k, t, t, "f32", True, 80) for t in ("f16", "bf16")]
        out.append(Form(16, 8, k, "f16", "f16", "f16", True, 80))
    out += [Form(16, 8, 64, a, b, "f32", True, 89) for a in _F8 for b in _F8]
    return tuple(out)


FORMS = _forms()

# warp-group (wgmma) forms: M = 64, N a multiple of 8 up to 256, K by input type
WGMMA_K = {"f16": 16, "bf16": 16, "f32": 8, "f8_e4m3": 32, "f8_e5m2": 32, "s8": 32, "u8": 32}
WGMMA_ACC = {"f16": ("f16", "f32"), "bf16": ("f32",), "f32": ("f32",), "f8_e4m3": ("f16", "f32"),
             "f8_e5m2": ("f16", "f32"), "s8": ("s32",), "u8": ("s32",)}


def default_accumulator(a: str) -> str:
    """The accumulator of an untyped `mma.fill`: the input type where a form accumulates
    in it (f16, f64), else the type the instructions accumulate in."""
    if a in ("f16", "f64"):
        return a
    return "s32" if a in _I8 else "f32"


def find_form(m: int, n: int, k: int, ta: str, tb: str, tc: str, sparse: bool) -> Optional[Form]:
    for f in FORMS:
        if (f.m, f.n, f.k, f.a, f.b, f.c, f.sparse) == (m, n, k, ta, tb, tc, sparse):
            return f
    return None


# tiles one warp may hold besides one instruction's: the WMMA shapes (several
# mma.sync instructions each), as the reference accepts them
WMMA_TILES = {("f16", (16, 16, 16)), ("f16", (32, 8, 16)), ("f16", (8, 32, 16)),
              ("bf16", (16, 16, 16)), ("bf16", (32, 8, 16)), ("bf16", (8, 32, 16)),
              ("s8", (16, 16, 16)), ("s8", (32, 8, 16)), ("s8", (8, 32, 16)),
              ("u8", (16, 16, 16)), ("u8", (32, 8, 16)), ("u8", (8, 32, 16)),
              ("f32", (16, 16, 8)), ("f64", (8, 8, 4))}


def has_forms(ta: str) -> bool:
    return any(f.a == ta for f in FORMS)


def warp_tile_ok(M: int, N: int, K: int, ta: str, sparse: bool) -> bool:
    """Whether one warp may hold this tile: an instruction's shape or a WMMA shape."""
    shape = (M, N, K)
    return any((f.m, f.n, f.k) == shape and f.a == ta and f.sparse == sparse for f in FORMS) or \
        (not sparse and (ta, shape) in WMMA_TILES)


def choose_shape(M: int, N: int, K: int, ta: str, tb: str, tc: str, sparse: bool,
                 arch: int = 90) -> Optional[Form]:
    """The warp-level form for an M x N x K tile: the largest instruction whose dimensions
    divide the tile's (ties: the m16n8 family first). K is the logical (dense) depth."""
    fits = [f for f in FORMS if (f.a, f.b, f.c, f.sparse) == (ta, tb, tc, sparse) and f.sm <= arch
            and M % f.m == 0 and N % f.n == 0 and K % f.k == 0]
    if not fits:
        return None
    return max(fits, key=lambda f: (f.m * f.n * f.k, f.m == 16))


def wgmma_shape(M: int, N: int, K: int, ta: str, tb: str, tc: str) -> Optional[Tuple[int, int, int]]:
    """The warp-group instruction for a 64 x N tile of one warp group, or None."""
    k = WGMMA_K.get(ta)
    if k is None or ta != tb or tc not in WGMMA_ACC[ta] or M != 64 or N % 8 or not 8 <= N <= 256 \
            or K % k:
        return None
    return (64, N, k)


def describe_types(ta: str, tb: str, tc: str) -> str:
    return f"{ta} x {tb} -> {tc}"
