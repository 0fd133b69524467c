"""Checking and lowering of the reference compiler's spanned-data language (issue #13):
arrays of buffers and filled declarations (`local s32 [8] t{-1}, u[2];`), and the
spanned operations that select a box of data: `.chunk(f).at(i)`, `.subspan(s).at(i)`,
`.view(s).from(o)` and `.span_as(shape)` (a reshape of contiguous data).

Every operation gives an ``ir.Region``: a box of a buffer, seen through a row-major
``view`` shape where `span_as` reshaped it, so the code generators copy and address it
as they do any chunk. The expression checker makes a ``SpannedData`` and sends it these
forms; it gets the expression checker's ``expr`` for their operands.
"""
from __future__ import annotations

from typing import List, Optional

from .. import ast as A
from ... import ir
from ...ir.symbolic import Sym, prove_divisible, prove_equal
from .context import CheckContext, ExprCheck
from .values import (
    Symbol,
    VArray,
    VData,
    VPacked,
    VError,
    VFloat,
    VInt,
    VMethod,
    VSpan,
    VTuple,
    VWild,
    Value,
    Tile,
    scalar,
)

# members of spanned data that take an argument list and give data
SPAN_METHODS = ("chunk", "subspan", "modspan", "view", "at", "from", "span_as", "step", "stride")


def _product(dims: List[Sym]) -> Sym:
    total = Sym.const(1)
    for d in dims:
        total = total * d
    return total


def _shape(dims: List[Sym]) -> str:
    return "[" + ", ".join(d.to_c() for d in dims) + "]"



def box_ends(region: ir.Region) -> List[Sym]:
    """Where a box ends in each dimension (exclusive): the data a tile of it lies in."""
    return [o + d for o, d in zip(region.offsets, region.extents)]

class SpannedData:
    """Declarations of data and the spanned operations."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr   # the expression checker's

    # -- declarations ----------------------------------------------------------
    def declare_data(self, d: A.Declarator, elem: str, storage: str, dims: List[Sym]) -> List[ir.Stmt]:
        """One declarator: a buffer (filled when it has an initialiser) or an array of them."""
        counts = []
        for n in d.array:
            v = self.expr(n)
            if isinstance(v, VError):
                return []
            if not isinstance(v, VInt) or not v.sym.is_const or v.sym.value <= 0:
                self.error(n.loc, f"the length of the array '{d.name}' must be a positive integer constant")
                return []
            counts.append(v.sym.value)
        fill = self.fill_value(d, elem) if d.init is not None else None
        if d.init is not None and fill is None:
            return []
        out: List[ir.Stmt] = []

        def make(suffix: str, left: List[int]) -> Value:
            if not left:
                buf = self.ctx.new_buffer(d.name + suffix, elem, storage, dims, d.loc, "decl", d.name + suffix)
                out.append(ir.Alloc(d.loc, buf))
                if fill is not None:
                    out.append(ir.Fill(d.loc, buf, fill))
                return VData(ir.Region(buf, [Sym.const(0)] * len(dims), list(dims)), elem)
            return VArray([make(f"{suffix}_{i}", left[1:]) for i in range(left[0])], elem, list(dims))

        value = make("", counts)
        ir_name = value.region.buffer.name if isinstance(value, VData) else ""
        self.ctx.declare(d.ident, Symbol(d.name, "data", value, d.loc, ir_name))
        return out

    def fill_value(self, d: A.Declarator, elem: str):
        """`x{v}`: every element starts as v, an integer constant or a floating literal."""
        node, sign = d.init, 1
        while isinstance(node, A.UnOp) and node.op in ("-", "+") and isinstance(node.operand, A.FloatLit):
            sign, node = (-sign if node.op == "-" else sign), node.operand
        if isinstance(node, A.FloatLit):
            text = node.text.rstrip("fFlL")
            try:
                return sign * (float.fromhex(text) if text.lower().startswith(("0x", "-0x")) else float(text))
            except ValueError:
                self.error(node.loc, f"cannot read the floating constant '{node.text}'")
                return None
        v = self.expr(d.init)
        if isinstance(v, VError):
            return None
        if isinstance(v, VTuple) and len(v.items) == 1 and v.bounds is None:
            v = VInt(v.items[0])
        if isinstance(v, VInt) and v.sym.is_const:
            return v.sym.value
        if isinstance(v, (VInt, VFloat)):
            self.error(d.init.loc, f"the initial value of '{d.name}' must be a constant (an integer or a "
                                   "floating literal); a value known only at run time is not supported yet")
            return None
        kind = getattr(v, "kind", "this value")
        self.error(d.init.loc, f"'{d.name}' is spanned data: its initial value must be a scalar, "
                               f"which every element takes, not {kind}")
        return None

    def array_element(self, e: A.SpanDerive, base: VArray) -> Value:
        """`x[1]` of an array of buffers: a constant index picks one buffer."""
        value: Value = base
        for item in e.items:
            if not isinstance(value, VArray):
                return self.error(item.loc, "too many indices for this array of buffers")
            v = self.expr(item)
            if isinstance(v, VError):
                return v
            if not isinstance(v, VInt) or not v.sym.is_const:
                return self.error(item.loc, "an element of an array of buffers is selected by an integer "
                                            "constant (an index known only at run time is not supported yet)")
            i = v.sym.value
            if not 0 <= i < len(value.items):
                return self.error(item.loc, f"index {i} is out of range for an array of {len(value.items)} buffers")
            value = value.items[i]
        return value

    def builtin_align(self, e: A.Call, name: str) -> Value:
        """`__alignup(x, n)` / `__aligndown(x, n)`: x rounded up / down to a multiple of n > 0."""
        if len(e.args) != 2:
            return self.error(e.loc, f"'{name}' takes two integers, not {len(e.args)} argument"
                                     f"{'s' if len(e.args) != 1 else ''}")
        vals = []
        for node in e.args:
            v = self.expr(node)
            v = scalar(v)   # a one-element ituple is its integer
            if isinstance(v, VError):
                return v
            if not isinstance(v, VInt):
                return self.error(node.loc, f"'{name}' takes integers, not {getattr(v, 'kind', 'this')}")
            vals.append(v.sym)
        x, n = vals
        if n.is_const and n.value <= 0:
            return self.error(e.args[1].loc, f"'{name}' needs a positive alignment, not {n.value}")
        if not n.is_const:
            self.ctx.pending_checks(self.ctx.runtime_check(e.args[1].loc, n.op(">", 0),
                                                           f"'{name}' needs a positive alignment, not {{0}}", [n]))
        if name == "__alignup":
            x = x + n - Sym.const(1)
        return self.ctx.int32(e.loc, f"{name}({vals[0].to_c()}, {n.to_c()})", VInt(x.op("/", n) * n))

    # -- spanned operations ----------------------------------------------------
    def tile_step(self, e: A.Call, base: VData) -> Value:
        """`x.subspan(a, b).step(sa, sb).at(i, j)`: tile (i, j) starts at (i * sa, j * sb)."""
        tile = base.tile
        if tile is None:
            return self.error(e.func.loc, "'.step(...)' follows '.subspan(...)' or '.chunk(...)'")
        vals = self._int_list(e.args, "steps", wild=False)
        if vals is None:
            return VError()
        if len(vals) != len(tile.extents):
            return self.error(e.loc, f"data rank ({len(tile.extents)}) must be consistent with the count of steps "
                                     f"({len(vals)})")
        for i, v in enumerate(vals):
            if v.is_const and v.value <= 0:
                return self.error(e.args[i].loc, f"step {i} must be positive, not {v.value}")
        stepped = Tile(tile.region, tile.extents, tile.kind, vals)
        return VData(base.region, base.elem, base.future, tile=stepped)

    def span_method(self, e: A.Call, m: VMethod) -> Value:
        base, name = m.base, m.name
        if name == "stride":
            return self.error(e.func.loc, f"'.{name}(...)' is not supported yet")
        if name == "step":
            return self.tile_step(e, base)
        if e.strides is not None and name != "view":
            return self.error(e.strides[0].loc, f"'.{name}(...)' takes no strides (only '.view(shape : strides)')")
        if name == "span_as":
            return self.span_as(e, base)
        if name in ("at", "from"):
            return self.tile_at(e, base, name)
        return self.tiling(e, base, name)

    def _int_list(self, args: List[A.Node], what: str, wild: bool = False,
                  bounds: Optional[list] = None) -> Optional[List[Optional[Sym]]]:
        """Integers, ituples and mdspans flattened; `_` (None) where allowed. ``bounds`` gets
        each item's upper bound where it is a bounded variable (else None)."""
        out: List[Optional[Sym]] = []
        bounds = [] if bounds is None else bounds
        for a in args:
            if isinstance(a, A.SpanLit):   # `.view([b, 3])`: the list's items, ituples included
                inner = self._int_list(a.items, what, wild, bounds)
                if inner is None:
                    return None
                out.extend(inner)
                continue
            v = self.expr(a)
            if isinstance(v, VError):
                return None
            if isinstance(v, VWild) and wild:
                out.append(None)
            elif isinstance(v, VInt):
                out.append(v.sym)
                bounds.append((v.limit if v.limit is not None else v.bound) if not v.derived else None)
            elif isinstance(v, VTuple):
                out.extend(v.items)
                bounds.extend(v.bounds or [None] * len(v.items))
            elif isinstance(v, VSpan):
                out.extend(v.dims)
            else:
                self.error(a.loc, f"{what} are integers, ituples or mdspans, not {getattr(v, 'kind', 'this')}")
                return None
        return out

    def tiling(self, e: A.Call, base: VData, name: str) -> Value:
        """`.chunk(f)` (f chunks per dimension), `.subspan(s)` and `.view(s)` (tiles of shape s)."""
        region = base.region
        rank = len(region.extents)
        what = {"chunk": "tiling factors", "subspan": "subspan dimensions", "modspan": "modspan dimensions",
                "view": "view dimensions"}[name]
        if e.strides is not None:
            return self.strided_view(e, base)
        vals = self._int_list(e.args, what, wild=name in ("subspan", "modspan", "view"))
        if vals is None:
            return VError()
        if len(vals) != rank:
            return self.error(e.loc, f"data rank ({rank}) must be consistent with the count of {what} "
                                     f"({len(vals)})")
        extents, steps = [], []
        larger = False
        for i, (v, dim) in enumerate(zip(vals, region.extents)):
            if v is None:
                extents.append(dim)
                steps.append(dim)
                continue
            steps.append(v if name != "chunk" else None)
            if v.is_const and v.value <= 0:
                return self.error(e.args[min(i, len(e.args) - 1)].loc,
                                  f"{what[:-1]} {i} must be positive, not {v.value}")
            if name == "chunk":
                if v.is_const and dim.is_const and v.value > dim.value:
                    return self.error(e.loc, f"tiling factor exceeds data size ({v.value} > {dim.value}) "
                                             f"in dimension {i}")
                extents.append(self.divided(e, dim, v, i))
                steps[-1] = extents[-1]
            else:
                too_large = v.op(">", dim)
                if too_large.is_const and too_large.value:   # (the reference's rule, for known sizes)
                    return self.error(e.loc, f"{name} too large for dimension {i} ({v.to_c()} > {dim.to_c()})")
                if not too_large.is_const:
                    if name == "modspan":
                        self.ctx.pending_checks(self.ctx.runtime_check(
                            e.loc, v.op("<=", dim), f"{name} dimension {i} ({{0}}) exceeds the data's ({{1}})",
                            [v, dim]))
                    else:   # a tile that may be larger than data known at run time: partial
                        larger = True
                extents.append(dim.mod(v) if name == "modspan" else v)
        tile = Tile(region, extents, name, steps)
        offsets = list(region.offsets)
        if name == "modspan":   # the remainder after the whole tiles: the last, partial tile
            offsets = [o if v is None else o + dim.floordiv(v) * v for o, v, dim in zip(offsets, vals, region.extents)]
        out = region.moved(offsets, extents)
        if larger and not region.partial:
            out.limits = box_ends(region)
        return VData(out, base.elem, base.future, tile=tile)

    def divided(self, e: A.Call, dim: Sym, factor: Sym, i: int) -> Sym:
        divisible = prove_divisible(dim, factor)
        if divisible is False:
            self.error(e.loc, f"dimension {i} of the data ({dim.to_c()}) is not divisible by the tiling factor "
                              f"({factor.to_c()})")
        elif divisible is None:
            self.ctx.pending_checks(self.ctx.runtime_check(
                e.loc, factor.op(">", 0).op("&&", dim.op("%", factor).op("==", 0)),
                f"dimension {i} of the data ({{0}}) is not divisible by the tiling factor ({{1}})", [dim, factor]))
        return dim.floordiv(factor)

    def tile_at(self, e: A.Call, base: VData, name: str) -> Value:
        """`.at(i, j)`: the tile at tile index (i, j); `.from(r, c)`: a view at element (r, c)."""
        tile = base.tile
        want = "view" if name == "from" else None
        if tile is None or (want == "view") != (tile.kind == "view"):
            before = "'.view(...)'" if name == "from" else "'.chunk(...)' or '.subspan(...)'"
            return self.error(e.func.loc, f"'.{name}(...)' must follow {before}")
        bounds: list = []
        vals = self._int_list(e.args, "indices", bounds=bounds)
        if vals is None:
            return VError()
        bounds += [None] * (len(vals) - len(bounds))
        rank = len(tile.extents)
        if len(vals) != rank:
            return self.error(e.loc, f"data rank ({rank}) must be consistent with index count ({len(vals)})")
        if tile.region.strides is not None:
            return self.strided_from(e, base, vals)
        offsets = []
        parent = tile.region
        partial = parent.partial
        steps = tile.steps or tile.extents
        for i, (v, ub, ext, step, dim, off) in enumerate(zip(vals, bounds, tile.extents, steps, tile.region.extents,
                                                              tile.region.offsets)):
            start = v if name == "from" else v * step
            end = start + ext
            fits = v.op(">=", 0).op("&&", end.op("<=", dim))       # the whole tile lies in the data
            begins = v.op(">=", 0).op("&&", start.op("<", dim))    # its first element does: a partial tile
            shown = v
            if ub is not None and not fits.is_const:   # a bounded index: its largest value decides
                last = ub - 1 if name == "from" else (ub - 1) * step
                by_bound, starts_by_bound = (last + ext).op("<=", dim), last.op("<", dim)
                if name != "from" and ub == (dim + step - Sym.const(1)).op("/", step):
                    # the last of cdiv(dim, step) tiles starts inside (there is one when dim > 0)
                    starts_by_bound = Sym.const(1)
                if starts_by_bound.is_const and not starts_by_bound.value:
                    # some tiles lie past the data (the reference accepts this): checked at run time
                    self.ctx.diag.warning(e.args[min(i, len(e.args) - 1)].loc,
                                          f"index may be out of bounds for dimension {i}: at its largest value "
                                          f"{(ub - 1).to_c()} the tile is elements [{last.to_c()}, "
                                          f"{(last + ext).to_c()}) of {dim.to_c()}")
                else:
                    shown, fits, begins = ub - 1, by_bound, starts_by_bound
            if fits.is_const and fits.value:
                offsets.append(off + start)
                continue
            whole_dim = ext == dim   # ('_'): it cannot move along its dimension
            partial_here = not whole_dim and not (begins.is_const and not begins.value)
            if fits.is_const and not partial_here:
                # no element of the tile in the data, or a whole dimension moved along it
                where = e.args[min(i, len(e.args) - 1)].loc
                what = f"index out of bounds for dimension {i}: elements [{start.to_c()}, {end.to_c()}) of {dim.to_c()}"
                if not self._wraps_inside(tile, vals, name):
                    return self.error(where, what)
                # the reference computes the address row-major and copies what is there
                self.ctx.diag.warning(where, f"{what}; the tile runs on into the following elements of the data")
            else:
                # a tile that may cross the end of the data is partial: its elements past the
                # end read as zeros and are not written, and only its first element must be inside
                partial = partial or partial_here
                inside = begins if partial_here else fits
                if not inside.is_const:
                    self.ctx.pending_checks(self.ctx.runtime_check(
                        e.loc, inside, f"'.{name}' index {{0}} of dimension {i} is outside the data ({{1}} elements)",
                        [shown, dim]))
            offsets.append(off + start)
        region = parent.moved(offsets, list(tile.extents))
        if partial:   # the data a tile may cross the end of: what it is a tile of
            region.limits = list(parent.limits) if parent.partial else box_ends(parent)
        return VData(region, base.elem, base.future)

    @staticmethod
    def _wraps_inside(tile: Tile, vals: List[Sym], name: str) -> bool:
        """A tile out of a dimension's bounds whose elements, addressed row-major as the
        reference does, provably stay inside the buffer."""
        region = tile.region
        if region.view is not None or region.strides is not None or any(v is None for v in vals):
            return False
        steps = tile.steps or tile.extents
        offsets = [o + (v if name == "from" else v * s) for o, v, s in zip(region.offsets, vals, steps)]
        box = region.moved(offsets, list(tile.extents))
        first, last, stride = box.flat_start(), box.flat_start(), Sym.const(1)
        for ext, d in zip(reversed(box.extents), reversed(box.shape)):
            last = last + (ext - 1) * stride
            stride = stride * d
        inside = first.op(">=", 0).op("&&", last.op("<", _product(region.buffer.shape)))
        return inside.is_const and bool(inside.value)

    def span_as(self, e: A.Call, base: VData) -> Value:
        """`.span_as(shape)`: the same elements in row-major order, seen with another shape."""
        if len(e.args) == 1:
            v = self.expr(e.args[0])
            if isinstance(v, VError):
                return v
            dims = v.dims if isinstance(v, VSpan) else self._int_list(e.args, "the new dimensions")
        else:
            dims = self._int_list(e.args, "the new dimensions")
        if dims is None:
            return VError()
        region = base.region
        have, want = _product(region.extents), _product(dims)
        same = prove_equal(have, want)
        if same is False:
            return self.error(e.loc, f"span_as cannot reshape {_shape(region.extents)} ({have.to_c()} elements) "
                                     f"to {_shape(dims)} ({want.to_c()} elements)")
        if same is None:
            self.ctx.pending_checks(self.ctx.runtime_check(
                e.loc, have.op("==", want), "span_as: the data has {0} elements, the new shape {1}", [have, want]))
        view = self.contiguous_view(region, dims)
        if view is None and region.strides is None and region.view is None:
            # the reference warns and goes on; here the elements are packed by the copy
            self.ctx.diag.warning(e.loc, f"'span_as' of non-contiguous data ({_shape(region.extents)} of "
                                     f"{_shape(region.shape)}): only a 'dma.copy' may read it, and the copy "
                                     f"packs its elements row-major into the new shape")
            return VPacked(base, list(dims))
        if view is None:
            return self.error(e.loc, f"span_as of non-contiguous data ({_shape(region.extents)} of "
                                     f"{_shape(region.shape)}) is not supported yet")
        return VData(view, base.elem, base.future)

    @staticmethod
    def contiguous_view(region: ir.Region, dims: List[Sym]) -> Optional[ir.Region]:
        """The region's elements as a box of shape ``dims`` in a row-major view of its
        buffer, where they are contiguous: the view's first dimension counts blocks of the
        new shape's trailing dimensions."""
        if region.strides is not None:
            return None
        shape, ext, off = region.shape, region.extents, region.offsets
        k = 0   # leading dimensions of extent 1, then one partial dimension, then whole ones
        while k < len(ext) - 1 and ext[k] == Sym.const(1):
            k += 1
        for d in range(k + 1, len(ext)):
            if ext[d] != shape[d] or not (off[d].is_const and off[d].value == 0):
                return None
        inner = _product(dims[1:])
        start = Sym.const(0)
        stride = Sym.const(1)
        for o, s in zip(reversed(off), reversed(shape)):
            start = start + o * stride
            stride = stride * s
        first = start.exact_div(inner)
        rows = _product(shape).exact_div(inner)
        if first is None or rows is None:
            return None
        return ir.Region(region.buffer, [first] + [Sym.const(0)] * (len(dims) - 1), list(dims), [rows] + list(dims[1:]))

    # -- strided views -----------------------------------------------------------
    def strided_view(self, e: A.Call, base: VData) -> Value:
        """`.view(s : t)`: elements (i) at the data's first element plus sum(i_d * t_d)."""
        shape = self._int_list(e.args, "view dimensions")
        strides = self._int_list(e.strides, "view strides")
        if shape is None or strides is None:
            return VError()
        if len(shape) != len(strides):
            return self.error(e.strides[0].loc, f"a view of {len(shape)} dimensions needs {len(shape)} strides, "
                                                f"not {len(strides)}")
        for i, d in enumerate(shape):
            if d.is_const and d.value <= 0:
                return self.error(e.args[0].loc, f"view dimension {i} must be positive, not {d.value}")
        for i, t in enumerate(strides):
            if t.is_const and t.value < 0:
                return self.error(e.strides[0].loc, f"view stride {i} must not be negative, not {t.value}")
        region = ir.Region(base.region.buffer, [Sym.const(0)] * len(shape), list(shape), None, list(strides),
                           base.region.flat_start())
        return VData(region, base.elem, base.future, tile=Tile(region, list(shape), "view"))

    def strided_from(self, e: A.Call, base: VData, vals: List[Sym]) -> Value:
        """`.from(o)` of a strided view: its first element at o in the view's strides; every
        element must lie in the buffer."""
        region = base.tile.region.moved(list(vals), list(base.tile.extents))
        first = region.flat_start()
        last = first
        for ext, s in zip(region.extents, region.strides):
            last = last + (ext - 1) * s
        size = _product(region.buffer.shape)
        inside = first.op(">=", 0).op("&&", last.op("<", size))
        if inside.is_const and not inside.value:
            return self.error(e.loc, f"the view reaches element {last.to_c()} of data with {size.to_c()} elements")
        if not inside.is_const:
            self.ctx.pending_checks(self.ctx.runtime_check(
                e.loc, inside, "the view reaches element {0} of data with {1} elements", [last, size]))
        return VData(region, base.elem, base.future)

    def strided_copy(self, node: A.DmaCopy, src: ir.Region, dst: ir.Region, is_async: bool) -> List[ir.Stmt]:
        """A copy from or to a strided view: a loop nest of box copies, one per run of the
        last dimension (one per element where a strided last dimension is not contiguous)."""
        if node.op != "copy" or is_async:
            what = "'dma.copy.async'" if is_async else f"'dma.{node.op}'"
            self.error(node.loc, f"{what} of a strided view is not supported yet (use a synchronous 'dma.copy')")
            return []
        ext = src.extents
        rank = len(ext)
        unit = all(r.strides is None or r.strides[-1] == Sym.const(1) for r in (src, dst))
        looped = rank - 1 if unit else rank
        names = [self.ctx.unique("croktile_v") for _ in range(looped)]
        idx = [Sym.var(n) for n in names] + [Sym.const(0)] * (rank - looped)
        run = ext[-1] if unit else Sym.const(1)
        ones = [Sym.const(1)] * (rank - 1)

        def piece(r: ir.Region) -> ir.Region:
            offsets = [o + i for o, i in zip(r.offsets, idx)]
            if r.strides is None:
                return r.moved(offsets, [Sym.const(1)] * looped + list(r.extents[looped:]))
            flat = r.moved(offsets, ext).flat_start()
            size = _product(r.buffer.shape)
            return ir.Region(r.buffer, [Sym.const(0)] * (rank - 1) + [flat], ones + [run], ones + [size])

        body: List[ir.Stmt] = [ir.Dma(node.loc, piece(src), piece(dst), False, None)]
        for d in reversed(range(looped)):
            body = [ir.Loop(node.loc, names[d], ext[d], body)]
        return body
