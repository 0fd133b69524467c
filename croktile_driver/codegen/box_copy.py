"""A `dma.copy` of one box as loops the target compiler sees through.

The box is split into a contiguous run (the trailing dimensions that are whole in both
buffers, merged) and the strided dimensions around it (extents of 1 dropped). Written
as a loop nest over the strided dimensions around an element loop over the run, with sizes that
are constants wherever the shapes are, the C++ compiler unrolls and vectorises it and
keeps small buffers in registers; a call of a generic box copy with shape arrays hides
all of that.
"""
from __future__ import annotations

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
