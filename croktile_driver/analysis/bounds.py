"""Upper bounds a program states for its shape symbols, and the storage they bound.

A thread's `local` buffer sized by a symbolic shape (`local f32 [N / 256] row;`) has a size
known only at run time; the device targets then give each thread a slice of a global
scratch buffer (and the cpu target a heap allocation), where a constant size is a register
array. The language's `assert` states a bound: `assert(N <= 4096, "...")` before the
`parallel` that declares the buffer makes its size at most 16, so it gets a 16-element array
(its elements still addressed by the run-time shape), and the assertion, a run-time check
at the call, guarantees the bound. A bound is taken from the function's top-level asserts
(a conjunction with `&&` gives several) of the forms `S <= c`, `S < c`, `c >= S`, `c > S`,
S a shape symbol of a parameter.
"""
from __future__ import annotations

from typing import Dict, Optional

from .. import ir
from ..ir.symbolic import Sym

CAPACITY_LIMIT_BYTES = 16 * 1024   # beyond this a bounded buffer stays where its size says


def stated_bounds(fn: ir.Function) -> Dict[str, int]:
    """Shape symbol -> the largest value the function's top-level asserts allow."""
    symbols = {b.symbol for b in fn.bindings}
    out: Dict[str, int] = {}
    for s in fn.body:
        if isinstance(s, ir.Parallel):
            break
        if isinstance(s, ir.Check) and s.message.startswith("assertion failed"):
            _collect(s.cond, symbols, out)
    return out


def _collect(cond: Sym, symbols, out: Dict[str, int]) -> None:
    if len(cond.terms) != 1:
        return
    (mono, coeff), = cond.terms.items()
    if coeff != 1 or len(mono) != 1:
        return
    atom = mono[0]
    if atom.op == "&&":
        for arg in atom.args:
            _collect(arg, symbols, out)
        return
    if atom.op not in ("<=", "<", ">=", ">") or len(atom.args) != 2:
        return
    lhs, rhs = atom.args
    op = atom.op
    if op in (">=", ">"):   # c >= S is S <= c
        lhs, rhs, op = rhs, lhs, "<=" if op == ">=" else "<"
    name = _symbol(lhs, symbols)
    if name is None or not rhs.is_const:
        return
    bound = rhs.value - (1 if op == "<" else 0)
    out[name] = min(out.get(name, bound), bound)


def _symbol(value: Sym, symbols) -> Optional[str]:
    if len(value.terms) == 1:
        (mono, coeff), = value.terms.items()
        if coeff == 1 and len(mono) == 1 and mono[0].op == "var" and mono[0].name in symbols:
            return mono[0].name
    return None


def upper_bound(value: Sym, bounds: Dict[str, int]) -> Optional[int]:
    """The largest value of a size expression (shape symbols are never negative) when every
    symbol in it is bounded; None where the expression is not monotonic in them."""
    total = 0
    for mono, coeff in value.terms.items():
        if coeff < 0:
            return None
        term = coeff
        for atom in mono:
            ub = _atom_bound(atom, bounds)
            if ub is None or ub < 0:
                return None
            term *= ub
        total += term
    return total


def _atom_bound(atom, bounds: Dict[str, int]) -> Optional[int]:
    if atom.op == "var":
        return bounds.get(atom.name)
    if atom.op == "/" and atom.args[1].is_const and atom.args[1].value > 0:
        num = upper_bound(atom.args[0], bounds)
        return None if num is None else num // atom.args[1].value
    if atom.op == "%" and atom.args[1].is_const and atom.args[1].value > 0:
        return atom.args[1].value - 1
    return None


def bound_local_buffers(fn: ir.Function) -> None:
    """Gives each run-time sized `local` buffer of an inner level whose size the stated
    bounds limit a ``capacity`` (elements): the targets allocate that many statically."""
    bounds = stated_bounds(fn)
    if not bounds:
        return
    for b in fn.buffers:
        if b.level < 2 or b.storage != "local" or all(d.is_const for d in b.shape):
            continue
        count = Sym.const(1)
        for d in b.shape:
            count = count * d
        ub = upper_bound(count, bounds)
        if ub is not None and 0 < ub * b.elem_bytes <= CAPACITY_LIMIT_BYTES:
            b.capacity = ub
