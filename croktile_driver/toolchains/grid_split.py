"""Spreading a thread's independent loop over more blocks of the launch.

A program tiled as `parallel p by M / 64 { parallel q by 256 { foreach jm in 64 ... } }`
asks for 128 blocks whose threads each stream 64 rows one after another: one block per
SM of a GPU, too few threads in flight to keep its memory busy (the issue's add ran at
0.8 of `torch.add` on an H200). When the iterations of that loop cannot observe one
another, running them in parallel gives the same results, so the launch may take
`grid * F` blocks, block `b` running instance `p = b / F` for its part `b % F` of the
loop's iterations. The iterations are independent when:

- the kernel is only a `parallel` of threads whose body is that loop (no block-level
  data, barriers, events or tensor-core fragments; no thread data outliving an
  iteration, no scalar carried from one iteration to the next, no `break` of it, no
  `print`, whose order would change);
- each global buffer the loop writes is not read in it, and each write into it lies in a
  box that a different value of the loop variable cannot reach again (one dimension of
  the box moves by at least its extent per iteration, by nothing else that changes
  inside the iteration);
- the buffers do not overlap: only the kernel's fast instance, which the launch takes
  after testing that no written buffer overlaps another, is split; the generic instance
  runs the loop whole (F = 1).

The launch picks F at run time from the GPU's number of SMs (`split_count` of the
runtime), so a grid that already fills the GPU stays as written.
"""
from __future__ import annotations

from typing import Optional, Set

from ..frontend import ir
from ..frontend.symbolic import Sym, prove_equal

_ALLOWED = (ir.Loop, ir.If, ir.ScalarDef, ir.Assign, ir.Alloc, ir.Fill, ir.Dma, ir.Call, ir.Store, ir.Check,
            ir.Continue, ir.Break)


def split_loop(par: ir.Parallel, host_names: Set[str]) -> Optional[ir.Loop]:
    """The loop of `par`'s threads whose iterations the launch may spread over blocks, or
    None."""
    if par.level != 1 or par.buffers:
        return None
    inner = [s for s in par.body if not isinstance(s, (ir.ScalarDef, ir.Check))]
    if len(inner) != 1 or not isinstance(inner[0], ir.Parallel) or inner[0].kind not in (None, "thread"):
        return None
    threads = inner[0]
    head, loop = threads.body[:-1], threads.body[-1] if threads.body else None
    if not isinstance(loop, ir.Loop) or any(not isinstance(s, (ir.ScalarDef, ir.Check)) for s in head):
        return None
    if not (loop.start.is_const and loop.start.value == 0 and loop.step.is_const and loop.step.value == 1):
        return None
    if not loop.count.variables() <= host_names:
        return None
    return loop if _independent(loop) else None


def _independent(loop: ir.Loop) -> bool:
    body = list(ir.walk(loop.body))
    if any(not isinstance(s, _ALLOWED) for s in body):
        return False
    if any(isinstance(s, ir.Break) for s in _same_loop(loop.body)):
        return False   # a break of this loop ends the later iterations
    defined = {s.name for s in body if isinstance(s, ir.ScalarDef)} | \
              {s.var for s in body if isinstance(s, ir.Loop)}
    if any(isinstance(s, ir.Assign) and s.name not in defined for s in body):
        return False   # a scalar carried from one iteration to the next
    if any(isinstance(s, ir.Call) and s.result is not None and s.result not in defined for s in body):
        return False
    allocated = {s.buffer.name for s in body if isinstance(s, ir.Alloc)}
    written, read = set(), set()
    for s in body:
        if isinstance(s, ir.Dma):
            if s.is_async or s.engine != "dma":
                return False
            read.add(s.src.buffer.name)
            written.add(s.dst.buffer.name)
        for e in ir.stmt_reads(s):
            read.add(e.buffer.name)
        for b in ir.stmt_writes(s):
            written.add(b.name)
        if isinstance(s, ir.Call):
            read |= {a.region.buffer.name for a in s.args if a.region is not None}
    for s in body:
        for b in _buffers(s):
            if b.storage == "shared":
                return False
            if b.storage == "local" and b.name not in allocated:
                return False   # thread data that outlives an iteration
            if b.storage == "global" and b.name in written:
                if b.name in read or not _disjoint_write(s, b, loop.var, defined):
                    return False
    return True


def _same_loop(stmts):
    """The statements whose `break` leaves the loop they are in (not a nested one)."""
    for s in stmts:
        yield s
        if isinstance(s, ir.If):
            yield from _same_loop(s.body)


def _buffers(s: ir.Stmt):
    if isinstance(s, ir.Dma):
        yield s.src.buffer
        yield s.dst.buffer
    elif isinstance(s, (ir.Alloc, ir.Fill, ir.Store)):
        yield s.buffer
    elif isinstance(s, ir.Call):
        yield from (a.region.buffer for a in s.args if a.region is not None)
    for e in ir.stmt_reads(s):
        yield e.buffer


def _disjoint_write(s: ir.Stmt, buf: ir.Buffer, var: str, inner: Set[str]) -> bool:
    """Whether what `s` writes into `buf` lies apart for different values of `var`."""
    if isinstance(s, ir.Dma) and s.dst.buffer is buf:
        r = s.dst
        if r.strides is not None:
            return False
        return any(_moves_apart(o, e, var, inner) for o, e in zip(r.offsets, r.extents))
    if isinstance(s, ir.Store) and s.buffer is buf:
        return any(_moves_apart(i, Sym.const(1), var, inner) for i in s.index)
    if isinstance(s, (ir.Fill, ir.Call)):
        return False   # a whole buffer, or whatever a call does with it
    return True        # the statement only reads the buffer (checked elsewhere)


def _moves_apart(offset: Sym, extent: Sym, var: str, inner: Set[str]) -> bool:
    """`offset` is `a * var + rest` with rest fixed within an iteration and |a| >= extent."""
    rest = offset.substitute({var: Sym.const(0)})
    if rest.variables() & (inner | {var}):
        return False
    a = (offset - rest).exact_div(Sym.var(var))
    if a is None or var in a.variables() or (a.is_const and a.value == 0):
        return False
    if a.is_const and extent.is_const:
        return abs(a.value) >= extent.value
    return bool(prove_equal(a, extent))
