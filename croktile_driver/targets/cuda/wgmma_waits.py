"""cuda target: how many warp-group multiplies may stay in flight across a copy-engine load.

`wgmma` reads its operands from shared memory while it runs (codegen/fragments.py issues it
without waiting). A `tma.copy` into a buffer must not start before the multiplies that
read that buffer are done, but the ones that read other buffers (the step just issued,
in a pipeline of several stages) may go on: the barrier before the load waits with
`wgmma.wait_group N`, N the groups issued after the last one that reads the buffer.

The plan walks the block level in program order with the set of states the block may be
in: which buffer each name holds (names follow `swap`, and `rotate`, made of swaps: a
future's buffer is whichever its name holds now) and the groups issued so far (each the
arena bytes its operands lie in, oldest first). A loop of constant count runs its body
that many times (up to a bound); another loop adds the states after each further
iteration until no new one appears (the buffers its swaps rotate have come round, the
groups in flight have settled), so that nested loops of run-time counts (a persistent
kernel's tiles and their K steps) keep their counts. Each load keeps the smallest N any
state gives it, a count that every iteration allows (a load into a buffer no multiply
has read yet allows any number: MAX_GROUPS).
"""
from __future__ import annotations

from typing import Dict, List, Set, Tuple

from ... import ir

MAX_UNROLLED = 8       # a constant loop walked more times than this is walked twice
MAX_GROUPS = 64        # older groups are complete long before (each load waits for some)
MAX_ITERATIONS = 40    # a loop of unknown count is walked until its states repeat, at most this often
MAX_STATES = 256       # the orders of buffers and groups followed at once

Range = Tuple[int, int]
# (which buffer each swapped name holds, sorted pairs; the multiply groups in flight, each
# the arena ranges its operands read, oldest first)
State = Tuple[tuple, tuple]
EVERYWHERE = (0, 1 << 62)   # the bytes of an operand whose place is known only at run time


def plan_wgmma_keeps(stmts: List[ir.Stmt], loads: Dict[int, ir.Dma], slot_range) -> Dict[int, int]:
    """For each copy-engine load (`loads`, by statement id) the number of the newest
    multiply groups that may still run when it starts. `slot_range(buffer name)` gives
    the arena bytes of a buffer, or None where it has none."""
    keep: Dict[int, int] = {}
    lost = False   # the states were too many or did not settle: every later load waits for all

    def overlaps(r: Range, group: frozenset) -> bool:
        return any(r[0] < hi and lo < r[1] for lo, hi in group)

    def step(st: ir.Stmt, state: State) -> State:
        holds, pending = state
        where = lambda name: slot_range(dict(holds).get(name, name))
        if isinstance(st, ir.MmaMul) and st.c.frag.engine is ir.MmaEngine.WGMMA:
            ranges = {where(load.src.buffer.name) for ref in (st.a, st.b) for load in ref.frag.loads}
            group = frozenset(r if r is not None else EVERYWHERE for r in ranges)
            return holds, (pending + (group,))[-MAX_GROUPS:]
        if id(st) in loads:
            r = where(loads[id(st)].dst.buffer.name)
            readers = [i for i, g in enumerate(pending) if r is None or overlaps(r, g)]
            n = 0 if lost else len(pending) - (readers[-1] + 1) if readers else MAX_GROUPS
            keep[id(st)] = min(keep.get(id(st), n), n)
        elif isinstance(st, ir.Swap):
            d = dict(holds)
            a, b = d.get(st.a.name, st.a.name), d.get(st.b.name, st.b.name)
            d[st.a.name], d[st.b.name] = b, a
            return tuple(sorted(d.items())), pending
        return state

    def give_up(body: List[ir.Stmt]) -> Set[State]:
        """Too many orders to follow, or a loop whose states do not settle: the loads of
        `body` and every later one wait for all groups."""
        nonlocal lost
        lost = True
        for x in ir.walk(body):
            if id(x) in loads:
                keep[id(x)] = 0
        return {((), ())}

    def walk(body: List[ir.Stmt], states: Set[State]) -> Set[State]:
        for st in body:
            if len(states) > MAX_STATES:
                return give_up(body)
            if isinstance(st, ir.Loop):
                states = walk_loop(st, states)
            elif isinstance(st, (ir.If, ir.Parallel)):
                after = walk(st.body, states)
                states = after | states if isinstance(st, ir.If) else after   # an `if` may not run
            else:
                states = {step(st, x) for x in states}
        return states

    def walk_loop(st: ir.Loop, states: Set[State]) -> Set[State]:
        if st.count.is_const and 1 <= st.count.value <= MAX_UNROLLED and not st.may_skip:
            for _ in range(st.count.value):
                states = walk(st.body, states)
            return states
        # any number of iterations: the states after 0, 1, 2, ... of them, until no new one
        # appears (the rotation of the buffers comes round, the groups in flight settle)
        seen, frontier = set(states), states
        for _ in range(MAX_ITERATIONS):
            frontier = walk(st.body, frontier) - seen
            if not frontier:
                break
            seen |= frontier
        else:
            return give_up(st.body)
        return seen

    walk(stmts, {((), ())})
    return keep


def _swapped_names(body: List[ir.Stmt]) -> set:
    return {b.name for x in ir.walk(body) if isinstance(x, ir.Swap) for b in (x.a, x.b)}
