"""`shared` data belongs to a block: one buffer per instance of the launch level.

The reference compiler maps `shared` to CUDA's `__shared__` memory: data declared
`shared` (or copied `=> shared`) inside an inner level (`: group`, `: thread`, or any
level below the launch) is ONE buffer per block that every inner instance reads and
writes, not a buffer per inner instance (events.md: "parallel p by 2 { // shared level").
This pass rewrites the IR so that every target sees that rule as data of the launch
level, and code generators need no notion of it:

- an outermost level annotated `: group-4`, `: group` or `: thread` that holds `shared`
  data runs inside an implicit launch of one block (the reference puts such a level into
  one block), so its instances share that data;
- `shared` buffers of inner levels move to the launch level (``Parallel.buffers``, level
  1), their `alloc` to just before the inner level that declared them, so one memory
  planner places them with the block's other buffers;
- a statement of an inner level that is the same for every instance and touches block
  data (a copy into or out of `shared` data, the fill of its initialiser, a `wait` of
  such copies, a `swap` of them) is a step of the whole block: the inner level is split
  around it (`parallel q {A; S; B}` becomes `parallel q {A}; S; parallel q {B}`), also
  where S sits in a loop or `if` that is alike in every instance (the block runs that
  loop, with the level split inside it). Entering and leaving a level is a block-wide
  barrier on every target, so what the instances wrote before S is complete when S
  reads it, and S's data is there before they read it; every thread of the block takes
  part in S, so no barrier sits under divergent code. Each part must hold its own
  per-instance values; scalars defined once at the top of the level are recomputed in
  each part. Where another per-instance value (a `local` buffer, a reassigned scalar, a
  future) is used on both sides of a step, or the step sits in a loop, `if` or level of
  each instance, the level is not split and a warning says the step runs in every
  instance.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Dict, List, Optional, Set, Tuple

from .. import ir
from ..ir.symbolic import Sym

INNER_KINDS = ("group-4", "group", "thread")


def place_block_shared(fn: ir.Function, diag) -> None:
    fn.body = _wrap_unblocked(fn.body, fn)
    for par in _launches(fn.body):
        hoisted = _hoist(par, diag)
        par.body = _block_level(par.body, hoisted, diag)


# -- the implicit block --------------------------------------------------------------

def _launches(stmts: List[ir.Stmt]) -> List[ir.Parallel]:
    out = []
    for s in stmts:
        if isinstance(s, ir.Parallel):
            out.append(s)
        elif getattr(s, "body", None):
            out += _launches(s.body)
    return out


def _has_shared(par: ir.Parallel) -> bool:
    return any(b.storage == "shared" for p in ir.walk([par]) if isinstance(p, ir.Parallel) for b in p.buffers)


def _wrap_unblocked(stmts: List[ir.Stmt], fn: ir.Function) -> List[ir.Stmt]:
    out: List[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.Parallel):
            if s.kind in INNER_KINDS and _has_shared(s):
                for p in ir.walk([s]):
                    if isinstance(p, ir.Parallel):
                        p.level += 1
                        for b in p.buffers:
                            b.level += 1
                fn.max_level += 1
                s = ir.Parallel(s.loc, "croktile_blk", Sym.const(1), 1, [s], kind="block")
        elif getattr(s, "body", None):
            s.body = _wrap_unblocked(s.body, fn)
        out.append(s)
    return out


# -- moving buffers to the launch level ------------------------------------------------

def _hoist(launch: ir.Parallel, diag) -> Set[int]:
    """Moves the `shared` buffers of inner levels to ``launch``; their shapes must be the
    same in every instance (an error names the per-instance value otherwise)."""
    hoisted: Set[int] = set()
    inner_names: Set[str] = set()
    for p in ir.walk(launch.body):
        if isinstance(p, ir.Parallel):
            inner_names |= {p.var} | _defined(p.body)
    for p in ir.walk(launch.body):
        if isinstance(p, ir.Parallel):
            keep = []
            for b in p.buffers:
                if b.storage == "shared":
                    varying = sorted({v for d in b.shape for v in d.variables()} & inner_names)
                    if varying:
                        shown = varying[0].split("__")[0]   # the user's name of a loop variable
                        diag.error(b.loc, f"the shape of '{b.source_name or b.name}' depends on '{shown}', which "
                                          "differs between the instances of an inner level: 'shared' data is one "
                                          "buffer per block, so its shape must be the same in all of them")
                    b.level = launch.level
                    launch.buffers.append(b)
                    hoisted.add(id(b))
                else:
                    keep.append(b)
            p.buffers = keep
    return hoisted


def _block_level(stmts: List[ir.Stmt], hoisted: Set[int], diag) -> List[ir.Stmt]:
    """The launch level's statements with each inner level rewritten by ``_split``."""
    out: List[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.Parallel):
            out += _split(s, hoisted, diag)
            continue
        if getattr(s, "body", None):
            s.body = _block_level(s.body, hoisted, diag)
        out.append(s)
    return out


def _take_allocs(stmts: List[ir.Stmt], hoisted: Set[int], into: List[ir.Stmt]) -> List[ir.Stmt]:
    out = []
    for s in stmts:
        if isinstance(s, ir.Alloc) and id(s.buffer) in hoisted:
            into.append(s)
            continue
        if getattr(s, "body", None):
            s.body = _take_allocs(s.body, hoisted, into)
        out.append(s)
    return out


def _with_allocs(allocs: List[ir.Stmt], stmts: List[ir.Stmt]) -> List[ir.Stmt]:
    """Each moved `alloc` just before the first statement that uses its buffer, so that
    its live range starts there (a buffer used only after a split may reuse the bytes
    of one used only before it)."""
    out = list(stmts)
    for a in reversed(allocs):
        at = next((i for i, s in enumerate(out) if id(a.buffer) in _uses([s])[1]), 0)
        out.insert(at, a)
    return out


# -- what a statement reads and defines --------------------------------------------------

def _collect(obj, names: Set[str], bufs: Set[int]) -> None:
    """Symbols and buffers an IR object refers to (not inside nested bodies)."""
    if isinstance(obj, Sym):
        names |= set(obj.variables())
    elif isinstance(obj, ir.Buffer):
        bufs.add(id(obj))
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _collect(x, names, bufs)
    elif hasattr(obj, "__dataclass_fields__") and not isinstance(obj, ir.Stmt):
        for f in fields(obj):
            _collect(getattr(obj, f.name), names, bufs)


def _uses(stmts: List[ir.Stmt]) -> Tuple[Set[str], Set[int], Set[str]]:
    """(names read, buffers touched, futures waited) anywhere in ``stmts``."""
    names: Set[str] = set()
    bufs: Set[int] = set()
    waited: Set[str] = set()
    for s in ir.walk(stmts):
        if isinstance(s, ir.Wait):
            waited |= set(s.futures)
        for f in fields(s):
            if f.name not in ("body", "loc", "sid"):
                _collect(getattr(s, f.name), names, bufs)
    return names, bufs, waited


def _defined(stmts: List[ir.Stmt]) -> Set[str]:
    out: Set[str] = set()
    for s in ir.walk(stmts):
        if isinstance(s, (ir.ScalarDef, ir.Assign)):
            out.add(s.name)
        elif isinstance(s, (ir.Loop, ir.Parallel)):
            out.add(s.var)
    return out


def _futures(stmts: List[ir.Stmt]) -> Set[str]:
    return {s.future for s in ir.walk(stmts) if isinstance(s, ir.Dma) and s.future}


# -- splitting an inner level around the block's steps ------------------------------------

def _split(inner: ir.Parallel, hoisted: Set[int], diag) -> List[ir.Stmt]:
    allocs: List[ir.Stmt] = []
    inner.body = _take_allocs(inner.body, hoisted, allocs)
    sp = _Splitter(inner, hoisted)
    items = sp.items(inner.body)
    if not _has_step(items):
        sp.warn_left(inner.body, diag)
        return _with_allocs(allocs, [inner])
    out = sp.emit(items)
    if out is None:
        sp.warn_left(inner.body, diag, all_steps=True)
        return _with_allocs(allocs, [inner])
    return _with_allocs(allocs, out)


def _has_step(items) -> bool:
    return any(k == "step" or (k in ("loop", "if") and _has_step(rest[0][1])) for k, *rest in items)


class _Splitter:
    """Cuts one inner level's body into block steps, block-level loops and `if`s around
    them (uniform bounds and conditions), scalars every instance computes alike, and parts
    that run per instance (each a copy of the level)."""

    def __init__(self, inner: ir.Parallel, hoisted: Set[int]):
        self.inner = inner
        self.hoisted = hoisted
        self.assigned = {s.name for s in ir.walk(inner.body) if isinstance(s, ir.Assign)}
        self.local_bufs = {id(b): b for p in ir.walk([inner]) if isinstance(p, ir.Parallel) for b in p.buffers}
        self.instance = {inner.var} | _defined(inner.body)
        self.uniform: Set[str] = set()      # names of the body that are the same in every instance
        self.moved: Set[str] = set()        # futures of copies that became block steps

    def is_uniform(self, names: Set[str]) -> bool:
        return not (names & (self.instance - self.uniform))

    def is_step(self, s: ir.Stmt) -> bool:
        """A statement every instance runs alike that touches the block's `shared` data."""
        if isinstance(s, ir.Fill):
            return id(s.buffer) in self.hoisted
        if isinstance(s, ir.Wait):
            return bool(s.futures) and all(f in self.moved for f in s.futures)
        if not isinstance(s, (ir.Dma, ir.Swap)):
            return False
        names, bufs, _ = _uses([s])
        if not self.is_uniform(names) or bufs & set(self.local_bufs):
            return False
        pair = (s.src.buffer, s.dst.buffer) if isinstance(s, ir.Dma) else (s.a, s.b)
        return any(b.storage == "shared" and b.level == 1 for b in pair)

    def items(self, stmts: List[ir.Stmt]) -> list:
        out: list = []
        cur: List[ir.Stmt] = []
        pending: list = []

        def flush():
            nonlocal cur, pending
            out.extend(pending)
            if cur:
                out.append(("part", cur))
            cur, pending = [], []
        for s in stmts:
            if self.is_step(s):
                flush()
                out.append(("step", s))
                if isinstance(s, ir.Dma) and s.future:
                    self.moved.add(s.future)
            elif (isinstance(s, ir.ScalarDef) and s.value is not None and s.name not in self.assigned
                  and self.is_uniform(set(s.value.variables()))):
                self.uniform.add(s.name)
                (pending if cur else out).append(("def", s))
            elif isinstance(s, (ir.Loop, ir.If)) and self.block_control(s):
                saved = (set(self.uniform), set(self.moved))
                if isinstance(s, ir.Loop):
                    self.uniform.add(s.var)
                sub = self.items(s.body)
                if _has_step(sub):
                    flush()
                    out.append(("loop" if isinstance(s, ir.Loop) else "if", (s, sub)))
                else:
                    self.uniform, self.moved = saved
                    cur.append(s)
            else:
                cur.append(s)
        flush()
        return out

    def block_control(self, s) -> bool:
        """A loop or `if` that every instance runs alike (so the block can run it)."""
        if isinstance(s, ir.If):
            return self.is_uniform(set(s.cond.variables()))
        bounds = set(s.count.variables()) | set(s.start.variables()) | set(s.step.variables())
        if not self.is_uniform(bounds):
            return False
        stack = list(s.body)           # a `break` decided per instance keeps the loop per instance
        while stack:
            x = stack.pop()
            if isinstance(x, (ir.Break, ir.Continue)):
                return False
            if not isinstance(x, ir.Loop):
                stack.extend(getattr(x, "body", None) or [])
        return True

    # -- emission ----------------------------------------------------------------------
    def emit(self, items) -> Optional[List[ir.Stmt]]:
        parts = []

        def gather(its):
            for k, *rest in its:
                if k == "part":
                    parts.append(rest[0])
                elif k in ("loop", "if"):
                    gather(rest[0][1])
        gather(items)
        replicable = {s.name: s for s in self.inner.body
                      if isinstance(s, ir.ScalarDef) and s.name not in self.assigned and s.name not in self.uniform}
        owner: Dict[object, int] = {}
        for i, part in enumerate(parts):
            names, bufs, waited = _uses(part)
            defined = _defined(part)
            foreign = (names & (self.instance - self.uniform)) - defined - set(replicable) - {self.inner.var}
            if foreign or not waited <= (_futures(part) | self.moved):
                return None
            for key in [("b", b) for b in bufs if b in self.local_bufs] + [("n", n) for n in defined]:
                if owner.setdefault(key, i) != i:
                    return None
        built = {id(part): self.instance_part(part, replicable) for part in parts}

        def build(its) -> List[ir.Stmt]:
            out: List[ir.Stmt] = []
            for k, *rest in its:
                if k == "part":
                    if built[id(rest[0])] is not None:
                        out.append(built[id(rest[0])])
                elif k in ("step", "def"):
                    out.append(rest[0])
                else:
                    s, sub = rest[0]
                    s.body = build(sub)
                    out.append(s)
            return out
        return build(items)

    def instance_part(self, part: List[ir.Stmt], replicable: Dict[str, ir.ScalarDef]) -> Optional[ir.Parallel]:
        if all(isinstance(s, ir.ScalarDef) for s in part):
            return None
        names, bufs, _ = _uses(part)
        defined = _defined(part)
        need: List[str] = []

        def visit(n: str) -> None:
            if n in replicable and n not in defined and n not in need:
                for v in replicable[n].value.variables() if replicable[n].value is not None else ():
                    visit(v)
                need.append(n)
        for n in sorted(names):
            visit(n)
        order = list(replicable)
        prelude = [ir.ScalarDef(replicable[n].loc, n, replicable[n].ctype, replicable[n].value)
                   for n in sorted(need, key=order.index)]
        allocated = {id(s.buffer) for s in ir.walk(part) if isinstance(s, ir.Alloc)}
        mine = [b for b in self.inner.buffers if id(b) in bufs or id(b) in allocated]
        inner = self.inner
        return ir.Parallel(inner.loc, inner.var, inner.count, inner.level, prelude + part, mine, kind=inner.kind)

    # -- where a block step stays in every instance ------------------------------------------
    def warn_left(self, stmts: List[ir.Stmt], diag, all_steps: bool = False) -> None:
        """Warns of copies into or out of block-wide data that every instance repeats."""
        self.uniform, self.moved = set(), set()
        for s in ir.walk(stmts):
            if isinstance(s, (ir.Dma, ir.Fill)) and self.is_step(s):
                why = ("a per-instance value is used on both sides of it" if all_steps else
                       "it is inside a loop, 'if' or level of each instance")
                diag.warning(s.loc, f"this step on block-wide 'shared' data runs in every instance of "
                                    f"'{self.inner.var}', so the level is not split into block-wide steps ({why})")

