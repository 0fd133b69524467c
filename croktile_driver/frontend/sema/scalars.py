"""Scalars of every arithmetic type in tileflow code (issue #13).

The reference compiler's scalars: floating-point locals (`f32 x = 1.5f;`, `float`,
`double`, `half`, `bfp16`, `f16`, `bf16`, `f64`), the sized type names as scalar types
(`s32 x = 555;`, parameters `s32 n`, `bf16 x`), the conversions between all of them, and
`call` as an initialiser (`mutable int a = call f(x);`: the device function's value).

A floating-point scalar is a run-time value (an ``ir.EExpr``, as element arithmetic
computes): its variable is an ``ir.EVar``, defined and assigned by ``ir.ScalarDef`` /
``ir.Assign`` with an ``expr``. It is computed in float (double for f64); a narrower
storage type (f16, bf16) rounds each value stored into it. An integer or boolean that a
floating-point value initialises or is assigned (`mutable int a = 1.5;`) is converted as
C converts (toward zero) and is known only at run time. `s8 s16 u8 u16` scalars are
tileflow integers whose values wrap to the type (as C's conversion), computed as `int`.

The statement checker makes one ``ScalarForms`` and sends it the declarations and
assignments of scalars; `if`, `print` and `return` convert their values here.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set, Tuple

from .. import ast as A
from ... import ir
from ...ir.symbolic import Sym
from .context import CheckContext
from .elements import ElementChecks
from .expressions import ExpressionChecker
from .values import Symbol, VBool, VError, VExpr, VFloat, VInt, Value
from .values import kind_name as _kind_name, scalar as _scalar

# the type names of floating-point scalars -> their storage type
FLOAT_SCALARS = {"float": "f32", "double": "f64", "half": "f16", "bfp16": "bf16",
                 "f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16",
                 **{e: e for e in ("f8_e4m3", "f8_e5m2", "f6_e2m3", "f6_e3m2", "f4_e2m1")}}
# floating-point storage types narrower than float: a value stored into one is rounded
ROUNDED = ("f16", "bf16", "f8_e4m3", "f8_e5m2", "f6_e2m3", "f6_e3m2", "f4_e2m1")
# integer scalars narrower than int: values wrap to the type (C's conversion)
NARROW_INTS = {"s8": (8, True), "s16": (16, True), "u8": (8, False), "u16": (16, False)}
# parameters' C++ types (the host signature) for floating-point storage types
PARAM_CTYPES = {"f32": "float", "f64": "double", **{e: f"croktile::{e}" for e in ROUNDED}}


def scalar_type(name: str) -> Optional[Tuple[str, Optional[str]]]:
    """(computation type, narrower storage type or None) of a scalar type name; None
    for a name that is no scalar type here."""
    if name in ("int", "s32"):
        return "int", None
    if name == "bool":
        return "bool", None
    if name in FLOAT_SCALARS:
        elem = FLOAT_SCALARS[name]
        return ("double" if elem == "f64" else "float"), elem
    if name in NARROW_INTS:
        return "int", name
    return None


def why_not_scalar(name: str) -> str:
    if name in ("u32", "s64", "u64"):
        return (f"'{name}' is not a scalar type: integers in tileflow code are 32-bit 'int' (use 'int' or 's32'; "
                f"'s8', 's16', 'u8', 'u16' scalars wrap to their range)")
    return (f"'{name}' is not a scalar type (not supported yet); scalars are 'int', 'bool', the integers "
            f"'s8' to 's32', 'u8', 'u16', and the floating-point types ('float', 'double', 'half', 'f16', "
            f"'bf16', 'f32', 'f64', the 8/6/4-bit floats)")


def wrap_int(value: int, elem: str) -> int:
    bits, signed = NARROW_INTS[elem]
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def _first_loc(node: A.Node):
    """Where an expression starts (the reference's caret is there)."""
    while isinstance(node, (A.BinOp, A.Ternary)):
        nxt = node.left if isinstance(node, A.BinOp) else node.cond
        if (nxt.loc.line, nxt.loc.col) > (node.loc.line, node.loc.col):
            break
        node = nxt
    return node.loc


def _has_read(x: ir.EExpr) -> bool:
    return any(isinstance(e, ir.ERead) for e in ir.e_walk(x))


def _reassigned_names(fn: A.CoFunction) -> Set[str]:
    """Names assigned more than once, or declared and assigned: their values change."""
    counts: Dict[str, int] = {}
    declared: Set[str] = set()
    for node in A.walk(fn):
        if isinstance(node, A.Assign):
            counts[node.name.name] = counts.get(node.name.name, 0) + 1
        elif isinstance(node, A.ScalarDecl):
            declared.add(node.name.name)
    return {n for n, c in counts.items() if c > 1 or n in declared}


class ScalarForms:
    """Declarations, assignments and conversions of scalars."""

    def __init__(self, ctx: CheckContext, exprs: ExpressionChecker, elements: ElementChecks,
                 call_stmt: Callable[[A.CallStmt], List[ir.Stmt]]):
        self.ctx = ctx
        self.error = ctx.error
        self.exprs = exprs            # initialisers
        self.elements = elements      # floating-point values as element expressions
        self.call_stmt = call_stmt    # the statement checker's `call` (`mutable int a = call f();`)
        # names assigned more than once (or declared, then assigned): each gets its own variable
        self.reassigned: Set[str] = _reassigned_names(ctx.fn)

    def define_scalar(self, name: A.Name, kind: str, init: Optional[Value], mutable: bool = False) -> List[ir.Stmt]:
        ir_name = self.ctx.unique(name.name)
        init_sym = init.sym if init is not None else None
        if kind == "bool" and init_sym is not None:
            init_sym = init_sym.op("!=", 0)
        if mutable or name.name in self.reassigned or init_sym is None or self.ctx.mutable_in(init) is not None:
            sym = Sym.var(ir_name)   # its own variable: a snapshot of a mutable it reads, too
        else:
            sym = init_sym
        if mutable:
            self.ctx.mutable_vars[ir_name] = name.name
        value = VInt(sym) if kind == "int" else VBool(sym)
        if kind == "int" and sym is init_sym and isinstance(init, VInt) and init.bound is not None:
            # a name for a bounded value is bounded too (the reference's `pqx = p # q # x;`)
            value = VInt(sym, init.bound, init.origin, init.derived)
        self.ctx.declare(name, Symbol(name.name, kind, value, name.loc, ir_name, mutable=mutable))
        return [ir.ScalarDef(name.loc, ir_name, kind, init_sym if init_sym is not None else Sym.const(0))]

    def float_operand(self, value: Value, loc, what: str) -> Optional[ir.EExpr]:
        """A value that initialises or is assigned to a scalar, as an element expression;
        at host level it may not read data (global data is device memory there)."""
        if isinstance(value, VError):
            return None
        x = self.elements.to_eexpr(_scalar(value))
        if x is None:
            self.error(loc, f"cannot {what} with {_kind_name(value)}")
            return None
        if self.ctx.level == 0 and _has_read(x):
            self.error(loc, "an element of data is read into a scalar only inside 'parallel' (outside it, data "
                            "is device memory); not supported yet at host level")
            return None
        return x

    def warn_lossy(self, loc, x: ir.EExpr, ctype: str) -> None:
        """A floating-point value converted to an integer (`mutable int a = 1.5;`) is
        truncated: a warning, as gcc's -Wfloat-conversion and the reference give."""
        if ctype in ("int", "bool") and x.ctype in ("float", "double"):
            self.ctx.diag.warning(loc, f"implicit conversion from '{x.ctype}' to '{ctype}' may change the value")

    def as_integer(self, value: Value, loc, kind: str = "int") -> Value:
        """A floating-point value where an integer or boolean is needed (a condition, an
        `int`): converted as C converts, into a new variable known only at run time."""
        if not isinstance(value, (VExpr, VFloat)) or value.kind == "element value":
            return value   # (data elements are no tileflow integers: the caller says so)
        x = self.float_operand(value, loc, f"use as {'an integer' if kind == 'int' else 'a condition'}")
        if x is None:
            return VError()
        name = self.ctx.unique("croktile_conv")
        self.ctx.prefix.append(ir.ScalarDef(loc, name, kind, None, expr=x))
        return VInt(Sym.var(name)) if kind == "int" else VBool(Sym.var(name))

    def typed_scalar_decl(self, s: A.ScalarDecl, ctype: str, elem: Optional[str],
                          value: Optional[Value] = None) -> List[ir.Stmt]:
        """`f32 x = 1.5f;`, `s16 h = n;`, `mutable int a = 1.5;`, `int a = call f();`: the
        declarations that `define_scalar` (integers from integers) does not cover."""
        name = s.name
        # the sized types are mutable, as in the reference (its 'fundamental' types); int and bool are not
        mutable = s.mutable or s.init is None or s.type.name not in ("int", "bool")
        if isinstance(s.init, A.CallStmt):
            return self.call_value(s, ctype, elem)
        if s.init is not None and value is None:
            value = self.exprs.init_value(s.init, name)
            if isinstance(value, VError):
                self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc))
                return []
            value = _scalar(value)
        if ctype in ("int", "bool") and (value is None or isinstance(value, (VInt, VBool))):
            if elem is not None and value is not None:   # s8 s16 u8 u16: wrap
                if value.sym.is_const:
                    value = VInt(Sym.const(wrap_int(value.sym.value, elem)))
                else:
                    ir_name = self.ctx.unique(name.name)
                    self.declare_scalar(name, "int", ir_name, mutable)
                    return [ir.ScalarDef(name.loc, ir_name, "int", value.sym, elem=elem)]
            return self.define_scalar(name, ctype, value, mutable)
        if value is None:
            x = ir.ENum(ctype, "0")
        else:
            x = self.float_operand(value, s.init.loc, f"initialise '{s.type.name} {name.name}'")
            if x is None:
                self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc))
                return []
            self.warn_lossy(_first_loc(s.init), x, ctype)
        ir_name = self.ctx.unique(name.name)
        self.declare_scalar(name, ctype, ir_name, mutable, elem)
        return [ir.ScalarDef(name.loc, ir_name, ctype, None, expr=x, elem=elem if elem in ROUNDED or
                             elem in NARROW_INTS else None)]

    def declare_scalar(self, name: A.Name, ctype: str, ir_name: str, mutable: bool,
                       elem: Optional[str] = None) -> None:
        """A scalar whose value is known only at run time."""
        if ctype in ("float", "double"):
            value: Value = VExpr(ir.EVar(ctype, ir_name, elem or ("f64" if ctype == "double" else "f32")))
            kind = "float"
        else:
            value = VInt(Sym.var(ir_name)) if ctype == "int" else VBool(Sym.var(ir_name))
            kind = ctype
            if mutable:
                self.ctx.mutable_vars[ir_name] = name.name
        self.ctx.declare(name, Symbol(name.name, kind, value, name.loc, ir_name, mutable=mutable))
        self.ctx.scalar_elems[ir_name] = elem

    def untyped_float(self, name: A.Name, value: Value) -> List[ir.Stmt]:
        """`H = 50.0f;`, `mutable f = x * 0.5;`: a floating-point scalar of the value's type."""
        x = self.float_operand(value, name.loc, f"define '{name.name}'")
        if x is None:
            self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc))
            return []
        ctype = "double" if x.ctype == "double" else "float"   # (an integer-valued x too)
        ir_name = self.ctx.unique(name.name)
        self.declare_scalar(name, ctype, ir_name, True)
        return [ir.ScalarDef(name.loc, ir_name, ctype, None, expr=x)]

    def assignable(self, name: A.Name, existing: Symbol) -> bool:
        """Whether the scalar may be assigned here: it is mutable, and host-level scalars are
        not assigned inside `parallel` (the instances would race on it)."""
        if not existing.mutable:
            self.error(name.loc, f"only mutables can be re-assigned: '{name.name}' is not 'mutable' "
                                 f"(declare it 'mutable {existing.kind} {name.name} = ...;')")
            self.ctx.diag.note(existing.loc, "declared here")
            return False
        if self.ctx.level > 0 and existing.ir_name in self.ctx.host_vars:
            self.error(name.loc, f"'{name.name}' is host-level data; it cannot be assigned inside 'parallel'")
            return False
        return True

    def assign_scalar(self, s: A.Assign, existing: Symbol, value: Value) -> List[ir.Stmt]:
        """`x = v;` for a scalar of any type from a value of any arithmetic type."""
        name = s.name
        if isinstance(existing.value, VFloat):
            self.error(name.loc, f"cannot assign to floating-point parameter '{name.name}'")
            return []
        ctype = existing.value.expr.ctype if existing.kind == "float" else existing.kind
        elem = self.ctx.scalar_elems.get(existing.ir_name)
        if not self.assignable(name, existing):
            return []
        x = self.float_operand(value, s.value.loc, f"assign '{name.name}'")
        if x is None:
            return []
        self.warn_lossy(_first_loc(s.value), x, ctype)
        return [ir.Assign(s.loc, existing.ir_name, None, expr=x, ctype=ctype,
                          elem=elem if ctype in ("float", "double") or elem else None)]

    # -- `call` as a value -------------------------------------------------------
    def call_value(self, s: A.ScalarDecl, ctype: str, elem: Optional[str]) -> List[ir.Stmt]:
        """`mutable int a = call f(x);`: the device function runs and its return value
        (converted to the declared type) initialises a mutable scalar. As in the
        reference, the declaration names its type and is `mutable`."""
        name = s.name
        if not s.mutable:
            self.error(name.loc, f"'{name.name}' takes the value of a call and must be 'mutable': "
                                 f"'mutable {s.type.name} {name.name} = call ...;'")
        stmts = self.call_stmt(s.init)
        ir_name = self.ctx.unique(name.name)
        self.declare_scalar(name, ctype, ir_name, True, elem if ctype in ("float", "double") else None)
        if not stmts or not isinstance(stmts[-1], ir.Call):
            return []
        call = stmts[-1]
        call.result, call.result_ctype = ir_name, ctype
        zero = ir.ScalarDef(name.loc, ir_name, ctype, Sym.const(0) if ctype in ("int", "bool") else None,
                            expr=None if ctype in ("int", "bool") else ir.ENum(ctype, "0"),
                            elem=elem if elem in ROUNDED else None)
        return stmts[:-1] + [zero, call]

    def assign_call(self, s: A.Assign, existing: Optional[Symbol]) -> List[ir.Stmt]:
        """`a = call f(x);`: a mutable scalar takes the device function's value."""
        name = s.name
        if existing is None or existing.kind not in ("int", "bool", "float") or isinstance(existing.value, VFloat):
            self.error(name.loc, f"'call' gives its value to a declared mutable scalar: "
                                 f"'mutable int {name.name} = call ...;'")
            self.call_stmt(s.value)
            return []
        if not self.assignable(name, existing):
            return []
        stmts = self.call_stmt(s.value)
        if not stmts or not isinstance(stmts[-1], ir.Call):
            return []
        stmts[-1].result = existing.ir_name
        stmts[-1].result_ctype = existing.value.expr.ctype if existing.kind == "float" else existing.kind
        return stmts

    def return_float(self, s: A.ReturnStmt, kind: str, value: Value) -> List[ir.Stmt]:
        """`return x * 2;` from a function returning float or double (or `auto`: the
        value's type), converted as C converts."""
        x = self.float_operand(value, s.value.loc, f"return from a function returning '{kind}'")
        if x is None:
            return []
        if kind == "auto":
            kind = "double" if x.ctype == "double" else "float"
            self.ctx.auto_ret = (kind, None, None)
        return [ir.Return(s.loc, expr=x)]
