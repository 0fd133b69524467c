"""The warp-level tensor-core instructions (PTX ``mma.sync`` / ``mma.sp``, row.col) that
the runtime's ``croktile::mma`` can issue, for the compiler's checks and shape choice.

The same table is ``CROKTILE_MMA_FORMS`` in ``runtime/croktile_mma_forms.h``;
``tests/runtime/test_mma_cpu.py`` keeps the two equal. Type names are the language's
(``f16``, ``bf16``, ``f8_e4m3``, ...); ``tf32`` operands are ``f32`` data, so ``f32`` names
them too.
"""
from __future__ import annotations

from typing import NamedTuple, Optional


class Form(NamedTuple):
    m: int
    n: int
    k: int          # the dense k (a sparse instruction's a holds k/2 columns)
    ta: str
    tb: str
    tc: str
    sparse: bool
    min_sm: int
    ptx: str

    @property
    def shape(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"


def _forms():
    out = []

    def add(m, n, k, ta, tb, tc, sparse=False, sm=80):
        ptx_t = {"f8_e4m3": "e4m3", "f8_e5m2": "e5m2"}
        op = "mma.sp::ordered_metadata" if sparse else "mma.sync"
        if sparse:
            op += ".sync"
        names = ".".join(ptx_t.get(t, t) for t in (tc, ta, tb, tc))
        # m8n8k4 f16 and m8n8k16 f16/bf16 run as m16n8k8 / m16n8k16 with zero padding
        # (runtime/croktile_mma_forms.h).
        emulated = m == 8 and ta in ("f16", "bf16")
        shape = f"m16n8k{max(k, 8)}" if emulated else f"m{m}n{n}k{k}"
        out.append(Form(m, n, k, ta, tb, tc, sparse, sm, f"{op}.aligned.{shape}.row.col.{names}"))

    for tc in ("f16", "f32"):
        add(16, 8, 16, "f16", "f16", tc)
        add(16, 8, 8, "f16", "f16", tc)
        add(8, 8, 16, "f16", "f16", tc)
        add(8, 8, 4, "f16", "f16", tc)
    for k in (16, 8):
        add(16, 8, k, "bf16", "bf16", "f32")
    add(8, 8, 16, "bf16", "bf16", "f32")
    for k in (4, 8):
        add(16, 8, k, "tf32", "tf32", "f32")
    for m, k in ((16, 16), (16, 32), (8, 16)):
        for ta in ("s8", "u8"):
            for tb in ("s8", "u8"):
                add(m, 8, k, ta, tb, "s32")
    for tc in ("f16", "f32"):
        for ta in ("f8_e4m3", "f8_e5m2"):
            for tb in ("f8_e4m3", "f8_e5m2"):
                add(16, 8, 32, ta, tb, tc, sm=89)
    add(8, 8, 4, "f64", "f64", "f64")
    for k in (4, 8, 16):
        add(16, 8, k, "f64", "f64", "f64", sm=90)
    for t in ("f16", "bf16"):
        for k in (16, 32):
            add(16, 8, k, t, t, "f32", sparse=True)
    for ta in ("f8_e4m3", "f8_e5m2"):
        for tb in ("f8_e4m3", "f8_e5m2"):
            add(16, 8, 64, ta, tb, "f32", sparse=True, sm=89)
    return tuple(out)


FORMS = _forms()

_OPERAND_ALIASES = {"f32": "tf32", "f8": "f8_e4m3"}


def _operand(t: str) -> str:
    return _OPERAND_ALIASES.get(t, t)


def find_form(m: int, n: int, k: int, ta: str, tb: str, tc: str, sparse: bool = False) -> Optional[Form]:
    """The instruction of this shape and these element types, or None."""
    ta, tb = _operand(ta), _operand(tb)
    for f in FORMS:
        if (f.m, f.n, f.k, f.ta, f.tb, f.tc, f.sparse) == (m, n, k, ta, tb, tc, sparse):
            return f
    return None


def choose_shape(M: int, N: int, K: int, ta: str, tb: str, tc: str, sparse: bool = False,
                 sm: int = 90) -> Optional[Form]:
    """The instruction for an M x N x K tile (K dense): of those with these types that
    compute capability `sm` (90: every form; a target turns its ``-arch`` into this number)
    has and whose m, n, k divide M, N, K, an m16n8 one before an m8n8 one, then the
    largest; None where none fits."""
    ta, tb = _operand(ta), _operand(tb)
    fits = [f for f in FORMS
            if (f.ta, f.tb, f.tc, f.sparse) == (ta, tb, tc, sparse) and f.min_sm <= sm
            and M % f.m == 0 and N % f.n == 0 and K % f.k == 0]
    if not fits:
        return None
    return max(fits, key=lambda f: (f.m == 16, f.m * f.n * f.k))


# -- what the checker needs beyond the instruction table (frontend/sema/mma/) ---------------

# tiles one warp may hold besides one instruction's: the WMMA shapes (several mma.sync
# instructions each), as the reference accepts them
WMMA_TILES = {(t, shape) for t in ("f16", "bf16", "s8", "u8")
              for shape in ((16, 16, 16), (32, 8, 16), (8, 32, 16))} | {("tf32", (16, 16, 8)), ("f64", (8, 8, 4))}

# warp-group (wgmma) forms: M = 64, N a multiple of 8 up to 256; (A, B, accumulator): the
# instruction's k, as runtime/croktile_wgmma.h has them (its instruction_k)
_F8 = ("f8_e4m3", "f8_e5m2")
WGMMA_FORMS = {("f16", "f16", "f16"): 16, ("f16", "f16", "f32"): 16, ("bf16", "bf16", "f32"): 16,
               ("tf32", "tf32", "f32"): 8, **{(a, b, c): 32 for a in _F8 for b in _F8 for c in ("f16", "f32")}}


def default_accumulator(ta: str) -> str:
    """The accumulator of an untyped `mma.fill`: the input type where a form accumulates
    in it (f16, f64) or where the reference infers it (s32: A's type), else the type the
    instructions accumulate in."""
    if ta in ("f16", "f64", "s32"):
        return ta
    return "s32" if ta in ("s8", "u8") else "f32"


def has_forms(ta: str) -> bool:
    return any(f.ta == _operand(ta) for f in FORMS)


def warp_tile_ok(M: int, N: int, K: int, ta: str, sparse: bool) -> bool:
    """Whether one warp may hold this tile: an instruction's shape or a WMMA shape."""
    ta, shape = _operand(ta), (M, N, K)
    return any((f.m, f.n, f.k) == shape and f.ta == ta and f.sparse == sparse for f in FORMS) or \
        (not sparse and (ta, shape) in WMMA_TILES)


def wgmma_shape(M: int, N: int, K: int, ta: str, tb: str, tc: str) -> Optional[tuple]:
    """The warp-group instruction for a 64 x N tile of one warp group, or None."""
    k = WGMMA_FORMS.get((_operand(ta), _operand(tb), tc))
    if k is None or M != 64 or N % 8 or not 8 <= N <= 256 or K % k:
        return None
    return (64, N, k)


def wgmma_no_instruction(M: int, N: int, K: int, ta: str, tb: str, tc: str) -> str:
    """Why wgmma_shape gave None: the types, the tile or its K."""
    text = f"no warp-group (wgmma) instruction computes a {M} x {N} x {K} tile of {describe_types(ta, tb, tc)}"
    k = WGMMA_FORMS.get((_operand(ta), _operand(tb), tc))
    if k is None:
        return text + (": a warp group multiplies f16 x f16 -> f16 or f32, bf16 x bf16 -> f32, f32 (tf32) x f32 "
                       "-> f32 and f8_e4m3 or f8_e5m2 x f8_e4m3 or f8_e5m2 -> f16 or f32")
    if M == 64 and not N % 8 and 8 <= N <= 256:
        return text + f": its K is a multiple of the instruction's k, {k}"
    return text + ": a warp group's tile is 64 rows by 8 to 256 columns (a multiple of 8)"


def describe_types(ta: str, tb: str, tc: str) -> str:
    return f"{ta} x {tb} -> {tc}"


def _named(t: str) -> str:
    """A table type as the language names it."""
    return "f32" if t == "tf32" else t


def no_instruction(M: int, N: int, K: int, ta: str, tb: str, tc: str, sparse: bool = False) -> str:
    """Why no instruction multiplies this tile (choose_shape gave None), for every
    target's one diagnostic: the types that do not pair, the accumulators the operands
    take, or else the shape."""
    text = (f"no tensor-core instruction multiplies a {M} x {N} x {K} tile of "
            f"{describe_types(ta, tb, tc)}{' (sparse)' if sparse else ''}")
    a, b = _operand(ta), _operand(tb)
    forms = [f for f in FORMS if f.sparse == sparse]
    if not any((f.ta, f.tb) == (a, b) for f in forms):
        partners = sorted({_named(f.tb) for f in forms if f.ta == a})
        if not partners:
            return text + f": no {'sparse ' if sparse else ''}instruction takes {ta} operands"
        return text + f": an A operand of {ta} multiplies a B operand of {' or '.join(partners)}"
    accs = sorted({f.tc for f in forms if (f.ta, f.tb) == (a, b)})
    if tc not in accs:
        return text + f": {ta} x {tb} accumulates in {' or '.join(accs)}"
    return text


def accumulator_form(rows: int, cols: int, tc: str) -> Optional[Form]:
    """The instruction whose layout holds an accumulator that no multiply computes (it is
    only filled, loaded, updated and stored): an m16n8 one before an m8n8 one; None where
    no instruction accumulates in `tc` or none tiles rows x cols."""
    fits = [f for f in FORMS if f.tc == tc and not f.sparse and rows % f.m == 0 and cols % f.n == 0]
    return max(fits, key=lambda f: (f.m == 16, -f.min_sm, f.k), default=None)
