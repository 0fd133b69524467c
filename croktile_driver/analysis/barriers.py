"""Where the threads of a group need a barrier, and what a `wait` may leave in flight:
planned once for the device targets (cuda, opencl), which differ only in how they spell
a barrier and in which accesses they follow.

Code of a kernel's outer level runs on every thread of the group (a cuda block, an
OpenCL work-group). Each step of it is *cooperative* (every thread does a part: a copy, a
fill, computing a scalar) or *masked* (one thread does it: a call, an element store, a
print). The emitter walks the outer level in program order with a ``State``: the memory
that the group and that one thread read and wrote since the last barrier, as sets of
keys (``conflict`` says which keys may reach the same bytes). A step needs a barrier
before it where it may write bytes that others accessed since the last one, or read bytes
that others wrote (``BarrierPlanner.needs``; the one thread's own earlier accesses are
ordered already). Where paths meet (after an `if`, around a loop, after a split nest)
states join; a loop body is emitted again until the state it starts in is the one it ends
in. Entering an inner level is a cooperative step of everything its instances may access
(``accesses``).

A target's policy is the keys it gives its steps and the planner's ``coarse`` flag. The
cuda target follows every access by its bytes (arena slots). The opencl target follows
only its cooperative copies', buffer by buffer (its other steps access ``EVERYTHING``),
and its planner is ``coarse``: at a merge or where a body starts, the state keeps only who
worked since the last barrier (nobody, the one thread, the group), so that any step after
group work needs a barrier, as opencl's own planner had it before the two were one.
"""
from __future__ import annotations

from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from .. import ir

# A key is a tuple (kind, a, b):
#   ("arena", lo, hi)   bytes [lo, hi) of the group's shared memory (a buffer's slot);
#   ("tc", lo, hi)      bytes [lo, hi) that tensor-core operations still in flight may read;
#   (kind, name, 0)     a whole buffer or memory space, e.g. ("buffer", "A", 0): equal keys meet;
#   ("everything", 0, 0) any memory.
RANGES = ("arena", "tc")
EVERYTHING = frozenset({("everything", 0, 0)})
NOTHING: frozenset = frozenset()

COOPERATIVE, MASKED = 2, 1      # who performs an outer-level step: every thread, or one


class State(NamedTuple):
    """The keys the group (cooperative steps, inner levels) and the one thread (masked
    steps) read and wrote since the last barrier."""
    group_reads: frozenset
    group_writes: frozenset
    masked_reads: frozenset
    masked_writes: frozenset


EMPTY = State(NOTHING, NOTHING, NOTHING, NOTHING)
_MASKED = State(NOTHING, NOTHING, EVERYTHING, EVERYTHING)
_ANY = State(EVERYTHING, EVERYTHING, EVERYTHING, EVERYTHING)


def conflict(a: frozenset, b: frozenset) -> bool:
    """Whether two sets of keys may reach the same bytes."""
    if not a or not b:
        return False
    if ("everything", 0, 0) in a or ("everything", 0, 0) in b:
        return True
    for ka in a:
        for kb in b:
            if ka[0] in RANGES:
                if kb[0] in RANGES and ka[1] < kb[2] and kb[1] < ka[2]:
                    return True
            elif ka == kb:
                return True
    return False


def reads_of(s: ir.Stmt, keys: Callable[[ir.Buffer], frozenset]) -> frozenset:
    """The keys of the data a statement's element expressions read."""
    return frozenset().union(*(keys(r.buffer) for r in ir.stmt_reads(s)))


def accesses(body: List[ir.Stmt], keys: Callable[[ir.Buffer], frozenset]) -> Tuple[frozenset, frozenset]:
    """The keys an inner level's instances may read and write (thread arrays and fragments
    are the threads' own: ``keys`` gives none for them), or everything where a statement's
    accesses are not followed (events, swaps, waits)."""
    reads, writes = set(), set()
    for st in ir.walk(body):
        for r in ir.stmt_reads(st):
            reads |= keys(r.buffer)
        if isinstance(st, ir.Dma):
            reads |= keys(st.src.buffer)
            writes |= keys(st.dst.buffer)
        elif isinstance(st, (ir.Store, ir.Fill)):
            writes |= keys(st.buffer)
        elif isinstance(st, ir.MmaLoad):
            reads |= keys(st.src.buffer)
        elif isinstance(st, ir.MmaStore):
            writes |= keys(st.dst.buffer)
        elif isinstance(st, ir.Call):
            for a in st.args:
                if a.region is not None:
                    reads |= keys(a.region.buffer)
                    writes |= keys(a.region.buffer)
        elif isinstance(st, (ir.Swap, ir.Wait, ir.EventDecl, ir.Trigger, ir.EventWait)):
            return EVERYTHING, EVERYTHING
    return frozenset(reads), frozenset(writes)


class BarrierPlanner:
    """The rules of the module docstring for one policy; it holds no state of a walk, so
    one planner serves every kernel of a target."""

    def __init__(self, coarse: bool = False):
        self.coarse = coarse

    @staticmethod
    def needs(state: State, kind: int, reads: frozenset, writes: frozenset) -> bool:
        """Whether a step of `kind` that accesses `reads` and `writes` needs a barrier first."""
        cr, cw, mr, mw = state
        if kind == COOPERATIVE:
            return conflict(writes, cr | cw | mr | mw) or conflict(reads, cw | mw)
        # the one thread: its own earlier accesses are ordered already
        return conflict(writes, cr | cw) or conflict(reads, cw)

    @staticmethod
    def record(state: State, kind: int, reads: frozenset, writes: frozenset) -> State:
        """The state after the step (and the barrier it needed, if any)."""
        cr, cw, mr, mw = state
        if kind == COOPERATIVE:
            return State(cr | reads, cw | writes, mr, mw)
        return State(cr, cw, mr | reads, mw | writes)

    def step(self, state: State, kind: int, reads: frozenset, writes: frozenset,
             barrier: Callable[[int], None], depth: int) -> State:
        """``needs`` and ``record`` together: `barrier(depth)` writes the barrier where the
        step needs one; returns the state after the step."""
        if self.needs(state, kind, reads, writes):
            barrier(depth)
            state = EMPTY
        return self.record(state, kind, reads, writes)

    def join(self, a: State, b: State) -> State:
        """The state where two paths meet."""
        joined = State(a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3])
        return self.who(joined) if self.coarse else joined

    def enter(self, state: State) -> State:
        """The state a body (a loop's, a branch's, an instance's) starts in."""
        return self.who(state) if self.coarse else state

    @staticmethod
    def who(state: State) -> State:
        """Only who worked since the last barrier: a state that every step conflicts with
        (the group), that conflicts with every cooperative step (the one thread), or none."""
        if state[0] or state[1]:
            return _ANY
        if state[2] or state[3]:
            return _MASKED
        return EMPTY


def wait_keeps(body: List[ir.Stmt], futures, future_of_buffer: Dict[str, str]) -> Dict[int, int]:
    """For each `wait` (by id) among `body`, a group's outer level, of copies whose futures
    are among `futures` (each copy one commit group per thread, waited in issue order): how
    many groups issued after the waited ones may stay in flight, so that a prefetch issued
    before the wait keeps overlapping the work after it.

    Walks the level in program order with the issued-but-unwaited futures, oldest first;
    `swap` exchanges two names; a loop body is walked twice (the first iteration and the
    steady state), each wait keeping the smaller count; where the order is not known (a
    loop whose state does not settle, an `if`), the next wait waits for everything."""
    result: Dict[int, int] = {}

    def walk(stmts: List[ir.Stmt], pending: Optional[tuple]) -> Optional[tuple]:
        for st in stmts:
            if isinstance(st, ir.Dma) and st.is_async and st.future in futures:
                if pending is not None:
                    pending = tuple(f for f in pending if f != st.future) + (st.future,)
            elif isinstance(st, ir.Wait):
                mine = [f for f in st.futures if f in futures]
                if not mine:
                    continue
                if pending is None:
                    keep, pending = 0, ()
                else:
                    last = max((i for i, f in enumerate(pending) if f in mine), default=-1)
                    keep, pending = len(pending) - last - 1, pending[last + 1:]
                result[id(st)] = min(result.get(id(st), keep), keep)
            elif isinstance(st, ir.Swap) and pending is not None:
                fa, fb = future_of_buffer.get(st.a.name), future_of_buffer.get(st.b.name)
                if fa and fb:
                    pending = tuple(fb if f == fa else fa if f == fb else f for f in pending)
            elif isinstance(st, ir.Loop):
                first = walk(st.body, pending)
                steady = walk(st.body, first)
                if steady != first:
                    for inner in ir.walk(st.body):
                        if isinstance(inner, ir.Wait):
                            result[id(inner)] = 0
                    pending = None
                elif not (st.count.is_const and st.count.value >= 1 and not st.may_skip) and first != pending:
                    pending = None
                else:
                    pending = first
            elif isinstance(st, ir.If):
                if walk(st.body, pending) != pending:
                    pending = None
        return pending

    walk(body, ())
    return result
