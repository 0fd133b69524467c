"""Checks of the reference compiler's events (events.md): `shared event e, f[4];`,
`trigger e, f[1];` and `wait` of events.

A mixin of ``sema.FunctionChecker``. Events synchronise `inthreads` blocks in the
reference; without those (not part of this compiler yet) no target has code for them, so
a function that declares events is checked here and then refused by code generation,
at its first event, as not supported yet (``ir.Function.unsupported``).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from . import ast as A
from . import ir
from .values import Symbol, VError, VInt, Value, scalar

NOT_SUPPORTED = ("events are not supported yet by the code generators (they synchronise 'inthreads' "
                 "blocks, which are not supported either); '-fsyntax-only' checks them")


class VEvent(Value):
    """An event, an array of events or a sub-array (`e[1]` of `event e[2][3]`)."""
    kind = "event"

    def __init__(self, name: str, storage: str, dims: List[int]):
        self.name, self.storage, self.dims = name, storage, dims


class EventForms:
    def stmt_EventDecl(self, s: A.EventDecl) -> List[ir.Stmt]:
        storage = s.storage or ("local" if self.level > 0 else "global")
        if self.level == 0 and storage in ("local", "shared"):
            self.error(s.loc, f"'{storage}' events can only be declared inside a 'parallel' block")
            return []
        if self.level > 0 and storage == "global":
            self.error(s.loc, "'global' events must be declared outside 'parallel'")
            return []
        self.unsupported.append((s.loc, NOT_SUPPORTED))
        for name, dims in zip(s.names, s.dims):
            sizes = self.event_dims(dims)
            value = VEvent(name.name, storage, sizes) if sizes is not None else VError()
            self.declare(name, Symbol(name.name, "event" if sizes is not None else "error", value, name.loc))
        return []

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
        for e in s.events:
            self.event_ref(e, "trigger")
        return []

    def is_event(self, node: A.Node) -> bool:
        base = node
        while isinstance(base, A.SpanDerive):
            base = base.base
        if not isinstance(base, A.Name):
            return False
        sym = self.scope.lookup(base.name)
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
        sym = self.scope.lookup(base.name)
        if sym is None:
            self.error(base.loc, f"'{base.name}' was not declared in this scope")
            return None
        if sym.kind == "error":
            return None
        if sym.kind != "event":
            self.error(base.loc, f"'{verb}' takes events, but '{base.name}' is {sym.value.kind}")
            return None
        ev = sym.value
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
        return VEvent(ev.name, ev.storage, ev.dims[len(indices):])
