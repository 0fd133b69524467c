"""Checks and lowers the statements of a ``__co__`` function's body.

``StatementChecker.stmt`` checks one statement and gives its IR: declarations of
data, mdspans, ituples and scalars, assignments, expression statements, `call`,
`wait` and `return` are checked here; the other statements go, through one table
(``handlers``), to the form checker of their kind, which this checker makes and
owns: control flow (control.py), parallel levels and loops (loops.py), events and
`inthreads` (events.py), tensor cores (mma.py); scalars.py declares and assigns the
scalars. Copies and element stores go to the expression checker's dma.py and
elements.py. The form checkers get ``block_stmts`` / ``scoped_block`` for the bodies
they hold.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from .. import ast as A
from ... import ir
from ...diagnostics import Loc
from ...ir.symbolic import INT_MAX, INT_MIN, Sym
from .context import CheckContext
from .control import BUILTIN_STATEMENTS, ControlFlow
from .dma import expand_aliases
from .events import EventForms
from .expressions import ExpressionChecker
from .loops import LoopForms
from .mma import MmaForms
from .scalars import ScalarForms, scalar_type, why_not_scalar
from .values import Symbol, VBool, VData, VError, VExpr, VFloat, VFuture, VInt, VSpan, VTuple, Value
from .values import kind_name as _kind_name, scalar as _scalar, start_loc as _start_loc
from .values import Future


class StatementChecker:
    """``stmt(node)``: the IR of one statement, its errors reported."""

    def __init__(self, ctx: CheckContext, exprs: ExpressionChecker):
        self.ctx = ctx
        self.error = ctx.error
        self.exprs = exprs
        self.expr = exprs.expr
        # the expression checker's form checkers that statements use too
        self.elements = exprs.elements
        self.spanned = exprs.spanned
        self.dma = exprs.dma
        # the statement forms, each given the checks it calls back
        self.scalars = ScalarForms(ctx, exprs, self.elements, self.stmt_CallStmt)
        self.events = EventForms(ctx, self.expr, self.scoped_block)
        self.control = ControlFlow(ctx, self.expr, self.scoped_block, self.elements, self.scalars, self.events)
        self.loops = LoopForms(ctx, self.expr, self.block_stmts, self.scoped_block)
        self.mma = MmaForms(ctx, self.expr, self.elements, self.dma)
        # statement class name -> its check
        self.handlers: Dict[str, Callable[[A.Node], List[ir.Stmt]]] = {
            "Block": self.stmt_Block,
            "EmptyStmt": self.stmt_EmptyStmt,
            "DataDecl": self.stmt_DataDecl,
            "ScalarDecl": self.stmt_ScalarDecl,
            "SpanDef": self.stmt_SpanDef,
            "TupleDef": self.stmt_TupleDef,
            "Assign": self.stmt_Assign,
            "ElemAssign": self.stmt_ElemAssign,
            "ExprStmt": self.stmt_ExprStmt,
            "CallStmt": self.stmt_CallStmt,
            "WaitStmt": self.stmt_WaitStmt,
            "ReturnStmt": self.stmt_ReturnStmt,
            "IfStmt": self.control.stmt_IfStmt,
            "WhileStmt": self.control.stmt_WhileStmt,
            "BreakStmt": self.control.stmt_BreakStmt,
            "ContinueStmt": self.control.stmt_ContinueStmt,
            "PrintStmt": self.control.stmt_PrintStmt,
            "ParallelStmt": self.loops.stmt_ParallelStmt,
            "WithStmt": self.loops.stmt_WithStmt,
            "ForeachStmt": self.loops.stmt_ForeachStmt,
            "EventDecl": self.events.stmt_EventDecl,
            "TriggerStmt": self.events.stmt_TriggerStmt,
            "InThreadsStmt": self.events.stmt_InThreadsStmt,
            "FragDecl": self.mma.stmt_FragDecl,
            "MmaOp": self.mma.stmt_MmaOp,
        }

    # -- statements and blocks --------------------------------------------------------------
    def stmt(self, s: A.Node) -> List[ir.Stmt]:
        method = self.handlers.get(type(s).__name__)
        if method is None:
            self.error(s.loc, "this construct is not allowed as a statement in tileflow code")
            return []
        saved, self.ctx.prefix = self.ctx.prefix, []
        try:
            out = method(s)
            return self.ctx.prefix + expand_aliases(out)
        except RecursionError:  # thousands of nested operators: a diagnostic, not a crash
            self.error(s.loc, "statement too complex: its expressions are nested too deeply")
            return []
        finally:
            self.ctx.prefix = saved

    def block_stmts(self, stmts: List[A.Node]) -> List[ir.Stmt]:
        out: List[ir.Stmt] = []
        for s in stmts:
            if self.ctx.level == 0:
                saved, self.ctx.check_sink = self.ctx.check_sink, []
                lowered = self.stmt(s)
                out.extend(self.ctx.check_sink)
                self.ctx.check_sink = saved
                out.extend(lowered)
            else:
                out.extend(self.stmt(s))
        return out

    def scoped_block(self, block: A.Block) -> List[ir.Stmt]:
        self.ctx.push()
        try:
            return self.block_stmts(block.stmts)
        finally:
            self.ctx.pop()

    def stmt_Block(self, s: A.Block) -> List[ir.Stmt]:
        return self.scoped_block(s)

    def stmt_EmptyStmt(self, s) -> List[ir.Stmt]:
        return []

    # -- declarations -------------------------------------------------------------------
    def stmt_DataDecl(self, s: A.DataDecl) -> List[ir.Stmt]:
        storage = s.storage or "global"
        if s.type.shape is None:
            self.error(s.type.loc, "data declared in a __co__ function needs a shape, e.g. 's32 [4, 8] x'")
            return []
        dims = self.shape_dims(s.type.shape, "data")
        if self.ctx.level == 0 and storage in ("local", "shared"):
            self.error(s.loc, f"'{storage}' data can only be declared inside a 'parallel' block")
            return []
        if self.ctx.level > 0 and storage == "global":
            what = "'global' data" if s.storage else "data without a storage qualifier (global by default)"
            self.error(s.loc, f"{what} must be declared outside 'parallel'; use 'local' or 'shared' inside")
            return []
        if dims is None:
            return []
        self._size_checks(s, dims)
        out = []
        for d in s.names:
            out += self.spanned.declare_data(d, s.type.name, storage, dims)
        return out

    def _size_checks(self, s: A.DataDecl, dims: List[Sym]) -> None:
        """Sizes known at run time only: no dimension is negative (0 is an empty buffer), and
        the byte count fits in 63 bits (a wrapped-around size would allocate a small buffer)."""
        names = ", ".join(f"'{n.name}'" for n in s.names)
        loc = s.type.shape.loc
        for i, d in enumerate(dims):
            if not self.ctx.never_negative(d):
                self.ctx.pending_checks(self.ctx.runtime_check(
                    loc, d.op(">=", 0), f"dimension {i} of {names} is {{0}}; it must not be negative", [d]))
        if self._an_arguments_size(dims):
            return
        # d0 * d1 * ... <= most  <=>  d0 <= most / d1 / d2 / ...  (dimensions > 0): no product
        # is computed, which could overflow (an 'int' product even in the check)
        most = Sym.const((2 ** 63 - 1) // ir.ELEM_BYTES.get(s.type.name, 8))   # elements
        empty = dims[0].op("==", 0)
        for d in dims[1:]:
            empty = empty.op("||", d.op("==", 0))
            most = most.op("/", d)
        fits = empty.op("||", dims[0].op("<=", most))
        shape = f" of shape [{', '.join(f'{{{i}}}' for i in range(len(dims)))}]" if len(dims) <= 10 else ""
        self.ctx.pending_checks(self.ctx.runtime_check(
            loc, fits, f"{names}{shape} is too large: its size in bytes does not fit in 63 bits", dims[:10]))

    def _an_arguments_size(self, dims: List[Sym]) -> bool:
        """Constants and distinct dimensions of one argument, whole or divided by constants
        (as in 's32 [a.span] out' or a chunk's 'local s32 [M / 4, N] y'): no more elements
        than that argument has, times a constant."""
        seen = [self._argument_dim(d) for d in dims if not d.is_const]
        return None not in seen and len(set(seen)) == len(seen) and len({param for param, _ in seen}) <= 1

    def _argument_dim(self, d: Sym) -> Optional[tuple]:
        """(parameter, dimension) when ``d`` is an argument's dimension, perhaps divided by
        positive constants; else None."""
        if len(d.terms) != 1:
            return None
        (mono, coeff), = d.terms.items()
        if coeff != 1 or len(mono) != 1:
            return None
        atom = mono[0]
        if atom.op == "var":
            return self.ctx.shape_vars.get(atom.name)
        if atom.op == "/" and atom.args[1].is_const and atom.args[1].value > 0:
            return self._argument_dim(atom.args[0])
        return None

    def shape_dims(self, lit: A.SpanLit, what: str) -> Optional[List[Sym]]:
        value = self.ctx.reject_mutable(self.expr(lit), lit.loc, f"the shape of {what}")
        if isinstance(value, VError):
            return None
        if not isinstance(value, VSpan):
            self.error(lit.loc, f"the shape of {what} must be an mdspan")
            return None
        ok = True
        for i, d in enumerate(value.dims):
            if d.is_const and d.value <= 0:
                self.error(lit.loc, f"dimension {i} of {what} must be positive, not {d.value}")
                ok = False
        return value.dims if ok else None

    def stmt_ScalarDecl(self, s: A.ScalarDecl) -> List[ir.Stmt]:
        ty = s.type
        if ty is None:   # `mutable a = 3;`: the initialiser's type
            return self.untyped_mutable(s)
        if ty.kind in ("elem", "float") or isinstance(s.init, A.CallStmt):
            spec = scalar_type(ty.name)
            if spec is None:
                self.error(ty.loc, f"{why_not_scalar(ty.name)}; or give data a shape, e.g. "
                                   f"'{ty.name} [4] {s.name.name}'")
                self.ctx.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
                return []
            return self.scalars.typed_scalar_decl(s, *spec)
        init_value: Optional[Value] = None
        if s.init is not None:
            init_value = _scalar(self.exprs.init_value(s.init, s.name))
            if isinstance(init_value, (VExpr, VFloat)) and init_value.kind != "element value":
                # `mutable int a = 1.5;`: converted at run time
                return self.scalars.typed_scalar_decl(s, ty.kind, None, init_value)
            if isinstance(init_value, VError):
                init_value = None
            elif ty.kind == "int" and not isinstance(init_value, (VInt, VBool)):
                self.error(s.init.loc, f"cannot initialise 'int {s.name.name}' with {_kind_name(init_value)}")
                init_value = None
            elif ty.kind == "bool" and not isinstance(init_value, (VInt, VBool)):
                self.error(s.init.loc, f"cannot initialise 'bool {s.name.name}' with {_kind_name(init_value)}")
                init_value = None
        # spec 2's `int a;` is assigned later; with a value, only a `mutable` one may change
        return self.scalars.define_scalar(s.name, ty.kind, init_value, s.mutable or s.init is None)

    def untyped_mutable(self, s: A.ScalarDecl) -> List[ir.Stmt]:
        if s.init is None:
            self.error(s.name.loc, f"cannot deduce the type of '{s.name.name}': a 'mutable' without a "
                                   f"type needs a value, e.g. 'mutable {s.name.name} = 0;'")
            self.ctx.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        if isinstance(s.init, A.CallStmt):
            self.error(s.name.loc, f"cannot deduce the type of '{s.name.name}' from a call; name it, e.g. "
                                   f"'mutable int {s.name.name} = call ...;'")
            self.ctx.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        value = self.exprs.init_value(s.init, s.name)
        if isinstance(value, (VInt, VBool)):
            return self.scalars.define_scalar(s.name, "int" if isinstance(value, VInt) else "bool", value, True)
        if isinstance(value, (VExpr, VFloat)):
            return self.scalars.untyped_float(s.name, value)
        if not isinstance(value, VError):
            self.error(s.name.loc, f"'{s.name.name}' of {_kind_name(value)} cannot be 'mutable'; only "
                                   "integers and booleans can")
        self.ctx.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
        return []

    def stmt_SpanDef(self, s: A.SpanDef) -> List[ir.Stmt]:
        # defined once per scope: an inner scope (a parallel, with or foreach body) may define
        # its own mdspan of an outer one's name (the reference's `infer/multi_scope.co`)
        prev = self.ctx.scope.names.get(s.name.name)
        if prev is not None and prev.kind == "mdspan":
            self.error(s.name.loc, f"mdspan '{s.name.name}' is already defined; an mdspan can be defined only once")
            self.ctx.diag.note(prev.loc, "previous definition is here")
            return []
        value = self.ctx.reject_mutable(self.exprs.span_definition(s.value), s.value.loc, "an mdspan")
        if isinstance(value, VSpan):
            for i, d in enumerate(value.dims):
                if d.is_const and d.value <= 0:
                    self.error(s.value.loc, f"dimension {i} of mdspan '{s.name.name}' must be positive, "
                                            f"not {d.value}")
        if isinstance(value, VInt):
            value = VSpan([value.sym])
        if isinstance(value, VTuple):
            value = VSpan(list(value.items))
        if not isinstance(value, VSpan):
            if not isinstance(value, VError):
                self.error(s.value.loc, f"an mdspan definition needs an mdspan value, not {_kind_name(value)}")
            value = VError()
        elif s.rank is not None and s.rank.value != len(value.dims):
            self.error(s.rank.loc, f"mdspan<{s.rank.value}> '{s.name.name}' is given {len(value.dims)} dimensions")
        self.ctx.declare(s.name, Symbol(s.name.name, "mdspan", value, s.name.loc))
        return []

    def stmt_TupleDef(self, s: A.TupleDef) -> List[ir.Stmt]:
        if s.value is None:
            self.error(s.name.loc, f"an ituple must be initialized: 'ituple {s.name.name} = {{a, b}};'")
            self.ctx.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        value = self.ctx.reject_mutable(self.exprs.init_value(s.value, s.name), s.value.loc, "an ituple")
        if isinstance(value, VInt):
            value = self.error(s.value.loc, f"an ituple needs a value like '{{a, b}}', not an integer "
                                            f"(a one-element ituple is '{{x}}')")
        if not isinstance(value, (VTuple, VError)):
            value = self.error(s.value.loc, f"an ituple needs a value like '{{a, b}}', not {_kind_name(value)}")
        elif isinstance(value, VTuple):
            value = VTuple(value.items)  # a copy is never bounded
            if s.rank is not None and s.rank.value != len(value.items):
                value = self.error(s.value.loc, f"'{s.name.name}' is declared as 'ituple<{s.rank.value}>' but "
                                                f"initialized with {len(value.items)} element"
                                                f"{'s' if len(value.items) != 1 else ''}")
        self.ctx.declare(s.name, Symbol(s.name.name, "ituple", value, s.name.loc))
        return []

    # -- assignments, expression statements, `call` ----------------------------------------
    def stmt_Assign(self, s: A.Assign) -> List[ir.Stmt]:
        name = s.name
        existing = self.ctx.scope.lookup(name.name)
        if isinstance(s.value, A.DmaAny):
            return self.dma.dma_any(name)
        if isinstance(s.value, A.MmaOp):
            return self.mma.mma_assign(name, s.value)
        if existing is not None and existing.kind == "fragment" and isinstance(s.value, A.BinOp) \
                and isinstance(s.value.left, A.Name) and s.value.left.name == name.name:
            return self.mma.frag_update(name, s.value)
        if isinstance(s.value, A.DmaCopy):
            placeholder = self.dma.unbound_placeholder(existing)
            if placeholder is not None:
                return self.dma.copy(s.value, name, placeholder)
            if existing is not None and existing.kind == "future" and name.name in self.ctx.scope.names:
                self.error(name.loc, f"future '{name.name}' is already defined")
                self.ctx.diag.note(existing.loc, "previous definition is here")
                return []
            return self.dma.copy(s.value, name)
        if existing is not None and name.name not in self.ctx.scope.names and self._shadowable(existing):
            existing = None   # `f = 5;` in an inner scope defines its own f (as the reference does)
        if isinstance(s.value, A.CallStmt):
            return self.scalars.assign_call(s, existing)
        if existing is None:
            value = self.expr(s.value)
            if isinstance(value, (VTuple, VSpan)):
                what = "an ituple" if isinstance(value, VTuple) else "an mdspan"
                value = self.ctx.reject_mutable(value, s.value.loc, what)
            if isinstance(value, VError):
                self.ctx.declare(name, Symbol(name.name, "error", value, name.loc))
                return []
            if isinstance(value, (VInt, VBool)):
                return self.scalars.define_scalar(name, "int" if isinstance(value, VInt) else "bool", value)
            if isinstance(value, VTuple):
                self.ctx.declare(name, Symbol(name.name, "ituple", VTuple(value.items), name.loc))
                return []
            if isinstance(value, VSpan):
                self.ctx.declare(name, Symbol(name.name, "mdspan", value, name.loc))
                return []
            if isinstance(value, (VFloat, VExpr)):   # `H = 50.0f;`
                return self.scalars.untyped_float(name, value)
            if self.dma.selected(value):   # `x = select(k, a, b);`
                kind = "future" if isinstance(value, VFuture) else "data"
                self.ctx.declare(name, Symbol(name.name, kind, value, name.loc))
                return []
            if isinstance(value, VData) and value.future is None:
                # `l = x.span_as(6, 64);`: another name for (a view of) existing data
                self.ctx.declare(name, Symbol(name.name, "data", VData(value.region, value.elem), name.loc,
                                              value.region.buffer.name))
                return []
            self.error(s.value.loc, f"cannot define '{name.name}' from {_kind_name(value)}")
            self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc))   # no cascade of 'not declared'
            return []
        value = _scalar(self.expr(s.value)) if existing.kind in ("int", "bool", "float") else self.expr(s.value)
        if existing.kind == "float" or (existing.kind in ("int", "bool") and isinstance(value, (VExpr, VFloat))
                                        and value.kind != "element value"):
            if isinstance(value, VError):
                return []
            if not existing.ir_name or existing.ir_name not in self.ctx.used_names:
                self.error(name.loc, f"cannot assign to '{name.name}'")
                return []
            return self.scalars.assign_scalar(s, existing, value)
        if existing.kind == "mdspan":
            self.error(name.loc, f"mdspan '{name.name}' cannot be assigned; an mdspan is defined only once")
            return []
        if existing.kind in ("int", "bool"):
            if isinstance(value, VError):
                return []
            if not isinstance(value, (VInt, VBool)):
                self.error(s.value.loc, f"cannot assign {_kind_name(value)} to '{existing.kind} {name.name}'")
                return []
            if not existing.ir_name or existing.ir_name not in self.ctx.used_names:
                self.error(name.loc, f"cannot assign to '{name.name}'")
                return []
            if not self.scalars.assignable(name, existing):
                return []
            return [ir.Assign(s.loc, existing.ir_name, value.sym, elem=self.ctx.scalar_elems.get(existing.ir_name))]
        if existing.kind == "error":
            return []
        if existing.kind == "ituple":
            if isinstance(value, VTuple) and len(value.items) == len(existing.value.items):
                self.error(name.loc, f"ituple '{name.name}' cannot be assigned; define a new one")
            else:
                self.error(name.loc, f"ituple '{name.name}' cannot be assigned")
            return []
        what = {"bounded": "bounded variable", "future": "future", "data": "spanned data",
                "float": "floating-point parameter"}.get(existing.kind, existing.kind)
        self.error(name.loc, f"cannot assign to {what} '{name.name}'")
        return []

    @staticmethod
    def _shadowable(outer: Symbol) -> bool:
        """A name of an outer scope that `x = v;` defines anew instead of assigning: a
        value that cannot be assigned (a mutable is assigned, wherever it is)."""
        return outer.kind in ("mdspan", "ituple") or (outer.kind in ("int", "bool") and not outer.mutable)

    def stmt_ElemAssign(self, s: A.ElemAssign) -> List[ir.Stmt]:
        """`x.at(i) = v;` (elements.py), or `mc[i] += v;` of a fragment array (mma.py)."""
        if isinstance(s.target, A.SpanDerive) and self.mma.is_fragment_element(s.target):
            return self.mma.update_element(s)
        return self.elements.store(s)

    def stmt_ExprStmt(self, s: A.ExprStmt) -> List[ir.Stmt]:
        e = s.expr
        if isinstance(e, A.DmaCopy):
            return self.dma.copy(e, None)
        if isinstance(e, A.DmaAny):
            self.error(e.loc, "'dma.any' makes a future: write 'f = dma.any;'")
            return []
        if isinstance(e, A.Call) and isinstance(e.func, A.Name):
            fname = e.func.name
            if fname in self.ctx.co_functions:
                self.error(e.loc, f"a __co__ function cannot call another __co__ function ('{fname}')")
                return []
            if fname in ("swap", "rotate") and self.ctx.scope.lookup(fname) is None:
                return self.dma.swap(e)
            if fname in BUILTIN_STATEMENTS and self.ctx.scope.lookup(fname) is None:
                return self.control.builtin_statement(e)
            if self.ctx.scope.lookup(fname) is None:
                where = " inside 'parallel'" if self.ctx.level == 0 else ""
                self.error(e.loc, f"calling '{fname}' from tileflow code needs the 'call' keyword{where}: "
                                  f"'call {fname}(...);'")
                return []
        value = self.expr(e)
        if not isinstance(value, VError):
            self.ctx.diag.warning(_start_loc(e), "statement has no effect")
        return []

    def stmt_CallStmt(self, s: A.CallStmt) -> List[ir.Stmt]:
        fname = s.func.name
        if fname in self.ctx.co_functions:
            self.error(s.func.loc, f"a __co__ function cannot call another __co__ function ('{fname}')")
            return []
        if self.ctx.level == 0:
            self.error(s.loc, f"device function '{fname}' can only be called inside 'parallel': "
                              "outside of it, tileflow code runs on the host")
            # keep checking the arguments
        targs: Optional[List[Sym]] = None
        if s.template_args is not None:
            targs = []
            for i, t in enumerate(s.template_args):
                value = _scalar(self.expr(t))
                if isinstance(value, VError):
                    continue
                if not isinstance(value, (VInt, VBool)):
                    self.error(t.loc, f"template argument {i + 1} of '{fname}' must be an integer constant, "
                                      f"not {_kind_name(value)}")
                    continue
                if not value.sym.is_const:
                    runtime = sorted(value.sym.variables())
                    why = f" ('{self.user_name(runtime[0])}' is a runtime value)" if runtime else ""
                    self.error(t.loc, f"template argument {i + 1} of '{fname}' is not a compile-time constant{why}")
                    continue
                targs.append(value.sym)
        args: List[ir.CallArg] = []
        for a in s.args:
            arg = self.call_arg(a, fname)
            if arg is not None:
                args.append(arg)
        if self.ctx.level == 0 or len(args) != len(s.args) or \
                (targs is not None and len(targs) != len(s.template_args)):
            return []
        return [ir.Call(s.loc, fname, targs, args)]

    def user_name(self, ir_name: str) -> str:
        return ir_name.split("__dim")[0] if "__dim" in ir_name else ir_name

    def call_arg(self, node: A.Node, fname: str) -> Optional[ir.CallArg]:
        if isinstance(node, A.FloatLit):
            return ir.CallArg("float", text=node.text)
        value = _scalar(self.expr(node))
        if isinstance(value, VError):
            return None
        if isinstance(value, VFloat):
            return ir.CallArg("float", text=value.text)
        if isinstance(value, VInt):
            self._fits_int_check(_start_loc(node), value.sym, fname)
            return ir.CallArg("int", value=value.sym)
        if isinstance(value, VBool):
            return ir.CallArg("bool", value=value.sym)
        if isinstance(value, VExpr):   # a floating-point value, computed where the call runs
            x = self.scalars.float_operand(value, _start_loc(node), f"pass to '{fname}'")
            if x is None:
                return None
            if x.ctype not in ("float", "double"):   # (a data element of an integer type)
                return ir.CallArg("int", expr=x)
            return ir.CallArg("float", expr=x)
        if isinstance(value, VFuture):
            value = self.dma.future_data(value.future, node.loc)
        at = _start_loc(node)
        if isinstance(value, VData):
            if value.is_chunk:
                self.error(at, "a chunk cannot be passed to a device function; "
                               "copy it with 'dma.copy' first and pass the copy")
                return None
            self.ctx.check_readable(value, at)
            return ir.CallArg("data", region=value.region)
        if isinstance(value, VSpan):
            self.error(at, "an mdspan cannot be passed to a device function; pass its dimensions "
                           "(e.g. 'x.span(0)') or its size '|x|'")
        elif isinstance(value, VTuple):
            self.error(at, f"an {_kind_name(value)} cannot be passed to a device function; ituples exist "
                           "only in tileflow code (pass one element, e.g. 'x(0)')")
        else:
            self.error(at, f"{_kind_name(value)} cannot be passed to a device function")
        return None

    def _fits_int_check(self, loc: Loc, v: Sym, fname: str) -> None:
        """A device function takes an 'int': a size such as '|x.span|' computed from argument
        shapes may not fit, and a conversion would silently truncate it."""
        if not v.variables() & set(self.ctx.shape_vars):   # int arithmetic wraps as in C++
            return
        self.ctx.pending_checks(self.ctx.runtime_check(
            loc, v.op(">=", INT_MIN).op("&&", v.op("<=", INT_MAX)),
            f"an argument of '{fname}' is {{0}}, outside the range of 'int' ({INT_MIN} to {INT_MAX})", [v]))

    # -- wait, return ---------------------------------------------------------------------
    def stmt_WaitStmt(self, s: A.WaitStmt) -> List[ir.Stmt]:
        waited: List[Future] = []
        events = [n for n in s.futures if self.events.is_event(n)]
        for n in s.futures:
            if not isinstance(n, A.Name) or self.events.is_event(n):
                if not self.events.is_event(n):
                    self.error(n.loc, "'wait' takes futures and events, e.g. 'wait f, g;'")
                continue
            sym = self.ctx.scope.lookup(n.name)
            if sym is None:
                self.error(n.loc, f"'{n.name}' was not declared in this scope")
                continue
            if sym.kind == "error":
                continue
            if sym.kind != "future":
                what = {"bounded": "a bounded variable", "data": "spanned data", "int": "an int",
                        "bool": "a bool", "mdspan": "an mdspan", "ituple": "an ituple",
                        "float": "a floating-point value"}.get(sym.kind, sym.kind)
                self.error(n.loc, f"'wait' needs a future of 'dma.copy.async', but '{n.name}' is {what}")
                continue
            fut = sym.value.future
            if not fut.is_async:
                self.error(n.loc, f"cannot wait on '{n.name}': it comes from a synchronous 'dma.copy' "
                                  "(only 'dma.copy.async' gives a future to wait on)")
                continue
            waited += [f for f in self.dma.waited_futures(fut) if f not in waited]
        return self.dma.wait(waited, s.loc) + self.events.wait_events(s, events)

    def stmt_ReturnStmt(self, s: A.ReturnStmt) -> List[ir.Stmt]:
        if self.ctx.level > 0:
            self.error(s.loc, "'return' inside 'parallel'; a __co__ function returns from its host-level code")
            return []
        self.ctx.returned = True
        kind, elem, shape, spec = self.ctx.ret
        if s.value is None:
            if kind not in ("void", "error", "auto"):
                self.error(s.loc, "'return' with no value in a __co__ function returning a value")
            return [ir.Return(s.loc)]
        value = self.expr(s.value)
        if kind in ("int", "bool", "auto"):
            value = _scalar(value)
        if kind in ("int", "bool"):   # (`return x * 1.5;` from an int function: converted)
            value = self.scalars.as_integer(value, s.value.loc, kind)
        if isinstance(value, VError) or kind == "error":
            return []
        if kind in ("float", "double") or (kind == "auto" and isinstance(value, (VExpr, VFloat))):
            return self.scalars.return_float(s, kind, value)
        if isinstance(value, VError) or kind == "error":
            return []
        if kind == "void":
            self.error(s.value.loc, "'return' with a value in a __co__ function returning 'void'")
            return []
        if isinstance(value, VFuture):
            value = self.dma.future_data(value.future, s.value.loc)
        if kind == "auto":
            if isinstance(value, VData):
                self.ctx.auto_ret = ("data", value.elem, list(value.region.extents))
                kind, elem, shape = self.ctx.auto_ret
            elif isinstance(value, (VInt, VBool)):
                self.ctx.auto_ret = ("int" if isinstance(value, VInt) else "bool", None, None)
                return [ir.Return(s.loc, value=value.sym)]
            else:
                self.error(s.value.loc, f"cannot return {_kind_name(value)} from a __co__ function")
                return []
        if kind in ("int", "bool"):
            if not isinstance(value, (VInt, VBool)):
                self.error(s.value.loc, f"returning {_kind_name(value)} from a function returning '{kind}'")
                return []
            return [ir.Return(s.loc, value=value.sym)]
        if not isinstance(value, VData):
            self.error(s.value.loc, f"returning {_kind_name(value)} from a function returning spanned data")
            return []
        buf = value.region.buffer
        if value.is_chunk or buf.storage != "global":
            self.error(s.value.loc, "only whole global data (declared outside 'parallel') can be returned")
            return []
        if value.elem != elem:
            self.error(s.value.loc, f"returning '{value.elem}' data from a function returning '{elem}' data")
            return []
        if value.future is None:
            self.ctx.check_readable(value, _start_loc(s.value))
        out: List[ir.Stmt] = []
        if shape is None:
            if spec.rank is not None and spec.rank.value != len(buf.shape):
                self.error(s.value.loc, f"returning data of rank {len(buf.shape)} from a function returning "
                                        f"'mdspan<{spec.rank.value}>'")
                return []
            self.ctx.ret = (kind, elem, list(buf.shape), spec)
        else:
            out += self.ctx.shape_match(s.value.loc, buf.shape, shape, "returned data", "the declared return type")
        return out + [ir.Return(s.loc, buffer=buf)]
