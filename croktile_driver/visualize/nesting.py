"""The nesting of a function: each `parallel` level and loop a box inside its parent, with
how many instances or iterations it has, `if` masks dashed, and the statements (by their
source line) in the box they run in. Copies link to their grids on the page."""
from __future__ import annotations

from typing import List, Tuple

from .. import ir
from ..ir.symbolic import Sym
from .model import TENSOR_STMTS, Env, FunctionModel, shown_name
from .svg import el, sym_text, text, title

WIDTH = 760.0
ROW, HEAD, PAD, CHAR = 20.0, 26.0, 10.0, 7.3
HIDDEN = (ir.Alloc, ir.Check)     # bookkeeping of the IR, not lines the user wrote


def copy_anchor(s: ir.Stmt) -> str:
    return f"copy-{s.sid}"


def mma_anchor(s: ir.Stmt) -> str:
    """The card of a tensor-core statement (tensor.py)."""
    return f"mma-{s.sid}"


class Nesting:
    def __init__(self, model: FunctionModel, env: Env):
        self.model, self.env = model, env
        self.masks = {id(p.stmt): p.masks for p in model.placed}

    def svg(self) -> str:
        fn = self.model.fn
        params = ", ".join(p.name for p in fn.params)
        head = [el("tspan", text(f"__co__ {fn.name}({params})"), class_="kw")]
        rows = [el("text", text(f"where {w.left} <-> {w.right}: {w.left} is {w.right} "
                                f"(line {w.line}, spec 4)"), class_="where")
                for w in self.model.wheres]
        body, height = self.box(fn.body, PAD, HEAD + len(rows) * ROW, WIDTH - 2 * PAD, Sym.const(1))
        where_rows = "".join(r.replace("<text", f'<text x="{PAD * 2}" y="{HEAD + i * ROW + 14}"', 1)
                             for i, r in enumerate(rows))
        total = height + PAD
        frame = el("rect", x=1, y=1, width=WIDTH - 2, height=total - 2, rx=8, class_="fn")
        return el("svg", frame + el("text", "".join(head), x=PAD * 2, y=18) + where_rows + body,
                  class_="nesting", width=WIDTH, height=total, viewBox=f"0 0 {WIDTH} {total}")

    def box(self, stmts: List[ir.Stmt], x: float, y: float, width: float, instances: Sym) -> Tuple[str, float]:
        """The statements from height ``y``: markup and the height below them."""
        out = []
        for s in stmts:
            if isinstance(s, (ir.Parallel, ir.Loop, ir.If)):
                markup, y = self.scope(s, x, y, width, instances)
                out.append(markup)
            elif not isinstance(s, HIDDEN) and not getattr(s, "implicit", False):   # implicit zero fills
                out.append(self.row(s, x, y, width))
                y += ROW
        return "".join(out), y

    def scope(self, s: ir.Stmt, x: float, y: float, width: float, instances: Sym) -> Tuple[str, float]:
        inner_x, inner_w = x + PAD, width - 2 * PAD
        show = self.model.show
        if isinstance(s, ir.Parallel):
            instances = instances * s.count
            label = f"parallel {s.var} by {show(s.count)}" + (f" : {s.kind}" if s.kind else "")
            count = [el("tspan", "× "), sym_text(s.count, self.env, "tspan"), el("tspan", " · "),
                     sym_text(instances, self.env, "tspan"), el("tspan", " instances in all")]
            cls = f"par level{min(s.level, 3)}"
        elif isinstance(s, ir.Loop):
            name = self.model.var(s.var).label
            alias = [w for w in self.model.wheres if shown_name(s.var) in (w.left, w.right)]
            also = "".join(f" (= {w.left if shown_name(s.var) == w.right else w.right}, where)" for w in alias)
            step = "" if s.step == Sym.const(1) else f" step {show(s.step)}"
            label = f"foreach {name} in [{show(s.start)}, {show(s.count)}){step}{also}"
            trips = (s.count - s.start) if s.step == Sym.const(1) else (s.count - s.start).op("/", s.step)
            count = [el("tspan", "× "), sym_text(trips, self.env, "tspan"), el("tspan", " iterations")]
            cls = "loop"
        else:
            label = f"if ({show(s.cond)})"
            count = [el("tspan", "masks the instances where it is false (spec 4)")]
            cls = "mask"
        body, bottom = self.box(s.body, inner_x, y + HEAD, inner_w, instances)
        bottom += PAD / 2
        frame = el("rect", title(self.model.line_text(s) or label), x=x, y=y, width=width,
                   height=bottom - y, rx=6, class_=f"scope {cls}")
        head = el("text", text(label), x=x + PAD, y=y + 17, class_="scope-head")
        right = el("text", "".join(count), x=x + width - PAD, y=y + 17, class_="count")
        return frame + head + right + body, bottom + PAD / 2

    def row(self, s: ir.Stmt, x: float, y: float, width: float) -> str:
        line = self.model.line_text(s) or type(s).__name__.lower()
        masks = [m for m in self.masks.get(id(s), []) if m.implicit]
        tag = f"as if masked: {self.model.show(masks[-1].cond)} only" if masks else ""
        room = int((width - PAD * 2 - len(tag) * CHAR - 40) / CHAR)
        shown = line if len(line) <= room else line[:max(room - 1, 8)] + "…"
        card = copy_anchor(s) if hasattr(s, "src") and hasattr(s, "dst") else \
            mma_anchor(s) if isinstance(s, TENSOR_STMTS) else None
        label = el("text", el("tspan", f"L{s.loc.line}", class_="ln") + el("tspan", text(" " + shown)),
                   x=x + PAD, y=y + 14, class_="stmt copy" if card else "stmt")
        if card:
            label = el("a", label, href=f"#{card}")
        if tag:
            label += el("text", text(tag), x=x + width - PAD, y=y + 14, class_="implicit")
        return label
