"""Stage 4-5: check a ``__co__`` function against the spec's rules and build its IR.

One walk does both, as clang's Sema builds its AST while checking: every construct is
typed, checked and turned into IR in the same place, so the IR can never disagree with
what was checked. Errors are reported with the construct's location and the walk
goes on (values that failed become ``VError``, which silences follow-on errors).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Set

from .. import ast as A
from ...ir import nodes as ir
from ...analysis.block_shared import place_block_shared
from ...analysis.bounds import bound_local_buffers
from ...analysis.fills import plan_fills
from . import pending as P
from .control import BUILTIN_STATEMENTS, ControlFlow
from .dma import DmaForms, expand_aliases
from .spanned import SPAN_METHODS, SpannedData
from .events import EventForms
from .loops import LoopForms
from .mma import MmaForms
from .syntax import COMPARE as _COMPARE, LOGICAL as _LOGICAL, article as _article, start_loc as _start_loc
from ...diagnostics import Diagnostics, Loc
from ...ir.symbolic import INT_MAX, INT_MIN, Sym, fits_int, prove_divisible, prove_equal
from .elements import ElementChecks
from .scalars import PARAM_CTYPES, ScalarForms, scalar_type, why_not_scalar
from .values import is_single as _is_single, kind_name as _kind_name, scalar as _scalar
from .values import (
    Future,
    Symbol,
    VArray,
    VBool,
    VData,
    VPacked,
    VError,
    VExpr,
    VFloat,
    VFuture,
    VInt,
    VMethod,
    VSpan,
    VTuple,
    Value,
    VWild,
)

_SPAN_OPS = {"+", "-", "*", "/", "%"}
MAX_RANK = 64  # far beyond any real tensor; keeps `mdspan<1000000000>` from running for ages


def _shape_text(dims: List[Sym]) -> str:
    return "[" + ", ".join(d.to_c() for d in dims) + "]"


def _truth(v: Value) -> Optional[Sym]:
    """An integer or boolean as a condition; None for other values."""
    if isinstance(v, VBool):
        return v.sym
    return v.sym.op("!=", 0) if isinstance(v, VInt) else None


def _shape_kind(v: Value) -> str:
    """`an mdspan of rank 3`, `an ituple of 2 elements` (for messages on their lengths)."""
    return f"an mdspan of rank {len(v.dims)}" if isinstance(v, VSpan) else "an " + _kind_name(v)


class _Scope:
    def __init__(self, parent: Optional["_Scope"]):
        self.parent = parent
        self.names: Dict[str, Symbol] = {}

    def lookup(self, name: str) -> Optional[Symbol]:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class FunctionChecker(ControlFlow, DmaForms, SpannedData, EventForms, LoopForms, ElementChecks, ScalarForms, MmaForms):
    """Checks one ``__co__`` function and lowers it to an ``ir.Function``."""

    def __init__(self, fn: A.CoFunction, diag: Diagnostics, co_functions: Set[str]):
        self.fn = fn
        self.diag = diag
        self.co_functions = co_functions
        self.scope = _Scope(None)
        self.used_names: Set[str] = set()
        self.buffers: List[ir.Buffer] = []
        self.frags: List[ir.Frag] = []   # tensor-core fragments (sema_mma.py)
        self.frags_in_errors: Set[str] = set()   # fragments of a rejected mma statement
        self.level = 0
        self.max_level = 0
        self.parallel_stack: List[ir.Parallel] = []
        self.parallel_atoms: Set[str] = set()   # index variables of parallel levels
        self.inthreads_depth = 0
        self.iterating: Set[str] = set()
        self.flow: List[object] = []     # events for the read-before-wait analysis (pending.py)
        self.futures: List[Future] = []
        self.check_sink: Optional[List[ir.Stmt]] = None
        self.host_vars: Set[str] = set()
        self.shape_vars: Dict[str, tuple] = {}  # bound by an argument's shape (never negative): (param, dim)
        self.warned_outside: Set[tuple] = set()
        self.derive_base: Optional[VSpan] = None
        self.span_def_value = False      # checking `name : x [...]`, where data x stands for its shape
        self.reassigned = self._reassigned_names(fn)
        self.dma_counter = 0
        self.returned = False
        self.first_value_ok = False
        self.prefix: List[ir.Stmt] = []
        self.guards: List[Sym] = []      # what must hold for the expression being checked to run
        self.jump_scopes: List[str] = []  # enclosing loops and parallels, for `break`/`continue`
        self.mutable_vars: Dict[str, str] = {}  # IR name -> user name of scalars that may change
        self.placeholders: List[Future] = []   # futures defined by `dma.any` (sema_dma.py)
        self.any_classes: Dict[int, List[Future]] = {}   # futures of one type (sema_dma.infer_any)
        self.any_reported: Set[int] = set()   # `dma.any` futures already in an error
        self.ir_waits: List[ir.Wait] = []
        self.unsupported: List[tuple] = []     # (loc, message): checked, but no target has code for it
        self.event_uses: List[tuple] = []      # (verb, events, loc) of each trigger and wait
        self.stream_params: List[ir.Param] = []
        self.float_params: Dict[str, str] = {}   # name -> storage type (f32, f64, f16, bf16)
        self.scalar_elems: Dict[str, Optional[str]] = {}   # IR name -> narrower storage type of a scalar
        self.wide_atoms: Set[str] = set()   # loop variables whose range may leave their bound

    # -- helpers -------------------------------------------------------------
    def error(self, loc: Loc, msg: str) -> VError:
        self.diag.error(loc, msg)
        return VError()

    def unique(self, name: str) -> str:
        base = name
        n = 0
        while name in self.used_names:
            n += 1
            name = f"{base}_{n}"
        self.used_names.add(name)
        return name

    @staticmethod
    def _reassigned_names(fn: A.CoFunction) -> Set[str]:
        counts: Dict[str, int] = {}
        declared: Set[str] = set()
        for node in A.walk(fn):
            if isinstance(node, A.Assign):
                counts[node.name.name] = counts.get(node.name.name, 0) + 1
            elif isinstance(node, A.ScalarDecl):
                declared.add(node.name.name)
        return {n for n, c in counts.items() if c > 1 or n in declared}

    def declare(self, name: A.Name, sym: Symbol) -> None:
        prev = self.scope.names.get(name.name)
        if prev is not None:
            if prev.kind == "mdspan":
                self.error(name.loc, f"mdspan '{name.name}' is already defined; an mdspan can be defined only once")
            else:
                self.error(name.loc, f"redefinition of '{name.name}'")
            self.diag.note(prev.loc, "previous definition is here")
            return
        if name.name in self.co_functions:
            self.diag.warning(name.loc, f"'{name.name}' shadows the __co__ function of the same name")
        self.scope.names[name.name] = sym
        if self.level == 0:
            if sym.ir_name:
                self.host_vars.add(sym.ir_name)

    @contextmanager
    def construct(self, kind: str, loc: Loc, masked: bool = False) -> Iterator[None]:
        """Records the events of a control-flow construct's body under it (pending.Construct)."""
        outer, self.flow = self.flow, []
        try:
            yield
        finally:
            body, self.flow = self.flow, outer
            self.flow.append(P.Construct(kind, loc, body, masked))

    def push(self) -> None:
        self.scope = _Scope(self.scope)

    def pop(self) -> None:
        self.scope = self.scope.parent

    def new_buffer(self, name: str, elem: str, storage: str, shape: List[Sym], loc: Loc,
                   origin: str, user_name: str) -> ir.Buffer:
        buf = ir.Buffer(self.unique(name), elem, storage, shape, self.level, loc, origin, user_name)
        self.buffers.append(buf)
        if self.parallel_stack:
            self.parallel_stack[-1].buffers.append(buf)
        return buf

    def runtime_check(self, loc: Loc, cond: Sym, message: str, values: List[Sym]) -> List[ir.Stmt]:
        """A check that cannot be proved now; hoisted before the launch when possible. Under
        a guard it holds vacuously where the guard is false, so hoisting it is still right."""
        for guard in self.guards:
            cond = guard.op("!").op("||", cond)
        check = ir.Check(loc, cond, message, values)
        if self.check_sink is not None and cond.variables() <= self.host_vars:
            if not any(isinstance(c, ir.Check) and c.cond == cond and c.message == message
                       for c in self.check_sink):
                self.check_sink.append(check)
            return []
        return [check]

    @contextmanager
    def guarded(self, cond: Optional[Sym]) -> Iterator[None]:
        """Expressions checked inside run only where ``cond`` holds (a '?:' branch, the right
        side of '&&' and '||', a 'foreach ... if' body): their checks must not fire elsewhere."""
        if cond is not None:
            self.guards.append(cond)
        try:
            yield
        finally:
            if cond is not None:
                self.guards.pop()

    def divisor_check(self, loc: Loc, dividend: Sym, divisor: Sym) -> None:
        """Operands known only at run time: C++ traps (SIGFPE) on a divisor of 0, and on
        INT_MIN / -1, whose quotient does not fit in 'int'."""
        if not divisor.is_const:
            self._pending_checks(self.runtime_check(loc, divisor.op("!=", 0), "division by zero", []))
        maybe_int_min = not self._never_negative(dividend) and not (dividend.is_const and dividend.value != INT_MIN)
        if maybe_int_min and (not divisor.is_const or divisor.value == -1):
            self._pending_checks(self.runtime_check(
                loc, dividend.op("!=", INT_MIN).op("||", divisor.op("!=", -1)),
                f"integer overflow: {INT_MIN} / -1 is outside the range of 'int'", []))

    # -- the function --------------------------------------------------------
    def run(self) -> Optional[ir.Function]:
        fn = self.fn
        params: List[ir.Param] = []
        bindings: List[ir.DimBinding] = []
        entry: List[ir.Stmt] = []
        for p in fn.params:
            params.append(self.param(p, bindings, entry))
        ret_kind, ret_elem, ret_shape = self.return_type(fn.ret)
        entry += self.prefix   # checks of the return type's divisions
        self.prefix = []
        self.ret = (ret_kind, ret_elem, ret_shape, fn.ret)
        body = self.launch_host_elements(self.block_stmts(fn.body.stmts))
        self.finish_placeholders(self.ir_waits, body)
        if ret_kind not in ("void", "error", "auto") and not self.returned:
            self.error(fn.body.loc if not fn.body.stmts else fn.name.loc,
                       f"no 'return' statement in __co__ function '{fn.name.name}' returning a value")
        P.analyse(self.flow, self.diag, fn.name.loc)
        self.check_event_waits()
        if ret_kind == "auto":
            ret_kind, ret_elem, ret_shape = getattr(self, "auto_ret", ("void", None, None))
        elif ret_kind == "data" and ret_shape is None:
            ret_shape = self.ret[2]  # rank-only (`s32 mdspan<2>`): the shape the return found
        irfn = ir.Function(fn.name.name, fn.loc, params, ret_kind, ret_elem, ret_shape, bindings,
                           entry + body, self.buffers, self.max_level)
        irfn.unsupported = self.unsupported[:1]
        irfn.frags = self.frags
        self.check_frags()
        place_block_shared(irfn, self.diag)
        plan_fills(irfn, self.diag, self.diag.enabled("implicit-fill"))
        bound_local_buffers(irfn)
        ir.number_and_live_ranges(irfn)
        return irfn

    def param(self, p: A.Param, bindings: List[ir.DimBinding], entry: List[ir.Stmt]) -> ir.Param:
        ty, name = p.type, p.name
        if not name.name:   # `int` with no name (a prototype-style parameter): not usable, still passed
            name = A.Name(name.loc, self.unique(f"__anon{len(bindings)}_{p.loc.line}_{p.loc.col}"))
            self.used_names.discard(name.name)
        self.unique(name.name)
        if p.storage is not None and (p.storage != "global" or ty.kind != "spanned"):
            what = f"a '{p.storage}' parameter" if p.storage != "global" else "'global' on a scalar parameter"
            self.error(p.loc, f"{what} is not allowed: only a spanned parameter may be 'global' "
                              "(its data is in device memory)")
        if ty.kind in ("elem", "float"):
            spec = scalar_type(ty.name)
            if spec is None or spec[1] in ("s8", "s16", "u8", "u16"):
                why = why_not_scalar(ty.name) if spec is None else \
                    f"'{ty.name}' parameters are not supported yet (a scalar parameter is 'int', 's32' or floating-point)"
                self.error(ty.loc, f"{why}; or give the parameter a shape, e.g. '{ty.name} [N] {name.name}'")
                self.declare(name, Symbol(name.name, "error", VError(), name.loc, name.name))
                return ir.Param(name.name, "int", p.loc)
            if spec[0] == "int":
                ty = A.TypeSpec(ty.loc, "int", "int")
        if ty.kind in ("int", "bool"):
            sym = Sym.var(name.name)
            value = VInt(sym) if ty.kind == "int" else VBool(sym)
            self.declare(name, Symbol(name.name, ty.kind, value, name.loc, name.name))
            self.host_vars.add(name.name)
            return ir.Param(name.name, ty.kind, p.loc)
        if ty.kind in ("elem", "float"):
            compute, elem = scalar_type(ty.name)
            self.float_params[name.name] = elem
            self.declare(name, Symbol(name.name, "float", VFloat(name.name), name.loc, name.name))
            return ir.Param(name.name, "float", p.loc, ctype=PARAM_CTYPES[elem], compute=compute)
        if ty.kind == "stream":
            return self.stream_param(p, name)
        # spanned parameter
        actual = []
        if ty.shape is None:
            rank = ty.rank.value if ty.rank is not None else None
            if rank is None or rank <= 0:
                self.error(ty.loc, f"parameter '{name.name}' needs a shape or a rank, e.g. 'mdspan<2>'")
                rank = max(rank or 1, 1)
            elif rank > MAX_RANK:
                self.error(ty.rank.loc, f"rank {rank} of parameter '{name.name}' is too large (at most {MAX_RANK})")
                rank = 1
            dims = []
            for i in range(rank):
                var = f"{name.name}__dim{i}"
                bindings.append(ir.DimBinding(var, name.name, i))
                self.host_vars.add(var)
                self.shape_vars[var] = (name.name, i)
                dims.append(Sym.var(var))
        else:
            dims = []
            for i, item in enumerate(ty.shape.items):
                var = f"{name.name}__dim{i}"
                bindings.append(ir.DimBinding(var, name.name, i))
                self.host_vars.add(var)
                self.shape_vars[var] = (name.name, i)
                actual_dim = Sym.var(var)
                actual.append(actual_dim)
                if isinstance(item, A.AnyDim):   # `?`: whatever the argument has
                    dims.append(actual_dim)
                    continue
                if isinstance(item, A.Name) and self.scope.lookup(item.name) is None:
                    # a new symbolic dimension: bound by this parameter's shape
                    self.unique(item.name)
                    self.declare(item, Symbol(item.name, "int", VInt(Sym.var(item.name)), item.loc, item.name))
                    bindings.append(ir.DimBinding(item.name, name.name, i))
                    self.host_vars.add(item.name)
                    self.shape_vars[item.name] = (name.name, i)
                    dims.append(Sym.var(item.name))
                    continue
                value = _scalar(self.expr(item))
                entry += self.prefix   # its divisions are checked before the shape is
                self.prefix = []
                if isinstance(value, VSpan):
                    self.error(item.loc, "a parameter shape lists its dimensions one by one")
                    dims.append(actual_dim)
                    continue
                if not isinstance(value, VInt):
                    if not isinstance(value, VError):
                        self.error(item.loc, f"dimension of '{name.name}' must be an integer, not {_kind_name(value)}")
                    dims.append(actual_dim)
                    continue
                if value.sym.is_const and value.sym.value <= 0:
                    self.error(item.loc, f"dimension {i} of '{name.name}' must be positive, not {value.sym.value}")
                dims.append(value.sym)
                entry.append(ir.Check(item.loc, actual_dim.op("==", value.sym),
                                      f"dimension {i} of '{name.name}' is {{0}}, but the declared shape needs {{1}}",
                                      [actual_dim, value.sym]))
        buf = ir.Buffer(name.name, ty.name, "global", dims, 0, name.loc, "param", name.name)
        self.buffers.append(buf)
        region = ir.Region(buf, [Sym.const(0)] * len(dims), list(dims))
        self.declare(name, Symbol(name.name, "data", VData(region, ty.name), name.loc, name.name))
        return ir.Param(name.name, "data", p.loc, elem=ty.name, rank=len(dims), buffer=buf,
                        device=p.storage == "global")

    def stream_param(self, p: A.Param, name: A.Name) -> ir.Param:
        """`stream s`: the host form runs its work on the caller's stream (README, "Host
        code and element types"); tileflow code cannot use the name."""
        if any(q.kind == "stream" for q in self.stream_params):
            self.error(p.loc, "a __co__ function takes at most one 'stream' parameter")
        param = ir.Param(name.name, "stream", p.loc)
        self.stream_params.append(param)
        self.declare(name, Symbol(name.name, "stream", VError(), name.loc, name.name))
        return param

    def return_type(self, ty: A.TypeSpec):
        if ty.kind in ("void", "int", "bool", "auto"):
            return ty.kind, None, None
        if ty.kind == "float":
            if ty.name not in ("float", "double"):
                self.error(ty.loc, f"a __co__ function cannot return '{ty.name}' (not supported yet); "
                                   "it may return 'float' or 'double'")
                return "error", None, None
            return ty.name, None, None
        if ty.shape is None:
            return "data", ty.name, None  # rank-only: checked at the return
        dims = self.shape_dims(ty.shape, "the return type")
        return ("data", ty.name, dims) if dims is not None else ("error", None, None)

    # -- statements ----------------------------------------------------------
    def block_stmts(self, stmts: List[A.Node]) -> List[ir.Stmt]:
        out: List[ir.Stmt] = []
        for s in stmts:
            if self.level == 0:
                saved, self.check_sink = self.check_sink, []
                lowered = self.stmt(s)
                out.extend(self.check_sink)
                self.check_sink = saved
                out.extend(lowered)
            else:
                out.extend(self.stmt(s))
        return out

    def scoped_block(self, block: A.Block) -> List[ir.Stmt]:
        self.push()
        try:
            return self.block_stmts(block.stmts)
        finally:
            self.pop()

    def stmt(self, s: A.Node) -> List[ir.Stmt]:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.error(s.loc, "this construct is not allowed as a statement in tileflow code")
            return []
        saved, self.prefix = self.prefix, []
        try:
            out = method(s)
            return self.prefix + expand_aliases(out)
        except RecursionError:  # thousands of nested operators: a diagnostic, not a crash
            self.error(s.loc, "statement too complex: its expressions are nested too deeply")
            return []
        finally:
            self.prefix = saved

    def stmt_Block(self, s: A.Block) -> List[ir.Stmt]:
        return self.scoped_block(s)

    def stmt_EmptyStmt(self, s) -> List[ir.Stmt]:
        return []

    def stmt_DataDecl(self, s: A.DataDecl) -> List[ir.Stmt]:
        storage = s.storage or "global"
        if s.type.shape is None:
            self.error(s.type.loc, "data declared in a __co__ function needs a shape, e.g. 's32 [4, 8] x'")
            return []
        dims = self.shape_dims(s.type.shape, "data")
        if self.level == 0 and storage in ("local", "shared"):
            self.error(s.loc, f"'{storage}' data can only be declared inside a 'parallel' block")
            return []
        if self.level > 0 and storage == "global":
            what = "'global' data" if s.storage else "data without a storage qualifier (global by default)"
            self.error(s.loc, f"{what} must be declared outside 'parallel'; use 'local' or 'shared' inside")
            return []
        if dims is None:
            return []
        self._size_checks(s, dims)
        out = []
        for d in s.names:
            out += self.declare_data(d, s.type.name, storage, dims)
        return out

    def _size_checks(self, s: A.DataDecl, dims: List[Sym]) -> None:
        """Sizes known at run time only: no dimension is negative (0 is an empty buffer), and
        the byte count fits in 63 bits (a wrapped-around size would allocate a small buffer)."""
        names = ", ".join(f"'{n.name}'" for n in s.names)
        loc = s.type.shape.loc
        for i, d in enumerate(dims):
            if not self._never_negative(d):
                self._pending_checks(self.runtime_check(
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
        self._pending_checks(self.runtime_check(
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
            return self.shape_vars.get(atom.name)
        if atom.op == "/" and atom.args[1].is_const and atom.args[1].value > 0:
            return self._argument_dim(atom.args[0])
        return None

    def _never_negative(self, d: Sym) -> bool:
        """A sum of products of argument dimensions (or of their quotients by positive
        constants, as in a chunk's 'M / 4'), with positive coefficients."""
        def atom_ok(a) -> bool:
            if a.op == "var":
                return a.name in self.shape_vars
            num, den = (a.args + (None,))[:2]
            return a.op in ("/", "%") and den.is_const and den.value > 0 and self._never_negative(num)
        return all(coeff > 0 and all(atom_ok(a) for a in mono) for mono, coeff in d.terms.items())

    def shape_dims(self, lit: A.SpanLit, what: str) -> Optional[List[Sym]]:
        value = self.reject_mutable(self.expr(lit), lit.loc, f"the shape of {what}")
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
                self.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
                return []
            return self.typed_scalar_decl(s, *spec)
        init_value: Optional[Value] = None
        if s.init is not None:
            init_value = _scalar(self.init_value(s.init, s.name))
            if isinstance(init_value, (VExpr, VFloat)) and init_value.kind != "element value":
                # `mutable int a = 1.5;`: converted at run time
                return self.typed_scalar_decl(s, ty.kind, None, init_value)
            if isinstance(init_value, VError):
                init_value = None
            elif ty.kind == "int" and not isinstance(init_value, (VInt, VBool)):
                self.error(s.init.loc, f"cannot initialise 'int {s.name.name}' with {_kind_name(init_value)}")
                init_value = None
            elif ty.kind == "bool" and not isinstance(init_value, (VInt, VBool)):
                self.error(s.init.loc, f"cannot initialise 'bool {s.name.name}' with {_kind_name(init_value)}")
                init_value = None
        # spec 2's `int a;` is assigned later; with a value, only a `mutable` one may change
        return self.define_scalar(s.name, ty.kind, init_value, s.mutable or s.init is None)

    def untyped_mutable(self, s: A.ScalarDecl) -> List[ir.Stmt]:
        if s.init is None:
            self.error(s.name.loc, f"cannot deduce the type of '{s.name.name}': a 'mutable' without a "
                                   f"type needs a value, e.g. 'mutable {s.name.name} = 0;'")
            self.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        if isinstance(s.init, A.CallStmt):
            self.error(s.name.loc, f"cannot deduce the type of '{s.name.name}' from a call; name it, e.g. "
                                   f"'mutable int {s.name.name} = call ...;'")
            self.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        value = self.init_value(s.init, s.name)
        if isinstance(value, (VInt, VBool)):
            return self.define_scalar(s.name, "int" if isinstance(value, VInt) else "bool", value, True)
        if isinstance(value, (VExpr, VFloat)):
            return self.untyped_float(s.name, value)
        if not isinstance(value, VError):
            self.error(s.name.loc, f"'{s.name.name}' of {_kind_name(value)} cannot be 'mutable'; only "
                                   "integers and booleans can")
        self.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
        return []

    def define_scalar(self, name: A.Name, kind: str, init: Optional[Value], mutable: bool = False) -> List[ir.Stmt]:
        ir_name = self.unique(name.name)
        init_sym = init.sym if init is not None else None
        if kind == "bool" and init_sym is not None:
            init_sym = init_sym.op("!=", 0)
        if mutable or name.name in self.reassigned or init_sym is None or self.mutable_in(init) is not None:
            sym = Sym.var(ir_name)   # its own variable: a snapshot of a mutable it reads, too
        else:
            sym = init_sym
        if mutable:
            self.mutable_vars[ir_name] = name.name
        value = VInt(sym) if kind == "int" else VBool(sym)
        if kind == "int" and sym is init_sym and isinstance(init, VInt) and init.bound is not None:
            # a name for a bounded value is bounded too (the reference's `pqx = p # q # x;`)
            value = VInt(sym, init.bound, init.origin, init.derived)
        self.declare(name, Symbol(name.name, kind, value, name.loc, ir_name, mutable=mutable))
        return [ir.ScalarDef(name.loc, ir_name, kind, init_sym if init_sym is not None else Sym.const(0))]

    def mutable_in(self, value: Value) -> Optional[str]:
        """The user's name of a mutable scalar that ``value`` reads, if any: shapes, bounds
        and i-tuples are computed once, so they may not follow a value that can change."""
        syms = [value.sym] if isinstance(value, (VInt, VBool)) else \
            value.dims if isinstance(value, VSpan) else value.items if isinstance(value, VTuple) else []
        for sym in syms:
            for var in sorted(sym.variables()):
                if var in self.mutable_vars:
                    return self.mutable_vars[var]
        return None

    def reject_mutable(self, value: Value, loc: Loc, what: str) -> Value:
        name = self.mutable_in(value)
        if name is None:
            return value
        return self.error(loc, f"{what} cannot use the mutable value '{name}': it is computed once, "
                               "and a mutable may change")

    def stmt_SpanDef(self, s: A.SpanDef) -> List[ir.Stmt]:
        # defined once per scope: an inner scope (a parallel, with or foreach body) may define
        # its own mdspan of an outer one's name (the reference's `infer/multi_scope.co`)
        prev = self.scope.names.get(s.name.name)
        if prev is not None and prev.kind == "mdspan":
            self.error(s.name.loc, f"mdspan '{s.name.name}' is already defined; an mdspan can be defined only once")
            self.diag.note(prev.loc, "previous definition is here")
            return []
        self.span_def_value = isinstance(s.value, A.SpanDerive)
        try:
            value = self.reject_mutable(self.expr(s.value), s.value.loc, "an mdspan")
        finally:
            self.span_def_value = False
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
        self.declare(s.name, Symbol(s.name.name, "mdspan", value, s.name.loc))
        return []

    def stmt_TupleDef(self, s: A.TupleDef) -> List[ir.Stmt]:
        if s.value is None:
            self.error(s.name.loc, f"an ituple must be initialized: 'ituple {s.name.name} = {{a, b}};'")
            self.declare(s.name, Symbol(s.name.name, "error", VError(), s.name.loc))
            return []
        value = self.reject_mutable(self.init_value(s.value, s.name), s.value.loc, "an ituple")
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
        self.declare(s.name, Symbol(s.name.name, "ituple", value, s.name.loc))
        return []

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

    def init_value(self, node: A.Node, name: A.Name) -> Value:
        if isinstance(node, (A.DmaCopy, A.DmaAny)):
            what = "dma.any" if isinstance(node, A.DmaAny) else "dma.copy"
            return self.error(node.loc, f"'{what}' initialises a future: write '{name.name} = {what} ...;'")
        return self.expr(node)

    def stmt_Assign(self, s: A.Assign) -> List[ir.Stmt]:
        name = s.name
        existing = self.scope.lookup(name.name)
        if isinstance(s.value, A.DmaAny):
            return self.dma_any(name)
        if isinstance(s.value, A.MmaOp):
            return self.mma_assign(name, s.value)
        if existing is not None and existing.kind == "fragment" and isinstance(s.value, A.BinOp) \
                and isinstance(s.value.left, A.Name) and s.value.left.name == name.name:
            return self.frag_update(name, s.value)
        if isinstance(s.value, A.DmaCopy):
            placeholder = self.unbound_placeholder(existing)
            if placeholder is not None:
                return self.dma(s.value, name, placeholder)
            if existing is not None and existing.kind == "future" and name.name in self.scope.names:
                self.error(name.loc, f"future '{name.name}' is already defined")
                self.diag.note(existing.loc, "previous definition is here")
                return []
            return self.dma(s.value, name)
        if existing is not None and name.name not in self.scope.names and self._shadowable(existing):
            existing = None   # `f = 5;` in an inner scope defines its own f (as the reference does)
        if isinstance(s.value, A.CallStmt):
            return self.assign_call(s, existing)
        if existing is None:
            value = self.expr(s.value)
            if isinstance(value, (VTuple, VSpan)):
                value = self.reject_mutable(value, s.value.loc, "an ituple" if isinstance(value, VTuple) else "an mdspan")
            if isinstance(value, VError):
                self.declare(name, Symbol(name.name, "error", value, name.loc))
                return []
            if isinstance(value, (VInt, VBool)):
                return self.define_scalar(name, "int" if isinstance(value, VInt) else "bool", value)
            if isinstance(value, VTuple):
                self.declare(name, Symbol(name.name, "ituple", VTuple(value.items), name.loc))
                return []
            if isinstance(value, VSpan):
                self.declare(name, Symbol(name.name, "mdspan", value, name.loc))
                return []
            if isinstance(value, (VFloat, VExpr)):   # `H = 50.0f;`
                return self.untyped_float(name, value)
            if self.selected(value):   # `x = select(k, a, b);`
                kind = "future" if isinstance(value, VFuture) else "data"
                self.declare(name, Symbol(name.name, kind, value, name.loc))
                return []
            if isinstance(value, VData) and value.future is None:
                # `l = x.span_as(6, 64);`: another name for (a view of) existing data
                self.declare(name, Symbol(name.name, "data", VData(value.region, value.elem), name.loc,
                                          value.region.buffer.name))
                return []
            self.error(s.value.loc, f"cannot define '{name.name}' from {_kind_name(value)}")
            self.declare(name, Symbol(name.name, "error", VError(), name.loc))   # no cascade of 'not declared'
            return []
        value = _scalar(self.expr(s.value)) if existing.kind in ("int", "bool", "float") else self.expr(s.value)
        if existing.kind == "float" or (existing.kind in ("int", "bool") and isinstance(value, (VExpr, VFloat))
                                        and value.kind != "element value"):
            if isinstance(value, VError):
                return []
            if not existing.ir_name or existing.ir_name not in self.used_names:
                self.error(name.loc, f"cannot assign to '{name.name}'")
                return []
            return self.assign_scalar(s, existing, value)
        if existing.kind == "mdspan":
            self.error(name.loc, f"mdspan '{name.name}' cannot be assigned; an mdspan is defined only once")
            return []
        if existing.kind in ("int", "bool"):
            if isinstance(value, VError):
                return []
            if not isinstance(value, (VInt, VBool)):
                self.error(s.value.loc, f"cannot assign {_kind_name(value)} to '{existing.kind} {name.name}'")
                return []
            if not existing.ir_name or existing.ir_name not in self.used_names:
                self.error(name.loc, f"cannot assign to '{name.name}'")
                return []
            if not self.assignable(name, existing):
                return []
            return [ir.Assign(s.loc, existing.ir_name, value.sym, elem=self.scalar_elems.get(existing.ir_name))]
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

    def stmt_ExprStmt(self, s: A.ExprStmt) -> List[ir.Stmt]:
        e = s.expr
        if isinstance(e, A.DmaCopy):
            return self.dma(e, None)
        if isinstance(e, A.DmaAny):
            self.error(e.loc, "'dma.any' makes a future: write 'f = dma.any;'")
            return []
        if isinstance(e, A.Call) and isinstance(e.func, A.Name):
            fname = e.func.name
            if fname in self.co_functions:
                self.error(e.loc, f"a __co__ function cannot call another __co__ function ('{fname}')")
                return []
            if fname in ("swap", "rotate") and self.scope.lookup(fname) is None:
                return self.swap(e)
            if fname in BUILTIN_STATEMENTS and self.scope.lookup(fname) is None:
                return self.builtin_statement(e)
            if self.scope.lookup(fname) is None:
                where = " inside 'parallel'" if self.level == 0 else ""
                self.error(e.loc, f"calling '{fname}' from tileflow code needs the 'call' keyword{where}: "
                                  f"'call {fname}(...);'")
                return []
        value = self.expr(e)
        if not isinstance(value, VError):
            self.diag.warning(_start_loc(e), "statement has no effect")
        return []

    def swap(self, e: A.Call) -> List[ir.Stmt]:
        """`swap(f, g)`: the two futures exchange their buffers (double buffering);
        `rotate(f, g, h)` is `swap(f, g); swap(g, h);` (f takes g's, g takes h's, h takes f's)."""
        fname = e.func.name
        n = len(e.args)
        if not all(isinstance(a, A.Name) for a in e.args) or (n != 2 if fname == "swap" else n < 2):
            self.error(e.loc, "'swap' takes two futures: 'swap(f, g);'" if fname == "swap"
                       else "'rotate' takes two or more futures: 'rotate(f, g, h);'")
            return []
        futures = []
        for a in e.args:
            sym = self.scope.lookup(a.name)
            if sym is None:
                self.error(a.loc, f"'{a.name}' was not declared in this scope")
                return []
            if sym.kind == "error":
                return []
            if sym.kind != "future":
                self.error(a.loc, f"'{fname}' takes futures, but '{a.name}' is {_article(sym.kind)}")
                return []
            fut = sym.value.future
            fut.used = True
            futures.append(fut)
        out: List[ir.Stmt] = []
        for i in range(n - 1):
            pair = self.swap_pair(e, e.args[i], e.args[i + 1], futures[i], futures[i + 1])
            if pair is None:
                return []
            out += pair
        return out

    def swap_pair(self, e: A.Call, a: A.Name, b: A.Name, f: Future, g: Future) -> Optional[List[ir.Stmt]]:
        if f is g:
            return []
        if not self.swap_scopes_agree(e.loc, a, b, f, g):
            return None
        for name, fut in ((a, f), (b, g)):
            if fut.region is None or fut.candidates is not None:
                continue
            buf = fut.region.buffer
            if buf.origin != "dma" or not fut.region.is_whole:
                self.error(name.loc, f"'swap' needs futures of copies into 'local' or 'shared' ('{name.name} = "
                                     f"dma.copy ... => local;'); swapping a future whose copy fills named data "
                                     f"('{buf.source_name or buf.name}') is not supported yet")
                return None
            if not all(v in self.host_vars for d in buf.shape for v in d.variables()):
                self.error(name.loc, f"the shape of '{name.name}' must be known when its 'parallel' block starts "
                                     "to swap it")
                return None
        for name, fut in ((a, f), (b, g)):
            if fut.candidates is not None:
                self.error(name.loc, f"'swap' of a 'select' of futures ('{name.name}') is not supported yet")
                return None
        if f.region is None or g.region is None:
            if not self.infer_any([f, g], e.loc, e.func.name):
                return None
            if f.region is None or g.region is None:   # both typeless yet: their buffers get a type later
                self.flow.append(P.Swap(f, g))
                return [ir.Swap(e.loc, f.shell, g.shell)]
        fb, gb = f.region.buffer, g.region.buffer
        if fb is gb:
            return []
        if fb.storage != gb.storage or f.elem != g.elem or fb.level != gb.level or f.is_async != g.is_async:
            self.error(e.loc, f"'swap' needs two futures of the same storage, element type, parallel level and "
                              f"kind (async or not) ('{'async ' if f.is_async else ''}{fb.storage} {f.elem}' and "
                              f"'{'async ' if g.is_async else ''}{gb.storage} {g.elem}')")
            return None
        before = self.diag.errors
        checks = self.shape_match(e.loc, list(fb.shape), list(gb.shape), f"'{f.user_name}'", f"'{g.user_name}'")
        if self.diag.errors != before:
            return None
        if checks:
            self.error(e.loc, "'swap' needs futures whose shapes are provably equal")
            return None
        if f.placeholder or g.placeholder:
            self.infer_any([f, g], e.loc, e.func.name)
        self.flow.append(P.Swap(f, g))
        return [ir.Swap(e.loc, fb, gb)]

    def stmt_CallStmt(self, s: A.CallStmt) -> List[ir.Stmt]:
        fname = s.func.name
        if fname in self.co_functions:
            self.error(s.func.loc, f"a __co__ function cannot call another __co__ function ('{fname}')")
            return []
        if self.level == 0:
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
        if self.level == 0 or len(args) != len(s.args) or (targs is not None and len(targs) != len(s.template_args)):
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
            x = self.float_operand(value, _start_loc(node), f"pass to '{fname}'")
            if x is None:
                return None
            if x.ctype not in ("float", "double"):   # (a data element of an integer type)
                return ir.CallArg("int", expr=x)
            return ir.CallArg("float", expr=x)
        if isinstance(value, VFuture):
            value = self.future_data(value.future, node.loc)
        at = _start_loc(node)
        if isinstance(value, VData):
            if value.is_chunk:
                self.error(at, "a chunk cannot be passed to a device function; "
                               "copy it with 'dma.copy' first and pass the copy")
                return None
            self.check_readable(value, at)
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
        if not v.variables() & set(self.shape_vars):   # int arithmetic wraps as in C++
            return
        self._pending_checks(self.runtime_check(
            loc, v.op(">=", INT_MIN).op("&&", v.op("<=", INT_MAX)),
            f"an argument of '{fname}' is {{0}}, outside the range of 'int' ({INT_MIN} to {INT_MAX})", [v]))

    def check_readable(self, value: VData, loc: Loc, access: str = "read") -> None:
        """An async copy's destination may not be read (or written) before its `wait`:
        recorded here, decided by the dataflow of pending.py once the function is complete.
        Data reached through `f.data` was recorded where `.data` was read."""
        if value.future is None:
            self.flow.append(P.Access(value.region.buffer, loc, access))

    def stmt_WaitStmt(self, s: A.WaitStmt) -> List[ir.Stmt]:
        waited: List[Future] = []
        events = [n for n in s.futures if self.is_event(n)]
        for n in s.futures:
            if not isinstance(n, A.Name) or self.is_event(n):
                if not self.is_event(n):
                    self.error(n.loc, "'wait' takes futures and events, e.g. 'wait f, g;'")
                continue
            sym = self.scope.lookup(n.name)
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
            waited += [f for f in self.waited_futures(fut) if f not in waited]
        out: List[ir.Stmt] = []
        if waited:
            self.flow.append(P.Wait(waited, s.loc))
            self.ir_waits.append(ir.Wait(s.loc, [f.name for f in waited]))
            out.append(self.ir_waits[-1])
        return out + self.wait_events(s, events)

    def stmt_ReturnStmt(self, s: A.ReturnStmt) -> List[ir.Stmt]:
        if self.level > 0:
            self.error(s.loc, "'return' inside 'parallel'; a __co__ function returns from its host-level code")
            return []
        self.returned = True
        kind, elem, shape, spec = self.ret
        if s.value is None:
            if kind not in ("void", "error", "auto"):
                self.error(s.loc, "'return' with no value in a __co__ function returning a value")
            return [ir.Return(s.loc)]
        value = self.expr(s.value)
        if kind in ("int", "bool", "auto"):
            value = _scalar(value)
        if kind in ("int", "bool"):   # (`return x * 1.5;` from an int function: converted)
            value = self.as_integer(value, s.value.loc, kind)
        if isinstance(value, VError) or kind == "error":
            return []
        if kind in ("float", "double") or (kind == "auto" and isinstance(value, (VExpr, VFloat))):
            return self.return_float(s, kind, value)
        if isinstance(value, VError) or kind == "error":
            return []
        if kind == "void":
            self.error(s.value.loc, "'return' with a value in a __co__ function returning 'void'")
            return []
        if isinstance(value, VFuture):
            value = self.future_data(value.future, s.value.loc)
        if kind == "auto":
            if isinstance(value, VData):
                self.auto_ret = ("data", value.elem, list(value.region.extents))
                kind, elem, shape = self.auto_ret
            elif isinstance(value, (VInt, VBool)):
                self.auto_ret = ("int" if isinstance(value, VInt) else "bool", None, None)
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
            self.check_readable(value, _start_loc(s.value))
        out: List[ir.Stmt] = []
        if shape is None:
            if spec.rank is not None and spec.rank.value != len(buf.shape):
                self.error(s.value.loc, f"returning data of rank {len(buf.shape)} from a function returning "
                                        f"'mdspan<{spec.rank.value}>'")
                return []
            self.ret = (kind, elem, list(buf.shape), spec)
        else:
            out += self.shape_match(s.value.loc, buf.shape, shape, "returned data", "the declared return type")
        return out + [ir.Return(s.loc, buffer=buf)]

    def shape_match(self, loc: Loc, have: List[Sym], want: List[Sym], what: str, against: str) -> List[ir.Stmt]:
        """Equal shapes: an error when provably different, a runtime check when unknown."""
        if len(have) != len(want):
            self.error(loc, f"{what} has shape {_shape_text(have)}, but {against} has shape {_shape_text(want)} "
                            f"(rank {len(have)} vs {len(want)})")
            return []
        checks: List[ir.Stmt] = []
        for i, (h, w) in enumerate(zip(have, want)):
            same = prove_equal(h, w)
            if same is False:
                self.error(loc, f"{what} has shape {_shape_text(have)}, but {against} has shape {_shape_text(want)}")
                return []
            if same is None:
                checks += self.runtime_check(loc, h.op("==", w),
                                             f"dimension {i} of {what} is {{0}}, but {against} needs {{1}}", [h, w])
        return checks

    # -- parallel, with, foreach ----------------------------------------------
    def require_positive(self, loc: Loc, value: Sym, known: str, unknown: str) -> List[ir.Stmt]:
        """A count or bound: an error (`known`) when it is a constant <= 0, else a run-time
        check (`unknown`); `{0}` in either message is the value."""
        if not value.is_const:
            return self.runtime_check(loc, value.op(">", 0), unknown, [value])
        if value.value <= 0:
            self.error(loc, known.format(value.value))
        return []

    # -- DMA -------------------------------------------------------------------
    def dma(self, node: A.DmaCopy, future_name: Optional[A.Name],
            placeholder: Optional[Future] = None) -> List[ir.Stmt]:
        if node.op not in ("copy", "pad", "transp"):
            self.error(node.op_loc, f"unknown DMA operation 'dma.{node.op}'; expected 'dma.copy', 'dma.pad', "
                                    "'dma.transp' or 'dma.any'")
            return self._declare_failed_future(future_name)
        if node.is_async == "sp" or node.sparse is not None:
            self.error(getattr(node, "config_loc", None) or node.async_word or node.op_loc,
                       "structured-sparsity copies ('dma.copy.sp<2:4>') are not supported yet")
            return self._declare_failed_future(future_name)
        if node.is_async not in (False, "async"):
            self.error(node.async_word, f"unknown DMA modifier '.{node.is_async}'; expected '.async'")
            return self._declare_failed_future(future_name)
        if (node.config is None) != (node.op == "copy"):
            what = (f"'dma.{node.op}' needs its configuration, e.g. "
                    + ("'dma.transp<1, 0>'" if node.op == "transp" else "'dma.pad<{1, 1}, {1, 1}, {0, 0}, 0>'")
                    if node.config is None else "'dma.copy' takes no '<...>' configuration")
            self.error(getattr(node, "config_loc", None) or node.op_loc, what)
            return self._declare_failed_future(future_name)
        is_async = node.is_async == "async"
        swizzle = self.dma_swizzle(node)
        if swizzle is None:
            return self._declare_failed_future(future_name)
        after = self.after_waits(node)
        src = self.expr(node.src)
        if isinstance(src, VFuture):
            src = self.future_data(src.future, node.src.loc)
        if isinstance(src, VError):
            return self._declare_failed_future(future_name)
        packed = None   # `x.chunkat(..).span_as(s)` of non-contiguous x: copied into shape s
        if isinstance(src, VPacked):
            if node.op != "copy":
                self.error(node.src.loc, f"'dma.{node.op}' of non-contiguous data reshaped by 'span_as' is not "
                                         "supported yet; 'dma.copy' packs it")
                return self._declare_failed_future(future_name)
            packed, src = src.dims, src.data
        if not isinstance(src, VData):
            if isinstance(src, VExpr):   # `a.at(i)` on data is one element, not a tile
                self.error(node.src.loc, "the source of 'dma.copy' must be spanned data, not an element: in a "
                                         "copy, '.at(...)' must follow '.chunk(...)' or '.subspan(...)'")
            else:
                self.error(node.src.loc, f"the source of 'dma.copy' must be spanned data, not {_kind_name(src)}")
            return self._declare_failed_future(future_name)
        self.check_readable(src, _start_loc(node.src))
        out: List[ir.Stmt] = list(after)
        extents = list(src.region.extents) if packed is None else list(packed)
        perm = pad = None
        if node.op != "copy":
            shaped = self.transform_shape(node, src)
            if shaped is None:
                return self._declare_failed_future(future_name)
            extents, perm, pad = shaped
        if isinstance(node.dst, A.StorageRef):
            storage = node.dst.storage
            if self.level == 0 and storage in ("local", "shared"):
                self.error(node.dst.loc, f"a copy into '{storage}' memory must be inside 'parallel'")
                return self._declare_failed_future(future_name)
            if self.level > 0 and storage == "global":
                self.error(node.dst.loc, "a copy into new 'global' data must be outside 'parallel'")
                return self._declare_failed_future(future_name)
            self.dma_counter += 1
            own = None if placeholder is None else \
                self.assign_to_any(placeholder, storage, src.elem, extents, is_async, node.dst.loc)
            if own is False:
                return []
            if own is not None:   # a `dma.any` that has its buffer already
                buf = own
            else:
                base = f"{future_name.name}_buf" if future_name else f"dma{self.dma_counter}_buf"
                buf = self.new_buffer(base, src.elem, storage, extents, node.dst.loc, "dma",
                                      future_name.name if future_name else "")
            dst = VData(ir.Region(buf, [Sym.const(0)] * len(extents), extents), src.elem)
            self.check_readable(dst, node.dst.loc, "written")  # the previous iteration's copy
            if own is None:
                out.append(ir.Alloc(node.dst.loc, buf))
        else:
            dst = self.expr(node.dst)
            if isinstance(dst, VFuture):
                dst = self.future_data(dst.future, node.dst.loc)
            if isinstance(dst, VError):
                return self._declare_failed_future(future_name)
            if not isinstance(dst, VData):
                self.error(node.dst.loc, f"the destination of 'dma.copy' must be spanned data or a storage "
                                         f"class ('local', 'shared', 'global'), not {_kind_name(dst)}")
                return self._declare_failed_future(future_name)
            dst_at = _start_loc(node.dst)
            if dst.elem != src.elem:
                self.error(dst_at, f"'dma.{node.op}' does not convert: source is '{src.elem}' data, "
                                   f"destination is '{dst.elem}' data")
                return self._declare_failed_future(future_name)
            self.check_readable(dst, dst_at, "written")
            before = self.diag.errors
            out += self.shape_match(dst_at, extents, list(dst.region.extents),
                                    "the copied chunk", "the destination")
            if self.diag.errors != before:
                return self._declare_failed_future(future_name)
        fut_ir_name = None
        if placeholder is not None:   # the first copy assigned to a `dma.any`
            fut = placeholder
            if len(self.any_class(fut)) > 1 and dst.region.buffer is not fut.shell:
                self.error(_start_loc(node.dst), f"'{fut.user_name}' was swapped or selected before this copy, "
                                                 "which must therefore go to its own buffer ('=> local' or "
                                                 "'=> shared')")
                return []
            fut.region, fut.elem, fut.is_async, fut.used = dst.region, src.elem, is_async, True
            fut.assigned = True
            fut.loc = future_name.loc
            fut_ir_name = fut.name
            if is_async:
                self.flow.append(P.Issue(fut))
        elif future_name is not None:
            fut_ir_name = self.unique(future_name.name)
            fut = Future(fut_ir_name, future_name.name, dst.region, src.elem, is_async, future_name.loc)
            self.declare(future_name, Symbol(future_name.name, "future", VFuture(fut), future_name.loc, fut_ir_name))
            if is_async:
                self.flow.append(P.Issue(fut))
        elif is_async:
            self.diag.warning(node.loc, "the future of this 'dma.copy.async' is discarded, so it can never be "
                                        "waited; assign it, e.g. 'f = dma.copy.async ...;'")
        dst_region = dst.region
        if packed is not None:   # the destination seen with the source chunk's shape
            chunk = list(src.region.extents)
            whole = dst.region.is_whole and dst.region.view is None and dst.region.strides is None
            dst_region = (ir.Region(dst.region.buffer, [Sym.const(0)] * len(chunk), chunk, list(chunk)) if whole
                          else self.contiguous_view(dst.region, chunk))
            if dst_region is None:
                self.error(_start_loc(node.dst), "a copy that packs non-contiguous data needs a contiguous "
                                                 f"destination, not {_shape_text(dst.region.extents)} of "
                                                 f"{_shape_text(dst.region.shape)}")
                return out
        if src.region.strides is not None or dst_region.strides is not None:
            return out + self.strided_copy(node, src.region, dst_region, is_async)
        out.append(ir.Dma(node.loc, src.region, dst_region, is_async, fut_ir_name, node.op, perm, pad,
                          swizzle=swizzle, engine=getattr(node, "engine", "dma")))
        return out

    def _declare_failed_future(self, name: Optional[A.Name]) -> List[ir.Stmt]:
        if name is not None and self.scope.lookup(name.name) is None:
            self.declare(name, Symbol(name.name, "error", VError(), name.loc))
        return []

    def future_data(self, fut: Future, loc: Loc) -> Value:
        """`f.data`: a read that the dataflow of pending.py checks against f's pending copy
        (for a `select` of futures: against every copy its alias may reach)."""
        if not self.require_bound(fut, loc, "data"):
            return VError()
        self.flow.append(P.Access(fut.region.buffer, loc, via=fut if fut.candidates is None else None))
        return VData(fut.region, fut.elem, fut)

    # -- expressions -----------------------------------------------------------
    def expr(self, e: A.Node) -> Value:
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            return self.error(e.loc, "this construct is not an expression")
        return method(e)

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

    def expr_Name(self, e: A.Name) -> Value:
        sym = self.scope.lookup(e.name)
        if sym is None:
            if e.name in self.co_functions:
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
        outside = [a for a in sym.atoms if a not in self.iterating]
        if not outside:
            v = sym.value
            if isinstance(v, VInt) and self.wide_atoms & set(sym.atoms):   # `y(-1:)`: check its uses
                return VInt(v.sym, v.bound, v.origin, True)
            return v
        key = (e.name, e.loc.line, e.loc.col)
        if key not in self.warned_outside and not self.first_value_ok:
            self.warned_outside.add(key)
            self.diag.warning(e.loc, f"'{e.name}' is used outside a 'foreach' over it; its value is 0 here")
        zero = {a: Sym.const(0) for a in outside}
        v = sym.value
        if isinstance(v, VInt):
            return VInt(v.sym.substitute(zero), v.bound, v.origin)
        return VTuple([it.substitute(zero) for it in v.items], v.bounds, v.origin)

    def expr_UnOp(self, e: A.UnOp) -> Value:
        if e.op == "&":   # the reference parses `&a.at(i)`; an address has no use in tileflow code
            return self.error(e.loc, "the address of a value ('&') is not supported in tileflow code; "
                                     "use the element itself ('a.at(i)')")
        v = self.expr(e.operand)
        if isinstance(v, VError):
            return v
        if self.is_element_operand(v):
            return self.elem_unop(e, v)
        v = _scalar(v)
        if not isinstance(v, (VInt, VBool)):
            return self.error(e.loc, f"invalid operand to unary '{e.op}' (have {_kind_name(v)})")
        if e.op == "-":
            return self.int32(e.loc, f"-({v.sym.to_c()})", VInt(-v.sym))
        if e.op == "+":
            return VInt(v.sym)
        if e.op == "!":
            return VBool(v.sym.op("==", 0))
        return VInt(v.sym.op("~"))

    def expr_BinOp(self, e: A.BinOp) -> Value:
        left = self.expr(e.left)
        with self.guarded(self._short_circuit(e.op, left)):
            right = self.expr(e.right)
        if isinstance(left, VError) or isinstance(right, VError):
            return VError()
        if self.is_element_operand(left, right):
            return self.elem_binop(e, left, right)
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
            self.divisor_check(e.loc, a, b)
        if e.op in ("<<", ">>") and b.is_const and not 0 <= b.value < 32:
            return self.error(e.loc, f"shift count {b.value} is out of range for 'int' (0 to 31)")
        if e.op in _COMPARE or e.op in _LOGICAL:
            return VBool(a.op(e.op, b))
        if e.op == "%" and not fits_int(a.op("/", b)):  # C++: a % b is undefined when a / b is
            return self.error(e.loc, f"integer overflow in constant expression: '{a.to_c()} % {b.to_c()}' "
                                     f"divides {a.to_c()} by {b.to_c()}, whose quotient is outside the "
                                     "range of 'int'")
        value = a + b if e.op == "+" else a - b if e.op == "-" else a * b if e.op == "*" else a.op(e.op, b)
        return self.int32(e.loc, f"{a.to_c()} {e.op} {b.to_c()}",
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
        return self.int32(e.loc, f"#{left.bound.to_c()} * #{right.bound.to_c()}", value)

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
        return self.int32(e.loc, f"#{left.bound.to_c()} {sign.op} {k.sym.to_c()}", value)

    @staticmethod
    def _short_circuit(op: str, left: Value) -> Optional[Sym]:
        """What must hold for the right side of '&&' or '||' to be evaluated."""
        truth = _truth(_scalar(left)) if op in _LOGICAL else None
        if truth is None:
            return None
        return truth if op == "&&" else truth.op("!")

    def int32(self, loc: Loc, text: str, value: VInt) -> Value:
        """Tileflow's int is 32-bit (spec 2, "Scalar Types"): an operation whose operands
        are known and whose result is outside that range is an error at the operation,
        not a value that a target compiler would truncate or reject elsewhere."""
        if fits_int(value.sym):
            return value
        return self.error(loc, f"integer overflow in constant expression: '{text}' is {value.sym.value}, "
                               f"outside the range of 'int' ({INT_MIN} to {INT_MAX})")

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
                self.divisor_check(e.loc, a, b)
            if e.op == "+":
                dims.append(a + b)
            elif e.op == "-":
                dims.append(a - b)
            elif e.op == "*":
                dims.append(a * b)
            else:
                dims.append(a.op(e.op, b))
            if isinstance(self.int32(e.loc, f"{a.to_c()} {e.op} {b.to_c()}", VInt(dims[-1])), VError):
                return VError()
        return VSpan(dims)

    def expr_Ternary(self, e: A.Ternary) -> Value:
        c = _scalar(self.expr(e.cond))
        taken = _truth(c)
        with self.guarded(taken):
            a = _scalar(self.expr(e.then))
        with self.guarded(None if taken is None else taken.op("!")):
            b = _scalar(self.expr(e.other))
        if any(isinstance(v, VError) for v in (c, a, b)):
            return VError()
        if self.is_element_operand(c, a, b):
            return self.elem_ternary(e, c, a, b)
        if not all(isinstance(v, (VInt, VBool)) for v in (c, a, b)):
            return self.error(e.loc, "'?:' works on integers and booleans only")
        result = c.sym.op("?:", a.sym, b.sym)
        return VBool(result) if isinstance(a, VBool) and isinstance(b, VBool) else VInt(result)

    def expr_UpperBound(self, e: A.UpperBound) -> Value:
        if not isinstance(e.operand, A.Name):
            return self.error(e.loc, "'#' needs the name of a bounded integer or ituple")
        sym = self.scope.lookup(e.operand.name)
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
        return self.int32(e.loc, " * ".join(d.to_c() for d in dims), VInt(total))

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
                return self.future_data(base.future, e.loc)
            if e.name == "span":
                if not self.require_bound(base.future, e.loc, "shape"):
                    return VError()
                return VSpan(list(base.future.region.extents))
            if e.name == "at":   # an element is reached through the data: `f.data.at(i)`
                return self.future_at_error(e.base, base)
            if e.name == "chunkat" or e.name in SPAN_METHODS:   # `f.chunkat(...)` is `f.data.chunkat(...)`
                data = self.future_data(base.future, e.loc)
                return data if isinstance(data, VError) else VMethod(data, e.name)
            return self.error(e.loc, f"a future has members 'data', 'span', 'chunkat' and the spanned "
                                     f"operations ({', '.join(SPAN_METHODS)}), not '{e.name}'")
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
                                     f"{', '.join(repr(m) for m in SPAN_METHODS)}, not '{e.name}'")
        if isinstance(base, VArray) and e.name == "span":
            return VSpan(list(base.dims))
        return self.error(e.loc, f"{_kind_name(base)} has no member '{e.name}'")

    def expr_Call(self, e: A.Call) -> Value:
        if isinstance(e.func, A.Name):
            name = e.func.name
            sym = self.scope.lookup(name)
            if sym is None and name == "cdiv":
                return self.builtin_cdiv(e)
            if sym is None and name == "select":
                return self.select(e)
            if sym is None and name in ("__alignup", "__aligndown"):
                return self.builtin_align(e, name)
            if sym is None:
                if name in self.co_functions:
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
            return self.element(e, base.base)   # `x.at(i, j)`: one element (after a tiling: a tile)
        if isinstance(base, VMethod):
            return self.span_method(e, base)
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
                self._pending_checks(self.runtime_check(
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
            what = self._data_name(e)
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
                return self.error(loc, f"dimension {i} of {self._data_name(e)} ({dim.to_c()}) is not divisible "
                                       f"by the bound of '{label}' ({ub.to_c()})")
            if divisible is None:
                divides = dim.op("%", ub).op("==", 0)
                extra = self.runtime_check(loc, divides if ub.is_const else ub.op(">", 0).op("&&", divides),
                                           f"dimension {i} of {self._data_name(e)} ({{0}}) is not divisible "
                                           f"by the bound of '{label}' ({{1}})",
                                           [dim, ub])
                self._pending_checks(extra)
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
        self.prefix.append(ir.Check(_start_loc(arg), inside,
                                    "chunkat index {0} is outside its bound [0, {1})", [idx, ub]))

    def _pending_checks(self, checks: List[ir.Stmt]) -> None:
        """Checks that could not be hoisted run just before the statement that needs them."""
        self.prefix.extend(checks)

    def _data_name(self, e: A.Call) -> str:
        node = e.func.base if isinstance(e.func, A.Member) else e.func
        return f"'{node.name}'" if isinstance(node, A.Name) else "the data"

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
            return self.array_element(e, base)
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


def check_function(fn: A.CoFunction, diag: Diagnostics, co_functions: Set[str]) -> Optional[ir.Function]:
    before = diag.errors
    result = FunctionChecker(fn, diag, co_functions).run()
    return result if diag.errors == before else None
