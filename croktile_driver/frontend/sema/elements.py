"""Element access and arithmetic in tileflow code (the reference compiler's `x.at(i, j)`).

`a.at(i, j)` reads one element of spanned data (a parameter, global/local/shared data,
a chunk, or a future's `f.data`); `a.at(i, j) = v` and `+= -= *= /= %= &= |= ^= <<= >>=`
store into one. Element values and floating-point numbers combine with C's operators
into an ``ir.EExpr`` tree (C's usual arithmetic conversions; f16/bf16 are computed as
float, floating literals are float); an integer of tileflow code may take part. Such a
value can only be stored into an element: it is not a tileflow integer (no shape,
bound, condition or `call` argument depends on data).

Indices: one per dimension, an integer or an ituple of several. A bounded index (a
`parallel`/`with` variable, `m#p`) whose bound fits the dimension needs no check per
access: that its bound fits is proved, or checked once before the launch. Any other
index is checked where it is used (`index 9 is out of range for dimension 0 of 'a' (8)`).

Element statements outside `parallel` run on the device like any other access to
device data: each outermost statement that holds them (a `foreach` nest of element
statements) becomes a launch of one instance.
"""
from __future__ import annotations

from typing import Callable, List, Optional

from .. import ast as A
from ... import ir
from ...ir.symbolic import Sym
from .context import CheckContext, ExprCheck
from .values import VBool, VData, VError, VExpr, VFloat, VFuture, VInt, VTuple, Value, scalar

_RANK = {"bool": 0, "int": 1, "uint": 2, "long": 3, "ulong": 4, "float": 5, "double": 6}
_INT_ONLY = {"%", "<<", ">>", "&", "|", "^"}
_COMPARE = {"==", "!=", "<", ">", "<=", ">="}


def _arith(a: str, b: str) -> str:
    """C's usual arithmetic conversions over the computation types (bool promotes to int)."""
    return max(a, b, "int", key=lambda t: _RANK[t])


def _float_text(text: str) -> str:
    return text.rstrip("fFlL")


def literal(text: str) -> ir.ENum:
    """A floating literal: `1.5f` is float, `1.5` double (as in C); see `adopt`."""
    return ir.ENum("float" if text[-1:] in "fF" else "double", _float_text(text))


def adopt(a: ir.EExpr, b: ir.EExpr) -> tuple:
    """An unsuffixed literal beside a float is float (`x * 0.5` stays in float, as the
    reference computes it); elsewhere it is the double C makes it."""
    if isinstance(a, ir.ENum) and a.ctype == "double" and b.ctype == "float":
        a = ir.ENum("float", a.text)
    if isinstance(b, ir.ENum) and b.ctype == "double" and a.ctype == "float":
        b = ir.ENum("float", b.text)
    return a, b


def storage(e: ir.EExpr) -> Optional[str]:
    """The storage type of an operand read as it is: a data element's or a variable's."""
    if isinstance(e, ir.ERead):
        return e.buffer.elem
    if isinstance(e, ir.EVar):
        return e.decl
    return None


class ElementChecks:
    """The element rules: reads, arithmetic and stores of single elements."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, index_arg: ExprCheck,
                 data_name: Callable[[A.Call], str]):
        self.ctx = ctx
        self.error = ctx.error
        # the expression checker's: an operand, an index of `.at`, how a message names the data
        self.expr = expr
        self.index_arg = index_arg
        self.data_name = data_name

    # -- reading and addressing one element ------------------------------------------
    def element(self, e: A.Call, data: VData, write: bool = False) -> Value:
        """`data.at(args)`: the element as an ERead (checked against the data's extents)."""
        region = data.region
        rank = len(region.extents)
        indices: List[tuple] = []   # (sym, bound or None, derived, loc)
        for arg in e.args:
            v = self.index_arg(arg)
            if isinstance(v, VError):
                return v
            if isinstance(v, VBool):
                v = VInt(v.sym)
            if isinstance(v, VInt):   # inside `if (i < n)`, i's checks take n (control.py)
                indices.append((v.sym, v.limit if v.limit is not None else v.bound, v.derived, arg.loc))
            elif isinstance(v, VTuple):
                for k, item in enumerate(v.items):
                    indices.append((item, v.bounds[k] if v.bounds else None, False, arg.loc))
            elif isinstance(v, VExpr):
                return self.error(arg.loc, "an element value cannot index data (not supported yet): indices are "
                                           "integers of tileflow code")
            else:
                return self.error(arg.loc, f"'.at' takes integers or ituples as indices, not {v.kind}")
        name = self.data_name(e)
        if len(indices) != rank:
            return self.error(e.loc, f"'.at' has {len(indices)} ind{'ex' if len(indices) == 1 else 'ices'} for the "
                                     f"{rank} dimension{'s' if rank != 1 else ''} of {name}; give one per dimension")
        index = []
        for d, (idx, bound, derived, loc) in enumerate(indices):
            extent = region.valid_extent(d)   # of a partial tile: the part in its data
            self._index_fits(loc, idx, None if derived else bound, extent, d, name)
            index.append(region.offsets[d] + idx)
        self.ctx.check_readable(data, _loc_of(e), "written" if write else "read")
        return VExpr(ir.ERead(ir.elem_compute(data.elem), region.buffer, index, region.view))

    def _index_fits(self, loc, idx: Sym, bound: Optional[Sym], extent: Sym, d: int, name: str) -> None:
        """A bounded index needs its bound to fit the dimension (proved, or checked once);
        another needs 0 <= index < extent where it is used."""
        if bound is not None:
            room = extent - bound
            if room.is_const:
                if room.value < 0:
                    self.error(loc, f"index of dimension {d} of {name} ranges up to {(bound - 1).to_c()}, "
                                    f"beyond the dimension ({extent.to_c()})")
                return
            self.ctx.pending_checks(self.ctx.runtime_check(
                loc, bound.op("<=", extent),
                f"index of dimension {d} of {name} ranges up to {{0}} - 1, beyond the dimension ({{1}})",
                [bound, extent]))
            return
        inside = idx.op(">=", 0).op("&&", idx.op("<", extent))
        if inside.is_const:
            if not inside.value:
                self.error(loc, f"index {idx.to_c()} is out of range for dimension {d} of {name} ({extent.to_c()})")
            return
        for guard in self.ctx.guards:   # (not hoisted: the index may be a loop's variable)
            inside = guard.op("!").op("||", inside)
        self.ctx.prefix.append(ir.Check(loc, inside, f"index {{0}} is out of range for dimension {d} of {name} ({{1}})",
                                        [idx, extent]))

    # -- element values -------------------------------------------------------------
    def to_eexpr(self, v: Value) -> Optional[ir.EExpr]:
        """An operand of element arithmetic; None for values that cannot be one."""
        if isinstance(v, VExpr):
            return v.expr
        v = scalar(v)   # a one-element ituple is its integer
        if isinstance(v, VInt):
            return ir.EInt("int", v.sym)
        if isinstance(v, VBool):
            return ir.EInt("bool", v.sym)
        if isinstance(v, VFloat):
            if v.text[:1].isdigit() or v.text[:1] == ".":
                return literal(v.text)
            elem = self.ctx.float_params.get(v.text, "f32")
            return ir.EVar("double" if elem == "f64" else "float", v.text, elem)
        return None

    def is_element_operand(self, *values: Value) -> bool:
        return any(isinstance(v, (VExpr, VFloat)) for v in values)

    def elem_binop(self, e: A.BinOp, left: Value, right: Value) -> Value:
        a, b = self.to_eexpr(left), self.to_eexpr(right)
        for v, x in ((left, a), (right, b)):
            if x is None:
                return self.error(e.loc, f"invalid operands to binary '{e.op}' (have {left.kind} and {right.kind})")
        if e.op == "#":
            return self.error(e.loc, "'#' composes two bounded variables, not element values")
        a, b = adopt(a, b)
        if {storage(a), storage(b)} == {"f16", "bf16"}:
            return self.error(e.loc, f"invalid operands to binary '{e.op}': '{storage(a)}' and '{storage(b)}' have "
                                     "no common type; convert one of them first (e.g. 'f32 t = x;')")
        if e.op in _INT_ONLY and {"float", "double"} & {a.ctype, b.ctype}:
            return self.error(e.loc, f"invalid operands to binary '{e.op}' (have floating-point values)")
        if e.op in _COMPARE or e.op in ("&&", "||"):
            return VExpr(ir.EBin("bool", e.op, a, b))
        if e.op in ("<<", ">>"):
            return VExpr(ir.EBin(_arith(a.ctype, "int"), e.op, a, b))
        return VExpr(ir.EBin(_arith(a.ctype, b.ctype), e.op, a, b))

    def elem_unop(self, e: A.UnOp, v: Value) -> Value:
        x = self.to_eexpr(v)
        if x is None:
            return self.error(e.loc, f"invalid operand to unary '{e.op}' (have {v.kind})")
        if e.op == "~" and x.ctype in ("float", "double"):
            return self.error(e.loc, "invalid operand to unary '~' (have a floating-point value)")
        if e.op == "!":
            return VExpr(ir.EUn("bool", "!", x))
        return VExpr(ir.EUn(_arith(x.ctype, "int"), e.op, x))

    def elem_ternary(self, e: A.Ternary, c: Value, a: Value, b: Value) -> Value:
        xs = [self.to_eexpr(v) for v in (c, a, b)]
        if any(x is None for x in xs):
            return self.error(e.loc, "'?:' on element values needs element values, numbers or integers")
        xs[1], xs[2] = adopt(xs[1], xs[2])
        return VExpr(ir.ECond(_arith(xs[1].ctype, xs[2].ctype), *xs))

    # -- stores -------------------------------------------------------------------
    def store(self, s: A.ElemAssign) -> List[ir.Stmt]:
        """`x.at(i, j) = v;` and `x.at(i, j) += v;` (the statement checker sends `mc[i] += v`
        of a fragment array to mma.py)."""
        target = s.target
        if not (isinstance(target, A.Call) and isinstance(target.func, A.Member) and target.func.name == "at"):
            self.error(_loc_of(target), "only an element 'x.at(...)' can be assigned here")
            return []
        base = self.expr(target.func.base)
        if isinstance(base, VError):
            self.expr(s.value)
            return []
        if isinstance(base, VFuture):
            self.future_at_error(target.func.base, base)
            return []
        if not isinstance(base, VData):
            self.error(_loc_of(target), f"'.at' needs spanned data, not {base.kind}")
            return []
        ref = self.element(target, base, write=True)
        value = self.expr(s.value)
        if isinstance(ref, VError) or isinstance(value, VError):
            return []
        x = self.to_eexpr(value)
        if x is None:
            self.error(s.value.loc, f"cannot store {value.kind} into an element of '{base.elem}' data")
            return []
        read = ref.expr
        if s.op != "=":
            op = s.op[:-1]
            if op in _INT_ONLY and {"float", "double"} & {read.ctype, x.ctype}:
                self.error(s.loc, f"invalid operands to '{s.op}' (have floating-point values)")
                return []
            read, x = adopt(read, x)
            x = ir.EBin(_arith(read.ctype, x.ctype), op, read, x)
        return [ir.Store(s.loc, read.buffer, read.index, x, read.view)]

    def future_at_error(self, node: A.Node, fut: VFuture) -> VError:
        name = node.name if isinstance(node, A.Name) else "f"
        return self.error(node.loc, f"expect '{name}' a spanned type but got a future; element access is on its "
                                    f"data: '{name}.data.at(...)'")

    # -- element statements outside `parallel` -------------------------------------
    def launch_host_elements(self, stmts: List[ir.Stmt]) -> List[ir.Stmt]:
        """Host-level element statements become launches of one instance: the outermost
        statement made only of element statements, loops and conditions (a `foreach`
        nest) is one launch; others are searched inside."""
        out: List[ir.Stmt] = []
        for s in stmts:
            if not any(_on_data(x) for x in ir.walk([s])):
                out.append(s)
            elif all(isinstance(x, (ir.Store, ir.Print, ir.Loop, ir.If, ir.Check, ir.ScalarDef, ir.Break,
                                    ir.Continue)) for x in ir.walk([s])):
                var = self.ctx.unique("croktile_host")
                self.ctx.max_level = max(self.ctx.max_level, 1)
                out.append(ir.Parallel(s.loc, var, Sym.const(1), 1, [s]))
            elif isinstance(s, (ir.Loop, ir.If)):
                s.body = self.launch_host_elements(s.body)
                out.append(s)
            else:
                out.append(s)
        return out


def _on_data(s: ir.Stmt) -> bool:
    """An element store, or a print of element values: it runs where the data is."""
    return isinstance(s, ir.Store) or (isinstance(s, ir.Print) and bool(ir.stmt_reads(s)))


def _loc_of(node: A.Node):
    while isinstance(node, (A.Call, A.Member)):
        node = node.func if isinstance(node, A.Call) else node.base
    return node.loc
