"""One forward dataflow over the statements an instance runs, shared by the analyses that
order waits: futures.py (which copies a `wait` may leave in flight, which of its futures
are complete already) and events.py (which triggers can set what a `wait` takes).

An analysis says what a statement does to its state (``transfer``), how two states meet
(``join``) and, where its state crosses instances, what a `parallel` does (``parallel``).
``Forward.block`` threads the state through the statements in program order: an `if`
joins the state of its body with the one that skips it (the two `if`s that `if ... else`
lowers to, on one condition and its negation, join their two bodies instead); a loop's
first iteration starts in the state before it, the later ones in the join of the states
its iterations end in (its back edge, `continue` included), iterated until that state
no longer changes; it is left where an iteration ends or at a `break`, or, where it may
run no iteration, in the state before it. Code after a `break` or `continue` is not
reached (``UNREACHED``, which ``join`` never sees).

A statement may be visited once per iteration of each loop around it, each time in a
state no smaller than the last, so an analysis that records what it sees keeps the join
(or the worst) of its visits. A loop entered again in a state it was entered in before
(with the same ``context``) is not walked again: nested loops stay linear in practice.
"""
from __future__ import annotations

from typing import Any, Dict, List

from .. import ir
from ..ir.symbolic import Sym


class _Unreached:
    def __repr__(self) -> str:
        return "UNREACHED"


UNREACHED: Any = _Unreached()
MAX_ROUNDS = 64      # a loop's fixed point: lattices here are finite and far shallower


def runs_once(loop: ir.Loop) -> bool:
    """Whether a loop runs its body at least once, whatever the values at run time."""
    return loop.count.is_const and loop.count.value >= 1 and not loop.may_skip


def complement(first: ir.If, second: ir.Stmt) -> bool:
    """Whether `second` is the `else` of `first`: an `if` on the negation of first's
    condition, a variable that first's body does not assign (frontend/sema/control.py
    lowers `if (c) A else B` so)."""
    if type(second) is not ir.If or type(first) is not ir.If:
        return False
    names = first.cond.variables()
    if len(names) != 1 or first.cond.key() != Sym.var(next(iter(names))).key():
        return False
    if second.cond.key() != first.cond.op("!").key():
        return False
    return not any(isinstance(s, (ir.Assign, ir.ScalarDef)) and getattr(s, "name", None) in names
                   for s in ir.walk(first.body))


class Forward:
    """The walk; a subclass is one analysis (see the module docstring)."""

    def __init__(self) -> None:
        self._loops: List[List[list]] = []   # per enclosing loop: [breaks, continues]
        self._done: Dict[tuple, Any] = {}     # (loop, state, context) -> the state after it

    # -- what an analysis gives -------------------------------------------------------
    def join(self, a, b):
        raise NotImplementedError

    def transfer(self, st: ir.Stmt, state):
        """A statement without a body of its own."""
        return state

    def context(self):
        """What else a statement's effect depends on (hashable): part of a loop's cache key."""
        return None

    def parallel(self, st: ir.Parallel, state):
        """A `parallel` inside the walked code: by default one instance's view of its
        body, joined with the state before it (what the instances together leave is not
        followed further)."""
        return self.meet(state, self.nested(st.body, state))

    # -- the walk ---------------------------------------------------------------------
    def meet(self, a, b):
        if a is UNREACHED:
            return b
        if b is UNREACHED:
            return a
        return self.join(a, b)

    def nested(self, body: List[ir.Stmt], state):
        """A body in which `break` and `continue` of the loops outside do not reach (a
        `parallel`'s)."""
        saved, self._loops = self._loops, []
        try:
            return self.block(body, state)
        finally:
            self._loops = saved

    def block(self, stmts: List[ir.Stmt], state):
        i = 0
        while i < len(stmts) and state is not UNREACHED:
            st = stmts[i]
            if isinstance(st, ir.If):
                if i + 1 < len(stmts) and complement(st, stmts[i + 1]):
                    state = self.meet(self.block(st.body, state), self.block(stmts[i + 1].body, state))
                    i += 1
                else:
                    state = self.meet(state, self.block(st.body, state))
            elif isinstance(st, ir.Loop):
                state = self.loop(st, state)
            elif isinstance(st, ir.Parallel):
                state = self.parallel(st, state)
            elif isinstance(st, (ir.Break, ir.Continue)):
                if self._loops:
                    self._loops[-1][0 if isinstance(st, ir.Break) else 1].append(state)
                state = UNREACHED
            else:
                state = self.transfer(st, state)
            i += 1
        return state

    def iteration(self, loop: ir.Loop, head):
        """One pass over the body from `head`: (the state at its back edge, the states
        at its `break`s)."""
        self._loops.append([[], []])
        try:
            end = self.block(loop.body, head)
        finally:
            breaks, continues = self._loops.pop()
        for c in continues:
            end = self.meet(end, c)
        out = UNREACHED
        for b in breaks:
            out = self.meet(out, b)
        return end, out

    def loop(self, loop: ir.Loop, state):
        key = (id(loop), state, self.context())
        if key not in self._done:
            self._done[key] = self._loop(loop, state)
        return self._done[key]

    def _loop(self, loop: ir.Loop, state):
        head, leave = self.iteration(loop, state)   # the first iteration
        for _ in range(MAX_ROUNDS):
            if head is UNREACHED:
                break
            end, out = self.iteration(loop, head)
            leave = self.meet(leave, out)
            following = self.meet(head, end)
            if following == head:
                break
            head = following
        leave = self.meet(leave, head)
        return leave if runs_once(loop) else self.meet(leave, state)
