"""Checking and lowering of the tensor-core operations (the reference's `mma.*`).

`mma.fill`, `mma.load` and `frag` declarations make fragments; `mma.row.col` (and
`.row.row`, `.col.*`, the sparse `.sp` forms) multiplies them, `mma.store` writes one
out. A fragment's role (A, B, accumulator), tile shape and the instruction that
computes it are learnt from the `mma` that uses it (ir.Frag is filled in then), so
`ma = mma.load x.chunkat(i, k)` may come before the multiply that tells it is an
M x K operand. The instruction table is mma_forms.py.
"""
from __future__ import annotations

from typing import List, Optional

from .. import ast as A
from ...ir import nodes as ir
from ...ir.mma_forms import (
    choose_shape,
    default_accumulator,
    describe_types,
    has_forms,
    warp_tile_ok,
    wgmma_shape,
)
from .values import Symbol, VData, VError, VFuture, VInt, Value, scalar
from ...ir.dataclass import dataclass
from .fragments import FORMS, FragmentRows

_LAYOUTS = {("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")}
_FILL_TYPES = ("f16", "bf16", "f32", "f64", "s32", "u32")
_SWIZZLES = (0, 32, 64, 128)


@dataclass
class VFrag(Value):
    ref: ir.FragRef
    kind = "a fragment"


class MmaForms(FragmentRows):
    """Mixed into the function checker (sema.FunctionChecker); the row operations are
    sema_fragments.py's."""

    # -- making fragments ---------------------------------------------------------
    def stmt_FragDecl(self, s: A.FragDecl) -> List[ir.Stmt]:
        """`frag.s32 mc[1][2] {0};`"""
        if self.level == 0:
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
        frag = self._new_frag(s.name, elem)
        frag.dims = dims
        value = self._fill_value(s.value)
        return [] if value is None else [ir.MmaFill(s.loc, ir.FragRef(frag), value, declare=True)]

    def mma_assign(self, name: A.Name, node: A.MmaOp) -> List[ir.Stmt]:
        """`x = mma.fill[.T] v;` and `x = mma.load[.swiz<N>] chunk;`"""
        op = node.words[0] if node.words else ""
        if self.level == 0:
            self.error(node.loc, f"'mma.{op}' must be inside 'parallel'")
            return []
        existing = self.scope.lookup(name.name)
        reuse = existing.value.ref if existing is not None and existing.kind == "fragment" else None
        if op == "fill":
            if len(node.words) > 2:
                self.error(node.word_locs[2], f"unknown 'mma.fill' modifier '.{node.words[2]}'")
                return []
            elem = self._fill_type(node.words[1] if len(node.words) == 2 else None, node.loc)
            value = self._fill_value(node.args[0])
            if value is None:
                return []
            if reuse is not None:
                return [ir.MmaFill(node.loc, reuse, value)]
            return [ir.MmaFill(node.loc, ir.FragRef(self._new_frag(name, elem)), value, declare=True)]
        if op == "load":
            return self._load(name, node, reuse)
        if self.is_row_op(node.words):
            return self.row_assign(name, node)
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
            frag = self._new_frag(name, elem)
            frag.chunk = chunk
            load = ir.MmaLoad(node.loc, ir.FragRef(frag), region, declare=True, swizzle=swizzle)
        frag.loads.append(load)
        return [load]

    def _new_frag(self, name: A.Name, elem: Optional[str]) -> ir.Frag:
        frag = ir.Frag(self.unique(name.name), elem, self.level, name.loc)
        if any(p.kind == "group-4" for p in self.parallel_stack):
            frag.engine = "wgmma"
        self.declare_frag(name, frag)
        return frag

    def declare_frag(self, name: A.Name, frag: ir.Frag) -> None:
        self.declare(name, Symbol(name.name, "fragment", VFrag(ir.FragRef(frag)), name.loc, frag.name))
        self.frags.append(frag)

    def _fill_type(self, word: Optional[str], loc) -> Optional[str]:
        if word is None:
            return None
        if word not in _FILL_TYPES:
            self.error(loc, f"a fragment of '{word}' elements cannot accumulate; the accumulator types are "
                            + ", ".join(f"'{t}'" for t in _FILL_TYPES))
        return word

    def _fill_value(self, e: A.Node):
        v = scalar(self.expr(e))
        if isinstance(v, VError):
            return None
        if isinstance(v, VInt) and v.sym.is_const:
            return v.sym.value
        x = self.to_eexpr(v)
        if x is None:
            self.error(e.loc, f"a fragment is filled with a number, not {v.kind}")
        return x

    def _chunk(self, e: A.Node, what: str):
        """((region, elem), (rows, cols)) of a 2-D chunk with constant extents, or None."""
        v = self.expr(e)
        if isinstance(v, VFuture):
            v = self.future_data(v.future, e.loc)
        if isinstance(v, VError):
            return None
        if not isinstance(v, VData):
            self.error(e.loc, f"the operand of '{what}' must be a chunk of spanned data, not {v.kind}")
            return None
        if what == "mma.load":
            self.check_readable(v, e.loc)
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
        if self.level == 0:
            self.error(s.loc, f"'mma.{op}' must be inside 'parallel'")
            return []
        if op == "commit":     # wgmma's commit: our wgmma waits where it is issued
            return []
        if op == "fill":
            if len(s.args) != 2:
                self.error(s.loc, "'mma.fill' as a statement takes a fragment and a value: 'mma.fill mc, 0'")
                return []
            ref = self._frag_operand(s.args[0])
            value = self._fill_value(s.args[1])
            return [] if ref is None or value is None else [ir.MmaFill(s.loc, ref, value)]
        if op in ("store", "row", "col") or self.is_row_op(s.words):
            errors = self.diag.errors
            out = self.row_stmt(s) if self.is_row_op(s.words) else self._store(s) if op == "store" \
                else self._multiply(s)
            if self.diag.errors > errors:   # its fragments get no second error for having no use
                self.frags_in_errors.update(self.scope.lookup(a.name).ir_name for a in s.args
                                            if isinstance(a, A.Name) and self.scope.lookup(a.name) is not None)
            return out
        if op == "load":
            self.error(s.loc, "'mma.load' makes a fragment: write 'x = mma.load chunk;'")
            return []
        self.error(s.word_locs[0] if s.word_locs else s.loc,
                   f"unknown tensor-core operation 'mma.{op}'; expected 'mma.fill', 'mma.load', 'mma.row.col', "
                   f"'mma.row.row', 'mma.store', 'mma.commit' or a row operation ({FORMS})")
        return []

    def _frag_operand(self, e: A.Node) -> Optional[ir.FragRef]:
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
        sym = self.scope.lookup(e.name)
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
        ref = self._frag_operand(s.args[0])
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
        refs = [self._frag_operand(a) for a in s.args]
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
        engine = "wgmma" if any(p.kind == "group-4" for p in self.parallel_stack) else "sync"
        missing = None
        if engine == "wgmma":
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
            if form is None:   # portable code computes it; a GPU target reports it (cuda.py)
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
        self.check_rows()
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
        sym = self.scope.lookup(e.name) if isinstance(e, A.Name) else None
        return sym is not None and sym.kind == "fragment"

    def frag_update(self, target: A.Node, value: A.BinOp) -> List[ir.Stmt]:
        """`mc += bias;` (parsed as `mc = mc + bias`) and `mc[1] += bias;`: every element of
        the fragment."""
        ref = self._frag_operand(target)
        v = scalar(self.expr(value.right))
        if ref is None or isinstance(v, VError):
            return []
        if value.op not in ("+", "-", "*", "/"):
            self.error(value.loc, f"a fragment can be combined with a value by '+=', '-=', '*=' or '/=', not "
                                  f"'{value.op}='")
            return []
        x = self.to_eexpr(v)
        if x is None:
            self.error(value.right.loc, f"a fragment is combined with a number, not {v.kind}")
            return []
        return [ir.FragUpdate(value.loc, ref, value.op, x)]


_ROLE = {"a": "A operand", "b": "B operand", "c": "accumulator", "e": "sparsity metadata", None: "fragment"}
