"""Spreading a thread's independent loop over more blocks of the launch.

A program tiled as `parallel p by M / 64 { parallel q by 256 { foreach jm in 64 ... } }`
asks for 128 blocks whose threads each stream 64 rows one after another: one block per
SM of a GPU, too few threads in flight to keep its memory busy (the issue's add ran at
0.8 of `torch.add` on an H200). When the iterations of that loop (or of a nest of loops
directly inside one another, `foreach jm, jn`) cannot observe one another, running them
in parallel gives the same results, so the launch may take `grid * F` blocks, F the
nest's iterations, block `b` running instance `p = b / F` for iteration `b % F`: the
form of an element-wise kernel (a sweep on an H100 timed 0.371 ms for the loop run
whole, 0.277 spread 32 ways, 0.273 64 ways, 0.267 one float4 per thread). The
iterations are independent when:

- the kernel is only a `parallel` of threads whose body is that loop (no block-level
  data, barriers, events or tensor-core fragments; no thread data outliving an
  iteration, no scalar carried from one iteration to the next, no `break` or `continue`
  of it, no `print`, whose order would change);
- each global buffer the nest writes is not read in it, and each write into it lies in a
  box that another iteration cannot reach: each loop variable has a dimension of its own
  in which the box moves by at least its extent per step, by nothing else that changes
  among the iterations;
- the buffers do not overlap: only the kernel's fast instance, which the launch takes
  after testing that no written buffer overlaps another, is split; the generic instance
  runs the loop whole (F = 1).

The launch picks F at run time from the GPU's number of SMs (`split_for` of the
runtime): a grid that already has 64 blocks per SM stays as written.
"""
from __future__ import annotations

from typing import List, Optional, Set

from .. import ir
from ..ir.dataclass import dataclass
from ..ir.symbolic import Sym, prove_equal

_ALLOWED = (ir.Loop, ir.If, ir.ScalarDef, ir.Assign, ir.Alloc, ir.Fill, ir.Dma, ir.Call, ir.Store, ir.Check,
            ir.Continue, ir.Break)


@dataclass(eq=False)
class SplitNest:
    """Loops directly inside one another (outermost first) whose iterations the fast
    instance runs one per block."""
    loops: List[ir.Loop]

    @property
    def count(self) -> Sym:
        """The nest's iterations (host values only)."""
        total = Sym.const(1)
        for loop in self.loops:
            total = total * loop.count
        return total

    @property
    def body(self) -> List[ir.Stmt]:
        return self.loops[-1].body


def split_nest(par: ir.Parallel, host_names: Set[str]) -> Optional[SplitNest]:
    """The loops of `par`'s threads whose iterations the launch may spread over blocks,
    or None."""
    if par.level != 1 or par.buffers:
        return None
    inner = [s for s in par.body if not isinstance(s, (ir.ScalarDef, ir.Check))]
    if len(inner) != 1 or not isinstance(inner[0], ir.Parallel) or inner[0].kind not in (None, "thread"):
        return None
    threads = inner[0]
    head, loop = threads.body[:-1], threads.body[-1] if threads.body else None
    if not isinstance(loop, ir.Loop) or any(not isinstance(s, (ir.ScalarDef, ir.Check)) for s in head):
        return None
    loops = [loop]
    while len(loops[-1].body) == 1 and isinstance(loops[-1].body[0], ir.Loop):
        loops.append(loops[-1].body[0])
    # the rectangular prefix of the nest: ranges from 0 by 1, counts the host knows
    usable = []
    for loop in loops:
        if not (loop.start.is_const and loop.start.value == 0 and loop.step.is_const and loop.step.value == 1) \
                or not loop.count.variables() <= host_names:
            break
        usable.append(loop)
    # the longest prefix whose iterations are independent
    while usable and not _independent(usable):
        usable.pop()
    return SplitNest(usable) if usable else None


def _independent(loops: List[ir.Loop]) -> bool:
    body = list(ir.walk(loops[-1].body))
    if any(not isinstance(s, _ALLOWED) for s in body):
        return False
    if any(isinstance(s, (ir.Break, ir.Continue)) for s in _same_loop(loops[-1].body)):
        return False   # a block's iteration is not a loop to leave or go on with
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
            if s.is_async or s.engine is not ir.CopyEngine.DMA:
                return False
            read.add(s.src.buffer.name)
            written.add(s.dst.buffer.name)
        for e in ir.stmt_reads(s):
            read.add(e.buffer.name)
        for b in ir.stmt_writes(s):
            written.add(b.name)
        if isinstance(s, ir.Call):
            read |= {a.region.buffer.name for a in s.args if a.region is not None}
    variables = [loop.var for loop in loops]
    for s in body:
        for b in _buffers(s):
            if b.storage == "shared":
                return False
            if b.storage == "local" and b.name not in allocated:
                return False   # thread data that outlives an iteration
            if b.storage == "global" and b.name in written:
                if b.name in read or not _disjoint_write(s, b, variables, defined):
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


def _disjoint_write(s: ir.Stmt, buf: ir.Buffer, variables: List[str], inner: Set[str]) -> bool:
    """Whether what `s` writes into `buf` lies apart for different values of `variables`:
    each moves the box apart in a dimension of its own."""
    if isinstance(s, ir.Dma) and s.dst.buffer is buf:
        if s.dst.strides is not None:
            return False
        dims = list(zip(s.dst.offsets, s.dst.extents))
    elif isinstance(s, ir.Store) and s.buffer is buf:
        dims = [(i, Sym.const(1)) for i in s.index]
    elif isinstance(s, (ir.Fill, ir.Call)):
        return False   # a whole buffer, or whatever a call does with it
    else:
        return True    # the statement only reads the buffer (checked elsewhere)
    fixed = inner | set(variables)
    used = set()
    for var in variables:
        d = next((d for d, (o, e) in enumerate(dims) if d not in used and _moves_apart(o, e, var, fixed)), None)
        if d is None:
            return False
        used.add(d)
    return True


def _moves_apart(offset: Sym, extent: Sym, var: str, fixed: Set[str]) -> bool:
    """`offset` is `a * var + rest`, rest free of the names in `fixed`, |a| >= extent."""
    rest = offset.substitute({var: Sym.const(0)})
    if rest.variables() & fixed:
        return False
    a = (offset - rest).exact_div(Sym.var(var))
    if a is None or a.variables() & fixed or (a.is_const and a.value == 0):
        return False
    if a.is_const and extent.is_const:
        return abs(a.value) >= extent.value
    return bool(prove_equal(a, extent))
