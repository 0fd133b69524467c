"""Facts about kernels that every device target's generator needs.

Row-major strides and offsets of regions, the statements of a launch with the
level each sits in, and which scalars a kernel must receive from the host.
"""
from __future__ import annotations

import re
from typing import List, Optional, Set

from ..frontend import ir
from ..frontend.symbolic import Sym
from .base import sym_c


def matching(text: str, pos: int, open_c: str, close_c: str) -> int:
    """Index of the bracket that closes the one at `pos`, or -1."""
    depth = 0
    for k in range(pos, len(text)):
        if text[k] == open_c:
            depth += 1
        elif text[k] == close_c:
            depth -= 1
            if depth == 0:
                return k
    return -1


def dev_expr(s: Sym) -> str:
    return sym_c(s).replace("std::min<long long>(", "croktile_min(").replace("std::max<long long>(", "croktile_max(")


def product(dims: List[Sym]) -> Sym:
    total = Sym.const(1)
    for d in dims:
        total = total * d
    return total


def sym_vars(s: Optional[Sym]) -> Set[str]:
    return set(s.variables()) if s is not None else set()


def strides(shape: List[Sym]) -> List[Sym]:
    out = [Sym.const(1)] * len(shape)
    acc = Sym.const(1)
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc = acc * shape[d]
    return out


def linear(offsets: List[Sym], shape: List[Sym]) -> Sym:
    total = Sym.const(0)
    for off, st in zip(offsets, strides(shape)):
        total = total + off * st
    return total


def walk_levels(stmts: List[ir.Stmt], level: int):
    """(stmt, level of the code it sits in) for every statement below."""
    for s in stmts:
        yield s, level
        body = getattr(s, "body", None)
        if body:
            yield from walk_levels(body, s.level if isinstance(s, ir.Parallel) else level)


def paren(text: str) -> str:
    """`text` as one operand: parenthesised unless it is a name, a number or one (...) group."""
    if re.fullmatch(r"[\w.]+", text) or (text.startswith("(") and matching(text, 0, "(", ")") == len(text) - 1):
        return text
    return f"({text})"


def shape_vars(b: ir.Buffer) -> Set[str]:
    out: Set[str] = set()
    for d in b.shape:
        out |= sym_vars(d)
    return out


def kernel_free_names(stmts_with_levels) -> List[str]:
    """Scalars a kernel reads but does not define: the host values it takes as arguments."""
    used: Set[str] = set()
    defined: Set[str] = set()
    bufs: List[ir.Buffer] = []
    for s, _ in stmts_with_levels:
        if isinstance(s, ir.Parallel):
            defined.add(s.var)
            used |= sym_vars(s.count)
            bufs += s.buffers
        elif isinstance(s, ir.Loop):
            defined.add(s.var)
            used |= sym_vars(s.count)
        elif isinstance(s, ir.If):
            used |= sym_vars(s.cond)
        elif isinstance(s, ir.ScalarDef):
            defined.add(s.name)
            used |= sym_vars(s.value)
        elif isinstance(s, ir.Assign):
            used |= sym_vars(s.value)
        elif isinstance(s, ir.Dma):
            for r in (s.src, s.dst):
                bufs.append(r.buffer)
                for x in r.offsets + r.extents:
                    used |= sym_vars(x)
        elif isinstance(s, ir.Call):
            for a in s.args:
                used |= sym_vars(a.value)
                if a.region is not None:
                    bufs.append(a.region.buffer)
                    for x in a.region.offsets:
                        used |= sym_vars(x)
            for t in s.template_args or []:
                used |= sym_vars(t)
        elif isinstance(s, ir.Check):
            used |= sym_vars(s.cond)
            for v in s.values:
                used |= sym_vars(v)
    for b in bufs:
        for d in b.shape:
            used |= sym_vars(d)
    return sorted(used - defined)


def host_level_names(fn: ir.Function, entry_names: Set[str]) -> Set[str]:
    """Names defined at host level (level 0): what a kernel may take from the host."""
    names = set(entry_names)
    for s, level in walk_levels(fn.body, 0):
        if level == 0 and isinstance(s, ir.ScalarDef):
            names.add(s.name)
        if level == 0 and isinstance(s, ir.Loop):
            names.add(s.var)
    return names
