"""What the checkers need to know of the syntax tree beyond its nodes: where an
expression starts, the operator classes, and how a kind of value is named in a message.
(sema.py and its mixins share these; a mixin cannot import sema, which imports it.)"""
from __future__ import annotations

from .. import ast as A
from ...diagnostics import Loc

COMPARE = {"==", "!=", "<", ">", "<=", ">="}
LOGICAL = {"&&", "||"}


def article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def start_loc(node: A.Node) -> Loc:
    """Where an expression starts: `a` in `a.chunkat(p, _)` (a Member's own loc is its name)."""
    while True:
        if isinstance(node, A.Call):
            node = node.func
        elif isinstance(node, (A.Member, A.SpanDerive)):
            node = node.base
        elif isinstance(node, (A.BinOp, A.Ternary)):
            nxt = node.left if isinstance(node, A.BinOp) else node.cond
            if (nxt.loc.line, nxt.loc.col) > (node.loc.line, node.loc.col):
                return node.loc
            node = nxt
        else:
            return node.loc
