"""What the cuda target needs of tensor-core operations, checked before any code is
written: an instruction for every multiply, an architecture that has it, and a warp
(`: group` level) to run it."""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ... import ir
from ...ir.symbolic import Sym
from ...codegen.fragments import swizzled_buffers

MMA_KINDS = (ir.MmaFill, ir.MmaLoad, ir.MmaStore, ir.MmaMul, ir.FragUpdate, ir.FragOp)


def arch_number(arch: Optional[str]) -> Optional[int]:
    m = re.fullmatch(r"(?:sm|compute)_(\d+)a?", arch or "")
    return int(m.group(1)) if m else None


def check_mma(module: ir.Module, diag, arch: Optional[str], named: Optional[str] = None) -> None:
    """What one architecture needs (`named`: it as messages name it; "-arch=ARCH" unless given)."""
    number = arch_number(arch)
    for fn in module.functions:
        _check_stmts(fn.body, [], diag, (arch, named or f"-arch={arch}"), number, {})


def check_mma_shapes(module: ir.Module, diag) -> None:
    """What every architecture needs: swizzles that agree, boxes the copy engine takes."""
    for fn in module.functions:
        _check_swizzles(fn, diag)
        _check_tma_boxes(fn, diag)


TMA_MAX_RANK = 5
TMA_MAX_BOX = 256   # elements per box dimension


def _check_tma_boxes(fn: ir.Function, diag) -> None:
    """A `tma.copy` is one bulk tensor copy of a box of global memory: the copy engine takes
    a rank of at most 5, at most 256 elements per box dimension, an innermost box dimension
    of whole 16 bytes and global rows of whole 16 bytes (what is known at compile time is
    checked here)."""
    for s in ir.walk(fn.body):
        if not (isinstance(s, ir.Dma) and s.engine is ir.CopyEngine.TMA):
            continue
        side = s.src if s.src.buffer.storage == "global" else s.dst
        if side.buffer.storage != "global":
            continue
        size = side.buffer.elem_bytes
        name = side.buffer.source_name or side.buffer.name
        if len(side.shape) > TMA_MAX_RANK:
            diag.error(s.loc, f"a 'tma.copy' moves a box of rank at most {TMA_MAX_RANK}; '{name}' has rank "
                              f"{len(side.shape)}")
            continue
        for d, e in enumerate(side.extents):
            if e.is_const and e.value > TMA_MAX_BOX:
                diag.error(s.loc, f"dimension {d} of this 'tma.copy' box is {e.value} elements; the copy engine "
                                  f"moves at most {TMA_MAX_BOX} per dimension (split the copy)")
                return
        inner = side.extents[-1]
        if inner.is_const and inner.value * size % 16:
            diag.error(s.loc, f"the innermost dimension of this 'tma.copy' box is {inner.value * size} bytes; the "
                              "copy engine moves whole multiples of 16 bytes")
            continue
        row = side.shape[-1]
        if len(side.shape) >= 2 and row.is_const and row.value * size % 16:
            diag.error(s.loc, f"rows of '{name}' are {row.value * size} bytes; a 'tma.copy' needs global rows of "
                              "whole multiples of 16 bytes")


def _check_swizzles(fn: ir.Function, diag) -> None:
    """A `.swiz<N>` copy into shared memory writes rows of N bytes in the swizzled layout,
    and a warp group's operand is read through it: both must agree."""
    written = swizzled_buffers(fn)
    for s in ir.walk(fn.body):
        if isinstance(s, ir.Dma) and s.swizzle and s.dst.buffer.storage == "shared":
            cols = s.dst.extents[-1]   # the source's equal it (a checked copy), perhaps only at run time
            if len(s.dst.extents) < 2 or not cols.is_const or cols.value * s.dst.buffer.elem_bytes != s.swizzle \
                    or not s.dst.is_whole:
                diag.error(s.loc, f"on the cuda target a '.swiz<{s.swizzle}>' copy fills a whole shared buffer "
                                  f"whose rows are {s.swizzle} bytes")
        if isinstance(s, ir.MmaLoad) and s.ref.frag.engine is ir.MmaEngine.WGMMA and \
                written.get(s.src.buffer.name) != s.swizzle:
            diag.error(s.loc, f"'{s.src.buffer.source_name or s.src.buffer.name}' must be written by a "
                              f"'.swiz<{s.swizzle}>' copy for a warp group to read it with 'mma.load.swiz<{s.swizzle}>'")


def _check_stmts(stmts: List[ir.Stmt], stack: List[ir.Parallel], diag, arch, number,
                 made_of_warp_groups: Dict[int, bool]) -> None:
    """``arch``: the architecture and its name in messages; ``made_of_warp_groups``: each
    launch's verdict (by id), found at its first wgmma."""
    for s in stmts:
        if isinstance(s, ir.Parallel):
            _check_stmts(s.body, stack + [s], diag, arch, number, made_of_warp_groups)
            continue
        if getattr(s, "body", None):
            _check_stmts(s.body, stack, diag, arch, number, made_of_warp_groups)
        if not isinstance(s, MMA_KINDS):
            continue
        frag = s.c.frag if isinstance(s, ir.MmaMul) else s.ref.frag
        if frag.engine is ir.MmaEngine.WGMMA:
            _check_wgmma(s, stack, diag, arch, made_of_warp_groups)
            continue
        if isinstance(s, ir.FragOp):
            diag.error(s.loc, "on the cuda target the row operations (mma.row.*, mma.exp, mma.mask.causal, mma.cvt) "
                              "work on a warp group's accumulator (a 'parallel ... : group-4' level, sm_90a); a "
                              "warp's (mma.sync) are not supported yet")
            continue
        in_warp = len(stack) >= 2 and stack[1].kind == "group" and stack[1].count.is_const
        if not in_warp and not isinstance(s, ir.MmaFill):   # a fill is each thread's registers
            diag.error(s.loc, "on the cuda target a tensor-core operation runs in a warp: inside a "
                              "'parallel ... : group' level of constant size directly inside the block level")
            continue
        if isinstance(s, ir.MmaMul):   # (sema chose the instruction; the arch must have it)
            a, b, c, form = s.a.frag, s.b.frag, s.c.frag, s.form
            if number is not None and form.min_sm > number:
                diag.error(s.loc, f"mma.sync m{form.m}n{form.n}k{form.k} of {a.elem} x {b.elem} -> {c.elem} needs "
                                  f"sm_{form.min_sm} or newer; {arch[1]} has no such instruction")


MAX_WARP_GROUPS = 8   # 1024 threads


def _check_wgmma(s: ir.Stmt, stack: List[ir.Parallel], diag, arch: Tuple[Optional[str], str],
                 made_of_warp_groups: Dict[int, bool]) -> None:
    """wgmma is sm_90a's; each warp group holds its own part of an accumulator, so a block
    that uses it is made of warp groups (see _made_of_warp_groups), judged once a launch:
    walking it again at each statement made n statements cost O(n^2)."""
    if not (arch[0] or "").endswith("a") or (arch_number(arch[0]) or 0) < 90:
        diag.error(s.loc, f"warp-group tensor-core operations (wgmma) need -arch=sm_90a; {arch[1]} has none")
        return
    launch = stack[0] if stack else None
    key = id(launch)
    if key not in made_of_warp_groups:
        made_of_warp_groups[key] = _made_of_warp_groups(launch)
    if not made_of_warp_groups[key]:
        diag.error(s.loc, "on the cuda target a block that uses wgmma is made of warp groups: its inner levels "
                          f"must be 'parallel p by G : group-4', all with the same constant G (1 to {MAX_WARP_GROUPS}), "
                          "each with at most a ': thread' level of 128 right inside")


def _made_of_warp_groups(launch: Optional[ir.Parallel]) -> bool:
    """The launch's inner levels are `group-4` levels, all of one constant count (a thread
    is in the same warp group in each); a `: thread` level of 128 right inside one is its
    warp group's threads (element work beside the multiplies: gemm_skinny's transposed
    epilogue)."""
    inner = [p for p in ir.walk(launch.body) if isinstance(p, ir.Parallel)] if launch is not None else []
    threads = {id(t) for p in inner if p.kind == "group-4" for t in p.body
               if isinstance(t, ir.Parallel) and t.kind == "thread" and t.count == Sym.const(128)}
    inner = [p for p in inner if id(p) not in threads]
    counts = {p.count.value for p in inner if p.count.is_const}
    return bool(inner) and all(p.kind == "group-4" and p.count.is_const for p in inner) and len(counts) == 1 \
        and 1 <= min(counts) <= MAX_WARP_GROUPS
