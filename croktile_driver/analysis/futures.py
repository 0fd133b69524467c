"""What each `wait` finds of the copies it waits for: which of its futures are complete
already on every path that reaches it (waited since their copy was issued, or never
issued: a `dma.any` before its first copy), which may be, and, for a target that
completes copies in issue order (cuda's cp.async groups), how many copies issued after
the waited ones may stay in flight, so that a prefetch issued before the wait keeps
overlapping the work after it.

The language's meaning is that a future waited twice is complete the second time: `wait
f; wait f;` waits once, and so does a `wait f` in every iteration of a loop for a copy
issued before it, after the first. Each target lowers a wait of a complete future to
nothing; where a future is complete on some paths only, a target whose wait cannot be
repeated (an mbarrier phase on cuda) keeps a run-time record of what is in flight.

One walk (flow.py) over the statements one instance runs: a copy's `swap` exchanges what
is in flight with the buffers; where the issue order is not known (paths that meet with
different orders), the next wait of the followed futures waits for all of them.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Set

from .. import ir
from .flow import UNREACHED, Forward


class FutureState(NamedTuple):
    order: Optional[tuple]   # followed futures possibly in flight, oldest first; None: not known
    pending: frozenset       # futures whose copy may be in flight
    surely: frozenset        # futures whose copy is in flight on every path


START = FutureState((), frozenset(), frozenset())


def future_of_buffer(body: List[ir.Stmt]) -> Dict[str, str]:
    """The destination buffer of each asynchronous copy -> its future."""
    return {s.dst.buffer.name: s.future for s in ir.walk(body)
            if isinstance(s, ir.Dma) and s.is_async and s.future}


class WaitPlan:
    """The analysis's answers, by wait (``ir.Wait``)."""

    def __init__(self, followed: Set[str], blind: bool) -> None:
        self.keep: Dict[int, int] = {}
        self.seen: Dict[int, FutureState] = {}
        self.followed = followed   # the futures of asynchronous copies
        self.blind = blind         # a swap gives one of them to a future that names no copy

    def complete(self, wait: ir.Wait) -> Set[str]:
        """The wait's futures that are complete wherever it is reached (or that it is
        never reached for)."""
        state = self.seen.get(id(wait))
        out = set(wait.futures) if state is None else {f for f in wait.futures if f not in state.pending}
        return {f for f in out if f in self.followed} if self.blind else out

    def unsure(self, wait: ir.Wait) -> Set[str]:
        """The wait's futures that are in flight on some paths only."""
        return set(wait.futures) - self.complete(wait) - self.surely(wait)

    def surely(self, wait: ir.Wait) -> Set[str]:
        state = self.seen.get(id(wait))
        return set() if state is None else {f for f in wait.futures if f in state.surely}


class _Futures(Forward):
    def __init__(self, ordered: FrozenSet[str], by_buffer: Dict[str, str], blind: bool):
        super().__init__()
        self.ordered = ordered
        self.by_buffer = by_buffer
        self.plan = WaitPlan(set(by_buffer.values()), blind)

    def join(self, a: FutureState, b: FutureState) -> FutureState:
        return FutureState(a.order if a.order == b.order else None, a.pending | b.pending, a.surely & b.surely)

    def transfer(self, st: ir.Stmt, state: FutureState) -> FutureState:
        order, pending, surely = state
        if isinstance(st, ir.Dma) and st.future:
            f = frozenset({st.future})
            if not st.is_async:
                return FutureState(order, pending - f, surely - f)
            if st.future in self.ordered and order is not None:
                order = tuple(x for x in order if x != st.future) + (st.future,)
            return FutureState(order, pending | f, surely | f)
        if isinstance(st, ir.Wait):
            plan = self.plan
            plan.seen[id(st)] = self.meet(plan.seen.get(id(st), UNREACHED), state)
            mine = [f for f in st.futures if f in self.ordered]
            if mine:
                if order is None:
                    keep, order = 0, ()
                else:
                    last = max((i for i, f in enumerate(order) if f in mine), default=-1)
                    keep, order = len(order) - last - 1, order[last + 1:]
                plan.keep[id(st)] = min(plan.keep.get(id(st), keep), keep)
            done = frozenset(st.futures)
            return FutureState(order, pending - done, surely - done)
        if isinstance(st, ir.Swap):
            fa, fb = self.by_buffer.get(st.a.name), self.by_buffer.get(st.b.name)
            if fa and fb:
                if order is not None:
                    order = tuple(fb if f == fa else fa if f == fb else f for f in order)
                return FutureState(order, _exchange(pending, fa, fb), _exchange(surely, fa, fb))
            if fa or fb:   # a copy swapped with a buffer that no future names: not known
                f = frozenset({fa or fb})
                return FutureState(None if order and f & set(order) else order, pending | f, surely - f)
        return state


def _exchange(names: frozenset, a: str, b: str) -> frozenset:
    return frozenset(b if n == a else a if n == b else n for n in names)


def plan_waits(body: List[ir.Stmt], ordered: Iterable[str] = ()) -> WaitPlan:
    """Walks `body` (what one instance runs; a kernel's outer level, a function) from a
    state in which no copy is in flight. `ordered` are the futures whose copies complete
    in issue order (each one group, waited oldest first): each wait of them gets its
    ``keep``."""
    by_buffer = future_of_buffer(body)
    blind = any(isinstance(s, ir.Swap) and (s.a.name in by_buffer) != (s.b.name in by_buffer) for s in ir.walk(body))
    walk = _Futures(frozenset(ordered), by_buffer, blind)
    walk.block(body, START)
    return walk.plan
