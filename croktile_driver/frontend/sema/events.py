"""The reference compiler's events (events.md): `shared event e, f[4];`, `trigger e, f[1];`
and `wait` of events, checked and lowered to ``ir.EventDecl`` / ``ir.Trigger`` /
``ir.EventWait``.

The statement checker makes one ``EventForms`` and sends it these statements (and the
events of a `wait`, and `inthreads`). Events order the `inthreads` blocks of the instances
of a level (a producer and its consumers); a wait that no trigger can end (none of that
event or element in the function, or none that can set it on a path before the wait:
analysis/events.py) is an error here, other deadlocks are reported at run time by the
targets (a wait times out with its line).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .. import ast as A
from ... import ir
from ...analysis.events import element_text, flags, unreached_waits
from ...ir.symbolic import Sym
from .context import BlockCheck, CheckContext, ExprCheck
from .values import COMPARE, LOGICAL, Symbol, VBool, VError, VInt, VTuple, Value
from .values import article, kind_name, scalar, start_loc

WHILE_NOT_SUPPORTED = ("'while' over events is not supported yet by the code generators (use 'wait'); "
                       "'-fsyntax-only' checks it")


class VEvent(Value):
    """An event, an array of events or a sub-array (`e[1]` of `event e[2][3]`)."""
    kind = "event"

    def __init__(self, event: ir.Event, index: List[Sym]):
        self.event, self.index = event, index
        self.name, self.storage = event.source_name, event.storage
        self.dims = event.dims[len(index):]


class EventForms:
    """Event declarations, `trigger`, the events of `wait`, and `inthreads`."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, scoped_block: BlockCheck):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr                    # the expression checker's
        self.scoped_block = scoped_block    # the statement checker's (an `inthreads` body)
        self.triggers: List[ir.EventRef] = []   # of every `trigger` (a `while` body's has no IR)

    def stmt_EventDecl(self, s: A.EventDecl) -> List[ir.Stmt]:
        storage = s.storage or ("local" if self.ctx.level > 0 else "global")
        if self.ctx.level == 0 and storage in ("local", "shared"):
            self.error(s.loc, f"'{storage}' events can only be declared inside a 'parallel' block")
            return []
        if self.ctx.level > 0 and storage == "global":
            self.error(s.loc, "'global' events must be declared outside 'parallel'")
            return []
        out: List[ir.Stmt] = []
        for name, dims in zip(s.names, s.dims):
            sizes = self.event_dims(dims)
            value: Value = VError()
            if sizes is not None:
                event = ir.Event(self.ctx.unique(name.name), name.name, storage, sizes, self.ctx.level, name.loc)
                out.append(ir.EventDecl(s.loc, event))
                value = VEvent(event, [])
            self.ctx.declare(name, Symbol(name.name, "event" if sizes is not None else "error", value, name.loc))
        return out

    def event_dims(self, dims: List[A.Node]) -> Optional[List[int]]:
        sizes = []
        for d in dims:
            v = self.expr(d)
            v = scalar(v)   # a one-element ituple is its integer
            if isinstance(v, VError):
                return None
            if not isinstance(v, VInt) or not v.sym.is_const:
                self.error(d.loc, "an event array's dimensions must be integer constants")
                return None
            if v.sym.value <= 0:
                self.error(d.loc, f"an event array's dimensions must be positive, not {v.sym.value}")
                return None
            sizes.append(v.sym.value)
        return sizes

    def stmt_TriggerStmt(self, s: A.TriggerStmt) -> List[ir.Stmt]:
        refs = self.event_refs(s.events, "trigger")
        self.triggers.extend(refs)
        if not refs:
            return []
        return self.ctx.take_prefix() + [ir.Trigger(s.loc, refs)]

    def wait_events(self, s: A.WaitStmt, nodes: List[A.Node]) -> List[ir.Stmt]:
        """The events of a `wait` (its futures are sema's)."""
        refs = self.event_refs(nodes, "wait")
        return self.ctx.take_prefix() + [ir.EventWait(s.loc, refs)] if refs else []

    def event_refs(self, nodes: List[A.Node], verb: str) -> List[ir.EventRef]:
        uses = [(self.event_ref(n, verb), n) for n in nodes]
        return [ir.EventRef(r.event, r.index, start_loc(n)) for r, n in uses if r is not None]

    def check_event_waits(self, body: List[ir.Stmt]) -> None:
        """A wait on an event (element) that no trigger can set before it blocks forever
        on every target: an error at the wait (analysis/events.py follows the paths and
        the instances that run at the same time), with a note at a trigger that comes
        too late."""
        shown = {id(r) for s in ir.walk(body) if isinstance(s, ir.Trigger) for r in s.events}
        hidden = [r for r in self.triggers if id(r) not in shown]   # (a `while` body's)
        triggers = [(s, r) for s in ir.walk(body) if isinstance(s, ir.Trigger) for r in s.events]
        try:
            unreached = unreached_waits(body, hidden)
        except RecursionError:   # statements nested thousands deep: pending.py said so
            if not self.ctx.diag.errors:
                self.error(body[0].loc if body else None, "function too complex: its statements are nested too deeply")
            return
        for u in unreached:
            ref, missing = u.ref, u.missing
            lo, hi = flags(ref)[1:] if missing is None else (missing, missing + 1)
            setters = [(s, r) for s, r in triggers + [(None, r) for r in hidden]
                       if r.event is ref.event and _overlap(flags(r), lo, hi)]
            what = "event" if ref.count == 1 else "events"
            # an element of an array that other triggers set
            part = element_text(ref.event, missing) if ref.count > 1 and missing is not None else None
            never = "nothing triggers" if not setters else "no trigger before it sets"
            if part and (setters or any(r.event is ref.event and _overlap(flags(r), *flags(ref)[1:])
                                        for _, r in triggers)):
                self.error(ref.loc or u.wait.loc, f"wait on {what} '{ref.text()}', of which {never} '{part}': "
                                                  "it would block forever")
            else:
                self.error(ref.loc or u.wait.loc, f"wait on {what} '{ref.text()}' that {never}: it would block forever")
            self.explain(u.wait, [(s, r) for s, r in setters if s is not None])

    def explain(self, wait: ir.EventWait, setters: List[Tuple[ir.Trigger, ir.EventRef]]) -> None:
        """A note at the trigger that could have ended the wait: the first after it, or
        else the last before it (whose flag an earlier wait takes)."""
        def place(t: Tuple[ir.Trigger, ir.EventRef]) -> Tuple[int, int]:
            return t[0].loc.line, t[0].loc.col
        line = wait.loc.line
        later = [t for t in setters if place(t) > (line, wait.loc.col)]
        if later:
            t, r = min(later, key=place)
            self.ctx.diag.note(t.loc, f"'{r.text()}' is triggered here, after the wait on line {line}")
        elif setters:
            t, r = max(setters, key=place)
            self.ctx.diag.note(t.loc, f"'{r.text()}' is triggered here, but a wait between this and line {line} "
                                      "takes the flag (one trigger ends one wait)")

    def is_event(self, node: A.Node) -> bool:
        base = node
        while isinstance(base, A.SpanDerive):
            base = base.base
        if not isinstance(base, A.Name):
            return False
        sym = self.ctx.scope.lookup(base.name)
        return sym is not None and sym.kind == "event"

    def is_event_predicate(self, node: A.Node) -> bool:
        """`e`, `e[1]`, or `&&`/`||` of those (a `while` condition), all of them events."""
        if isinstance(node, A.BinOp) and node.op in ("&&", "||"):
            return self.is_event_predicate(node.left) and self.is_event_predicate(node.right)
        return self.is_event(node)

    def event_predicate(self, node: A.Node) -> None:
        if isinstance(node, A.BinOp):
            self.event_predicate(node.left)
            self.event_predicate(node.right)
        else:
            self.event_ref(node, "while")
            self.ctx.unsupported.append((node.loc, WHILE_NOT_SUPPORTED))

    def event_ref(self, node: A.Node, verb: str) -> Optional[VEvent]:
        """`e`, `e[i]`, `e[i][j]`: an event, or the events of a (sub-)array."""
        indices: List[Tuple[A.Node, A.Node]] = []
        base = node
        while isinstance(base, A.SpanDerive):
            indices = [(i, base) for i in base.items] + indices
            base = base.base
        if not isinstance(base, A.Name):
            self.error(node.loc, f"'{verb}' takes events, e.g. '{verb} e;' or '{verb} e[0];'")
            return None
        sym = self.ctx.scope.lookup(base.name)
        if sym is None:
            self.error(base.loc, f"'{base.name}' was not declared in this scope")
            return None
        if sym.kind == "error":
            return None
        if sym.kind != "event":
            self.error(base.loc, f"'{verb}' takes events, but '{base.name}' is {sym.value.kind}")
            return None
        ev = sym.value
        index: List[Sym] = []
        if len(indices) > len(ev.dims):
            self.error(base.loc, f"event array '{base.name}' has {len(ev.dims)} dimension"
                                 f"{'s' if len(ev.dims) != 1 else ''}, but {len(indices)} indices are used")
            return None
        for k, (idx, _) in enumerate(indices):
            v = self.expr(idx)
            v = scalar(v)   # a one-element ituple is its integer
            if isinstance(v, VError):
                return None
            if not isinstance(v, VInt):
                self.error(idx.loc, f"an event index is an integer, not {v.kind}")
                return None
            if v.sym.is_const and not 0 <= v.sym.value < ev.dims[k]:
                self.error(idx.loc, f"index {v.sym.value} is out of bounds of dimension {k} of event array "
                                    f"'{base.name}' (valid range [0, {ev.dims[k]}))")
                return None
            if not v.sym.is_const:
                inside = v.sym.op(">=", 0).op("&&", v.sym.op("<", ev.dims[k]))
                self.ctx.prefix += self.ctx.runtime_check(
                    idx.loc, inside, f"index {{0}} is out of bounds of dimension {k} of event array "
                                     f"'{base.name}' (valid range [0, {ev.dims[k]}))", [v.sym])
            index.append(v.sym)
        return EventUse(ev.event, ev.index + index)

    def stmt_InThreadsStmt(self, s: A.InThreadsStmt) -> List[ir.Stmt]:
        """`inthreads (pred)`: a mask over the instances of the enclosing levels."""
        if self.ctx.level == 0:
            self.error(s.loc, "'inthreads' can only be inside 'parallel': outside of it, tileflow code "
                              "runs on the host")
        elif s.is_async and self.ctx.inthreads_depth:
            self.error(s.loc, "an inner 'inthreads' cannot be asynchronous; only the outermost may be "
                              "'inthreads.async'")
        cond = scalar(self.expr(s.cond))
        cond_sym = None
        if isinstance(cond, VBool):
            cond_sym = cond.sym
            if self.ctx.level > 0:
                self.check_divergent(s.cond)
        elif not isinstance(cond, VError):
            self.error(start_loc(s.cond), f"'inthreads' needs a predicate on parallel variables, such as "
                                           f"'p < 2', not {article(kind_name(cond))}")
        self.ctx.inthreads_depth += 1
        try:
            with self.ctx.construct("mask", s.loc, masked=True), self.ctx.guarded(cond_sym):
                body = self.scoped_block(s.body)
        finally:
            self.ctx.inthreads_depth -= 1
        return [ir.InThreads(s.loc, cond_sym if cond_sym is not None else Sym.const(1), body, s.is_async)]

    def check_divergent(self, cond: A.Node) -> None:
        """The reference's rule: every comparison in the predicate compares something that
        depends on a parallel variable with something that does not, so the predicate
        tells instances apart and never holds or fails for all of them alike."""
        if isinstance(cond, A.BinOp) and cond.op in LOGICAL:
            self.check_divergent(cond.left)
            self.check_divergent(cond.right)
            return
        if isinstance(cond, A.UnOp) and cond.op == "!":
            self.check_divergent(cond.operand)
            return
        if isinstance(cond, A.BinOp) and cond.op in COMPARE:
            left, right = self._divergent(cond.left), self._divergent(cond.right)
            if left != right:
                return
            why = ("both sides of this comparison depend on parallel variables" if left else
                   "neither side of this comparison depends on a parallel variable")
        elif self._divergent(cond):
            return
        else:
            why = "this condition does not depend on a parallel variable"
        self.error(start_loc(cond), f"'inthreads' predicate must be strictly divergent: {why}")

    def _divergent(self, node: A.Node) -> bool:
        """Whether an expression's value differs between the instances of a level."""
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, A.UpperBound):
                continue
            if isinstance(n, A.Name):
                sym = self.ctx.scope.lookup(n.name)
                value = sym.value if sym is not None else None
                syms = [value.sym] if isinstance(value, (VInt, VBool)) else \
                    list(value.items) if isinstance(value, VTuple) else []
                if any(v.variables() & self.ctx.parallel_atoms for v in syms):
                    return True
            stack.extend(n.children())
        return False


class EventUse(VEvent):
    """The events one `trigger`/`wait` names."""

    def text(self) -> str:
        return ir.EventRef(self.event, self.index).text()


def _overlap(flag: tuple, lo: int, hi: int) -> bool:
    return flag[1] < hi and lo < flag[2]
