"""Read-before-wait: which asynchronous copies may still be in flight at each access.

Sema records what matters for this question as a small tree of events while it walks a
``__co__`` function (copies issued, waits, swaps, accesses to data, and the constructs
that shape control flow); ``analyse`` then runs a forward dataflow over that tree, as
clang's analysis-based warnings run over a function once its body is complete:

* the state is the set of futures whose copy may still be in flight on some path;
* a ``foreach ... if`` body may run for no instance, so its exit joins (unions) the
  state before it with the state after its body; a `wait` inside it does not help the
  instances that the condition excludes;
* a ``foreach`` body runs at least once (its bounds are positive, checked at run time
  when not known) and its back edge joins the state at the end of the body into the
  state at its head, iterated to a fixed point;
* an access to a buffer that a possibly pending copy writes is an error at the access.

The sets only grow along a loop's iterations (every transfer is monotone), so the fixed
point is reached after at most one iteration per future; results of inner loops are
cached by their entry set, which keeps nested loops linear in practice.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, FrozenSet, List, Optional, Tuple

from ...diagnostics import Diagnostics, Loc
from ...ir.dataclass import dataclass
from .values import Future


# -- the event tree that sema records -------------------------------------------------
@dataclass(eq=False)
class Issue:
    """`f = dma.copy.async ...`: f's destination is written from now until `wait f`."""
    future: Future


@dataclass(eq=False)
class Wait:
    futures: List[Future]
    loc: Loc


@dataclass(eq=False)
class Swap:
    """`swap(f, g)`: f now names the copy that g named, and the other way round."""
    first: Future
    second: Future


@dataclass(eq=False)
class Access:
    """Data is read (or written) at ``loc``; ``via`` is set for `f.data`."""
    buffer: object
    loc: Loc
    access: str = "read"
    via: Optional[Future] = None


@dataclass(eq=False)
class Construct:
    """A construct that shapes control flow: ``parallel`` (runs once per instance) or
    ``loop`` (a `foreach`: at least once, with a back edge; not at all for the instances
    that the condition of a ``masked`` one, `foreach ... if`, excludes)."""
    kind: str
    loc: Loc
    body: List[object]
    masked: bool = False


# -- the state --------------------------------------------------------------------------
@dataclass(eq=False)
class InFlight:
    """Why a future may be pending: where its copy was issued, and how it got here."""
    future: Future
    carried: bool = False               # pending from an earlier iteration of a loop
    skipped_wait: Optional[Loc] = None  # its `wait` is inside a `foreach ... if`
    abandoned: bool = False             # its `parallel` block ended without a `wait`


class State:
    """Possibly pending futures by IR name; `waited` remembers the wait of each since its
    last issue (for the note at a `wait` that a mask skips)."""

    def __init__(self, pending: Optional[Dict[str, InFlight]] = None,
                 waited: Optional[Dict[str, Loc]] = None):
        self.pending: Dict[str, InFlight] = dict(pending or {})
        self.waited: Dict[str, Loc] = dict(waited or {})

    def copy(self) -> "State":
        return State(self.pending, self.waited)

    def keys(self) -> FrozenSet[str]:
        return frozenset(self.pending)

    def join(self, other: "State") -> "State":
        """The union of two paths; where both hold a future, this side's reason is kept."""
        out = self.copy()
        for name, why in other.pending.items():
            out.pending.setdefault(name, why)
        for name, loc in other.waited.items():
            out.waited.setdefault(name, loc)
        return out


# -- the analysis ---------------------------------------------------------------------
class Analysis:
    def __init__(self, diag: Diagnostics):
        self.diag = diag
        self.cache: Dict[Tuple[int, FrozenSet[str]], State] = {}
        self.issued: Dict[int, Tuple[FrozenSet[str], FrozenSet[str]]] = {}   # per `parallel` block: futures issued, and waited (or swapped with a waited one)

    def block(self, events: List[object], state: State, report: bool) -> State:
        for ev in events:
            handler = ev.kind if isinstance(ev, Construct) else type(ev).__name__
            state = getattr(self, "on_" + handler)(ev, state, report)
        return state

    def on_Issue(self, ev: Issue, state: State, report: bool) -> State:
        state = state.copy()
        state.pending[ev.future.name] = InFlight(ev.future)
        state.waited.pop(ev.future.name, None)   # an earlier wait does not cover this copy
        return state

    def on_Wait(self, ev: Wait, state: State, report: bool) -> State:
        state = state.copy()
        for fut in ev.futures:
            state.pending.pop(fut.name, None)
            state.waited[fut.name] = ev.loc
        return state

    def on_Swap(self, ev: Swap, state: State, report: bool) -> State:
        state = state.copy()
        first = state.pending.pop(ev.first.name, None)
        second = state.pending.pop(ev.second.name, None)
        if second is not None:
            state.pending[ev.first.name] = second
        if first is not None:
            state.pending[ev.second.name] = first
        return state

    def on_Access(self, ev: Access, state: State, report: bool) -> State:
        if not report:
            return state
        via = state.pending.get(ev.via.name) if ev.via is not None else None
        if via is not None:
            name = ev.via.user_name
            self.diag.error(ev.loc, f"'{name}.data' is read before 'wait {name}': the asynchronous "
                                    "copy may not have finished")
            self.explain(via)
            return state
        for why in state.pending.values():
            if _may_share(why.future.region.buffer, ev.buffer):
                name = why.future.user_name
                self.diag.error(ev.loc, f"'{name}' is {ev.access} before 'wait {name}': the asynchronous "
                                        f"copy into it may not have finished")
                self.explain(why)
                break
        return state

    def explain(self, why: InFlight) -> None:
        """Notes at the copy and at the `wait` that does not cover every path."""
        if why.skipped_wait is not None:
            self.diag.note(why.skipped_wait, "this 'wait' does not run for the instances that the "
                                             "'foreach ... if' condition excludes")
        where = "in an earlier iteration of the loop" if why.carried else "here"
        never = ", and its 'parallel' block ends without waiting for it" if why.abandoned else ""
        self.diag.note(why.future.loc, f"the asynchronous copy '{why.future.user_name}' is issued {where}{never}")

    def on_parallel(self, ev: Construct, state: State, report: bool) -> State:
        """A copy issued in the block and not waited there can never be waited (its future
        is out of scope): it is warned about once, and stays pending, so that reading its
        destination after the block (a `shared` or `global` buffer) is an error."""
        out = self.block(ev.body, state, report).copy()
        if id(ev) not in self.issued:
            self.issued[id(ev)] = (_issued_in(ev.body), _waited_classes(ev.body))
        issued, waited = self.issued[id(ev)]
        for name, why in list(out.pending.items()):
            if name in issued and not why.abandoned:
                # a future that is never waited itself but swaps with one that is (a
                # pipeline's prefetch that the last iterations do not issue) is left
                # pending only on paths this analysis cannot rule out: no warning
                if report and why.future.name not in waited:
                    self.unwaited(why)
                out.pending[name] = replace(why, abandoned=True)
        return out

    def unwaited(self, why: InFlight) -> None:
        name = why.future.user_name
        if why.skipped_wait is None:
            self.diag.warning(why.future.loc, f"asynchronous copy '{name}' is never waited")
            return
        self.diag.warning(why.future.loc, f"asynchronous copy '{name}' is not waited on every path")
        self.diag.note(why.skipped_wait, "this 'wait' does not run for the instances that the "
                                         "'foreach ... if' condition excludes")

    def on_choice(self, ev: Construct, state: State, report: bool) -> State:
        """`if`/`else`: each arm (a Construct of its own) runs from the state before it; the
        paths join after it (without `else`, the path that skips the `if` joins too)."""
        outs = [self.block(arm.body, state, report) for arm in ev.body]
        out = state if len(outs) < 2 else outs.pop()
        for other in outs:
            out = other.join(out)
        return out

    def on_mask(self, ev: Construct, state: State, report: bool) -> State:
        """`inthreads`: its body runs for some instances only."""
        return self.unmasked(state, self.block(ev.body, state, report))

    def on_loop(self, ev: Construct, state: State, report: bool) -> State:
        head = state
        while True:
            out = self.silent(ev, head)
            carried = State({n: replace(w, carried=True) for n, w in out.pending.items()}, out.waited)
            following = head.join(carried)
            if following.keys() == head.keys():
                break
            head = following
        if report:
            out = self.block(ev.body, head, True)
        return self.unmasked(state, out) if ev.masked else out

    @staticmethod
    def unmasked(before: State, after: State) -> State:
        """After `foreach ... if`: the instances it excluded still have the state before it."""
        out = after.copy()
        for name, why in before.pending.items():
            if name not in after.pending:  # waited in the body: not for the excluded instances
                out.pending[name] = replace(why, skipped_wait=after.waited.get(name))
        return out

    def silent(self, ev: Construct, head: State) -> State:
        """One pass over a loop body without diagnostics, cached by the entry set."""
        key = (id(ev), head.keys())
        if key not in self.cache:
            self.cache[key] = self.block(ev.body, head, False)
        return self.cache[key]


def _buffers(buf) -> List[object]:
    """The buffers that a buffer may be: itself, or the candidates of a `select` alias."""
    if buf.alias is None:
        return [buf]
    return [b for region in buf.alias[1] for b in _buffers(region.buffer)]


def _may_share(a, b) -> bool:
    return any(x is y for x in _buffers(a) for y in _buffers(b))


def _issued_in(events: List[object]) -> FrozenSet[str]:
    """The futures that a block (with what it nests) issues copies for."""
    names = set()
    for ev in events:
        if isinstance(ev, Issue):
            names.add(ev.future.name)
        elif isinstance(ev, Construct):
            names |= _issued_in(ev.body)
    return frozenset(names)


def _waited_classes(events: List[object]) -> FrozenSet[str]:
    """The futures of a block that are not waited themselves but that a loop rotates
    (`swap`, `rotate`) with one it waits in every iteration: a pipeline's buffers, waited
    under the first one's name."""
    out = set()

    def members(evs, kind):
        for ev in evs:
            if isinstance(ev, kind):
                yield ev
            elif isinstance(ev, Construct):
                yield from members(ev.body, kind)

    def visit(evs):
        for ev in evs:
            if not isinstance(ev, Construct):
                continue
            if ev.kind == "loop" and not ev.masked:
                parent: Dict[str, str] = {}

                def find(x: str) -> str:
                    while parent.get(x, x) != x:
                        x = parent[x]
                    return x
                for sw in members(ev.body, Swap):
                    parent[find(sw.first.name)] = find(sw.second.name)
                waited = {f.name for w in members(ev.body, Wait) for f in w.futures}
                roots = {find(n) for n in waited}
                names = set(parent) | set(parent.values())
                out.update(n for n in names if find(n) in roots and n not in waited)
            visit(ev.body)
    visit(events)
    return frozenset(out)


def analyse(events: List[object], diag: Diagnostics, loc: Loc) -> None:
    """Reports every access to data that a possibly pending copy writes, and every copy
    still pending when the function ends (``loc``, the function's, if it is too deep)."""
    analysis = Analysis(diag)
    try:
        final = analysis.block(events, State(), True)
    except RecursionError:
        diag.error(loc, "function too complex: its statements are nested too deeply")
        return
    for why in final.pending.values():
        if not why.abandoned:   # warned about at the end of its `parallel` block
            analysis.unwaited(why)
