"""Instances of a function over symbolic shapes: compiled again for the divisibility
class its tiles need, and chosen at the call.

A tile of a symbolic dimension is usually written as a division by a constant
(`parallel q by N / 1024`, `chunkat(jn # q)`): its chunk extent `N / (256 * (N / 1024))`
is 4 whenever 1024 divides N, but a run-time expression otherwise, and a run-time
extent costs the generated code its registers, its vector copies and its unrolled
loops. So each function whose shapes divide a bound symbol by constants gets one more
instance, where the symbol is replaced by `c * (N / c)` (c: the least common multiple of
its divisors): the polynomial form then folds every extent that the tiling makes
constant, checks that the assumption proves drop out, and the instance is the code the
same program with constant shapes gets. The function itself starts with a `Dispatch`:
when every assumption holds for the call's shapes it returns the instance's result;
otherwise its generic body runs, which is right for every shape. An instance is made
only where it pays: where it makes an extent, a buffer dimension or a loop count of the
kernels constant.
"""
from __future__ import annotations

import copy
import dataclasses
from math import lcm
from typing import Dict, Iterator, List, Optional, Tuple

from .. import ir
from .bounds import bound_local_buffers
from .fills import plan_fills
from ..ir.dataclass import dataclass
from ..ir.symbolic import Sym


@dataclass(eq=False)
class Dispatch(ir.Stmt):
    """`if (cond) return callee(the same arguments);`: the call takes a faster instance."""
    cond: Sym
    callee: str
    why: str


SMALL_EXTENTS = (1, 2, 4, 8)   # thread-buffer extents that get an instance of their own


def with_instances(module: Optional[ir.Module]) -> Optional[ir.Module]:
    """The module the code generators get: each function that has paying instances is a
    copy that starts with their Dispatches (the most specific first) and lists them in
    ``instances`` (emitted before it); the instances are functions of the module too
    (kernels, device code)."""
    if module is None:
        return None
    out: List[ir.Function] = []
    for fn in module.functions:
        made = instances(fn)
        if not made:
            out.append(fn)
            continue
        head = copy.copy(fn)
        head.body = [Dispatch(fn.loc, cond, inst.name, why) for inst, cond, why in made] + list(fn.body)
        head.instances = [inst for inst, _, _ in made]
        out += head.instances + [head]
    return ir.Module(out)


def instances(fn: ir.Function) -> List[Tuple[ir.Function, Sym, str]]:
    """(instance, the condition that selects it, why) for each instance that pays: one for
    the divisibility class the tiles need, and beside it one per small extent of a thread
    buffer that would otherwise be sized at run time (and live in global scratch)."""
    divisors = symbol_divisors(fn)
    mapping = {name: Sym.const(c) * Sym.var(name).op("/", c) for name, c in divisors.items()}

    def divisible_except(skip: str):
        cond, tests = Sym.const(1), []
        for name, c in divisors.items():
            if name != skip:
                cond = _and(cond, Sym.var(name).op("%", c).op("==", 0))
                tests.append(f"{c} divides {name}")
        return cond, tests
    plans = []
    for name, c in scratch_extent_symbols(substituted(fn, mapping) if divisors else fn):
        cond, tests = divisible_except(name)
        for v in SMALL_EXTENTS:
            plans.append(({**mapping, name: Sym.const(c * v)}, _and(Sym.var(name).op("==", c * v), cond),
                          [f"{name} is {c * v}"] + tests))
    if divisors:
        plans.append((mapping, *divisible_except("")))
    made = []
    before = run_time_sizes(fn)
    for mapping, cond, tests in plans:
        inst = substituted(fn, mapping)
        after = run_time_sizes(inst)
        if after >= before:
            continue
        inst.name = f"{fn.name}__v{len(made) + 1}"
        inst.instance_of = fn.name
        inst.body = [s for s in inst.body if not (isinstance(s, ir.Check) and s.cond.is_const and s.cond.value)]
        made.append((inst, cond, f"the call takes instance {inst.name} when {' and '.join(tests)} ({before - after} "
                                 f"of {before} run-time extents, buffer dimensions and loop counts become constants; "
                                 f"{scratch_text(inst)})"))
    return [(inst, cond, why + (", else the next" if k + 1 < len(made) else
                                f", else the generic body ({scratch_text(fn)})"))
            for k, (inst, cond, why) in enumerate(made)]


def _and(a: Sym, b: Sym) -> Sym:
    return b if a.is_const else a.op("&&", b)


def scratch_extent_symbols(fn: ir.Function) -> List[Tuple[str, int]]:
    """(symbol S, c) for each thread-buffer dimension sized at run time as `S / c` or `S`
    (c = 1), S a bound shape symbol: S = c * v makes that dimension v."""
    symbols = {b.symbol for b in fn.bindings}
    out: List[Tuple[str, int]] = []
    for b in run_time_thread_buffers(fn):
        for d in b.shape:
            found = _symbol_over_const(d, symbols)
            if found is not None and found not in out:
                out.append(found)
    return out


def _symbol_over_const(d: Sym, symbols) -> Optional[Tuple[str, int]]:
    if len(d.terms) != 1:
        return None
    (mono, coeff), = d.terms.items()
    if coeff != 1 or len(mono) != 1:
        return None
    atom = mono[0]
    if atom.op == "var" and atom.name in symbols:
        return atom.name, 1
    if atom.op == "/" and atom.args[1].is_const and atom.args[1].value > 0:
        inner = _symbol_over_const(atom.args[0], symbols)
        if inner is not None and inner[1] == 1:
            return inner[0], atom.args[1].value
    return None


def symbol_divisors(fn: ir.Function) -> Dict[str, int]:
    """Bound shape symbols divided (or taken modulo) by constants: symbol -> their lcm."""
    symbols = {b.symbol for b in fn.bindings}
    out: Dict[str, int] = {}
    if not symbols:   # static shapes: nothing to look for in the function's values
        return out
    for value in _syms(fn):
        for atom in _atoms(value):
            if atom.op not in ("/", "%") or len(atom.args) != 2:
                continue
            num, den = atom.args
            if not (den.is_const and den.value >= 2 and len(num.terms) == 1):
                continue
            (mono, coeff), = num.terms.items()
            if coeff == 1 and len(mono) == 1 and mono[0].op == "var" and mono[0].name in symbols:
                out[mono[0].name] = lcm(out.get(mono[0].name, 1), den.value)
    return dict(sorted(out.items()))


def run_time_sizes(fn: ir.Function) -> int:
    """How many sizes of the function's kernels are known only at run time: dimensions of
    its non-global buffers, extents of its copies, counts of its loops."""
    count = sum(1 for b in fn.buffers if b.storage != "global" for d in b.shape if not d.is_const)
    for s in fn.walk():
        if isinstance(s, ir.Dma):
            count += sum(1 for e in s.src.extents if not e.is_const)
        elif isinstance(s, ir.Loop):
            count += 0 if s.count.is_const else 1
    return count


def run_time_thread_buffers(fn: ir.Function) -> List[ir.Buffer]:
    """Buffers of one inner-level instance whose size is known only at run time: the
    cuda and opencl targets give each thread a slice of a global scratch buffer for them
    (the cpu target a heap allocation), where a constant size is a register array."""
    return [b for b in fn.buffers if b.level >= 2 and b.storage == "local" and b.capacity is None
            and not all(d.is_const for d in b.shape)]


def scratch_text(fn: ir.Function) -> str:
    bufs = run_time_thread_buffers(fn)
    if not bufs:
        return "no buffer in global scratch"
    return "in global scratch: " + ", ".join(
        f"'{b.source_name or b.name}' [{', '.join(d.to_c() for d in b.shape)}]" for b in bufs)


def report(module: Optional[ir.Module]) -> List[str]:
    """--memory-report: for each function over symbolic shapes, which instance a call takes
    and why, and which buffers stay in global scratch."""
    out = []
    for fn in module.functions if module is not None else []:
        whys = [s.why for s in fn.body if isinstance(s, Dispatch)]
        if whys:
            what = "; ".join(whys)
        elif fn.bindings and not getattr(fn, "instance_of", None) and run_time_thread_buffers(fn):
            what = f"no instance pays; {scratch_text(fn)}"
        else:
            continue
        out.append(f"{fn.loc.file}:{fn.loc.line}:{fn.loc.col}: '{fn.name}': {what}")
    return out


# -- copying a function with its symbols replaced --------------------------------------

def substituted(fn: ir.Function, mapping: Dict[str, Sym]) -> ir.Function:
    """A deep copy of `fn` (its own buffers, statements and parameters) in which every
    symbolic value has `mapping` applied (and is folded again)."""
    memo: Dict[int, object] = {}
    cache: Dict[str, Sym] = {}

    def sym(value: Sym) -> Sym:
        key = value.key()
        if key not in cache:
            cache[key] = value.substitute(mapping)
        return cache[key]

    def remap(obj):
        if isinstance(obj, Sym):
            return sym(obj)
        if isinstance(obj, list):
            return [remap(x) for x in obj]
        if isinstance(obj, tuple):
            return tuple(remap(x) for x in obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and not obj.__dataclass_params__.frozen:
            if id(obj) in memo:
                return memo[id(obj)]
            new = copy.copy(obj)
            memo[id(obj)] = new
            for f in dataclasses.fields(obj):
                setattr(new, f.name, remap(getattr(obj, f.name)))
            return new
        return obj
    out = remap(fn)
    if mapping:
        # extents that folded may now show every element written (no zero fill needed)
        # and sizes may now have a stated bound
        out.body = _without_implicit_fills(out.body)
        plan_fills(out, None)
        bound_local_buffers(out)
    return out


def _without_implicit_fills(stmts: List[ir.Stmt]) -> List[ir.Stmt]:
    kept = []
    for s in stmts:
        if isinstance(s, ir.Fill) and s.implicit:
            continue
        if getattr(s, "body", None):
            s.body = _without_implicit_fills(s.body)
        kept.append(s)
    return kept


def _syms(obj, seen=None) -> Iterator[Sym]:
    """Every symbolic value reachable from an IR object."""
    seen = set() if seen is None else seen
    if isinstance(obj, Sym):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _syms(x, seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type) and id(obj) not in seen:
        seen.add(id(obj))
        for f in dataclasses.fields(obj):
            yield from _syms(getattr(obj, f.name), seen)


def _atoms(value: Sym):
    for mono in value.terms:
        for atom in mono:
            yield atom
            for arg in atom.args:
                yield from _atoms(arg)
