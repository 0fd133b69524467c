"""What every target needs to know of a function's events (ir/nodes.py ``Event``):
which `parallel` levels must run their instances concurrently, the text of a wait's
run-time report, and which waits no trigger can end (``unreached_waits``, an error).

An event declared at one level is shared by the instances of every level inside it; where
those instances trigger or wait on it, one may wait for another, so a target that runs
instances one after another (a loop) would block forever: such levels run as threads
(cpu, factor) or are real hardware threads already (cuda, opencl).
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, NamedTuple, Optional, Set

from .. import ir
from ..cstrings import c_string
from ..ir.levels import WIDTH
from .flow import UNREACHED, Forward

TIMEOUT_ENV = "CROKTILE_EVENT_TIMEOUT_MS"


def concurrent_levels(fn: ir.Function) -> Set[int]:
    """The ids of the ``ir.Parallel`` statements whose instances share an event they
    trigger or wait on."""
    out: Set[int] = set()
    declared_at = {}

    def visit(stmts: List[ir.Stmt], stack: List[ir.Parallel]) -> None:
        for s in stmts:
            if isinstance(s, ir.EventDecl):
                declared_at[s.event.name] = len(stack)
            elif isinstance(s, (ir.Trigger, ir.EventWait)):
                for ref in s.events:
                    out.update(id(p) for p in stack[declared_at[ref.event.name]:])
            if isinstance(s, ir.Parallel):
                visit(s.body, stack + [s])
            elif getattr(s, "body", None):
                visit(s.body, stack)

    visit(fn.body, [])
    return out


def wait_where(s: ir.Stmt) -> str:
    """The C string literal of a wait's (or barrier's) place, `file:line:col`."""
    return c_string(f"{s.loc.file}:{s.loc.line}:{s.loc.col}")


def wait_message_text(ref: ir.EventRef) -> str:
    """A run-time check's message (runtime/croktile_check.h) for a wait that timed out;
    {0} is the time waited in milliseconds."""
    return f"wait on event '{ref.text()}' did not end within {{0}} ms (deadlock? {TIMEOUT_ENV} sets the time)"


def wait_message(ref: ir.EventRef) -> str:
    return c_string(wait_message_text(ref))


# -- waits that no trigger can end ---------------------------------------------------------
# A flag is (event name, first element, end): the elements [first, end) of the event's
# flat array, a whole event where an index is known only at run time.
Flags = FrozenSet[tuple]


class Unreached(NamedTuple):
    """A wait's event reference of which element `missing` (flat) no trigger may have
    set where the wait is reached; `missing` is None for a run-time index (no element
    of the event may be set)."""
    wait: ir.EventWait
    ref: ir.EventRef
    missing: Optional[int]


def flags(ref: ir.EventRef) -> tuple:
    first = ref.first()
    if not first.is_const:
        return (ref.event.name, 0, ref.event.count)
    return (ref.event.name, first.value, first.value + ref.count)


def element_text(event: ir.Event, flat: int) -> str:
    index = []
    for d in reversed(event.dims):
        index.append(flat % d)
        flat //= d
    return event.source_name + "".join(f"[{i}]" for i in reversed(index))


def sharing_levels(body: List[ir.Stmt]) -> Dict[str, int]:
    """Each event's name -> the level whose instances (those of every level inside it) share
    its flags: the one that declares it, or for a `shared` event the launch's (`shared`
    data belongs to the block: docs/language/parallel.md), or everything where the launch
    runs in one block (an outermost `group-4`/`group`/`thread` level)."""
    out: Dict[str, int] = {}

    def visit(stmts: List[ir.Stmt], stack: List[ir.Parallel]) -> None:
        for s in stmts:
            if isinstance(s, ir.EventDecl):
                level = s.event.level
                if s.event.storage == "shared":
                    level = 0 if stack and stack[0].kind in WIDTH else min(level, 1)
                out[s.event.name] = level
            if isinstance(s, ir.Parallel):
                visit(s.body, stack + [s])
            elif getattr(s, "body", None):
                visit(s.body, stack)
    visit(body, [])
    return out


class _Reach(Forward):
    """The flags that a trigger may have set, and no wait taken since, on some path to each
    point of one instance's code; flags that other instances running at the same time
    may set are ``concurrent`` (set at every point)."""

    def __init__(self, sharing: Dict[str, int], concurrent: Flags):
        super().__init__()
        self.sharing = sharing
        self.concurrent = concurrent
        self.seen: Dict[int, Flags] = {}   # id(EventWait) -> the flags that may be set there

    def join(self, a: Flags, b: Flags) -> Flags:
        return a | b

    def context(self) -> Flags:
        return self.concurrent

    def transfer(self, st: ir.Stmt, state: Flags) -> Flags:
        if isinstance(st, ir.EventDecl):   # new flags, none set (again in each iteration)
            return frozenset(f for f in state if f[0] != st.event.name)
        if isinstance(st, ir.Trigger):
            return state | {flags(r) for r in st.events}
        if isinstance(st, ir.EventWait):
            self.seen[id(st)] = self.seen.get(id(st), frozenset()) | state | self.concurrent
            taken = [flags(r) for r in st.events if r.first().is_const]
            return frozenset(f for f in state
                             if not any(f[0] == t[0] and t[1] <= f[1] and f[2] <= t[2] for t in taken))
        return state

    def parallel(self, st: ir.Parallel, state: Flags) -> Flags:
        """The instances of a level run at the same time: what one triggers of an event
        they share may be set at any point of another's code, and after the level."""
        alone = st.count.is_const and st.count.value == 1
        others = frozenset() if alone else frozenset(
            flags(r) for t in ir.walk(st.body) if isinstance(t, ir.Trigger)
            for r in t.events if self.sharing.get(r.event.name, 0) < st.level)
        saved, self.concurrent = self.concurrent, self.concurrent | others
        try:
            out = self.nested(st.body, state)
        finally:
            self.concurrent = saved
        return (state if out is UNREACHED else out) | others


def _missing(ref: ir.EventRef, may: Flags) -> Optional[int]:
    """The first element of the reference that no flag in `may` covers; -1 where all are."""
    name, lo, hi = flags(ref)
    mine = [f for f in may if f[0] == name]
    if not ref.first().is_const:
        return -1 if mine else None
    for k in range(lo, hi):
        if not any(f[1] <= k < f[2] for f in mine):
            return k
    return -1


def unreached_waits(body: List[ir.Stmt], hidden: List[ir.EventRef] = ()) -> List[Unreached]:
    """The event references of waits in `body` (a function's statements) that no trigger
    can set on any path before the wait: an earlier trigger in the same instance (also in
    an earlier iteration of a loop around both) that no wait took since, or any trigger
    of an instance that runs at the same time (a level inside the one that shares the
    event). `hidden` are triggers the IR does not show (sema kept no statement for them):
    their events are taken as set everywhere."""
    walk = _Reach(sharing_levels(body), frozenset((r.event.name, 0, r.event.count) for r in hidden))
    walk.block(body, frozenset())
    out = []
    for st in ir.walk(body):
        if isinstance(st, ir.EventWait) and id(st) in walk.seen:
            for ref in st.events:
                k = _missing(ref, walk.seen[id(st)])
                if k != -1:
                    out.append(Unreached(st, ref, k))
    return out
