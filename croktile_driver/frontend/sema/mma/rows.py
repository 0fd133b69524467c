"""Row operations on accumulators (the softmax of attention), for forms.py.

An accumulator's rows are held by the threads that hold them; these statements work on
them in registers: a *row vector* (one f32 per row of an accumulator, made by
`mma.row.fill` or `mma.row.max`/`.sum` of a fragment) keeps a per-row value such as the
running maximum, and

    m = mma.row.fill.f32 v;      mma.row.fill m, v;     every row's value v (a value or a row vector)
    m = mma.row.max s;           mma.row.max m, x;      m = max(m, each row's maximum of x)
    l = mma.row.sum s;           mma.row.sum l, x;      l += each row's sum of x
    mma.row.scale x, f;          mma.row.div x, f;      each row of x times (divided by) its f
    mma.exp x, m, scale;                                x = exp(scale * (x - m)) per row
    mma.mask.causal s, row0, col0;                      element (i, j) = -inf where col0 + j > row0 + i
    mma.mask.causal s, row0, col0, period;              ... where col0 + j > row0 + i % period
    mma.mask.cols s, n;                                 element (i, j) = -inf where j >= n
    pa = mma.cvt.f16 s;          mma.cvt pa, s;         s as an A operand of f16 (bf16) in registers

where x is an accumulator or a row vector and f, m a row vector or a value. A row
vector learns its rows (and its layout: a warp's or a warp group's) from the
accumulators it meets, as a fragment learns its tile from its multiply; check_rows
runs after the function. The kinds of the operands are checked by operands.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

from ... import ast as A
from .... import ir
from ..context import CheckContext, ExprCheck
from ..elements import ElementChecks
from ..values import VError, scalar

if TYPE_CHECKING:
    from .forms import MmaForms

_ROW_OPS = ("fill", "max", "sum", "scale", "div")
_CVT_TYPES = ("f16", "bf16")
ROW_FORMS = ("'mma.row.fill', 'mma.row.max', 'mma.row.sum', 'mma.row.scale', 'mma.row.div', 'mma.exp', "
             "'mma.mask.causal', 'mma.mask.cols', 'mma.cvt'")
_PER_ROW = "a per-row operand is a row vector (made by 'mma.row.max', '.sum' or '.fill') or a value"


class FragmentRows:
    """The row operations; the fragments are ``mma``'s (it makes this checker)."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, elements: ElementChecks, mma: "MmaForms"):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr
        self.elements = elements
        self.mma = mma
        self.operands = mma.operands
        # (row vector or converted operand, the fragment it meets, where): check_rows' input
        self.row_pairs: List[tuple] = []

    def is_row_op(self, words: List[str]) -> bool:
        return words[:1] in (["exp"], ["mask"], ["cvt"]) or (words[:1] == ["row"] and len(words) > 1
                                                             and words[1] not in ("row", "col"))

    # -- `x = mma.row.fill v;` `m = mma.row.max s;` `pa = mma.cvt.f16 s;` ---------------------------
    def row_assign(self, name: A.Name, node: A.MmaOp, reuse: Optional[ir.FragRef]) -> List[ir.Stmt]:
        """`reuse`: the fragment `name` already is (made again here), else None."""
        words = node.words
        if words[0] == "cvt":
            elem = self._cvt_type(node)
            src = self._accumulator(node.args[0], "mma.cvt")
            if elem is None or src is None or not self._tile_known(node, src):
                return []
            if reuse is not None:
                if not self._converted(reuse, name.loc):
                    return []
                if reuse.frag.elem != elem:
                    self.error(node.loc, f"'{reuse.frag.name}' is an operand of {reuse.frag.elem}; 'mma.cvt.{elem}' "
                                         "cannot make it again")
                    return []
                return self._cvt(node, reuse, src)
            frag = self.operands.new(name, elem, role="a")
            frag.converted = True
            return self._cvt(node, ir.FragRef(frag), src, declare=True)
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
        frag = self.operands.new(name, "f32", role="r")
        ref = ir.FragRef(frag)
        if words[1] == "fill":
            value = self._row_value(node.args[0], frag)
            out = [] if value is None else [ir.FragOp(node.loc, ir.RowOp.FILL, ref, [value], declare=True)]
        else:   # m = mma.row.max s: -inf (0 for a sum), then the rows of s
            src = self._row_source(node.args[0], frag)
            start = "-INFINITY" if words[1] == "max" else 0
            out = [] if src is None else [ir.FragOp(node.loc, ir.RowOp.FILL, ref, [start], declare=True),
                                          ir.FragOp(node.loc, words[1], ref, [src])]
        return out

    # -- statements ------------------------------------------------------------------------
    def row_stmt(self, s: A.MmaOp) -> List[ir.Stmt]:
        words, op = s.words, s.words[0]
        cols = words[1:] == ["cols"]
        form = {"exp": "x, m, scale", "mask": "s, n" if cols else "s, row0, col0[, period]",
                "cvt": "a, s"}.get(op, "x, v")
        want = {"exp": 3, "mask": 2 if cols else 3}.get(op, 2)
        if op == "mask" and not cols and len(s.args) == 4:   # rows that repeat: query rows of several heads
            want = 4
        if op == "row" and (len(words) != 2 or words[1] not in _ROW_OPS) or op == "exp" and len(words) != 1 or \
                op == "mask" and words[1:] not in (["causal"], ["cols"]) or op == "cvt" and len(words) > 2:
            self.error(s.word_locs[-1], f"unknown row operation 'mma.{'.'.join(words)}'; expected {ROW_FORMS}")
            return []
        name = "mma." + ".".join(words[:2] if op != "exp" else words[:1])
        if len(s.args) != want:
            count = "3 or 4" if op == "mask" and not cols else want
            self.error(s.loc, f"'{name}' takes {count} operands: '{name} {form}'")
            return []
        if op == "cvt":
            dst = self.operands.lookup(s.args[0])
            src = self._accumulator(s.args[1], "mma.cvt")
            if dst is None or src is None or not self._converted(dst, s.args[0].loc) or not self._tile_known(s, src):
                return []
            return self._cvt(s, dst, src)
        if op == "mask":
            dst = self._accumulator(s.args[0], name)
            offsets = [self._offset(a, name, period=n == 3) for n, a in enumerate(s.args[1:], 1)]
            kind = ir.RowOp.COLS if cols else ir.RowOp.CAUSAL
            return [] if dst is None or None in offsets else [ir.FragOp(s.loc, kind, dst, offsets)]
        verb = "exp" if op == "exp" else words[1]
        if verb in ("fill", "max", "sum"):
            dst = self.operands.take(s.args[0], "r", f"'mma.row.{verb}' sets a row vector (make one with "
                                                     "'m = mma.row.max s;' or 'mma.row.fill')")
        else:
            dst = self.operands.take(s.args[0], "cr", f"'{name}' works on an accumulator or a row vector")
        if dst is None:
            return []
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
        return self.operands.take(e, "c", f"'{what}' works on an accumulator")

    def _converted(self, ref: ir.FragRef, loc) -> bool:
        """`mma.cvt a, s` converts into an operand that `mma.cvt` made."""
        if not ref.frag.converted:
            self.error(loc, f"'{ref.frag.name}' was not made by 'mma.cvt'; 'mma.cvt a, s' converts into an operand "
                            "it made")
            return False
        return True

    def _row_source(self, e: A.Node, rows: ir.Frag):
        """What `mma.row.max`/`.sum` reduces: an accumulator or a row vector (of the same
        rows), or a value."""
        if self.operands.names_fragment(e):
            ref = self.operands.take(e, "cr", "a row vector is reduced from an accumulator")
            if ref is None:
                return None
            self.row_pairs.append((rows, ref.frag, e.loc))
            return ref
        return self.mma.frag_value(e)

    def _row_value(self, e: A.Node, rows: ir.Frag):
        """A per-row operand: a row vector (of the same rows) or a value."""
        if self.operands.names_fragment(e):
            ref = self.operands.take(e, "r", _PER_ROW)
            if ref is None:
                return None
            self.row_pairs.append((rows, ref.frag, e.loc))
            return ref
        return self.mma.frag_value(e)

    def _offset(self, e: A.Node, name: str, period: bool = False):
        v = scalar(self.expr(e))
        if isinstance(v, VError):
            return None
        x = self.elements.to_eexpr(v)
        if x is None or x.ctype not in ("int", "bool"):
            what = "the count of columns kept" if name == "mma.mask.cols" else \
                "the rows' period" if period else "the tile's first row and column"
            self.error(e.loc, f"the offsets of '{name}' are integers ({what}), not {v.kind}")
            return None
        return x

    def _cvt_type(self, node: A.MmaOp) -> Optional[str]:
        if len(node.words) != 2 or node.words[1] not in _CVT_TYPES:
            loc = node.word_locs[1] if len(node.words) > 1 else node.loc
            self.error(loc, "'mma.cvt' names the operand type: 'mma.cvt.f16' or 'mma.cvt.bf16'")
            return None
        return node.words[1]

    def _tile_known(self, s, src: ir.FragRef) -> bool:
        if src.frag.rows is None:
            self.error(s.loc, f"the tile of '{src.frag.name}' is not known here: 'mma.cvt' converts an accumulator "
                              "that a multiply before it computes")
            return False
        return True

    def _cvt(self, s, dst: ir.FragRef, src: ir.FragRef, declare: bool = False) -> List[ir.Stmt]:
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
        for f in self.operands.frags:
            if f.role == "r" and f.rows is None and f.name not in self.operands.in_errors:
                self.error(f.loc, f"row vector '{f.name}' never meets an accumulator, so its rows are unknown")


def _held(f: ir.Frag) -> str:
    return f"{f.rows}-row {'warp-group ' if f.engine is ir.MmaEngine.WGMMA else ''}accumulator"
