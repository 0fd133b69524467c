"""Element loops of `dma.transp` and `dma.pad`, which no box copy expresses.

Every target writes them the same way: one loop per destination dimension, and a body
that computes the source element (or the padding value) of each destination element.
Each destination element is independent, so a target may share the loops among the
threads of a block. The copy is complete when the loops end: its future, if any, waits
for nothing.
"""
from __future__ import annotations

from typing import Callable, List, Tuple

from .. import ir
from ..ir.symbolic import Sym


def _strides(shape: List[Sym]) -> List[Sym]:
    out, acc = [], Sym.const(1)
    for d in reversed(shape):
        out.append(acc)
        acc = acc * d
    return list(reversed(out))


def _p(text: str) -> str:
    return f"({text})"


def element_loops(s: ir.Dma, ptr: Callable[[ir.Buffer], str], expr: Callable[[Sym], str],
                  ctype: str, index: str = "long long") -> Tuple[List[Tuple[str, Sym]], str]:
    """(loop variables with their trip counts, the statement for one element); the body
    reads the loop variables `croktile_i<d>` over the destination box."""
    rank = len(s.dst.extents)
    names = [f"croktile_i{d}" for d in range(rank)]
    loops = list(zip(names, s.dst.extents))
    dst_st, src_st = _strides(s.dst.shape), _strides(s.src.shape)
    dst_at = " + ".join(f"({_p(expr(o))} + {n}) * {_p(expr(st))}"
                        for o, n, st in zip(s.dst.offsets, names, dst_st))
    dst = f"{ptr(s.dst.buffer)}[{dst_at}]"
    if s.op is ir.DmaOp.TRANSP:
        idx = [""] * rank
        for k, d in enumerate(s.perm):
            idx[d] = names[k]        # destination dimension k walks source dimension perm[k]
        src_at = " + ".join(f"({_p(expr(o))} + {i}) * {_p(expr(st))}"
                            for o, i, st in zip(s.src.offsets, idx, src_st))
        return loops, f"{dst} = {ptr(s.src.buffer)}[{src_at}];"
    low, _high, mid, value = s.pad
    conds, idx = [], []
    for d in range(rank):
        t = f"({index})({names[d]} - {_p(expr(low[d]))})"
        step = _p(expr(mid[d] + Sym.const(1)))
        conds.append(f"{t} >= 0 && {t} % {step} == 0 && {t} / {step} < {_p(expr(s.src.extents[d]))}")
        idx.append(f"{t} / {step}")
    src_at = " + ".join(f"({_p(expr(o))} + {i}) * {_p(expr(st))}"
                        for o, i, st in zip(s.src.offsets, idx, src_st))
    fill = value if isinstance(value, str) else expr(value)
    cond = " && ".join(_p(c) for c in conds)
    return loops, f"{dst} = ({cond}) ? {ptr(s.src.buffer)}[{src_at}] : ({ctype})({fill});"


def write_loops(w: Callable[[int, str], None], depth: int, loops: List[Tuple[str, Sym]], body: str,
                expr: Callable[[Sym], str], index: str = "long long") -> None:
    """The loop nest, one thread doing every element."""
    w(depth, "{")
    for n, (v, e) in enumerate(loops):
        w(depth + 1 + n, f"for ({index} {v} = 0; {v} < {expr(e)}; ++{v})")
    w(depth + 1 + len(loops), body)
    w(depth, "}")


def write_shared_loops(w: Callable[[int, str], None], depth: int, loops: List[Tuple[str, Sym]], body: str,
                       expr: Callable[[Sym], str], tid: str, nthreads: str, index: str = "long long") -> None:
    """The loop nest flattened and shared among the threads of a block, element by element."""
    total = " * ".join(_p(expr(e)) for _, e in loops) or "1"
    w(depth, "{")
    w(depth + 1, f"for ({index} croktile_t = {tid}; croktile_t < {total}; croktile_t += {nthreads}) {{")
    rest = "croktile_t"
    for v, e in reversed(loops):
        w(depth + 2, f"const {index} {v} = {rest} % {_p(expr(e))};")
        rest = f"({rest} / {_p(expr(e))})"
    w(depth + 2, body)
    w(depth + 1, "}")
    w(depth, "}")
