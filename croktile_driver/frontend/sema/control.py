"""Checks and lowers the reference compiler's scalar control flow (issue #13): `if`/`else`,
`while`, `break`/`continue`, `print`/`println` (at run time), `print!`/`println!` (at compile
time) and `assert`. The statement checker makes one ``ControlFlow`` and sends it these
statements; its conditions are the expression checker's, converted by scalars.py.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from typing import Iterator, List, Optional

from .. import ast as A
from ... import ir
from ...ir.symbolic import Sym
from .context import BlockCheck, CheckContext, ExprCheck
from .elements import ElementChecks
from .events import EventForms
from .scalars import ScalarForms
from .values import VBool, VError, VExpr, VFloat, VInt, VSpan, VTuple, Value
from .values import kind_name as _kind_name, scalar as _scalar

BUILTIN_STATEMENTS = {"print", "println", "assert"}


def _limit_of(cond: Sym, i: Sym) -> Optional[Sym]:
    """``n`` where the condition ``cond`` is `i < n` or `n > i` (``n + 1`` for `i <= n`,
    `n >= i`), else None."""
    if len(cond.terms) != 1:
        return None
    (mono, coeff), = cond.terms.items()
    if coeff != 1 or len(mono) != 1 or mono[0].op not in ("<", "<=", ">", ">="):
        return None
    op, (left, right) = mono[0].op, mono[0].args
    if op in ("<", "<=") and left == i:
        return right + 1 if op == "<=" else right
    if op in (">", ">=") and right == i:
        return left + 1 if op == ">=" else left
    return None


class ControlFlow:
    """`if`, `while`, `break`, `continue`, `print` and `assert`."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, scoped_block: BlockCheck, elements: ElementChecks,
                 scalars: ScalarForms, events: EventForms):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr                    # the expression checker's
        self.scoped_block = scoped_block    # the statement checker's: a body in a scope of its own
        self.elements = elements            # element values printed
        self.scalars = scalars              # floating-point conditions and printed values
        self.events = events                # `while` over events

    def condition(self, node: A.Node, what: str) -> Optional[Sym]:
        """An integer or boolean condition as a boolean Sym; None after an error."""
        value = self.scalars.as_integer(_scalar(self.expr(node)), node.loc, "bool")   # (`if (x > 0.5)`)
        if isinstance(value, VBool):
            return value.sym
        if isinstance(value, VInt):
            return value.sym.op("!=", 0)
        if not isinstance(value, VError):
            self.error(node.loc, f"the {what} condition must be an integer or a boolean, not {_kind_name(value)}")
        return None

    def stmt_IfStmt(self, s: A.IfStmt) -> List[ir.Stmt]:
        """`if (c) A else B` is `bool t = c; if (t) A; if (!t) B;`: the condition is read
        once, before either branch can change what it reads."""
        cond = self.condition(s.cond, "'if'")
        arms = [s.then] + ([s.other] if s.other is not None else [])
        if cond is None:
            for arm in arms:   # still checked, for their own errors
                self.scoped_block(arm)
            return []
        out: List[ir.Stmt] = []
        if not cond.is_const and len(arms) == 2:
            name = self.ctx.unique("if_cond")
            out.append(ir.ScalarDef(s.loc, name, "bool", cond))
            cond = Sym.var(name)
        lowered = []
        with self.ctx.construct("choice", s.loc):
            for arm, taken in zip(arms, [cond, cond.op("!")]):
                refined = self._bound_refined(s.cond, cond) if arm is s.then else nullcontext()
                with self.ctx.construct("arm", arm.loc), self.ctx.in_arm(taken), refined:
                    lowered.append((taken, self.scoped_block(arm)))
        for taken, body in lowered:
            if taken.is_const:
                out.extend(body if taken.value else [])
            elif body:
                out.append(ir.If(s.loc, taken, body))
        return out

    @contextmanager
    def _bound_refined(self, node: A.Node, cond: Sym) -> Iterator[None]:
        """In `if (i < n) ...` over a bounded `i`, a tile `.at(i)` and an element `.at(i)` are
        checked against `n`, which the guard makes true (the last group of a `parallel` over
        `cdiv` bounds skips its blocks past the data; the instances past one array of
        several), not against the bound `i` has outside. Only the checks:
        `#i` and the chunks of `chunkat(i)` stay what `i`'s bound makes them. ``cond`` is the
        condition as checked (`n` is read from it, not evaluated again)."""
        sides = (node.left, node.right) if isinstance(node, A.BinOp) else ()
        for side in sides:
            sym = self.ctx.scope.lookup(side.name) if isinstance(side, A.Name) else None
            value = sym.value if sym is not None else None
            if not isinstance(value, VInt) or value.bound is None:
                continue
            limit = _limit_of(cond, value.sym)
            if limit is not None and limit.variables() <= self.ctx.host_vars:
                sym.value = replace(value, limit=limit)
                try:
                    yield
                finally:
                    sym.value = value
                return
        yield

    def stmt_WhileStmt(self, s: A.WhileStmt) -> List[ir.Stmt]:
        """The reference compiler's `while` waits on an event predicate; over integers and
        booleans it is an error there, and `foreach` with `break` is the counted loop."""
        if self.events.is_event_predicate(s.cond):   # `while (e && f[0]);` (events.py)
            self.events.event_predicate(s.cond)
            value = VError()
        else:
            value = _scalar(self.expr(s.cond))
        if not isinstance(value, VError):
            self.error(s.cond.loc, f"'while' needs an event condition, not {_kind_name(value)}; "
                                   "loop with 'foreach' (and 'break') over integers")
        self.ctx.jump_scopes.append("loop")
        try:
            self.scoped_block(s.body)
        finally:
            self.ctx.jump_scopes.pop()
        return []

    def _jump(self, s: A.Node, word: str, node) -> List[ir.Stmt]:
        inner = self.ctx.jump_scopes[-1] if self.ctx.jump_scopes else None
        if inner != "loop":
            across = " across 'parallel'" if inner == "parallel" else ""
            self.error(s.loc, f"'{word}' outside a loop{across}: it may stand only in a 'foreach' "
                              "(or 'while') body")
            return []
        return [node(s.loc)]

    def stmt_BreakStmt(self, s: A.BreakStmt) -> List[ir.Stmt]:
        return self._jump(s, "break", ir.Break)

    def stmt_ContinueStmt(self, s: A.ContinueStmt) -> List[ir.Stmt]:
        return self._jump(s, "continue", ir.Continue)

    # -- print, println, assert -------------------------------------------------
    def builtin_statement(self, e: A.Call) -> List[ir.Stmt]:
        name = e.func.name
        if name == "assert":
            return self.builtin_assert(e)
        return self.print_stmt(A.PrintStmt(e.loc, name == "println", False, e.args), name)

    def builtin_assert(self, e: A.Call) -> List[ir.Stmt]:
        if not 1 <= len(e.args) <= 2 or (len(e.args) == 2 and not isinstance(e.args[1], A.StringLit)):
            self.error(e.loc, "'assert' takes a condition and, optionally, a message string: "
                              "'assert(M > 8, \"M must be larger than 8\");'")
            return []
        cond = self.condition(e.args[0], "'assert'")
        if cond is None:
            return []
        message = _c_string_text(e.args[1].text) if len(e.args) == 2 else "assertion failed"
        if cond.is_const:
            if not cond.value:
                self.error(e.args[0].loc, f"assertion failed: {message}")
            return []
        return self.ctx.runtime_check(e.loc, cond, f"assertion failed: {message}", [])

    def stmt_PrintStmt(self, s: A.PrintStmt) -> List[ir.Stmt]:
        word = getattr(s, "word", "println" if s.newline else "print")
        if word not in ("print", "println"):
            self.error(s.loc, f"'{word}!' is not a compile-time function; 'print!' and 'println!' are")
            return []
        return self.print_stmt(s, word + "!")

    def print_stmt(self, s: A.PrintStmt, word: str) -> List[ir.Stmt]:
        items: List[ir.PrintItem] = []
        ok = True
        for arg in s.args:
            if isinstance(arg, A.StringLit):
                items.append(ir.PrintItem("text", arg.text))
                continue
            value = self.expr(arg)
            if not s.static:
                value = _scalar(value)
                if isinstance(value, VExpr) and value.expr.ctype not in ("float", "double"):   # `f > g`: true
                    value = self.scalars.as_integer(value, arg.loc, "bool" if value.expr.ctype == "bool" else "int")
            if isinstance(value, VError):
                ok = False
            elif isinstance(value, (VInt, VBool)):
                items.append(ir.PrintItem("int" if isinstance(value, VInt) else "bool", value=value.sym))
            elif s.static and isinstance(value, (VSpan, VTuple, VFloat, VExpr)):
                items.append(ir.PrintItem("text", _static_text(value)))
            elif isinstance(value, (VFloat, VExpr)):   # printed as C's "%f" (integer elements as integers)
                if self.ctx.level == 0 and value.kind == "element value":
                    x = self.elements.to_eexpr(value)   # run where the data is: a launch (launch_host_elements)
                else:
                    x = self.scalars.float_operand(value, arg.loc, f"'{word}'")
                if x is None:
                    ok = False
                else:
                    items.append(ir.PrintItem("float", expr=x))
            else:
                ok = False
                self.error(arg.loc, f"'{word}' prints strings, integers, booleans and floating-point values, "
                                    f"not {_kind_name(value)}")
        if not ok:
            return []
        if s.static:   # at compile time: what the checker knows of each value
            text = "".join(_c_string_text(i.text) if i.kind == "text" and i.text.startswith('"')
                           else i.text if i.kind == "text" else i.value.to_c() for i in items)
            sys.stdout.write(text + ("\n" if s.newline else ""))
            return []
        return [ir.Print(s.loc, items, s.newline)]


def _c_string_text(literal: str) -> str:
    """The characters a C string literal stands for."""
    from ...cstrings import unescape
    return unescape(literal[1:-1]) if literal.startswith('"') else literal


def _static_text(value: Value) -> str:
    if isinstance(value, VSpan):
        return "[" + ", ".join(d.to_c() for d in value.dims) + "]"
    if isinstance(value, VTuple):
        return "{" + ", ".join(d.to_c() for d in value.items) + "}"
    if isinstance(value, VExpr) or not value.text[:1].isdigit():
        return "unknown"   # (a run-time value, as the reference prints it)
    return value.text

