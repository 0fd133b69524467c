"""Row operations on accumulators (frontend/sema/mma/rows.py) as calls of the runtime's row API
(runtime/croktile_rows.h): `croktile::mma::row_max(m, s)`, `croktile::wgmma::row_exp(s, m,
scale)`, ... on the C++ targets. A row vector is `rowvec<R>`: on the portable targets the
whole column of R values, on cuda the rows that the thread holds of its warp group's
accumulator."""
from __future__ import annotations

from .. import ir
from .cxx import At

CALLS = {ir.RowOp.FILL: "row_fill", ir.RowOp.MAX: "row_max", ir.RowOp.SUM: "row_sum", ir.RowOp.SCALE: "row_scale",
         ir.RowOp.DIV: "row_div", ir.RowOp.EXP: "row_exp", ir.RowOp.CAUSAL: "mask_causal", ir.RowOp.COLS: "mask_cols",
         ir.RowOp.CVT: "cvt"}


def row_refs(s: ir.FragOp) -> list:
    """The fragments and row vectors a row operation reads."""
    return [a for a in s.args if isinstance(a, ir.FragRef)]


class RowWriter:
    """Mixed into codegen/fragments.py's FragmentWriter (which gives `frag_ref`, `fill_value`, `settle`,
    `each_fragment`, `w`)."""

    def row_operand(self, f: ir.Frag, a) -> str:
        if isinstance(a, ir.FragRef):
            return self.frag_ref(a)
        if isinstance(a, ir.EExpr) and a.ctype in ("int", "bool"):
            return f"(long long)({self.elements().value(a)})"
        return f"(float)({self.fill_value(f, a)})"

    def s_FragOp(self, s: ir.FragOp, at: At) -> None:
        depth = at.depth
        f = s.ref.frag
        api = "croktile::wgmma" if f.engine is ir.MmaEngine.WGMMA else "croktile::mma"
        for ref in [s.ref] + row_refs(s):
            if not (s.declare and ref is s.ref):
                self.settle(ref, depth)
        if s.declare and s.op is ir.RowOp.FILL:
            args = ", ".join(self.row_operand(f, a) for a in s.args)
            self.each_fragment(s.ref, depth, lambda frag: f"{api}::row_fill({frag}, {args});")
            return
        # outside the level whose instances have a copy each (one thread runs them all):
        # the operation is every copy's
        copies = next((self.replicated[r.frag.name] for r in [s.ref] + row_refs(s)
                       if self.replicated.get(r.frag.name) is not None), None)
        if copies is not None and self.running_instance() is None:
            self.w(depth, f"for ({self.index_type} {copies.var} = 0; {copies.var} < {self.expr(copies.count)}; "
                          f"++{copies.var}) {{")
            self.level_stack.append(copies)
            self.row_call(s, api, depth + 1)
            self.level_stack.pop()
            self.w(depth, "}")
            return
        self.row_call(s, api, depth)

    def row_call(self, s: ir.FragOp, api: str, depth: int) -> None:
        args = ", ".join(self.row_operand(s.ref.frag, a) for a in s.args)
        self.w(depth, f"{api}::{CALLS[s.op]}({self.frag_ref(s.ref)}, {args});")
