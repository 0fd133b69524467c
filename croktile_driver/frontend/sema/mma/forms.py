"""Checking and lowering of the tensor-core operations (the reference's `mma.*`).

`mma.fill`, `mma.load` and `frag` declarations make fragments; `mma.row.col` (and
`.row.row`, `.col.*`, the sparse `.sp` forms) multiplies them, `mma.store` writes one
out. A fragment's role (A, B, accumulator), tile shape and the instruction that
computes it are learnt from the `mma` that uses it (ir.Frag is filled in then), so
`ma = mma.load x.chunkat(i, k)` may come before the multiply that tells it is an
M x K operand. The instruction table is ir/mma_forms.py: a multiply that no instruction
computes is an error here, the same on every target (the portable targets compute
what the instructions compute).

What kind of fragment each operand is, and the levels that may hold a tensor-core
statement, are operands.py's (one check for every statement); the row operations
(`mma.row.*`, `mma.exp`, `mma.mask.causal`, `mma.cvt`) are rows.py's.

The statement checker makes one ``MmaForms`` and sends it these statements; it makes
the ``FragOperands`` and the ``FragmentRows`` that share its fragments.
"""
from __future__ import annotations

from typing import List, Optional

from ... import ast as A
from .... import ir
from ....ir.mma_forms import (
    choose_shape,
    default_accumulator,
    has_forms,
    no_instruction,
    warp_tile_ok,
    wgmma_no_instruction,
    wgmma_shape,
)
from ..context import CheckContext, ExprCheck
from ..dma import DmaForms
from ..elements import ElementChecks
from ..values import VData, VError, VFuture, VInt, scalar
from .operands import FragOperands
from .rows import ROW_FORMS, FragmentRows

_LAYOUTS = {("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")}
_FILL_TYPES = ("f16", "bf16", "f32", "f64", "s32", "u32")
_SWIZZLES = (0, 32, 64, 128)
_FRAG_UPDATES = ("+=", "-=", "*=", "/=")
# the operands of a multiply, by role
_THE = {"c": "the accumulator", "a": "the A operand", "b": "the B operand", "e": "the sparsity metadata"}
_FILLED = "'mma.fill' fills an accumulator or an operand (a row vector: 'mma.row.fill')"
_UPDATED = ("'+=', '-=', '*=' and '/=' update an accumulator or an operand (a row vector: 'mma.row.scale', "
            "'.div' or '.fill')")


class MmaForms:
    """Fragments: their declarations, `mma.fill`, `mma.load`, the multiply and `mma.store`."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, elements: ElementChecks, dma: DmaForms):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr              # the expression checker's
        self.elements = elements      # values as element expressions (fills, updates)
        self.dma = dma                # `f.data` of a future loaded
        self.operands = FragOperands(ctx, expr)
        self.rows = FragmentRows(ctx, expr, elements, self)

    @property
    def frags(self) -> List[ir.Frag]:
        """Every fragment and row vector of the function."""
        return self.operands.frags

    def placed(self, loc, what: str) -> bool:
        """Whether a tensor-core statement (`what`) is where one may be: inside `parallel`,
        at a level of warps (operands.py)."""
        if self.ctx.level == 0:
            self.error(loc, f"{what} must be inside 'parallel'")
            return False
        return self.operands.level_ok(loc, what)

    # -- making fragments ---------------------------------------------------------
    def stmt_FragDecl(self, s: A.FragDecl) -> List[ir.Stmt]:
        """`frag.s32 mc[1][2] {0};` (where it is an error, `mc` is a fragment whose uses say
        nothing more)."""
        out = self._frag_decl(s)
        if not out:
            self.operands.poison(s.name)
        return out

    def _frag_decl(self, s: A.FragDecl) -> List[ir.Stmt]:
        if self.ctx.level == 0:
            self.error(s.loc, "fragments belong to 'parallel' levels: declare them inside 'parallel'")
            return []
        if not self.operands.level_ok(s.loc, "a 'frag' declaration"):
            return []
        elem = self._fill_type(s.elem, s.loc)
        if elem is False:
            return []
        dims = []
        for d in s.dims:
            v = scalar(self.expr(d))
            if not (isinstance(v, VInt) and v.sym.is_const and v.sym.value > 0):
                self.error(d.loc, "the dimensions of a fragment array must be positive constants")
                return []
            dims.append(v.sym.value)
        frag = self.operands.new(s.name, elem)
        frag.dims = dims
        value = self.frag_value(s.value)
        return [] if value is None else [ir.MmaFill(s.loc, ir.FragRef(frag), value, declare=True)]

    def mma_assign(self, name: A.Name, node: A.MmaOp) -> List[ir.Stmt]:
        """`x = mma.fill[.T] v;`, `x = mma.load[.swiz<N>] chunk;` and the row operations'
        `x = mma.row.max s;`...: a new fragment, or the fragment `x` made again. Where it
        is an error, `x` is a fragment whose uses say nothing more."""
        out = self._assign(name, node)
        if not out:
            self.operands.poison(name)
        return out

    def _assign(self, name: A.Name, node: A.MmaOp) -> List[ir.Stmt]:
        op = node.words[0] if node.words else ""
        if not self.placed(node.loc, _spelled(node.words)):
            return []
        reuse = None
        if self.operands.existing(name) is not None:
            reuse = self.operands.lookup(name)   # (a whole fragment, not an array's)
            if reuse is None:
                return []
        if op == "fill":
            if len(node.words) > 2:
                self.error(node.word_locs[2], f"unknown 'mma.fill' modifier '.{node.words[2]}'")
                return []
            elem = self._fill_type(node.words[1] if len(node.words) == 2 else None, node.loc)
            value = self.frag_value(node.args[0])
            if value is None or elem is False:
                return []
            if reuse is None:
                return [ir.MmaFill(node.loc, ir.FragRef(self.operands.new(name, elem)), value, declare=True)]
            if not self.operands.is_kind(reuse.frag, name.loc, "abc", _FILLED, assign=False) or \
                    not self._same_type(reuse.frag, elem, node):
                return []
            return [ir.MmaFill(node.loc, reuse, value)]
        if op == "load":
            return self._load(name, node, reuse)
        if self.rows.is_row_op(node.words):
            return self.rows.row_assign(name, node, reuse)
        self.error(node.word_locs[0] if node.word_locs else node.loc,
                   f"'mma.{op}' makes no fragment; a fragment is made by 'mma.fill' or 'mma.load'")
        return []

    def _same_type(self, frag: ir.Frag, elem: Optional[str], node: A.MmaOp) -> bool:
        """`x = mma.fill.T v;` again: T is the fragment's type (an untyped fill names none)."""
        if elem is None or frag.elem in (None, elem):
            frag.elem = frag.elem or elem
            return True
        self.error(node.loc, f"'{frag.name}' is a fragment of {frag.elem}; 'mma.fill.{elem}' cannot fill it "
                             f"(write 'mma.fill' or 'mma.fill.{frag.elem}')")
        return False

    def _load(self, name: A.Name, node: A.MmaOp, reuse: Optional[ir.FragRef]) -> List[ir.Stmt]:
        """A fragment's type is fixed where it is made (a load's is its data's): loaded again,
        the data is converted into it, as `mma.store` converts into its destination."""
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
        if reuse is None:
            frag = self.operands.new(name, elem)
            frag.chunk = chunk
            load = ir.MmaLoad(node.loc, ir.FragRef(frag), region, declare=True, swizzle=swizzle)
        else:   # loaded again: the same tile (a filled one takes it here), converted to its type
            frag = reuse.frag
            if not self.operands.is_kind(frag, name.loc, "abce", "'mma.load' loads an accumulator or an operand",
                                         assign=False):
                return []
            if frag.chunk not in (None, chunk):
                self.error(node.loc, f"'{name.name}' is a {frag.chunk[0]} x {frag.chunk[1]} tile; it cannot be "
                                     f"loaded from a {chunk[0]} x {chunk[1]} chunk")
                return []
            frag.elem, frag.chunk = frag.elem or elem, chunk
            load = ir.MmaLoad(node.loc, reuse, region, swizzle=swizzle,
                              transposed=frag.loads[0].transposed if frag.loads else False)
        frag.loads.append(load)
        return [load]

    def _fill_type(self, word: Optional[str], loc):
        """The type `mma.fill.T` names (None: none), or False after its error."""
        if word is None:
            return None
        if word not in _FILL_TYPES:
            self.error(loc, f"a fragment of '{word}' elements cannot accumulate; the accumulator types are "
                            + ", ".join(f"'{t}'" for t in _FILL_TYPES))
            return False
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
        if not self.placed(s.loc, _spelled(s.words)):
            self.operands.reject(s.args)
            return []
        if op == "commit":     # wgmma's commit: our wgmma waits where it is issued
            return []
        if op == "fill":
            if len(s.args) != 2:
                self.error(s.loc, "'mma.fill' as a statement takes a fragment and a value: 'mma.fill mc, 0'")
                return []
            ref = self.operands.take(s.args[0], "abc", _FILLED, assign=False)
            value = self.frag_value(s.args[1])
            return [] if ref is None or value is None else [ir.MmaFill(s.loc, ref, value)]
        if op in ("store", "row", "col") or self.rows.is_row_op(s.words):
            out = self.rows.row_stmt(s) if self.rows.is_row_op(s.words) else self._store(s) if op == "store" \
                else self._multiply(s)
            if not out:   # its fragments get no second error for having no use
                self.operands.reject(s.args)
            return out
        if op == "load":
            self.error(s.loc, "'mma.load' makes a fragment: write 'x = mma.load chunk;'")
            return []
        self.error(s.word_locs[0] if s.word_locs else s.loc,
                   f"unknown tensor-core operation 'mma.{op}'; expected 'mma.fill', 'mma.load', 'mma.row.col', "
                   f"'mma.row.row', 'mma.store', 'mma.commit' or a row operation ({ROW_FORMS})")
        return []

    def _store(self, s: A.MmaOp) -> List[ir.Stmt]:
        if len(s.words) != 1 or len(s.args) != 2:
            self.error(s.loc, "'mma.store' takes a fragment and its destination: 'mma.store mc, out.chunkat(i, j)'")
            return []
        ref = self.operands.take(s.args[0], "c", "'mma.store' stores an accumulator", assign=False)
        dst = self._chunk(s.args[1], "mma.store")
        if ref is None or dst is None:
            return []
        (region, elem), shape = dst
        if not self._set_tile(ref.frag, "c", shape, s.args[1].loc):
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
        refs = [self.operands.take(arg, role, f"here it would be {_THE[role]}", assign=False)
                for arg, role in zip(s.args, "cabe")]
        if any(r is None for r in refs):
            return []
        for i, (ref, arg, role) in enumerate(zip(refs, s.args, "cabe")):
            other = next((r for r in refs[:i] if r.frag is ref.frag), None)
            if other is not None:
                self.error(arg.loc, f"'{ref.frag.name}' is {_THE['cabe'[refs.index(other)]]} of this multiply; it "
                                    f"cannot be {_THE[role]} too")
                return []
            if role != "c" and ref.frag.chunk is None and not ref.frag.converted:
                self.error(arg.loc, f"'{ref.frag.name}' must be made by 'mma.load' (or 'mma.cvt') to be an operand "
                                    "of the multiply")
                return []
        c, a, b = refs[:3]
        e = refs[3] if sparse else None
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
        engine = ir.MmaEngine.WGMMA if self.operands.in_warp_group() else ir.MmaEngine.SYNC
        types = (a.frag.elem, b.frag.elem, c.frag.elem)
        form = None
        if engine is ir.MmaEngine.WGMMA:
            if sparse:
                self.error(s.loc, f"'mma.{'.'.join(words)}' is a warp's sparse multiply (mma.sp); a warp group "
                                  "(wgmma, a 'group-4' level) has no sparse form here")
                return []
            if not self._wgmma_operands(s, (a, b), f"{la}.{lb}"):
                return []
            inst = wgmma_shape(M, N, Ka, *types)
            if inst is None:
                self.error(s.loc, wgmma_no_instruction(M, N, Ka, *types))
                return []
        else:
            if has_forms(a.frag.elem) and not warp_tile_ok(M, N, Ka, a.frag.elem, sparse):
                self.error(s.loc, f"no tensor-core instruction has a {M} x {N} x {Ka} tile of {a.frag.elem}: the "
                                  "tile of one warp is an instruction's shape (m16n8k16, m16n8k8, m16n8k32, "
                                  "m8n8k16, m8n8k4, ...) or a WMMA shape (m16n16k16, m32n8k16, m8n32k16)")
                return []
            form = choose_shape(M, N, Ka, *types, sparse)
            if form is None:   # the same error on every target: the portable ones compute the instructions
                self.error(s.loc, no_instruction(M, N, Ka, *types, sparse))
                return []
            inst = (form.m, form.n, form.k)
        for ref in refs:
            f = ref.frag
            if f.inst not in (None, inst) and f.role != "e":
                self.error(s.loc, f"'{f.name}' is computed with m{f.inst[0]}n{f.inst[1]}k{f.inst[2]} elsewhere; "
                                  f"this multiply needs m{inst[0]}n{inst[1]}k{inst[2]}")
                return []
            f.inst, f.engine = inst, engine
            f.sparse = f.sparse or sparse
        return [ir.MmaMul(s.loc, c, a, b, f"{la}.{lb}", e, form)]

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
        """Gives a fragment its role and logical tile, or reports that it has another (an
        accumulator loaded from memory has the tile it was loaded as)."""
        rows, cols = shape
        known = (frag.rows, frag.cols) if frag.rows is not None else frag.chunk if role == "c" else None
        if known is not None and known != (rows, cols):
            self.error(loc, f"'{frag.name}' is a {known[0]} x {known[1]} tile; here it must be {rows} x {cols}")
            return False
        frag.role, frag.rows, frag.cols = role, rows, cols
        if frag.chunk is None and role == "c":
            frag.chunk = (rows, cols)
        for load in frag.loads:
            load.transposed = transposed
        return True

    def check_frags(self, body: List[ir.Stmt]) -> None:
        """After the function: the row vectors' rows, then every fragment complete
        (operands.py)."""
        self.rows.check_rows()
        self.operands.finish(body)

    def is_fragment_element(self, e: A.SpanDerive) -> bool:
        """Whether `mc[i][j]` names a fragment of a fragment array (not a span derivation)."""
        return self.operands.names_fragment(e)

    def frag_update(self, target: A.Node, value: A.BinOp) -> List[ir.Stmt]:
        """`mc += bias;` (parsed as `mc = mc + bias`) and `mc[1] += bias;`: every element of
        the fragment."""
        if not self.placed(value.loc, f"'{value.op}=' on a fragment"):
            return []
        ref = self.operands.take(target, "abc", _UPDATED, assign=False)
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


def _spelled(words: List[str]) -> str:
    """A statement's operation as messages name it: 'mma.row.col', 'mma.load' (no modifiers)."""
    return "'mma." + ".".join(words[:2] if words[:1] in (["row"], ["col"], ["mask"]) else words[:1]) + "'"
