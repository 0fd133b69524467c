"""Checks and types tileflow expressions: the ``expr`` walk that every checker calls.

An expression is checked where it is used and evaluates to a ``values.Value`` (an
integer or boolean known as a ``Sym``, an mdspan, an ituple, spanned data, a future, an
element value...). This module holds the walk itself and the integer, shape and
chunk arithmetic of the spec; what an expression reaches beyond that goes to the form
checkers this checker makes and owns: element access and arithmetic (elements.py),
spanned operations and arrays of buffers (spanned.py), `select` and futures' data
(dma.py). They call ``expr`` back for their operands.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set, Tuple

from .. import ast as A
from ... import ir
from ...ir.symbolic import Sym, fits_int, prove_divisible
from ...diagnostics import suggestion
from .context import CheckContext
from .dma import DmaForms
from .elements import ElementChecks
from .spanned import SPAN_METHODS, SpannedData
from .values import COMPARE as _COMPARE, LOGICAL as _LOGICAL, article as _article, start_loc as _start_loc
from .values import is_single as _is_single, kind_name as _kind_name, scalar as _scalar
from .values import (
    Symbol,
    VArray,
    VBool,
    VData,
    VError,
    VFloat,
    VFuture,
    VInt,
    VMethod,
    VSpan,
    VTuple,
    VWild,
    Value,
)

_SPAN_OPS = {"+", "-", "*", "/", "%"}


def _truth(v: Value) -> Optional[Sym]:
    """An integer or boolean as a condition; None for other values."""
    if isinstance(v, VBool):
        return v.sym
    return v.sym.op("!=", 0) if isinstance(v, VInt) else None


def _shape_kind(v: Value) -> str:
    """`an mdspan of rank 3`, `an ituple of 2 elements` (for messages on their lengths)."""
    return f"an mdspan of rank {len(v.dims)}" if isinstance(v, VSpan) else "an " + _kind_name(v)


class ExpressionChecker:
    """``expr(node)``: the value of an expression, its errors reported."""

    def __init__(self, ctx: CheckContext):
        self.ctx = ctx
        self.error = ctx.error
        # what `(k)` names inside `sp [...]` / `t {...}`: the mdspan being derived from
        self.derive_base: Optional[VSpan] = None
        # checking `name : x [...]`, where data x stands for its shape
        self.span_def_value = False
        # an index of `chunkat` or `.at`: a bare `with` variable there names its first value silently
        self.first_value_ok = False
        # (name, line, column) of the uses of a `with` variable outside its foreach already warned
        self.warned_outside: Set[Tuple[str, int, int]] = set()
        # the forms an expression may reach; each calls `expr` back
        self.elements = ElementChecks(ctx, self.expr, self.index_arg, self.data_name)
        self.spanned = SpannedData(ctx, self.expr)
        self.dma = DmaForms(ctx, self.expr, self.spanned)
        # node class name -> its check (a table: one lookup per node)
        self.handlers: Dict[str, Callable[[A.Node], Value]] = {
            name[len("expr_"):]: getattr(self, name) for name in vars(ExpressionChecker) if name.startswith("expr_")}

    def expr(self, e: A.Node) -> Value:
        method = self.handlers.get(type(e).__name__)
        if method is None:
            return self.error(e.loc, "this construct is not an expression")
        return method(e)

    def span_definition(self, node: A.Node) -> Value:
        """The value of `name : node;`: in `c : a [(0), (1)]` data `a` stands for its shape."""
        self.span_def_value = isinstance(node, A.SpanDerive)
        try:
            return self.expr(node)
        finally:
            self.span_def_value = False

    # -- literals and names ---------------------------------------------------------------
    def expr_IntLit(self, e: A.IntLit) -> Value:
        if e.problem is not None:
            return self.error(e.loc, e.problem)
        if e.parenthesized and self.derive_base is not None:
            dims = self.derive_base.dims
            if not 0 <= e.value < len(dims):
                return self.error(e.loc, f"'({e.value})' names dimension {e.value}, but the mdspan has "
                                         f"{len(dims)} dimensions")
            return VInt(dims[e.value])
        return VInt(Sym.const(e.value))

    def expr_FloatLit(self, e: A.FloatLit) -> Value:
        return VFloat(e.text)

    def expr_StringLit(self, e: A.StringLit) -> Value:
        return self.error(e.loc, "a string literal may only be printed ('print', 'println') or be the "
                                 "message of 'assert'; tileflow code has no string variables")

    def expr_BoolLit(self, e: A.BoolLit) -> Value:
        return VBool(Sym.const(int(e.value)))

    def expr_AnyDim(self, e: A.AnyDim) -> Value:
        return self.error(e.loc, "'?' (a dimension known at run time) may only stand in a parameter's shape")

    def expr_Wildcard(self, e: A.Wildcard) -> Value:
        return VWild()

    def expr_StorageRef(self, e: A.StorageRef) -> Value:
        return self.error(e.loc, f"'{e.storage}' can only be the destination of 'dma.copy'")

    def expr_DmaAny(self, e: A.DmaAny) -> Value:
        return self.error(e.loc, "'dma.any' makes a future: write 'f = dma.any;'")

    def expr_DmaCopy(self, e: A.DmaCopy) -> Value:
        return self.error(e.loc, "'dma.copy' is a statement: write 'f = dma.copy ...;' or 'dma.copy ...;'")

    def expr_TupleLit(self, e: A.TupleLit) -> Value:
        items = []
        for it in e.items:
            v = _scalar(self.expr(it))
            if isinstance(v, VError):
                return v
            if isinstance(v, VTuple) and v.bounds is None:   # `{bshape, 4}`: an ituple's elements, in order
                items.extend(v.items)
                continue
            if not isinstance(v, VInt):
                return self.error(it.loc, f"an ituple holds integers, not {_kind_name(v)}")
            items.append(v.sym)
        return VTuple(items)

    def expr_TupleDerive(self, e: A.TupleDerive) -> Value:
        """`t {(2), (0)}`: the elements of ituple t that `(k)` names, in the order given."""
        base = self.expr(e.base)
        if isinstance(base, VError):
            return base
        if isinstance(base, VSpan):
            base = VTuple(list(base.dims))
        if not isinstance(base, VTuple):
            return self.error(e.loc, f"'{{...}}' after {_kind_name(base)}: only an ituple can derive a new one "
                                     "(as in 't {(1), (0)}')")
        saved, self.derive_base = self.derive_base, VSpan(list(base.items))
        try:
            return self.expr_TupleLit(A.TupleLit(e.loc, e.items))
        finally:
            self.derive_base = saved

    def expr_Name(self, e: A.Name) -> Value:
        sym = self.ctx.scope.lookup(e.name)
        if sym is None:
            if e.name in self.ctx.co_functions:
                return self.error(e.loc, f"'{e.name}' is a __co__ function; it cannot be used in tileflow code")
            return self.error(e.loc, f"'{e.name}' was not declared in this scope")
        if sym.kind == "bounded" and sym.origin == "with":
            return self.bounded_value(sym, e)
        if sym.kind == "stream":
            return self.error(e.loc, f"'{e.name}' is a stream parameter; it only says where the work is queued "
                                     "and cannot be used in tileflow code")
        if sym.kind == "future":
            sym.value.future.used = True   # (a `dma.any` named anywhere is used)
        return sym.value

    def bounded_value(self, sym: Symbol, e: A.Name) -> Value:
        """A `with` variable outside a `foreach` over it is 0 (its first value)."""
        outside = [a for a in sym.atoms if a not in self.ctx.iterating]
        if not outside:
            v = sym.value
            if isinstance(v, VInt) and self.ctx.wide_atoms & set(sym.atoms):   # `y(-1:)`: check its uses
                return VInt(v.sym, v.bound, v.origin, True)
            return v
        key = (e.name, e.loc.line, e.loc.col)
        if key not in self.warned_outside and not self.first_value_ok and not e.first_value:
            self.warned_outside.add(key)
            self.ctx.diag.warning(e.loc, f"'{e.name}' is used outside a 'foreach' over it; its value is 0 here")
        zero = {a: Sym.const(0) for a in outside}
        v = sym.value
        if isinstance(v, VInt):
            return VInt(v.sym.substitute(zero), v.bound, v.origin)
        return VTuple([it.substitute(zero) for it in v.items], v.bounds, v.origin)

    # -- operators ----------------------------------------------------------------------
    def expr_UnOp(self, e: A.UnOp) -> Value:
        if e.op == "&":   # the reference parses `&a.at(i)`; an address has no use in tileflow code
            return self.error(e.loc, "the address of a value ('&') is not supported in tileflow code; "
                                     "use the element itself ('a.at(i)')")
        v = self.expr(e.operand)
        if isinstance(v, VError):
            return v
        if self.elements.is_element_operand(v):
            return self.elements.elem_unop(e, v)
        v = _scalar(v)
        if not isinstance(v, (VInt, VBool)):
            return self.error(e.loc, f"invalid operand to unary '{e.op}' (have {_kind_name(v)})")
        if e.op == "-":
            return self.ctx.int32(e.loc, f"-({v.sym.to_c()})", VInt(-v.sym))
        if e.op == "+":
            return VInt(v.sym)
        if e.op == "!":
            return VBool(v.sym.op("==", 0))
        return VInt(v.sym.op("~"))

    def expr_BinOp(self, e: A.BinOp) -> Value:
        left = self.expr(e.left)
        with self.ctx.guarded(self._short_circuit(e.op, left)):
            right = self.expr(e.right)
        if isinstance(left, VError) or isinstance(right, VError):
            return VError()
        if self.elements.is_element_operand(left, right):
            return self.elements.elem_binop(e, left, right)
        if e.op == "#":
            return self.compose(e, _scalar(left), _scalar(right))
        # a one-element ituple beside an integer (or another one) is its integer
        if isinstance(right, (VInt, VBool)) or _is_single(right):
            left = _scalar(left)
        if isinstance(left, (VInt, VBool)):
            right = _scalar(right)
        if e.op in _SPAN_OPS and any(isinstance(v, (VSpan, VTuple)) for v in (left, right)) \
                and all(isinstance(v, (VSpan, VTuple, VInt)) for v in (left, right)):
            return self.shape_arith(e, left, right)
        if not isinstance(left, (VInt, VBool)) or not isinstance(right, (VInt, VBool)):
            return self.error(e.loc, f"invalid operands to binary '{e.op}' (have {_kind_name(left)} "
                                     f"and {_kind_name(right)})")
        a, b = left.sym, right.sym
        if e.op in ("/", "%") and b.is_const and b.value == 0:
            return self.error(e.loc, "division by zero")
        if e.op in ("/", "%"):
            self.ctx.divisor_check(e.loc, a, b)
        if e.op in ("<<", ">>") and b.is_const and not 0 <= b.value < 32:
            return self.error(e.loc, f"shift count {b.value} is out of range for 'int' (0 to 31)")
        if e.op in _COMPARE or e.op in _LOGICAL:
            return VBool(a.op(e.op, b))
        if e.op == "%" and not fits_int(a.op("/", b)):  # C++: a % b is undefined when a / b is
            return self.error(e.loc, f"integer overflow in constant expression: '{a.to_c()} % {b.to_c()}' "
                                     f"divides {a.to_c()} by {b.to_c()}, whose quotient is outside the "
                                     "range of 'int'")
        value = a + b if e.op == "+" else a - b if e.op == "-" else a * b if e.op == "*" else a.op(e.op, b)
        return self.ctx.int32(e.loc, f"{a.to_c()} {e.op} {b.to_c()}",
                              VInt(value, *self._index_bound(e.op, left, right)))

    def compose(self, e: A.BinOp, left: Value, right: Value) -> Value:
        """`p # q`: two bounded integers as one, p the major part (`m # g0` tiles m's
        chunks further by g0): p * #q + q, bounded by #p * #q."""
        sign = e.right if isinstance(e.right, A.UnOp) and e.right.op in ("+", "-") else None
        if sign is not None and (sign.loc.line, sign.loc.col) == (e.loc.line, e.loc.col + 1):
            return self.move_bound(e, sign, left)
        for side, v in ((e.left, left), (e.right, right)):
            if not (isinstance(v, VInt) and v.bound is not None):
                what = "an unbounded int" if isinstance(v, VInt) else _article(_kind_name(v))
                return self.error(_start_loc(side), f"'#' composes bounded integers (from 'parallel ... by' or "
                                                    f"'with ... in'), not {what}")
        value = VInt(left.sym * right.bound + right.sym, left.bound * right.bound, left.origin,
                     left.derived or right.derived)
        return self.ctx.int32(e.loc, f"#{left.bound.to_c()} * #{right.bound.to_c()}", value)

    def move_bound(self, e: A.BinOp, sign: A.UnOp, left: Value) -> Value:
        """`q #- 1`, `(p # q) #+ 1` (the reference's bound arithmetic): q's value with its
        upper bound moved by the integer; as the reference generates it, the value itself
        does not move. A value that may reach the smaller bound is checked where it is a
        chunkat index."""
        if not (isinstance(left, VInt) and left.bound is not None):
            what = "an unbounded int" if isinstance(left, VInt) else _article(_kind_name(left))
            return self.error(_start_loc(e.left), f"'#{sign.op}' moves the bound of a bounded integer, not of {what}")
        k = _scalar(self.expr(sign.operand))
        if isinstance(k, VError):
            return k
        if not isinstance(k, VInt) or k.bound is not None:
            what = "a bounded integer" if isinstance(k, VInt) else _article(_kind_name(k))
            return self.error(sign.operand.loc, f"'#{sign.op}' moves a bound by an integer, not by {what}")
        bound = left.bound + k.sym if sign.op == "+" else left.bound - k.sym
        if bound.is_const and bound.value <= 0:
            return self.error(e.loc, f"'#{sign.op}' leaves a bound of {bound.value}; a bound must be positive")
        widened = sign.op == "+" and k.sym.is_const and k.sym.value >= 0
        value = VInt(left.sym, bound, left.origin, left.derived or not widened)
        return self.ctx.int32(e.loc, f"#{left.bound.to_c()} {sign.op} {k.sym.to_c()}", value)

    @staticmethod
    def _short_circuit(op: str, left: Value) -> Optional[Sym]:
        """What must hold for the right side of '&&' or '||' to be evaluated."""
        truth = _truth(_scalar(left)) if op in _LOGICAL else None
        if truth is None:
            return None
        return truth if op == "&&" else truth.op("!")

    @staticmethod
    def _index_bound(op: str, left: Value, right: Value) -> tuple:
        """`k + 1`, `k - 1`, `(k + 1) % #k` keep k's bound, as a chunkat index (checked)."""
        lb = isinstance(left, VInt) and left.bound is not None
        rb = isinstance(right, VInt) and right.bound is not None
        if op in ("+", "-") and lb != rb and not (rb and op == "-"):
            src = left if lb else right
            return (src.bound, src.origin, True)
        if op == "%" and lb and not rb:
            return (left.bound, left.origin, True)
        return ()

    def shape_arith(self, e: A.BinOp, left: Value, right: Value) -> Value:
        """Element-wise arithmetic on mdspans, i-tuples and integers (an integer stands for
        every element), typed as the reference types it: an mdspan with an integer or an
        i-tuple is an mdspan (`5 + d.span`, `sp / {2, 2}`); `sp / sp2` and `sp % sp2` are
        i-tuples (tile counts, remainders); `+`, `-`, `*` of two mdspans are errors; i-tuples
        with i-tuples or integers are i-tuples."""
        if isinstance(left, VSpan) and isinstance(right, VSpan) and e.op in ("+", "-", "*"):
            return self.error(e.loc, f"'{e.op}' of two mdspans is not defined (an mdspan takes '{e.op}' with an "
                                     "integer or an ituple; 'sp / sp2' and 'sp % sp2' give ituples)")
        seqs = [v.dims if isinstance(v, VSpan) else v.items if isinstance(v, VTuple) else None
                for v in (left, right)]
        n = len(seqs[0] if seqs[0] is not None else seqs[1])
        if seqs[0] is not None and seqs[1] is not None and len(seqs[1]) != n:
            return self.error(e.loc, f"'{e.op}' between {_shape_kind(left)} and {_shape_kind(right)}: their "
                                     "lengths must be equal")
        lhs = VSpan(list(seqs[0]) if seqs[0] is not None else [left.sym] * n)
        result = self.span_op(e, lhs, VSpan(list(seqs[1])) if seqs[1] is not None else right)
        if isinstance(result, VError):
            return result
        spans = [isinstance(v, VSpan) for v in (left, right)]
        return result if any(spans) and not all(spans) else VTuple(result.dims)

    def span_op(self, e: A.BinOp, left: VSpan, right: Value) -> Value:
        if isinstance(right, (VInt, VBool)):
            rhs = [right.sym] * len(left.dims)
        elif isinstance(right, (VTuple, VSpan)):
            rhs = list(right.items) if isinstance(right, VTuple) else list(right.dims)
            if len(rhs) != len(left.dims):
                return self.error(e.loc, f"'{e.op}' between an mdspan of rank {len(left.dims)} and "
                                         f"{_kind_name(right)} of {len(rhs)} elements")
        else:
            return self.error(e.loc, f"invalid operands to binary '{e.op}' (have mdspan and {_kind_name(right)})")
        dims = []
        for a, b in zip(left.dims, rhs):
            if e.op in ("/", "%") and b.is_const and b.value == 0:
                return self.error(e.loc, "division by zero")
            if e.op in ("/", "%"):
                self.ctx.divisor_check(e.loc, a, b)
            if e.op == "+":
                dims.append(a + b)
            elif e.op == "-":
                dims.append(a - b)
            elif e.op == "*":
                dims.append(a * b)
            else:
                dims.append(a.op(e.op, b))
            if isinstance(self.ctx.int32(e.loc, f"{a.to_c()} {e.op} {b.to_c()}", VInt(dims[-1])), VError):
                return VError()
        return VSpan(dims)

    def expr_Ternary(self, e: A.Ternary) -> Value:
        c = _scalar(self.expr(e.cond))
        taken = _truth(c)
        with self.ctx.guarded(taken):
            a = _scalar(self.expr(e.then))
        with self.ctx.guarded(None if taken is None else taken.op("!")):
            b = _scalar(self.expr(e.other))
        if any(isinstance(v, VError) for v in (c, a, b)):
            return VError()
        if self.elements.is_element_operand(c, a, b):
            return self.elements.elem_ternary(e, c, a, b)
        if not all(isinstance(v, (VInt, VBool)) for v in (c, a, b)):
            return self.error(e.loc, "'?:' works on integers and booleans only")
        result = c.sym.op("?:", a.sym, b.sym)
        return VBool(result) if isinstance(a, VBool) and isinstance(b, VBool) else VInt(result)

    # -- bounds, sizes, members, calls and chunks -------------------------------------------
    def expr_UpperBound(self, e: A.UpperBound) -> Value:
        if not isinstance(e.operand, A.Name):
            return self.error(e.loc, "'#' needs the name of a bounded integer or ituple")
        sym = self.ctx.scope.lookup(e.operand.name)
        if sym is None:
            return self.error(e.operand.loc, f"'{e.operand.name}' was not declared in this scope")
        if sym.kind == "error":
            return VError()
        if sym.kind != "bounded":
            return self.error(e.loc, f"'#{e.operand.name}': '{e.operand.name}' is not bounded; '#' gives the upper "
                                     "bound of a variable from 'parallel ... by' or 'with ... in'")
        if isinstance(sym.value, VInt):
            return VInt(sym.value.bound)
        bounds = sym.value.bounds
        return VInt(bounds[0]) if len(bounds) == 1 else VSpan(list(bounds))

    def expr_SizeOf(self, e: A.SizeOf) -> Value:
        v = self.shape_operand(e.operand)
        if isinstance(v, VError):
            return v
        if isinstance(v, VFuture):
            dims = v.future.region.extents
        elif isinstance(v, VData):
            dims = v.region.extents
        elif isinstance(v, VSpan):
            dims = v.dims
        else:
            return self.error(e.loc, f"'|...|' gives the element count of spanned data or an mdspan, "
                                     f"not of {_kind_name(v)}")
        total = Sym.const(1)
        for d in dims:
            total = total * d
        return self.ctx.int32(e.loc, " * ".join(d.to_c() for d in dims), VInt(total))

    def shape_operand(self, e: A.Node) -> Value:
        """An operand whose shape alone is used (`x.span`, `|x|`): `f.data` of a pending
        future is not a read of its memory there, so it records no access."""
        if isinstance(e, A.Member) and e.name == "data":
            base = self.expr(e.base)
            if isinstance(base, VFuture):
                return VData(base.future.region, base.future.elem, base.future)
            return self.member(e, base)
        return self.expr(e)

    def expr_Member(self, e: A.Member) -> Value:
        base = self.shape_operand(e.base) if e.name == "span" else self.expr(e.base)
        return self.member(e, base)

    def member(self, e: A.Member, base: Value) -> Value:
        if isinstance(base, VError):
            return base
        if isinstance(base, VFuture):
            if e.name == "data":
                return self.dma.future_data(base.future, e.loc)
            if e.name == "span":
                if not self.dma.require_bound(base.future, e.loc, "shape"):
                    return VError()
                return VSpan(list(base.future.region.extents))
            if e.name == "at":   # an element is reached through the data: `f.data.at(i)`
                return self.elements.future_at_error(e.base, base)
            if e.name == "chunkat" or e.name in SPAN_METHODS:   # `f.chunkat(...)` is `f.data.chunkat(...)`
                data = self.dma.future_data(base.future, e.loc)
                return data if isinstance(data, VError) else VMethod(data, e.name)
            return self.error(e.loc, f"a future has members 'data', 'span', 'chunkat' and the spanned "
                                     f"operations ({', '.join(SPAN_METHODS)}), not '{e.name}'"
                                     + suggestion(e.name, ("data", "span", "chunkat") + SPAN_METHODS))
        if isinstance(base, VData):
            if e.name == "span":
                return VSpan(list(base.region.extents))
            if e.name == "data":
                return base
            if e.name == "chunkat":
                return VMethod(base, "chunkat")
            if e.name in SPAN_METHODS:
                return VMethod(base, e.name)
            return self.error(e.loc, f"spanned data has members 'span', 'data', 'chunkat', "
                                     f"{', '.join(repr(m) for m in SPAN_METHODS)}, not '{e.name}'"
                                     + suggestion(e.name, ("span", "data", "chunkat") + SPAN_METHODS))
        if isinstance(base, VArray) and e.name == "span":
            return VSpan(list(base.dims))
        return self.error(e.loc, f"{_kind_name(base)} has no member '{e.name}'")

    def expr_Call(self, e: A.Call) -> Value:
        if isinstance(e.func, A.Name):
            name = e.func.name
            sym = self.ctx.scope.lookup(name)
            if sym is None and name == "cdiv":
                return self.builtin_cdiv(e)
            if sym is None and name == "select":
                return self.dma.select(e)
            if sym is None and name in ("__alignup", "__aligndown"):
                return self.spanned.builtin_align(e, name)
            if sym is None:
                if name in self.ctx.co_functions:
                    return self.error(e.loc, f"a __co__ function cannot call another __co__ function ('{name}')")
                return self.error(e.loc, f"'{name}' was not declared in this scope; device functions are "
                                         f"called with 'call {name}(...);' inside 'parallel'")
            if sym.kind == "bounded" and isinstance(_scalar(sym.value), VInt):
                return self.bounded_pick(e, _scalar(sym.value))   # `k(-1)` of `with k in N` too
            base = self.expr(e.func)
        elif isinstance(e.func, A.Member) and e.func.name == "span":
            base = self.expr(e.func)
        else:
            base = self.expr(e.func)
        if isinstance(base, VError):
            return base
        if isinstance(base, VMethod) and base.name == "chunkat":
            return self.chunkat(e, base.base)
        if isinstance(base, VMethod) and base.name == "at" and base.base.tile is None:
            return self.elements.element(e, base.base)   # `x.at(i, j)`: one element (after a tiling: a tile)
        if isinstance(base, VMethod):
            return self.spanned.span_method(e, base)
        if e.strides is not None:
            return self.error(e.strides[0].loc, "only '.view(shape : strides)' takes strides after ':'")
        if isinstance(base, (VSpan, VTuple)):
            items = base.dims if isinstance(base, VSpan) else base.items
            if len(e.args) != 1:
                return self.error(e.loc, "a dimension is selected with one index, e.g. 'sp(0)'")
            idx = _scalar(self.expr(e.args[0]))
            if isinstance(idx, VError):
                return idx
            if not isinstance(idx, VInt):
                return self.error(e.args[0].loc, f"the dimension index must be an integer, not {_kind_name(idx)}")
            if not idx.sym.is_const:   # `dims(c)`: chosen at run time, checked to be a dimension
                c = idx.sym
                self.ctx.pending_checks(self.ctx.runtime_check(
                    e.args[0].loc, c.op(">=", 0).op("&&", c.op("<", len(items))),
                    f"dimension index {{0}} is out of range for rank {len(items)}", [c]))
                value = items[-1]
                for k in range(len(items) - 2, -1, -1):
                    value = c.op("==", k).op("?:", items[k], value)
                return VInt(value)
            i = idx.sym.value
            if not 0 <= i < len(items):
                return self.error(e.args[0].loc, f"dimension index {i} is out of range for rank {len(items)}")
            return VInt(items[i])
        return self.error(e.loc, f"{_kind_name(base)} cannot be called")

    def bounded_pick(self, e: A.Call, v: VInt) -> Value:
        """`y(1)`, `y(-1)`: one value of bounded y, counted from its end when negative
        (`y(-1)` is its last value, #y - 1), still bounded by #y: the reference's epilogue
        `output.chunkat(p, x, y(-1))`. A value outside the bound is an error when known,
        checked where it is used as a chunkat index otherwise."""
        name = e.func.name
        if len(e.args) != 1:
            return self.error(e.loc, f"a value of bounded '{name}' is picked with one index, as in '{name}(-1)'")
        k = _scalar(self.expr(e.args[0]))
        if isinstance(k, VError):
            return k
        if not isinstance(k, VInt):
            return self.error(e.args[0].loc, f"the index into bounded '{name}' must be an integer, not {_kind_name(k)}")
        idx = k.sym
        if idx.is_const:
            value = idx if idx.value >= 0 else v.bound + idx
        else:
            value = idx.op("<", 0).op("?:", v.bound + idx, idx)
        inside = value.op(">=", 0).op("&&", value.op("<", v.bound))
        if inside.is_const and not inside.value:
            return self.error(e.args[0].loc, f"'{name}({idx.to_c()})' is {value.to_c()}, outside the bound of "
                                             f"'{name}' [0, {v.bound.to_c()})")
        return VInt(value, v.bound, v.origin, not inside.is_const)

    def index_arg(self, arg: A.Node) -> Value:
        """An index of `chunkat` or `.at`: a bare `with` variable outside its foreach names
        the first chunk there, so it gives no warning."""
        self.first_value_ok = isinstance(arg, A.Name)
        try:
            return self.expr(arg)
        finally:
            self.first_value_ok = False

    def chunkat(self, e: A.Call, base: VData) -> Value:
        region = base.region
        rank = len(region.extents)
        parts = []  # (index sym or None for '_', bound sym, loc, label)
        for arg in e.args:
            v = self.index_arg(arg)
            if isinstance(v, VError):
                return v
            label = arg.name if isinstance(arg, A.Name) else "index"
            if isinstance(v, VWild):
                parts.append((None, None, arg.loc, "_"))
            elif isinstance(v, VInt) and v.bound is not None:
                if v.derived:
                    self._index_in_range(v, arg)
                parts.append((v.sym, v.bound, arg.loc, label))
            elif isinstance(v, VTuple) and v.bounds is not None:
                for item, ub in zip(v.items, v.bounds):
                    parts.append((item, ub, arg.loc, label))
            elif isinstance(v, (VInt, VTuple)):
                named = f" '{arg.name}'" if isinstance(arg, A.Name) else ""
                return self.error(arg.loc, f"chunkat index{named} is not bounded; bind it with "
                                           "'parallel ... by' or 'with ... in', or use '_'")
            else:
                return self.error(arg.loc, f"chunkat indices are bounded integers, bounded ituples or '_', "
                                           f"not {_kind_name(v)}")
        if len(parts) != rank:
            what = self.data_name(e)
            if len(parts) > rank:
                return self.error(e.loc, f"chunkat has {len(parts)} indices, but {what} has only {rank} dimensions")
            indices = "index" if len(parts) == 1 else "indices"
            return self.error(e.loc, f"chunkat has {len(parts)} {indices} for the {rank} dimensions of {what}; "
                                     "cover every dimension (use '_' for a whole one)")
        offsets, extents = [], []
        for i, (idx, ub, loc, label) in enumerate(parts):
            dim = region.extents[i]
            if idx is None:
                offsets.append(region.offsets[i])
                extents.append(dim)
                continue
            divisible = prove_divisible(dim, ub)
            if divisible is False:
                return self.error(loc, f"dimension {i} of {self.data_name(e)} ({dim.to_c()}) is not divisible "
                                       f"by the bound of '{label}' ({ub.to_c()})")
            if divisible is None:
                divides = dim.op("%", ub).op("==", 0)
                extra = self.ctx.runtime_check(loc, divides if ub.is_const else ub.op(">", 0).op("&&", divides),
                                               f"dimension {i} of {self.data_name(e)} ({{0}}) is not divisible "
                                               f"by the bound of '{label}' ({{1}})",
                                               [dim, ub])
                self.ctx.pending_checks(extra)
            extent = dim.floordiv(ub)
            extents.append(extent)
            offsets.append(region.offsets[i] + idx * extent)
        return VData(region.moved(offsets, extents), base.elem, base.future)

    def _index_in_range(self, v: VInt, arg: A.Node) -> None:
        """An index computed from a bounded variable must stay inside its bound."""
        idx, ub = v.sym, v.bound
        inside = idx.op(">=", 0).op("&&", idx.op("<", ub))
        if inside.is_const:
            if not inside.value:
                self.error(_start_loc(arg), f"chunkat index is {idx.to_c()}, outside its bound [0, {ub.to_c()})")
            return
        self.ctx.prefix.append(ir.Check(_start_loc(arg), inside,
                                        "chunkat index {0} is outside its bound [0, {1})", [idx, ub]))

    def data_name(self, e: A.Call) -> str:
        node = e.func.base if isinstance(e.func, A.Member) else e.func
        return f"'{node.name}'" if isinstance(node, A.Name) else "the data"

    # -- mdspans ------------------------------------------------------------------------
    def expr_SpanLit(self, e: A.SpanLit) -> Value:
        dims: List[Sym] = []
        for it in e.items:
            v = _scalar(self.expr(it))
            if isinstance(v, VError):
                return v
            if isinstance(v, VInt):
                dims.append(v.sym)
            elif isinstance(v, VSpan):
                dims.extend(v.dims)
            elif isinstance(v, VTuple) and v.bounds is None:   # `[a.span / c, 3]`: its values, as the reference
                dims.extend(v.items)
            elif isinstance(v, VTuple):
                return self.error(it.loc, f"a dimension must be an integer or an mdspan, not a bounded "
                                          f"{_kind_name(v)} (the values of an unbounded ituple may stand in '[...]')")
            elif isinstance(v, VBool):
                return self.error(it.loc, "a dimension must be an integer, not a boolean")
            elif isinstance(v, VFloat):
                return self.error(it.loc, "a dimension must be an integer, not a floating-point value")
            else:
                return self.error(it.loc, f"a dimension must be an integer or an mdspan, not {_kind_name(v)}")
        return VSpan(dims)

    def expr_SpanDerive(self, e: A.SpanDerive) -> Value:
        span_def, self.span_def_value = self.span_def_value, False
        base = self.expr(e.base)
        if isinstance(base, VError):
            return base
        if isinstance(base, VArray):
            return self.spanned.array_element(e, base)
        if isinstance(base, VData) and span_def:
            base = VSpan(list(base.region.extents))   # `c : a [(0), (1)];`: a's shape, as `a.span [...]`
        if isinstance(base, VData):
            return self.error(e.loc, "'[...]' after spanned data that is not an array of buffers; a chunk is "
                                     "selected with '.chunkat(...)'")
        if not isinstance(base, VSpan):
            return self.error(e.loc, f"'[...]' after {_kind_name(base)}: only an mdspan can derive a new one "
                                     "(as in 'sp [1, (0)/2]')")
        saved, self.derive_base = self.derive_base, base
        try:
            return self.expr_SpanLit(A.SpanLit(e.loc, e.items))
        finally:
            self.derive_base = saved

    # -- cdiv, and values that initialise a name -------------------------------------------
    def builtin_cdiv(self, e: A.Call) -> Value:
        """`cdiv(a, b)`: a / b rounded up, for positive b (the tile count of a dimension).
        Over an mdspan or i-tuple it works per element (`cdiv(x.span, {64, 32})`)."""
        if len(e.args) != 2:
            return self.error(e.loc, f"'cdiv' takes two integers, not {len(e.args)} argument"
                                     f"{'s' if len(e.args) != 1 else ''}")
        a, b = (_scalar(self.expr(x)) for x in e.args)
        if isinstance(a, VError) or isinstance(b, VError):
            return VError()
        items = []
        for v, node in ((a, e.args[0]), (b, e.args[1])):
            if isinstance(v, (VInt, VBool)):
                items.append(None)
            elif isinstance(v, (VSpan, VTuple)):
                items.append(list(v.dims if isinstance(v, VSpan) else v.items))
            else:
                return self.error(node.loc, f"'cdiv' takes integers, mdspans or i-tuples, not {_kind_name(v)}")
        if items == [None, None]:
            return self.cdiv_int(e, a.sym, b.sym)
        n = len(items[0] if items[0] is not None else items[1])
        if items[0] is not None and items[1] is not None and len(items[1]) != n:
            return self.error(e.loc, f"'cdiv' of {n} and {len(items[1])} elements: their lengths must be equal")
        lefts = items[0] if items[0] is not None else [a.sym] * n
        rights = items[1] if items[1] is not None else [b.sym] * n
        out = []
        for x, y in zip(lefts, rights):
            v = self.cdiv_int(e, x, y)
            if isinstance(v, VError):
                return v
            out.append(v.sym)
        return VSpan(out) if isinstance(a, VSpan) or (items[0] is None and isinstance(b, VSpan)) else VTuple(out)

    def cdiv_int(self, e: A.Call, a: Sym, b: Sym) -> Value:
        if b.is_const and b.value <= 0:
            return self.error(e.args[1].loc, f"'cdiv' needs a positive divisor, not {b.value}")
        if not b.is_const:
            self.ctx.pending_checks(self.ctx.runtime_check(e.args[1].loc, b.op(">", 0),
                                                           "'cdiv' needs a positive divisor, not {0}", [b]))
        total = a + b - Sym.const(1)
        value = self.ctx.int32(e.loc, f"cdiv({a.to_c()}, {b.to_c()})", VInt(total))
        return VInt(total.op("/", b)) if isinstance(value, VInt) else value

    def init_value(self, node: A.Node, name: A.Name) -> Value:
        if isinstance(node, (A.DmaCopy, A.DmaAny)):
            what = "dma.any" if isinstance(node, A.DmaAny) else "dma.copy"
            return self.error(node.loc, f"'{what}' initialises a future: write '{name.name} = {what} ...;'")
        return self.expr(node)
