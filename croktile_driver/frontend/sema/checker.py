"""Stage 4-5: check a ``__co__`` function against the spec's rules and build its IR.

One walk does both, as clang's Sema builds its AST while checking: every construct is
typed, checked and turned into IR in the same place, so the IR can never disagree with
what was checked. Errors are reported with the construct's location and the walk
goes on (values that failed become ``VError``, which silences follow-on errors).

This module holds the function itself (its parameters, its return type, what is
checked once its body is complete) and makes the checkers of its body: the shared
state (context.py), the expression checker (expressions.py) and the statement checker
(statements.py), each of which makes the form checkers it sends constructs to.
"""
from __future__ import annotations

from typing import List, Optional, Set

from .. import ast as A
from ... import ir
from ...analysis.block_shared import place_block_shared
from ...analysis.bounds import bound_local_buffers
from ...analysis.fills import plan_fills
from ...diagnostics import Diagnostics
from ...ir.symbolic import Sym
from . import pending as P
from .context import CheckContext
from .expressions import ExpressionChecker
from .scalars import PARAM_CTYPES, scalar_type, why_not_scalar
from .statements import StatementChecker
from .values import Symbol, VBool, VData, VError, VFloat, VInt, VSpan
from .values import kind_name as _kind_name, scalar as _scalar

MAX_RANK = 64  # far beyond any real tensor; keeps `mdspan<1000000000>` from running for ages


class FunctionChecker:
    """Checks one ``__co__`` function and lowers it to an ``ir.Function``."""

    def __init__(self, fn: A.CoFunction, diag: Diagnostics, co_functions: Set[str]):
        self.ctx = CheckContext(fn, diag, co_functions)
        self.error = self.ctx.error
        self.exprs = ExpressionChecker(self.ctx)
        self.stmts = StatementChecker(self.ctx, self.exprs)
        # the form checkers whose results are completed once the body is checked
        self.elements = self.exprs.elements
        self.dma = self.exprs.dma
        self.events = self.stmts.events
        self.mma = self.stmts.mma
        self.stream_params: List[ir.Param] = []   # (at most one)

    def run(self) -> Optional[ir.Function]:
        fn = self.ctx.fn
        self.ctx.reject_reserved(fn.name, function=True)
        self.ctx.made_up_names |= fn.made_up_names   # (frontend/pipelined_loops.py)
        params: List[ir.Param] = []
        bindings: List[ir.DimBinding] = []
        entry: List[ir.Stmt] = []
        for p in fn.params:
            params.append(self.param(p, bindings, entry))
        ret_kind, ret_elem, ret_shape = self.return_type(fn.ret)
        entry += self.ctx.prefix   # checks of the return type's divisions
        self.ctx.prefix = []
        self.ctx.ret = (ret_kind, ret_elem, ret_shape, fn.ret)
        body = self.elements.launch_host_elements(self.stmts.block_stmts(fn.body.stmts))
        self.dma.finish_placeholders(self.dma.ir_waits, body)
        if ret_kind not in ("void", "error", "auto") and not self.ctx.returned:
            self.error(fn.body.loc if not fn.body.stmts else fn.name.loc,
                       f"no 'return' statement in __co__ function '{fn.name.name}' returning a value")
        P.analyse(self.ctx.flow, self.ctx.diag, fn.name.loc)
        self.events.check_event_waits(entry + body)
        if ret_kind == "auto":
            ret_kind, ret_elem, ret_shape = self.ctx.auto_ret
        elif ret_kind == "data" and ret_shape is None:
            ret_shape = self.ctx.ret[2]  # rank-only (`s32 mdspan<2>`): the shape the return found
        irfn = ir.Function(fn.name.name, fn.loc, params, ret_kind, ret_elem, ret_shape, bindings,
                           entry + body, self.ctx.buffers, self.ctx.max_level)
        irfn.unsupported = self.ctx.unsupported[:1]
        irfn.frags = self.mma.frags
        self.mma.check_frags(irfn.body)
        place_block_shared(irfn, self.ctx.diag)
        plan_fills(irfn, self.ctx.diag, self.ctx.diag.enabled("implicit-fill"))
        bound_local_buffers(irfn)
        ir.number_and_live_ranges(irfn)
        return irfn

    def param(self, p: A.Param, bindings: List[ir.DimBinding], entry: List[ir.Stmt]) -> ir.Param:
        ty, name = p.type, p.name
        if not name.name:   # `int` with no name (a prototype-style parameter): not usable, still passed
            name = A.Name(name.loc, self.ctx.unique(f"__anon{len(bindings)}_{p.loc.line}_{p.loc.col}"))
            self.ctx.used_names.discard(name.name)
            self.ctx.made_up_names.add(name.name)
        self.ctx.unique(name.name)
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
                self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc, name.name))
                return ir.Param(name.name, "int", p.loc)
            if spec[0] == "int":
                ty = A.TypeSpec(ty.loc, "int", "int")
        if ty.kind in ("int", "bool"):
            sym = Sym.var(name.name)
            value = VInt(sym) if ty.kind == "int" else VBool(sym)
            self.ctx.declare(name, Symbol(name.name, ty.kind, value, name.loc, name.name))
            self.ctx.host_vars.add(name.name)
            return ir.Param(name.name, ty.kind, p.loc)
        if ty.kind in ("elem", "float"):
            compute, elem = scalar_type(ty.name)
            self.ctx.float_params[name.name] = elem
            self.ctx.declare(name, Symbol(name.name, "float", VFloat(name.name), name.loc, name.name))
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
                self.ctx.host_vars.add(var)
                self.ctx.shape_vars[var] = (name.name, i)
                dims.append(Sym.var(var))
        else:
            dims = []
            for i, item in enumerate(ty.shape.items):
                var = f"{name.name}__dim{i}"
                bindings.append(ir.DimBinding(var, name.name, i))
                self.ctx.host_vars.add(var)
                self.ctx.shape_vars[var] = (name.name, i)
                actual_dim = Sym.var(var)
                actual.append(actual_dim)
                if isinstance(item, A.AnyDim):   # `?`: whatever the argument has
                    dims.append(actual_dim)
                    continue
                if isinstance(item, A.Name) and self.ctx.scope.lookup(item.name) is None:
                    # a new symbolic dimension: bound by this parameter's shape
                    self.ctx.unique(item.name)
                    self.ctx.declare(item, Symbol(item.name, "int", VInt(Sym.var(item.name)), item.loc, item.name))
                    bindings.append(ir.DimBinding(item.name, name.name, i))
                    self.ctx.host_vars.add(item.name)
                    self.ctx.shape_vars[item.name] = (name.name, i)
                    dims.append(Sym.var(item.name))
                    continue
                value = _scalar(self.exprs.expr(item))
                entry += self.ctx.prefix   # its divisions are checked before the shape is
                self.ctx.prefix = []
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
        self.ctx.buffers.append(buf)
        region = ir.Region(buf, [Sym.const(0)] * len(dims), list(dims))
        self.ctx.declare(name, Symbol(name.name, "data", VData(region, ty.name), name.loc, name.name))
        return ir.Param(name.name, "data", p.loc, elem=ty.name, rank=len(dims), buffer=buf,
                        device=p.storage == "global")

    def stream_param(self, p: A.Param, name: A.Name) -> ir.Param:
        """`stream s`: the host form runs its work on the caller's stream (README, "Host
        code and element types"); tileflow code cannot use the name."""
        if any(q.kind == "stream" for q in self.stream_params):
            self.error(p.loc, "a __co__ function takes at most one 'stream' parameter")
        param = ir.Param(name.name, "stream", p.loc)
        self.stream_params.append(param)
        self.ctx.declare(name, Symbol(name.name, "stream", VError(), name.loc, name.name))
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
        dims = self.stmts.shape_dims(ty.shape, "the return type")
        return ("data", ty.name, dims) if dims is not None else ("error", None, None)


def check_function(fn: A.CoFunction, diag: Diagnostics, co_functions: Set[str]) -> Optional[ir.Function]:
    before = diag.errors
    result = FunctionChecker(fn, diag, co_functions).run()
    return result if diag.errors == before else None
