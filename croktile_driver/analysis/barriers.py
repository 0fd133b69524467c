"""Where the threads of a group need a barrier: planned once for the device targets (cuda,
opencl), which differ only in how they spell a barrier and in which accesses they follow
(what a `wait` may leave in flight is futures.py's).

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

from typing import Callable, List, NamedTuple, Tuple

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
