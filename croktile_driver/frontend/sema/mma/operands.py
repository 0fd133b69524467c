"""The fragments of a function and what kind each operand of a tensor-core statement is,
checked in one place (forms.py's and rows.py's statements ask it).

A fragment's kind, its role, is learnt from the statements that use it: an accumulator
(`c`), an A or B operand (`a`, `b`), the metadata of a sparse A (`e`), a row vector
(`r`). Every statement takes its fragments through ``take`` with the kinds it accepts,
so a wrong use is one error that says what the fragment is and what the statement needs
(never a lookup that fails). A fragment whose making was an error is *poisoned*: its
uses are silent failures, so one mistake gives one error.

The levels: every tensor-core statement is done by all threads of a warp together (of a
warp group, where a `group-4` level holds it), so it may be at the block level or at a
`group`/`group-4` level, never inside a level of threads (`: thread`, or an unannotated
level inside another: the threads of an instance) where one thread would run it, and a
warp group's not inside one of its warps (`level_ok`).

After the function, ``finish`` completes what only the whole function tells (a role for
each fragment, a type, an instruction whose layout holds an accumulator that nothing
multiplies) and rejects the uses that its role makes wrong, so the code generators read
the fields of ``ir.Frag`` without checking them.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from ... import ast as A
from .... import ir
from ....ir.dataclass import dataclass
from ....ir.mma_forms import accumulator_form
from ..context import CheckContext, ExprCheck
from ..values import Symbol, VInt, Value, scalar

# what a fragment of each role is, in messages
KIND = {"a": "an A operand", "b": "a B operand", "c": "an accumulator", "e": "sparsity metadata",
        "r": "a row vector", None: "a fragment"}


@dataclass
class VFrag(Value):
    ref: ir.FragRef
    kind = "a fragment"


def describe(f: ir.Frag) -> str:
    if f.converted:
        return "an A operand made by 'mma.cvt'"
    return KIND[f.role]


class FragOperands:
    """The function's fragments, their lookup by name, their kinds and levels."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr
        self.frags: List[ir.Frag] = []          # every fragment and row vector of the function
        self.in_errors: Set[str] = set()        # fragments of a rejected statement: no second error
        self.poisoned: Set[str] = set()         # fragments whose making was an error: uses are silent

    # -- making ------------------------------------------------------------------------
    def new(self, name: A.Name, elem: Optional[str], role: Optional[str] = None) -> ir.Frag:
        """A fragment declared here; a warp group's inside a `group-4` level."""
        frag = ir.Frag(self.ctx.unique(name.name), elem, self.ctx.level, name.loc, role=role)
        if self.in_warp_group():
            frag.engine = ir.MmaEngine.WGMMA
        self.ctx.declare(name, Symbol(name.name, "fragment", VFrag(ir.FragRef(frag)), name.loc, frag.name))
        self.frags.append(frag)
        return frag

    def poison(self, name: A.Name) -> None:
        """`name = mma...;` was an error: a new name is a fragment whose uses say nothing
        more (a fragment made again stays what it was)."""
        existing = self.ctx.scope.lookup(name.name)
        if existing is None:
            frag = self.new(name, None)
            self.poisoned.add(frag.name)
        elif existing.kind == "fragment":
            frag = existing.value.ref.frag
        else:
            return
        self.in_errors.add(frag.name)

    def reject(self, args: List[A.Node]) -> None:
        """A statement with these operands was an error: no 'never used' error for them."""
        for a in args:
            while isinstance(a, A.SpanDerive):
                a = a.base
            sym = self.ctx.scope.lookup(a.name) if isinstance(a, A.Name) else None
            if sym is not None and sym.kind == "fragment":
                self.in_errors.add(sym.ir_name)

    def in_warp_group(self) -> bool:
        return any(p.kind == "group-4" for p in self.ctx.parallel_stack)

    # -- looking up -----------------------------------------------------------------------
    def existing(self, name: A.Name) -> Optional[ir.FragRef]:
        """The fragment `name = mma...;` makes again, or None where the name is new."""
        sym = self.ctx.scope.lookup(name.name)
        return sym.value.ref if sym is not None and sym.kind == "fragment" else None

    def names_fragment(self, e: A.Node) -> bool:
        while isinstance(e, A.SpanDerive):
            e = e.base
        sym = self.ctx.scope.lookup(e.name) if isinstance(e, A.Name) else None
        return sym is not None and sym.kind == "fragment"

    def lookup(self, e: A.Node) -> Optional[ir.FragRef]:
        """The fragment (an element of a fragment array: `mc[i][j]`) that `e` names."""
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
        if frag.name in self.poisoned:
            return None
        if len(index) != len(frag.dims):
            self.error(e.loc, f"'{e.name}' has {len(frag.dims)} array dimensions; {len(index)} indices given")
            return None
        for i, (ix, d) in enumerate(zip(index, frag.dims)):
            if ix.is_const and not 0 <= ix.value < d:
                self.error(e.loc, f"index {ix.value} is out of range for dimension {i} of '{e.name}' ({d})")
                return None
        return ir.FragRef(frag, index)

    def take(self, e: A.Node, kinds: str, needs: str, assign: bool = True) -> Optional[ir.FragRef]:
        """The fragment `e` names where its role is one of `kinds` (role letters); one with
        no role yet takes the first of them (unless not `assign`). Else an error: what the
        fragment is, then `needs` (what the statement takes)."""
        ref = self.lookup(e)
        if ref is None or not self.is_kind(ref.frag, e.loc, kinds, needs, assign):
            return None
        return ref

    def is_kind(self, frag: ir.Frag, loc, kinds: str, needs: str, assign: bool = True) -> bool:
        born = kinds.replace("r", "")   # a row vector is one from its making: no role yet is another kind
        if frag.role is None and born:
            if assign:
                frag.role = born[0]
            return True
        if frag.role is None or frag.role not in kinds:
            self.error(loc, f"'{frag.name}' is {describe(frag)}; {needs}")
            return False
        return True

    # -- levels ---------------------------------------------------------------------------
    def level_ok(self, loc, what: str) -> bool:
        """Whether the level the statement is in may hold a tensor-core statement (`what`
        names it): one whose instances are a block, a warp group or a warp."""
        stack = self.ctx.parallel_stack
        inner = stack[-1]
        if inner.kind == "thread" or (inner.kind is None and len(stack) > 1):
            whole = ("a warp group together, so it cannot be inside a level of threads; put it at the "
                     "'group-4' level") if self.in_warp_group() else \
                ("a warp together, so it cannot be inside a level of threads; put it at the level of the warp "
                 "('parallel ... : group') or of the warp group ('group-4')")
            self.error(loc, f"{what} is done by all threads of {whole}")
            self.ctx.diag.note(inner.loc, "this level's instances are threads"
                                          + ("" if inner.kind else " (an unannotated level inside another)"))
            return False
        if inner.kind == "group" and self.in_warp_group():
            self.error(loc, f"inside a 'group-4' level {what} is done by the whole warp group, so it cannot be "
                            "inside one of its warps (a ': group' level); put it at the 'group-4' level")
            return False
        return True

    # -- after the function -----------------------------------------------------------------
    def finish(self, body: List[ir.Stmt]) -> None:
        """What the whole function tells: every fragment has a role and a type, a warp's
        accumulator an instruction whose layout holds it; uses that its role makes wrong."""
        for f in self.frags:
            if f.name in self.in_errors or f.role == "r":
                continue
            if f.rows is None:
                self.error(f.loc, f"'{f.name}' is never used by 'mma.row.col' or 'mma.store', so its tile "
                                  "shape is unknown")
                self.in_errors.add(f.name)
                continue
            if f.elem is None:
                f.elem = "f32"
            if f.role == "c" and f.inst is None and f.engine is ir.MmaEngine.SYNC:
                form = accumulator_form(f.rows, f.cols, f.elem)
                if form is None:
                    self.error(f.loc, f"no tensor-core instruction holds a {f.rows} x {f.cols} accumulator of "
                                      f"{f.elem}")
                    continue
                f.inst = (form.m, form.n, form.k)
        bad: Dict[str, bool] = {}
        for s in ir.walk(body):
            if isinstance(s, (ir.MmaFill, ir.FragUpdate, ir.MmaLoad)):
                self._by_role(s, bad)

    def _by_role(self, s: ir.Stmt, bad: Dict[str, bool]) -> None:
        """A warp group's operand is a view of shared memory (`mma.load.swiz<N>`) or an A
        made by `mma.cvt`: neither is filled or updated, the second not loaded; its
        accumulator is not loaded (wgmma has no such layout)."""
        f = s.ref.frag
        if f.name in self.in_errors or f.name in bad or f.engine is not ir.MmaEngine.WGMMA:
            return
        if f.role in ("a", "b") and not f.converted and isinstance(s, ir.MmaLoad) and s.src.buffer.elem != f.elem:
            self.error(s.loc, f"'{f.name}' is {KIND[f.role]} of a warp group, a view of shared memory of {f.elem}; "
                              f"it cannot be loaded from {s.src.buffer.elem} data (wgmma reads it where it is)")
            bad[f.name] = True
        elif f.role in ("a", "b") and (f.converted or not isinstance(s, ir.MmaLoad)):
            what = {ir.MmaFill: "filled", ir.FragUpdate: "updated", ir.MmaLoad: "loaded"}[type(s)]
            made = "made by 'mma.cvt' in registers" if f.converted else \
                "a view of shared memory ('mma.load.swiz<N>')"
            self.error(s.loc, f"'{f.name}' is {KIND[f.role]} of a warp group, {made}; it cannot be {what}")
            bad[f.name] = True
        elif f.role == "c" and isinstance(s, ir.MmaLoad):
            self.error(s.loc, f"'{f.name}' is a warp group's accumulator; it is not loaded from memory (make it "
                              "with 'mma.fill')")
            bad[f.name] = True

