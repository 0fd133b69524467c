"""Copies written as loops the target compiler sees through.

A `dma.copy` of one box (``copy_dims``, ``write_host_copy``) is split into a contiguous
run (the trailing dimensions that are whole in both buffers, merged) and the strided
dimensions around it (extents of 1 dropped). Written as a loop nest over the strided
dimensions around an element loop over the run, with sizes that are constants wherever
the shapes are, the C++ compiler unrolls and vectorises it and keeps small buffers in
registers; a call of a generic box copy with shape arrays hides all of that.

`dma.transp`, `dma.pad` and copies from or to a partial tile (zeros where the source
leaves its data, no write where the destination does), which no box copy expresses, are element loops
(``element_loops``), which every target writes the same way: one loop per destination
dimension, and a body that computes the source element (or the padding value) of each
destination element. Each destination element is independent, so a target may share the
loops among the threads of a block (``write_shared_loops``). The copy is complete when the
loops end: its future, if any, waits for nothing.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, List, Tuple

from .. import ir
from ..ir.symbolic import Sym
from .kernel_emitter import product, strides


def copy_dims(s: ir.Dma) -> Tuple[List[int], Sym, List[Sym], List[Sym]]:
    """(strided dimensions, contiguous run, source strides, destination strides) of a copy:
    trailing dimensions whole in both buffers merge into the run, extents of 1 drop out."""
    ext = list(s.src.extents)
    k = len(ext) - 1
    while k > 0 and ext[k] == s.src.shape[k] and ext[k] == s.dst.shape[k]:
        k -= 1
    dims = [d for d in range(k) if not (ext[d].is_const and ext[d].value == 1)]
    return dims, product(ext[k:]), strides(s.src.shape), strides(s.dst.shape)


def write_host_copy(w: Callable[[int, str], None], depth: int, s: ir.Dma, dst: str, src: str, ctype: str,
                    expr: Callable[[Sym], str]) -> None:
    """The copy in C++ (`dst`, `src`: pointers to the boxes' first elements): a loop per
    strided dimension around an element loop over the run (memmove within one buffer)."""
    dims, run, sst, dstr = copy_dims(s)
    overlap = s.src.buffer is s.dst.buffer
    restrict = "" if overlap else " __restrict__"
    w(depth, "{")
    w(depth + 1, f"{ctype}*{restrict} const croktile_d = {dst};")
    w(depth + 1, f"const {ctype}*{restrict} const croktile_s = {src};")
    for n, d in enumerate(dims):
        w(depth + 1 + n, f"for (long long croktile_i{d} = 0; croktile_i{d} < {expr(s.src.extents[d])}; "
                         f"++croktile_i{d})")
    src_off = " + ".join(f"croktile_i{d} * ({expr(sst[d])})" for d in dims) or "0"
    dst_off = " + ".join(f"croktile_i{d} * ({expr(dstr[d])})" for d in dims) or "0"
    run_loop = f"for (long long croktile_e = 0; croktile_e < {expr(run)}; ++croktile_e)"
    if overlap:   # within one buffer the boxes may overlap: as memmove
        w(depth + 1 + len(dims), f"std::memmove(croktile_d + {dst_off}, croktile_s + {src_off}, "
                                 f"(std::size_t)({expr(run)}) * sizeof({ctype}));")
    else:         # typed stores: the compiler knows they leave the index variables alone
        w(depth + 1 + len(dims), f"{run_loop} croktile_d[{dst_off} + croktile_e] = croktile_s[{src_off} + croktile_e];")
    w(depth, "}")


def _p(text: str) -> str:
    return f"({text})"


def whole_conditions(s: ir.Dma) -> List[Sym]:
    """What makes a copy's partial tiles whole at run time: each crossing dimension ends
    inside its data."""
    return [(r.offsets[d] + r.extents[d]).op("<=", r.limits[d])
            for r in (s.src, s.dst) for d in range(len(r.extents)) if r.crosses(d)]


def whole_copy(s: ir.Dma) -> "ir.Dma | None":
    """The same copy of whole tiles (for the run-time test of ``whole_conditions``), for a
    plain copy from or to a partial tile; None otherwise."""
    if s.op is not ir.DmaOp.COPY or not (s.src.partial or s.dst.partial):
        return None
    return dataclasses.replace(s, src=dataclasses.replace(s.src, limits=None),
                               dst=dataclasses.replace(s.dst, limits=None))


def element_loops(s: ir.Dma, ptr: Callable[[ir.Buffer], str], expr: Callable[[Sym], str],
                  ctype: str, index: str = "long long") -> Tuple[List[Tuple[str, Sym]], str]:
    """(loop variables with their trip counts, the statement for one element); the body
    reads the loop variables `croktile_i<d>` over the destination box."""
    rank = len(s.dst.extents)
    names = [f"croktile_i{d}" for d in range(rank)]
    # a partial destination is written only where it lies in its data
    loops = [(n, s.dst.valid_extent(d)) for d, n in enumerate(names)]
    dst_st, src_st = strides(s.dst.shape), strides(s.src.shape)
    dst_at = " + ".join(f"({_p(expr(o))} + {n}) * {_p(expr(st))}"
                        for o, n, st in zip(s.dst.offsets, names, dst_st))
    dst = f"{ptr(s.dst.buffer)}[{dst_at}]"
    if s.op is ir.DmaOp.COPY:   # from or to a partial tile: zeros for the source's elements past its data
        src_at = " + ".join(f"({_p(expr(o))} + {n}) * {_p(expr(st))}"
                            for o, n, st in zip(s.src.offsets, names, src_st))
        read = f"{ptr(s.src.buffer)}[{src_at}]"
        if not s.src.partial:
            return loops, f"{dst} = {read};"
        cond = " && ".join(_p(f"{_p(expr(s.src.offsets[d]))} + {n} < {_p(expr(s.src.limits[d]))}")
                           for d, n in enumerate(names) if s.src.crosses(d))
        return loops, f"{dst} = ({cond or '1'}) ? {read} : ({ctype})0;"
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
