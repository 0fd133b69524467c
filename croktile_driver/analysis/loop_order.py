"""The order in which the cpu target runs the instances of an inner `parallel`.

`parallel q by 256 { foreach {jm, jn} { ... chunkat(p # jm, jn # q) } }` gives each
instance a column of 4 elements in each of 64 x 8 places: run one instance after the
other, a thread strides through memory 16 bytes at a time, 4 KiB apart, and waits on
memory. The instances of a level are independent (on a GPU they run at once), so when
each iteration of the instance's loop nest is independent too, the cpu target may run
the loops outside and the instances inside: `for jm { for jn { for q { ... } } }`, where
neighbouring instances touch neighbouring memory one after the other.

The nest qualifies when it is perfect (each loop body is the next loop alone), its
bounds do not depend on the instance, and the innermost body carries nothing from one
iteration to the next: every buffer it uses is global data or allocated in the body
(or a constant-size buffer of the instance that the body allocates again each
iteration), every scalar it assigns is defined in it, and it has no `break`,
`continue`, `print` (its order would change), `swap`, nested `parallel` or `wait`.
"""
from __future__ import annotations

from typing import List, Optional

from .. import ir


def instances_inside(par: ir.Parallel) -> Optional[List[ir.Loop]]:
    """The loops to run around the instances of `par`, outermost first, or None to keep
    the instances outside."""
    if par.level < 2:
        return None
    nest: List[ir.Loop] = []
    body = par.body
    while len(body) == 1 and isinstance(body[0], ir.Loop):
        nest.append(body[0])
        body = body[0].body
    if not nest or par.buffers and not all(_static(b) for b in par.buffers):
        return None
    for loop in nest:
        for value in (loop.count, loop.start, loop.step):
            if par.var in value.variables():
                return None
    allocated = {s.buffer.name for s in ir.walk(body) if isinstance(s, ir.Alloc)}
    defined = {s.name for s in ir.walk(body) if isinstance(s, ir.ScalarDef)}
    for s in ir.walk(body):
        if isinstance(s, (ir.Break, ir.Continue, ir.Print, ir.Swap, ir.Parallel, ir.Wait, ir.EventDecl,
                          ir.Trigger, ir.EventWait, ir.MmaFill, ir.MmaLoad, ir.MmaStore, ir.MmaMul, ir.FragUpdate,
                          ir.FragOp)):
            return None   # (fragments live across the loops: their instances keep their order)
        if isinstance(s, ir.Fill) and s.buffer.name not in allocated:
            return None   # a fill of the iteration's own buffer (an implicit zero fill) is independent
        if isinstance(s, ir.Assign) and s.name not in defined or \
                isinstance(s, ir.Call) and s.result is not None and s.result not in defined:
            return None
        if any(b.storage != "global" and b.name not in allocated for b in _buffers(s)):
            return None
    return nest


def _static(b: ir.Buffer) -> bool:
    return all(d.is_const for d in b.shape)


def _buffers(s: ir.Stmt) -> List[ir.Buffer]:
    out = [r.buffer for r in ir.stmt_reads(s)]
    if isinstance(s, ir.Dma):
        out += [s.src.buffer, s.dst.buffer]
    elif isinstance(s, ir.Call):
        out += [a.region.buffer for a in s.args if a.region is not None]
    elif isinstance(s, ir.Store):
        out.append(s.buffer)
    return out
