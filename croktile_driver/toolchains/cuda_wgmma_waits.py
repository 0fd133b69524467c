"""cuda target: how many warp-group multiplies may stay in flight across a copy-engine load.

`wgmma` reads its operands from shared memory while it runs (mma_emit.py issues it
without waiting). A `tma.copy` into a buffer must not start before the multiplies that
read that buffer are done, but the ones that read other buffers (the step just issued,
in a pipeline of several stages) may go on: the barrier before the load waits with
`wgmma.wait_group N`, N the groups issued after the last one that reads the buffer.

The plan walks the block level in program order with the groups issued so far (each the
arena bytes its operands lie in, oldest first). Names follow `swap` (and `rotate`, made of
swaps): a future's buffer is whichever its name holds now. A loop of constant count runs
its body that many times (up to a bound), another loop until the buffers its swaps
rotate have come round (its first iterations and the steady state); each load keeps the
smallest N any walk gives it, so that the count is one that every iteration allows (a
load into a buffer no multiply has read yet allows any number: MAX_GROUPS).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..frontend import ir

MAX_UNROLLED = 8       # a constant loop walked more times than this is walked twice
MAX_GROUPS = 64        # older groups are complete long before (each load waits for some)

Range = Tuple[int, int]
EVERYWHERE = (0, 1 << 62)   # the bytes of an operand whose place is known only at run time


def plan_wgmma_keeps(stmts: List[ir.Stmt], loads: Dict[int, ir.Dma], slot_range) -> Dict[int, int]:
    """For each copy-engine load (`loads`, by statement id) the number of the newest
    multiply groups that may still run when it starts. `slot_range(buffer name)` gives
    the arena bytes of a buffer, or None where it has none."""
    keep: Dict[int, int] = {}
    holds: Dict[str, str] = {}      # a name -> the buffer it holds now (swaps exchange them)
    lost = False                    # which buffer a name holds is no longer known: keep none

    def where(name: str):
        return slot_range(holds.get(name, name))

    def overlaps(r: Range, group: frozenset) -> bool:
        return any(r[0] < hi and lo < r[1] for lo, hi in group)

    def walk(body: List[ir.Stmt], pending: tuple) -> tuple:
        nonlocal lost
        for st in body:
            if isinstance(st, ir.MmaMul) and st.c.frag.engine == "wgmma":
                ranges = {where(load.src.buffer.name) for ref in (st.a, st.b) for load in ref.frag.loads}
                group = frozenset(r if r is not None else EVERYWHERE for r in ranges)
                pending = (pending + (group,))[-MAX_GROUPS:]
            elif id(st) in loads:
                r = where(loads[id(st)].dst.buffer.name)
                readers = [i for i, g in enumerate(pending) if r is None or overlaps(r, g)]
                n = 0 if lost else len(pending) - (readers[-1] + 1) if readers else MAX_GROUPS
                keep[id(st)] = min(keep.get(id(st), n), n)
            elif isinstance(st, ir.Swap):
                a, b = holds.get(st.a.name, st.a.name), holds.get(st.b.name, st.b.name)
                holds[st.a.name], holds[st.b.name] = b, a
            elif isinstance(st, ir.Loop):
                exact = st.count.is_const and 1 <= st.count.value <= MAX_UNROLLED and not st.may_skip
                swapped = _swapped_names(st.body)
                # else: until the buffers that the body's swaps rotate have come round
                for _ in range(st.count.value if exact else 2 + len(swapped)):
                    pending = walk(st.body, pending)
                lost = lost or (not exact and bool(swapped))   # after some number of iterations
            elif isinstance(st, (ir.If, ir.Parallel)):
                pending = walk(st.body, pending)
                lost = lost or (isinstance(st, ir.If) and bool(_swapped_names(st.body)))   # perhaps swapped
        return pending

    walk(stmts, ())
    return keep


def _swapped_names(body: List[ir.Stmt]) -> set:
    return {b.name for x in ir.walk(body) if isinstance(x, ir.Swap) for b in (x.a, x.b)}
