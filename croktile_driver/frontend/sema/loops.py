"""The spec's parallel levels and loops: `parallel p by N : kind` (its bounds, level
kind and variables), `with ... in [...] where ...` bindings and `foreach` (ranges,
conditions), checked and lowered to ``ir.Parallel`` / ``ir.Loop``.

The statement checker makes one ``LoopForms`` and sends it these statements; it gets
the checkers' ``expr`` and the statement checker's blocks for the bodies.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from .. import ast as A
from ... import ir
from ...ir import levels
from ...ir.symbolic import Sym, prove_equal
from .context import BlockCheck, CheckContext, ExprCheck, StmtsCheck
from .values import article as _article, kind_name as _kind_name, scalar as _scalar
from .values import Symbol, VBool, VError, VExpr, VFloat, VInt, VSpan, VTuple, Value

_ARITH = {"+", "-", "*", "/", "%"}
_BITWISE = {"<<", ">>", "&", "|", "^"}


def _bound_list(value: Value) -> Optional[List[Sym]]:
    """The bounds an integer, an mdspan or an ituple gives a level or a `with`; None for
    other values."""
    if isinstance(value, VInt):
        return [value.sym]
    if isinstance(value, VSpan):
        return list(value.dims)
    if isinstance(value, VTuple):
        return list(value.items)
    return None


class LoopForms:
    """`parallel`, `with` and `foreach`."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, block_stmts: StmtsCheck, scoped_block: BlockCheck):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr                    # the expression checker's
        self.block_stmts = block_stmts      # the statement checker's: a body in the current scope
        self.scoped_block = scoped_block    # and a body in a scope of its own

    def stmt_ParallelStmt(self, s: A.ParallelStmt) -> List[ir.Stmt]:
        if s.is_async and self.ctx.level > 0:
            self.error(s.async_loc or s.loc, "an inner 'parallel' level cannot be asynchronous; only the "
                                             "outermost 'parallel' may be 'parallel.async'")
        if self.ctx.inthreads_depth:
            self.error(s.loc, "'parallel' cannot be inside 'inthreads'")
        kind = self.level_kind(s)
        bounds, checks = self.parallel_bounds(s)
        count_sym = Sym.const(1)
        for b in bounds or []:
            count_sym = count_sym * b
        named = s.var.name if s.var is not None else "pb"
        var = self.ctx.unique(named)
        node = ir.Parallel(s.loc, var, count_sym, self.ctx.level + 1, [], kind=kind)
        self.ctx.level += 1
        self.ctx.max_level = max(self.ctx.max_level, self.ctx.level)
        self.ctx.parallel_stack.append(node)
        self.ctx.push()
        prologue = self.declare_parallel_vars(s, var, bounds)
        self.ctx.jump_scopes.append("parallel")
        try:
            with self.ctx.construct("parallel", s.loc):
                node.body = prologue + self.block_stmts(s.body.stmts)
        finally:
            self.ctx.jump_scopes.pop()
            self.ctx.pop()
            self.ctx.parallel_stack.pop()
            self.ctx.level -= 1
        return checks + [node]

    def level_kind(self, s: A.ParallelStmt) -> Optional[str]:
        """The level annotation, checked against the annotated level around it."""
        kind = s.anno.name if s.anno is not None else None
        if kind is not None and kind not in levels.KINDS:
            self.error(s.anno.loc, f"unknown parallel level '{kind}'; the levels are 'block', 'group-4', "
                                   "'group' and 'thread'")
            kind = None
        outer = next((p for p in reversed(self.ctx.parallel_stack) if p.kind is not None), None)
        if self.ctx.parallel_stack and (s.anno is None) != (self.ctx.parallel_stack[-1].kind is None):
            self.ctx.diag.warning(s.loc, "annotate all levels of nested 'parallel' blocks or none (then the "
                                     "levels are inferred)")
        if kind is None or outer is None:
            return kind
        if levels.ORDER[kind] <= levels.ORDER[outer.kind]:
            self.error(s.anno.loc, f"cannot infer the parallel levels between '{outer.kind}' and '{kind}': "
                                   f"a '{kind}' level cannot be inside a '{outer.kind}' level (the levels "
                                   "are block, group-4, group, thread, outermost first)")
        return kind

    def parallel_bounds(self, s: A.ParallelStmt):
        """The bounds of one level (one per sub-level), with their run-time checks."""
        value = self.ctx.reject_mutable(self.expr(s.count), s.count.loc, "a 'parallel' count")
        loc = s.count.loc
        bad = self._bool_operand(s.count)
        if isinstance(value, VError):
            return None, []
        value = _scalar(value)
        bounds = _bound_list(value)
        if bounds is None:
            self.error(loc, f"a 'parallel' bound must be an integer, not {_kind_name(value)}")
            return None, []
        if bad is not None:
            self.error(bad.loc, "a 'parallel' bound must be an integer, not bool")
            return None, []
        names = len(s.elements) if s.elements is not None else 1
        if s.elements is None and len(bounds) > 1:
            who = f"'{s.var.name}'" if s.var is not None else "an unnamed level"
            self.error(loc, f"the parallel variable {who} cannot take {len(bounds)} bounds; name the "
                            f"sub-levels: '{{x, y}} by [...]'")
            return None, []
        if names != len(bounds):
            fewer = "fewer" if names < len(bounds) else "more"
            self.error(s.loc, f"{fewer} parallel variables than bounds ({names} vs. {len(bounds)})")
            return None, []
        checks: List[ir.Stmt] = []
        for i, b in enumerate(bounds):
            which = "" if len(bounds) == 1 else f" {i}"
            checks += self.ctx.require_positive(loc, b, f"'parallel' bound{which} is {{0}}; it must be positive",
                                                f"'parallel' count{which} is {{0}}; it must be positive")
        return bounds, checks

    def _bool_operand(self, node: A.Node) -> Optional[A.Node]:
        """A boolean inside an integer expression (`a + b` with `bool b`), which C++ would
        promote but a count must not be made of."""
        if isinstance(node, A.BoolLit):
            return node
        if isinstance(node, A.Name):
            sym = self.ctx.scope.lookup(node.name)
            return node if sym is not None and sym.kind == "bool" else None
        if isinstance(node, A.BinOp) and (node.op in _ARITH or node.op in _BITWISE):
            return self._bool_operand(node.left) or self._bool_operand(node.right)
        if isinstance(node, A.UnOp) and node.op != "!":
            return self._bool_operand(node.operand)
        if isinstance(node, A.Ternary):
            return self._bool_operand(node.then) or self._bool_operand(node.other)
        return None

    def declare_parallel_vars(self, s: A.ParallelStmt, var: str, bounds: Optional[List[Sym]]) -> List[ir.Stmt]:
        """Declares the level's variables; sub-levels are taken from the linear instance
        number `var`, the first one the most significant (row-major, as `with`)."""
        lin = Sym.var(var)
        self.ctx.parallel_atoms.add(var)
        if bounds is None:
            for n in ([s.var] if s.var is not None else []) + (s.elements or []):
                self.ctx.declare(n, Symbol(n.name, "error", VError(), n.loc))
            return []
        if s.elements is None:
            if s.var is not None:
                self.ctx.declare(s.var, Symbol(s.var.name, "bounded", VInt(lin, bounds[0], "parallel"),
                                               s.var.loc, var, [var], "parallel"))
            return []
        prologue: List[ir.Stmt] = []
        atoms: List[str] = []
        for i, (el, ub) in enumerate(zip(s.elements, bounds)):
            if len(bounds) == 1:
                atom = var
            else:
                atom = self.ctx.unique(el.name)
                inner = Sym.const(1)
                for b in bounds[i + 1:]:
                    inner = inner * b
                value = lin.op("/", inner) if i + 1 < len(bounds) else lin
                prologue.append(ir.ScalarDef(el.loc, atom, "int", value.op("%", ub) if i else value))
                self.ctx.parallel_atoms.add(atom)
            atoms.append(atom)
            self.ctx.declare(el, Symbol(el.name, "bounded", VInt(Sym.var(atom), ub, "parallel"), el.loc, atom,
                                        [atom], "parallel"))
        if s.var is not None:
            self.ctx.declare(s.var, Symbol(s.var.name, "bounded", VTuple([Sym.var(a) for a in atoms], list(bounds),
                                                                      "parallel"), s.var.loc, var, atoms, "parallel"))
        return prologue

    def stmt_WithStmt(self, s: A.WithStmt) -> List[ir.Stmt]:
        self.ctx.push()
        out: List[ir.Stmt] = []
        try:
            by_name: Dict[str, Symbol] = {}
            for b in s.bindings:
                out += self.binding(b, by_name)
            for w in s.wheres:
                out += self.where(w, by_name)
            out += self.block_stmts(s.body.stmts)
        finally:
            self.ctx.pop()
        return out

    def binding(self, b: A.Binding, by_name: Dict[str, Symbol]) -> List[ir.Stmt]:
        if isinstance(b.bounds, A.SizeOf):   # the reference's grammar has no `in |x|`
            self.error(b.bounds.loc, "'with ... in' needs an mdspan or an integer bound; write the size as one "
                                     "dimension: '[|...|]'")
            bounds_value: Value = VError()
        else:
            bounds_value = self.ctx.reject_mutable(self.expr(b.bounds), b.bounds.loc, "a 'with' bound")
        bounds = _bound_list(bounds_value)
        if bounds is None and not isinstance(bounds_value, VError):
            self.error(b.bounds.loc, f"'with ... in' needs an mdspan of bounds, not {_kind_name(bounds_value)}")
        checks: List[ir.Stmt] = []
        for i, ub in enumerate(bounds or []):
            which = "" if len(bounds) == 1 else f" {i}"
            checks += self.ctx.require_positive(b.bounds.loc, ub, f"bound {i} of 'with' must be positive, not {{0}}",
                                                f"'with' bound{which} is {{0}}; it must be positive")
        if bounds is not None and b.elements is not None and len(b.elements) != len(bounds):
            self.error(b.loc, f"{len(b.elements)} names are bound to {len(bounds)} bounds")
            bounds = None
        if bounds is None:
            for n in ([b.name] if b.name else []) + (b.elements or []):
                self.ctx.declare(n, Symbol(n.name, "error", VError(), n.loc))
            return []
        base = b.name.name if b.name else "idx"
        atoms = []
        for i in range(len(bounds)):
            el_name = b.elements[i].name if b.elements else f"{base}__{i}"
            atoms.append(self.ctx.unique(el_name))
        if b.elements:
            for el, atom, ub in zip(b.elements, atoms, bounds):
                sym = Symbol(el.name, "bounded", VInt(Sym.var(atom), ub, "with"), el.loc, atom, [atom], "with")
                self.ctx.declare(el, sym)
                by_name[el.name] = sym
        if b.name:
            value = VTuple([Sym.var(a) for a in atoms], list(bounds), "with")
            sym = Symbol(b.name.name, "bounded", value, b.name.loc, b.name.name, atoms, "with")
            self.ctx.declare(b.name, sym)
            by_name[b.name.name] = sym
        return checks

    def where(self, w: A.WhereBind, by_name: Dict[str, Symbol]) -> List[ir.Stmt]:
        left = by_name.get(w.left.name)
        right = by_name.get(w.right.name)
        for side, sym in ((w.left, left), (w.right, right)):
            if sym is None:
                self.error(side.loc, f"'{side.name}' in 'where' must be a bounded variable of this 'with'")
                return []
            if len(sym.atoms) != 1:
                self.error(side.loc, f"'{side.name}' in 'where' must be a single bounded integer")
                return []
        if left.atoms == right.atoms:
            return []

        def bound_of(sym: Symbol) -> Sym:  # `i in [4]` binds a one-element ituple
            return sym.value.bound if isinstance(sym.value, VInt) else sym.value.bounds[0]

        lb, rb = bound_of(left), bound_of(right)
        out: List[ir.Stmt] = []
        same = prove_equal(lb, rb)
        if same is False:
            self.error(w.loc, f"'{w.left.name} <-> {w.right.name}' binds variables of different bounds "
                              f"({lb.to_c()} and {rb.to_c()})")
            return []
        if same is None:
            out += self.ctx.runtime_check(
                w.loc, lb.op("==", rb), f"'{w.left.name} <-> {w.right.name}': bounds {{0}} and {{1}} differ", [lb, rb])
        # the left name now refers to the right one's index variable
        old, atom = left.atoms[0], right.atoms[0]
        left.atoms = [atom]
        left.ir_name = atom
        if isinstance(left.value, VInt):
            left.value = VInt(Sym.var(atom), rb, "with")
        else:
            left.value = VTuple([Sym.var(atom)], [rb], "with")
        swap = {old: Sym.var(atom)}
        for sym in by_name.values():
            if isinstance(sym.value, VTuple):
                sym.value = VTuple([it.substitute(swap) for it in sym.value.items], sym.value.bounds, "with")
                sym.atoms = [atom if a == old else a for a in sym.atoms]
        return out

    def stmt_ForeachStmt(self, s: A.ForeachStmt) -> List[ir.Stmt]:
        loops: List[tuple] = []   # (atom, end, start, step)
        seen: Set[str] = set()
        out: List[ir.Stmt] = []
        ranged = False
        for r in s.ranges:
            n = r.name
            sym = self.ctx.scope.lookup(n.name)
            if sym is None:
                self.error(n.loc, f"'{n.name}' was not declared in this scope")
                continue
            if sym.kind == "error":
                continue
            if sym.kind != "bounded":
                what = "spanned data" if sym.kind == "data" else _article(sym.kind)
                self.error(n.loc, f"'foreach' needs a bounded variable from 'with ... in', but '{n.name}' is {what}")
                continue
            if sym.origin == "parallel":
                self.error(n.loc, f"'{n.name}' is bound by 'parallel'; its instances already run in parallel "
                                  "and it cannot be iterated by 'foreach'")
                continue
            bounds = [sym.value.bound] if isinstance(sym.value, VInt) else sym.value.bounds
            if r.ranged and len(sym.atoms) != 1:
                self.error(n.loc, f"a range '{n.name}(lower:upper:step)' needs a bounded integer, but '{n.name}' is "
                                  f"a bounded ituple of {len(sym.atoms)} elements")
                continue
            for atom, ub in zip(sym.atoms, bounds):
                if atom in self.ctx.iterating:
                    self.error(n.loc, f"'{n.name}' is already iterated by an enclosing 'foreach'")
                    continue
                if atom in seen:
                    continue
                seen.add(atom)
                if r.ranged:
                    ranged = True
                    start, end, step, checks = self.loop_range(r, atom, ub)
                    out += checks
                    loops.append((atom, end, start, step))
                else:
                    loops.append((atom, ub, Sym.const(0), Sym.const(1)))
        for atom, *_ in loops:
            self.ctx.iterating.add(atom)
        self.ctx.jump_scopes.append("loop")
        try:
            cond_sym = None
            if s.cond is not None:   # evaluated in each iteration: it may name the loop's variables
                cond = _scalar(self.expr(s.cond))
                if isinstance(cond, (VInt, VBool)):
                    cond_sym = cond.sym.op("!=", 0) if isinstance(cond, VInt) else cond.sym
                elif isinstance(cond, (VFloat, VExpr)):
                    self.error(s.cond.loc, "the 'foreach ... if' condition must be a tileflow integer or boolean, "
                                           "not an element or floating-point value")
                elif not isinstance(cond, VError):
                    self.error(s.cond.loc, f"the 'foreach ... if' condition must be a boolean, not {_kind_name(cond)}")
            always = cond_sym is None or (cond_sym.is_const and cond_sym.value != 0)
            with self.ctx.construct("loop", s.loc, masked=not always or ranged), \
                    self.ctx.guarded(None if always else cond_sym):
                body = self.scoped_block(s.body)
        finally:
            self.ctx.jump_scopes.pop()
            for atom, *_ in loops:
                self.ctx.iterating.discard(atom)
        inner = cond_sym is not None and bool(cond_sym.variables() & {atom for atom, *_ in loops})
        if cond_sym is not None and inner:
            body = [ir.If(s.loc, cond_sym, body)]
        for atom, end, start, step in reversed(loops):
            body = [ir.Loop(s.loc, atom, end, body, start, step)]
        if cond_sym is not None:
            if cond_sym.is_const and cond_sym.value == 0:
                self.ctx.diag.warning(s.cond.loc, "the 'foreach' condition is always false")
            if not inner:
                body = [ir.If(s.loc, cond_sym, body)]
        return out + body

    def loop_range(self, r: A.LoopRange, atom: str, ub: Sym):
        """`y(lower:upper:step)`: y runs from lower to its bound plus upper (exclusive) by
        step. A range that may leave [0, bound) makes y an index checked where it is used."""
        def part(node: Optional[A.Node], default: int, what: str) -> Sym:
            if node is None:
                return Sym.const(default)
            v = _scalar(self.expr(node))
            if isinstance(v, VError):
                return Sym.const(default)
            if not isinstance(v, VInt):
                self.error(node.loc, f"the {what} of a range must be an integer, not {_kind_name(v)}")
                return Sym.const(default)
            return v.sym
        lower = part(r.lower, 0, "lower offset")
        upper = part(r.upper, 0, "upper offset")
        step = part(r.step, 1, "step")
        inside = lower.op(">=", 0).op("&&", upper.op("<=", 0))
        if not (inside.is_const and inside.value):
            self.ctx.wide_atoms.add(atom)
        checks: List[ir.Stmt] = []
        if r.step is not None:
            positive = step.op(">", 0)
            if positive.is_const and not positive.value:
                self.error(r.step.loc, f"the step of '{r.name.name}' is {step.to_c()}; it must be positive")
            elif not positive.is_const:
                checks += self.ctx.runtime_check(r.step.loc, positive,
                                                 f"the step of '{r.name.name}' is {{0}}; it must be positive", [step])
        return lower, ub + upper, step, checks
