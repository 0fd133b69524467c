"""Checking and lowering of the tensor-core operations (the reference's `mma.*`).

`mma.fill`, `mma.load` and `frag` declarations make fragments; `mma.row.col` (and
`.row.row`, `.col.*`, the sparse `.sp` forms) multiplies them, `mma.store` writes one
out. A fragment's role (A, B, accumulator), tile shape and the instruction that
computes it are learnt from the `mma` that uses it (ir.Frag is filled in then), so
`ma = mma.load x.chunkat(i, k)` may come before the multiply that tells it is an
M x K operand. The instruction table is mma_forms.py.

Row operations on accumulators (the softmax of attention; ``FragmentRows``): an
accumulator's rows are held by the threads that hold them; these statements work on
them in registers: a *row vector* (one f32 per row of an accumulator, made by
`mma.row.fill` or `mma.row.max`/`.sum` of a fragment) keeps a per-row value such as the
running maximum, and

    m = mma.row.fill.f32 v;      mma.row.fill m, v;     every row's value v (a value or a row vector)
    m = mma.row.max s;           mma.row.max m, x;      m = max(m, each row's maximum of x)
    l = mma.row.sum s;           mma.row.sum l, x;      l += each row's sum of x
    mma.row.scale x, f;          mma.row.div x, f;      each row of x times (divided by) its f
    mma.exp x, m, scale;                                x = exp(scale * (x - m)) per row
    mma.mask.causal s, row0, col0;                      element (i, j) = -inf where col0 + j > row0 + i
    pa = mma.cvt.f16 s;          mma.cvt pa, s;         s as an A operand of f16 (bf16) in registers

where x is an accumulator or a row vector and f, m a row vector or a value. A row
vector learns its rows (and its layout: a warp's or a warp group's) from the
accumulators it meets, as a fragment learns its tile from its multiply; check_rows
runs after the function.

The statement checker makes one ``MmaForms`` and sends it these statements; it makes
the ``FragmentRows`` that checks the row operations, which share its fragments.
"""
from __future__ import annotations

from typing import List, Optional, Set

from .. import ast as A
from ... import ir
from ...ir.mma_forms import (
    choose_shape,
    default_accumulator,
    describe_types,
    has_forms,
    warp_tile_ok,
    wgmma_shape,
)
from ...ir.dataclass import dataclass
from .context import CheckContext, ExprCheck
from .dma import DmaForms
from .elements import ElementChecks
from .values import Symbol, VData, VError, VFuture, VInt, Value, scalar

_LAYOUTS = {("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")}
_FILL_TYPES = ("f16", "bf16", "f32", "f64", "s32", "u32")
_SWIZZLES = (0, 32, 64, 128)
_FRAG_UPDATES = ("+=", "-=", "*=", "/=")
_ROW_OPS = ("fill", "max", "sum", "scale", "div")
_CVT_TYPES = ("f16", "bf16")
FORMS = ("'mma.row.fill', 'mma.row.max', 'mma.row.sum', 'mma.row.scale', 'mma.row.div', 'mma.exp', "
         "'mma.mask.causal', 'mma.cvt'")


@dataclass
class VFrag(Value):
    ref: ir.FragRef
    kind = "a fragment"


class MmaForms:
    """Fragments: their declarations, `mma.fill`, `mma.load`, the multiply and `mma.store`."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, elements: ElementChecks, dma: DmaForms):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr              # the expression checker's
        self.elements = elements      # values as element expressions (fills, updates)
        self.dma = dma                # `f.data` of a future loaded
        self.frags: List[ir.Frag] = []          # every fragment and row vector of the function
        self.frags_in_errors: Set[str] = set()  # fragments of a rejected mma statement
        self.rows = FragmentRows(ctx, expr, elements, self)

    # -- making fragments ---------------------------------------------------------
    def stmt_FragDecl(self, s: A.FragDecl) -> List[ir.Stmt]:
        """`frag.s32 mc[1][2] {0};`"""
        if self.ctx.level == 0:
            self.error(s.loc, "fragments belong to 'parallel' levels: declare them inside 'parallel'")
            return []
        elem = self._fill_type(s.elem, s.loc)
        dims = []
        for d in s.dims:
            v = scalar(self.expr(d))
            if not (isinstance(v, VInt) and v.sym.is_const and v.sym.value > 0):
                self.error(d.loc, "the dimensions of a fragment array must be positive constants")
                return []
            dims.append(v.sym.value)
        frag = self.new_frag(s.name, elem)
        frag.dims = dims
        value = self.frag_value(s.value)
        return [] if value is None else [ir.MmaFill(s.loc, ir.FragRef(frag), value, declare=True)]

    def mma_assign(self, name: A.Name, node: A.MmaOp) -> List[ir.Stmt]:
        """`x = mma.fill[.T] v;` and `x = mma.load[.swiz<N>] chunk;`"""
        op = node.words[0] if node.words else ""
        if self.ctx.level == 0:
            self.error(node.loc, f"'mma.{op}' must be inside 'parallel'")
            return []
        existing = self.ctx.scope.lookup(name.name)
        reuse = existing.value.ref if existing is not None and existing.kind == "fragment" else None
        if op == "fill":
            if len(node.words) > 2:
                self.error(node.word_locs[2], f"unknown 'mma.fill' modifier '.{node.words[2]}'")
                return []
            elem = self._fill_type(node.words[1] if len(node.words) == 2 else None, node.loc)
            value = self.frag_value(node.args[0])
            if value is None:
                return []
            if reuse is not None:
                return [ir.MmaFill(node.loc, reuse, value)]
            return [ir.MmaFill(node.loc, ir.FragRef(self.new_frag(name, elem)), value, declare=True)]
        if op == "load":
            return self._load(name, node, reuse)
        if self.rows.is_row_op(node.words):
            return self.rows.row_assign(name, node)
        self.error(node.word_locs[0] if node.word_locs else node.loc,
                   f"'mma.{op}' makes no fragment; a fragment is made by 'mma.fill' or 'mma.load'")
        return []

    def _load(self, name: A.Name, node: A.MmaOp, reuse: Optional[ir.FragRef]) -> List[ir.Stmt]:
        swizzle = 0
        for word, loc in zip(node.words[1:], node.word_locs[1:]):
            if word == "swiz":
                swizzle = node.config if node.config is not None else 128
                if swizzle not in _SWIZZLES:
                    self.error(loc, f"the swizzle of 'mma.load.swiz<N>' is 32, 64 or 128 bytes, not {swizzle}")
                    return []
            elif word != "async":
                self.error(loc, f"unknown 'mma.load' modifier '.{word}'; expected '.swiz<N>' or '.async'")
                return []
        src = self._chunk(node.args[0], "mma.load")
        if src is None:
            return []
        (region, elem), chunk = src
        if reuse is not None:
            frag = reuse.frag
            if (frag.elem, frag.chunk) != (elem, chunk):
                self.error(node.loc, f"'{name.name}' is a fragment of {frag.elem} {list(frag.chunk)}; it cannot be "
                                     f"loaded from {elem} {list(chunk)} data")
                return []
            load = ir.MmaLoad(node.loc, reuse, region, swizzle=swizzle)
        else:
            frag = self.new_frag(name, elem)
            frag.chunk = chunk
            load = ir.MmaLoad(node.loc, ir.FragRef(frag), region, declare=True, swizzle=swizzle)
        frag.loads.append(load)
        return [load]

    def new_frag(self, name: A.Name, elem: Optional[str]) -> ir.Frag:
        frag = ir.Frag(self.ctx.unique(name.name), elem, self.ctx.level, name.loc)
        if any(p.kind == "group-4" for p in self.ctx.parallel_stack):
            frag.engine = ir.MmaEngine.WGMMA
        self.declare_frag(name, frag)
        return frag

    def declare_frag(self, name: A.Name, frag: ir.Frag) -> None:
        self.ctx.declare(name, Symbol(name.name, "fragment", VFrag(ir.FragRef(frag)), name.loc, frag.name))
        self.frags.append(frag)

    def _fill_type(self, word: Optional[str], loc) -> Optional[str]:
        if word is None:
            return None
        if word not in _FILL_TYPES:
            self.error(loc, f"a fragment of '{word}' elements cannot accumulate; the accumulator types are "
                            + ", ".join(f"'{t}'" for t in _FILL_TYPES))
        return word

    def frag_value(self, e: A.Node):
        v = scalar(self.expr(e))
        if isinstance(v, VError):
            return None
        if isinstance(v, VInt) and v.sym.is_const:
            return v.sym.value
        x = self.elements.to_eexpr(v)
        if x is None:
            self.error(e.loc, f"a fragment is filled with a number, not {v.kind}")
        return x

    def _chunk(self, e: A.Node, what: str):
        """((region, elem), (rows, cols)) of a 2-D chunk with constant extents, or None."""
        v = self.expr(e)
        if isinstance(v, VFuture):
            v = self.dma.future_data(v.future, e.loc)
        if isinstance(v, VError):
            return None
        if not isinstance(v, VData):
            self.error(e.loc, f"the operand of '{what}' must be a chunk of spanned data, not {v.kind}")
            return None
        if what == "mma.load":
            self.ctx.check_readable(v, e.loc)
        ext = list(v.region.extents)
        while len(ext) > 2 and ext[0].is_const and ext[0].value == 1:
            ext = ext[1:]
        if len(ext) != 2:
            self.error(e.loc, f"'{what}' needs a 2-dimensional chunk (a matrix tile); this one has "
                              f"{len(ext)} dimensions")
            return None
        if not all(d.is_const for d in ext):
            self.error(e.loc, f"the tile of '{what}' must have a shape known at compile time; it is "
                              f"[{', '.join(d.to_c() for d in ext)}]")
            return None
        return (v.region, v.elem), (ext[0].value, ext[1].value)

    # -- using fragments ------------------------------------------------------------
    def stmt_MmaOp(self, s: A.MmaOp) -> List[ir.Stmt]:
        op = s.words[0] if s.words else ""
        if self.ctx.level == 0:
            self.error(s.loc, f"'mma.{op}' must be inside 'parallel'")
            return []
        if op == "commit":     # wgmma's commit: our wgmma waits where it is issued
            return []
        if op == "fill":
            if len(s.args) != 2:
                self.error(s.loc, "'mma.fill' as a statement takes a fragment and a value: 'mma.fill mc, 0'")
                return []
            ref = self.frag_operand(s.args[0])
            value = self.frag_value(s.args[1])
            return [] if ref is None or value is None else [ir.MmaFill(s.loc, ref, value)]
        if op in ("store", "row", "col") or self.rows.is_row_op(s.words):
            errors = self.ctx.diag.errors
            out = self.rows.row_stmt(s) if self.rows.is_row_op(s.words) else self._store(s) if op == "store" \
                else self._multiply(s)
            if self.ctx.diag.errors > errors:   # its fragments get no second error for having no use
                self.frags_in_errors.update(self.ctx.scope.lookup(a.name).ir_name for a in s.args
                                            if isinstance(a, A.Name) and self.ctx.scope.lookup(a.name) is not None)
            return out
        if op == "load":
            self.error(s.loc, "'mma.load' makes a fragment: write 'x = mma.load chunk;'")
            return []
        self.error(s.word_locs[0] if s.word_locs else s.loc,
                   f"unknown tensor-core operation 'mma.{op}'; expected 'mma.fill', 'mma.load', 'mma.row.col', "
                   f"'mma.row.row', 'mma.store', 'mma.commit' or a row operation ({FORMS})")
        return []

    def frag_operand(self, e: A.Node) -> Optional[ir.FragRef]:
        index = []
        while isinstance(e, A.SpanDerive):
            if len(e.items) != 1:
                self.error(e.loc, "a fragment array is indexed one dimension at a time: 'mc[i][j]'")
                return None
            v = scalar(self.expr(e.items[0]))
            if not isinstance(v, VInt):
                self.error(e.items[0].loc, "a fragment array's index must be an integer")
                return None
            index.insert(0, v.sym)
            e = e.base
        if not isinstance(e, A.Name):
            self.error(e.loc, "expected a fragment (a name made by 'mma.fill' or 'mma.load')")
            return None
        sym = self.ctx.scope.lookup(e.name)
        if sym is None:
            self.error(e.loc, f"'{e.name}' was not declared")
            return None
        if sym.kind != "fragment":
            self.error(e.loc, f"'{e.name}' is not a fragment; fragments are made by 'mma.fill', 'mma.load' "
                              "or 'frag'")
            return None
        frag = sym.value.ref.frag
        if len(index) != len(frag.dims):
            self.error(e.loc, f"'{e.name}' has {len(frag.dims)} array dimensions; {len(index)} indices given")
            return None
        for i, (ix, d) in enumerate(zip(index, frag.dims)):
            if ix.is_const and not 0 <= ix.value < d:
                self.error(e.loc, f"index {ix.value} is out of range for dimension {i} of '{e.name}' ({d})")
                return None
        return ir.FragRef(frag, index)

    def _store(self, s: A.MmaOp) -> List[ir.Stmt]:
        if len(s.words) != 1 or len(s.args) != 2:
            self.error(s.loc, "'mma.store' takes a fragment and its destination: 'mma.store mc, out.chunkat(i, j)'")
            return []
        ref = self.frag_operand(s.args[0])
        dst = self._chunk(s.args[1], "mma.store")
        if ref is None or dst is None:
            return []
        (region, elem), shape = dst
        frag = ref.frag
        if frag.role not in (None, "c"):
            self.error(s.args[0].loc, f"'{frag.name}' is an operand fragment; 'mma.store' stores an accumulator")
            return []
        if not self._set_tile(frag, "c", shape, s.args[1].loc):
            return []
        return [ir.MmaStore(s.loc, ref, region)]

    def _multiply(self, s: A.MmaOp) -> List[ir.Stmt]:
        words = s.words
        sparse = words[2:] == ["sp"]
        if len(words) < 2 or (words[0], words[1]) not in _LAYOUTS or (len(words) > 2 and not sparse):
            self.error(s.loc, f"unknown tensor-core operation 'mma.{'.'.join(words)}'; expected 'mma.row.col', "
                              "'mma.row.row', 'mma.col.col', 'mma.col.row' or one of them with '.sp'")
            return []
        want = 4 if sparse else 3
        if len(s.args) != want:
            form = "c, a, b, metadata" if sparse else "c, a, b"
            self.error(s.loc, f"'mma.{'.'.join(words)}' takes {want} fragments: '{form}'")
            return []
        refs = [self.frag_operand(a) for a in s.args]
        if any(r is None for r in refs):
            return []
        c, a, b = refs[:3]
        e = refs[3] if sparse else None
        for ref, role, arg in ((c, "c", s.args[0]), (a, "a", s.args[1]), (b, "b", s.args[2])) + \
                (((e, "e", s.args[3]),) if sparse else ()):
            if ref.frag.role not in (None, role) and not (role == "c" and ref.frag.role is None):
                self.error(arg.loc, f"'{ref.frag.name}' is used as the {_ROLE[ref.frag.role]} elsewhere; here it "
                                    f"would be the {_ROLE[role]}")
                return []
            if role != "c" and ref.frag.chunk is None and not ref.frag.converted:
                self.error(arg.loc, f"'{ref.frag.name}' must be made by 'mma.load' to be an operand of the multiply")
                return []
        la, lb = words[0], words[1]
        ar, ac = a.frag.chunk
        M, Ka = (ar, ac) if la == "row" else (ac, ar)
        if sparse:
            Ka *= 2            # the packed A holds half of each row's K elements
        br, bc = b.frag.chunk
        Kb, N = (br, bc) if lb == "col" else (bc, br)
        if Ka != Kb:
            self.error(s.loc, f"the tiles do not multiply: A is {M} x {Ka} and B is {Kb} x {N} "
                              f"(A's columns must equal B's rows)")
            return []
        if not (self._set_tile(a.frag, "a", (M, Ka // 2 if sparse else Ka), s.args[1].loc, la == "col")
                and self._set_tile(b.frag, "b", (Kb, N), s.args[2].loc, lb == "row")
                and self._set_tile(c.frag, "c", (M, N), s.args[0].loc)):
            return []
        if e is not None:
            e.frag.role, e.frag.sparse = "e", True
            e.frag.rows, e.frag.cols = e.frag.chunk
        if c.frag.elem is None:
            c.frag.elem = default_accumulator(a.frag.elem)
        engine = ir.MmaEngine.WGMMA if any(p.kind == "group-4" for p in self.ctx.parallel_stack) else ir.MmaEngine.SYNC
        missing = None
        if engine is ir.MmaEngine.WGMMA:
            if not self._wgmma_operands(s, (a, b), f"{la}.{lb}"):
                return []
            inst = wgmma_shape(M, N, Ka, a.frag.elem, b.frag.elem, c.frag.elem)
            if inst is None:
                self.error(s.loc, f"no warp-group (wgmma) instruction computes a {M} x {N} x {Ka} tile of "
                                  f"{describe_types(a.frag.elem, b.frag.elem, c.frag.elem)}: a warp group's "
                                  "tile is 64 rows by 8 to 256 columns (a multiple of 8)")
                return []
        else:
            if has_forms(a.frag.elem) and not warp_tile_ok(M, N, Ka, a.frag.elem, sparse):
                self.error(s.loc, f"no tensor-core instruction has a {M} x {N} x {Ka} tile of {a.frag.elem}: the "
                                  "tile of one warp is an instruction's shape (m16n8k16, m16n8k8, m16n8k32, "
                                  "m8n8k16, m8n8k4, ...) or a WMMA shape (m16n16k16, m32n8k16, m8n32k16)")
                return []
            form = choose_shape(M, N, Ka, a.frag.elem, b.frag.elem, c.frag.elem, sparse)
            if form is None:   # portable code computes it; a GPU target reports it (targets/cuda/mma.py)
                missing = (f"no tensor-core instruction multiplies a {M} x {N} x {Ka} tile of "
                           f"{describe_types(a.frag.elem, b.frag.elem, c.frag.elem)}{' (sparse)' if sparse else ''}")
                inst = (M, N, Ka)
            else:
                inst = (form.m, form.n, form.k)
        for ref in refs:
            f = ref.frag
            if f.inst not in (None, inst) and f.role != "e":
                self.error(s.loc, f"'{f.name}' is computed with m{f.inst[0]}n{f.inst[1]}k{f.inst[2]} elsewhere; "
                                  f"this multiply needs m{inst[0]}n{inst[1]}k{inst[2]}")
                return []
            f.inst, f.engine = inst, engine
            f.sparse = f.sparse or sparse
        return [ir.MmaMul(s.loc, c, a, b, f"{la}.{lb}", e, missing)]

    def _wgmma_operands(self, s: A.MmaOp, refs, layout: str) -> bool:
        """A warp group reads its operands from shared memory in a swizzled layout: each
        must be `mma.load.swiz<N>` of a shared buffer whose rows are N bytes, both K-major."""
        if layout not in ("row.row", "row.col"):
            self.error(s.loc, f"a warp group (wgmma) multiplies a row-major A: 'mma.row.row' (B given as N x K) or "
                              f"'mma.row.col' (B given as K x N); 'mma.{layout}' is not supported yet")
            return False
        if layout == "row.col":
            b = refs[1].frag
            n = b.chunk[1]
            if b.elem not in ("f16", "bf16") or n & (n - 1) or any(n * 2 > load.swizzle for load in b.loads):
                self.error(s.args[2].loc, f"a warp group's B given as K x N ('mma.row.col') is f16 or bf16 with N a "
                                          f"power of 2 whose row fits the swizzle; '{b.name}' is {b.elem} "
                                          f"{list(b.chunk)}")
                return False
        for ref, arg in zip(refs, s.args[1:3]):
            for load in ref.frag.loads:
                buf = load.src.buffer
                row = buf.shape[-1]
                if buf.storage != "shared" or not load.swizzle:
                    self.error(load.loc, "a warp group (wgmma) reads its operands from shared memory through "
                                         "a swizzled layout: load them with 'mma.load.swiz<N>' from shared data")
                    return False
                if not (row.is_const and row.value * ir.ELEM_BYTES[buf.elem] == load.swizzle):
                    self.error(load.loc, f"the rows of '{buf.source_name or buf.name}' must be {load.swizzle} bytes "
                                         f"for 'mma.load.swiz<{load.swizzle}>' (its rows are "
                                         f"[{row.to_c()}] x {ir.ELEM_BYTES[buf.elem]} bytes)")
                    return False
        return True

    def _set_tile(self, frag: ir.Frag, role: str, shape, loc, transposed: bool = False) -> bool:
        """Gives a fragment its role and logical tile, or reports that it has another."""
        rows, cols = shape
        if frag.rows is not None and (frag.rows, frag.cols) != (rows, cols):
            self.error(loc, f"'{frag.name}' is a {frag.rows} x {frag.cols} tile; here it must be {rows} x {cols}")
            return False
        frag.role, frag.rows, frag.cols = role, rows, cols
        if frag.chunk is None and role == "c":
            frag.chunk = (rows, cols)
        for load in frag.loads:
            load.transposed = transposed
        return True

    def check_frags(self) -> None:
        """After the function: every fragment was given a shape by some use."""
        self.rows.check_rows()
        for f in self.frags:
            if f.role == "r":
                continue
            if f.rows is None and f.name not in self.frags_in_errors:
                self.error(f.loc, f"'{f.name}' is never used by 'mma.row.col' or 'mma.store', so its tile "
                                  "shape is unknown")
            elif f.elem is None:
                f.elem = "f32"

    def is_fragment_element(self, e: A.SpanDerive) -> bool:
        """Whether `mc[i][j]` names a fragment of a fragment array (not a span derivation)."""
        while isinstance(e, A.SpanDerive):
            e = e.base
        sym = self.ctx.scope.lookup(e.name) if isinstance(e, A.Name) else None
        return sym is not None and sym.kind == "fragment"

    def frag_update(self, target: A.Node, value: A.BinOp) -> List[ir.Stmt]:
        """`mc += bias;` (parsed as `mc = mc + bias`) and `mc[1] += bias;`: every element of
        the fragment."""
        ref = self.frag_operand(target)
        v = scalar(self.expr(value.right))
        if ref is None or isinstance(v, VError):
            return []
        if value.op not in ("+", "-", "*", "/"):
            self.error(value.loc, f"a fragment can be combined with a value by '+=', '-=', '*=' or '/=', not "
                                  f"'{value.op}='")
            return []
        x = self.elements.to_eexpr(v)
        if x is None:
            self.error(value.right.loc, f"a fragment is combined with a number, not {v.kind}")
            return []
        return [ir.FragUpdate(value.loc, ref, value.op, x)]

    def update_element(self, s: A.ElemAssign) -> List[ir.Stmt]:
        """`mc[1] += bias;`: an element of a fragment array updated (the statement checker
        sends it here when ``is_fragment_element``)."""
        target = s.target
        if s.op not in _FRAG_UPDATES:
            self.error(s.loc, f"a fragment of an array is updated by '+=', '-=', '*=' or '/=' (or made by "
                              f"'mma.fill' / 'mma.load'), not by '{s.op}'")
            return []
        return self.frag_update(target, A.BinOp(s.loc, s.op[:-1], target, s.value))


_ROLE = {"a": "A operand", "b": "B operand", "c": "accumulator", "e": "sparsity metadata", None: "fragment"}


class FragmentRows:
    """The row operations; the fragments are ``mma``'s (it makes this checker)."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, elements: ElementChecks, mma: "MmaForms"):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr
        self.elements = elements
        self.mma = mma
        # (row vector or converted operand, the fragment it meets, where): check_rows' input
        self.row_pairs: List[tuple] = []

    def is_row_op(self, words: List[str]) -> bool:
        return words[:1] in (["exp"], ["mask"], ["cvt"]) or (words[:1] == ["row"] and len(words) > 1
                                                             and words[1] not in ("row", "col"))

    # -- `x = mma.row.fill v;` `m = mma.row.max s;` `pa = mma.cvt.f16 s;` ---------------------------
    def row_assign(self, name: A.Name, node: A.MmaOp) -> List[ir.Stmt]:
        words = node.words
        existing = self.ctx.scope.lookup(name.name)
        reuse = existing.value.ref if existing is not None and existing.kind == "fragment" else None
        if words[0] == "cvt":
            elem = self._cvt_type(node)
            src = self._accumulator(node.args[0], "mma.cvt")
            if elem is None or src is None:
                return []
            if reuse is not None:
                return self._cvt(node, reuse, src, elem)
            frag = self.mma.new_frag(name, elem)
            frag.role, frag.converted = "a", True
            return self._cvt(node, ir.FragRef(frag), src, elem, declare=True)
        if words[0] != "row" or words[1] not in ("fill", "max", "sum"):   # (.scale, .div, .exp: statements)
            self.error(node.word_locs[0], f"'mma.{'.'.join(words)}' makes no fragment; a row vector is made by "
                                          "'mma.row.fill', 'mma.row.max' or 'mma.row.sum'")
            return []
        if len(words) > 3 or (len(words) == 3 and (words[1] != "fill" or words[2] != "f32")):
            self.error(node.word_locs[-1], f"unknown 'mma.row.{words[1]}' modifier '.{words[-1]}'; a row vector "
                                           "holds f32 ('mma.row.fill.f32')")
            return []
        if reuse is not None:
            return self.row_stmt(A.MmaOp(node.loc, words[:2], [name] + node.args, None, node.word_locs[:2]))
        frag = ir.Frag(self.ctx.unique(name.name), "f32", self.ctx.level, name.loc, role="r")
        if any(p.kind == "group-4" for p in self.ctx.parallel_stack):
            frag.engine = ir.MmaEngine.WGMMA
        self.mma.declare_frag(name, frag)
        ref = ir.FragRef(frag)
        if words[1] == "fill":
            value = self._row_value(node.args[0], frag)
            out = [] if value is None else [ir.FragOp(node.loc, ir.RowOp.FILL, ref, [value], declare=True)]
        else:   # m = mma.row.max s: -inf (0 for a sum), then the rows of s
            src = self._row_source(node.args[0], frag)
            out = [] if src is None else [ir.FragOp(node.loc, ir.RowOp.FILL, ref, ["-INFINITY" if words[1] == "max" else 0],
                                                    declare=True), ir.FragOp(node.loc, words[1], ref, [src])]
        return out

    # -- statements ------------------------------------------------------------------------
    def row_stmt(self, s: A.MmaOp) -> List[ir.Stmt]:
        words, op = s.words, s.words[0]
        form = {"exp": "x, m, scale", "mask": "s, row0, col0", "cvt": "a, s"}.get(op, "x, v")
        want = {"exp": 3, "mask": 3}.get(op, 2)
        if op == "row" and (len(words) != 2 or words[1] not in _ROW_OPS) or op == "exp" and len(words) != 1 or \
                op == "mask" and words[1:] != ["causal"] or op == "cvt" and len(words) > 2:
            self.error(s.word_locs[-1], f"unknown row operation 'mma.{'.'.join(words)}'; expected {FORMS}")
            return []
        name = "mma." + ".".join(words[:2] if op != "exp" else words[:1])
        if len(s.args) != want:
            self.error(s.loc, f"'{name}' takes {want} operands: '{name} {form}'")
            return []
        if op == "cvt":
            dst, src = self.mma.frag_operand(s.args[0]), self._accumulator(s.args[1], "mma.cvt")
            if dst is None or src is None:
                return []
            if not dst.frag.converted:
                self.error(s.args[0].loc, f"'{dst.frag.name}' was not made by 'mma.cvt'; 'mma.cvt a, s' converts "
                                          "into an operand it made")
                return []
            return self._cvt(s, dst, src, dst.frag.elem)
        if op == "mask":
            dst = self._accumulator(s.args[0], "mma.mask.causal")
            offsets = [self._offset(a) for a in s.args[1:]]
            return [] if dst is None or None in offsets else [ir.FragOp(s.loc, ir.RowOp.CAUSAL, dst, offsets)]
        dst = self.mma.frag_operand(s.args[0])
        if dst is None:
            return []
        verb = "exp" if op == "exp" else words[1]
        if verb in ("fill", "max", "sum") and dst.frag.role != "r":
            self.error(s.args[0].loc, f"'mma.row.{verb} {dst.frag.name}, ...' sets a row vector; '{dst.frag.name}' "
                                      "is a fragment (make one with 'm = mma.row.max s;' or 'mma.row.fill')")
            return []
        if dst.frag.role not in ("r", "c", None):
            self.error(s.args[0].loc, f"'{dst.frag.name}' is an operand fragment; '{name}' works on an accumulator "
                                      "or a row vector")
            return []
        if dst.frag.role is None:
            dst.frag.role = "c"
        if verb in ("max", "sum"):
            arg = self._row_source(s.args[1], dst.frag)
        else:
            arg = self._row_value(s.args[1], dst.frag)
        if arg is None:
            return []
        args = [arg]
        if verb == "exp":
            scale = self.mma.frag_value(s.args[2])
            if scale is None:
                return []
            args.append(scale)
        return [ir.FragOp(s.loc, verb, dst, args)]

    # -- operands ------------------------------------------------------------------------
    def _accumulator(self, e: A.Node, what: str) -> Optional[ir.FragRef]:
        ref = self.mma.frag_operand(e)
        if ref is None:
            return None
        if ref.frag.role not in ("c", None):
            kind = "a row vector" if ref.frag.role == "r" else "an operand fragment"
            self.error(e.loc, f"'{ref.frag.name}' is {kind}; '{what}' works on an accumulator")
            return None
        ref.frag.role = "c"
        return ref

    def _row_source(self, e: A.Node, rows: ir.Frag):
        """What `mma.row.max`/`.sum` reduces: an accumulator or a row vector (of the same
        rows), or a value."""
        if self._names_fragment(e):
            ref = self.mma.frag_operand(e)
            if ref is None:
                return None
            if ref.frag.role not in ("c", "r", None):
                self.error(e.loc, f"'{ref.frag.name}' is an operand fragment; a row vector is reduced from an "
                                  "accumulator")
                return None
            if ref.frag.role is None:
                ref.frag.role = "c"
            self.row_pairs.append((rows, ref.frag, e.loc))
            return ref
        return self.mma.frag_value(e)

    def _row_value(self, e: A.Node, rows: ir.Frag):
        """A per-row operand: a row vector (of the same rows) or a value."""
        if self._names_fragment(e):
            ref = self.mma.frag_operand(e)
            if ref is None:
                return None
            if ref.frag.role != "r":
                self.error(e.loc, f"'{ref.frag.name}' is not a row vector; a per-row operand is a row vector "
                                  "(made by 'mma.row.max', '.sum' or '.fill') or a value")
                return None
            self.row_pairs.append((rows, ref.frag, e.loc))
            return ref
        return self.mma.frag_value(e)

    def _names_fragment(self, e: A.Node) -> bool:
        base = e
        while isinstance(base, A.SpanDerive):
            base = base.base
        sym = self.ctx.scope.lookup(base.name) if isinstance(base, A.Name) else None
        return sym is not None and sym.kind == "fragment"

    def _offset(self, e: A.Node):
        v = scalar(self.expr(e))
        if isinstance(v, VError):
            return None
        x = self.elements.to_eexpr(v)
        if x is None or x.ctype not in ("int", "bool"):
            self.error(e.loc, f"the offsets of 'mma.mask.causal' are integers (the tile's first row and column), "
                              f"not {v.kind}")
            return None
        return x

    def _cvt_type(self, node: A.MmaOp) -> Optional[str]:
        if len(node.words) != 2 or node.words[1] not in _CVT_TYPES:
            loc = node.word_locs[1] if len(node.words) > 1 else node.loc
            self.error(loc, "'mma.cvt' names the operand type: 'mma.cvt.f16' or 'mma.cvt.bf16'")
            return None
        return node.words[1]

    def _cvt(self, s, dst: ir.FragRef, src: ir.FragRef, elem: str, declare: bool = False) -> List[ir.Stmt]:
        if src.frag.rows is None:
            self.error(s.loc, f"the tile of '{src.frag.name}' is not known here: 'mma.cvt' converts an accumulator "
                              "that a multiply before it computes")
            return []
        dst.frag.chunk = (src.frag.rows, src.frag.cols)
        self.row_pairs.append((dst.frag, src.frag, s.loc))
        return [ir.FragOp(s.loc, ir.RowOp.CVT, dst, [src], declare=declare)]

    # -- after the function ---------------------------------------------------------------
    def check_rows(self) -> None:
        """Each row vector takes the rows and layout of the accumulators it meets (through
        other row vectors too); an operand made by `mma.cvt` takes its accumulator's tile.
        All of them must agree."""
        changed = True
        while changed:
            changed = False
            for dst, src, loc in self.row_pairs:
                for a, b in ((dst, src), (src, dst)):
                    if a.role == "r" and a.of is None and (b.of is not None or b.role == "c" and b.rows is not None):
                        a.of = b.of if b.role == "r" else b
                        a.rows, a.cols, a.engine = a.of.rows, 1, a.of.engine
                        changed = True
        for dst, src, loc in self.row_pairs:
            if dst.role == "a":
                if src.rows is None:
                    continue
                if dst.rows is not None and (dst.rows, dst.cols) != (src.rows, src.cols):
                    self.error(loc, f"'{dst.name}' is a {dst.rows} x {dst.cols} operand; '{src.name}' is a "
                                    f"{src.rows} x {src.cols} accumulator")
                continue
            a, b = dst.of or dst, (src.of if src.role == "r" else src)
            if a is not None and b is not None and a.rows is not None and b.rows is not None and \
                    (a.rows, a.engine) != (b.rows, b.engine):
                self.error(loc, f"'{src.name}' holds the rows of a {_held(b)}; '{dst.name}' those of a {_held(a)}")
        for f in self.mma.frags:
            if f.role == "r" and f.rows is None and f.name not in self.mma.frags_in_errors:
                self.error(f.loc, f"row vector '{f.name}' never meets an accumulator, so its rows are unknown")


def _held(f: ir.Frag) -> str:
    return f"{f.rows}-row {'warp-group ' if f.engine is ir.MmaEngine.WGMMA else ''}accumulator"
