"""What a picture of a ``__co__`` function depends on, read once from its IR.

The reader sets values on the page: an index per ``parallel`` level and loop (a slider),
a size per symbolic dimension of a parameter and per ``int`` parameter (a number). Every
shape, offset and mask is a ``Sym`` over those names; the page's script evaluates them
(``sym_json`` is the form it reads), and ``value`` evaluates them here for the first
drawing and for static SVG.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..frontend import ast as A
from ..frontend.pipelined_loops import buffer_label
from .. import ir
from ..ir.symbolic import Sym
from ..codegen.kernel_emitter import matching
from .sizes import choose, conjuncts, size_checks

Env = Dict[str, int]
DEFAULT_SIZE = 64      # a symbolic dimension before the reader types its value (unless checks need others)
DEFAULT_SCALAR = 8     # an int parameter's


def sym_json(s: Sym) -> list:
    """[[coefficient, [atom, ...]], ...]; an atom is a variable's name or [op, operand...]."""
    return [[c, [a.name if a.op == "var" else [a.op] + [sym_json(x) for x in a.args] for a in mono]]
            for mono, c in s.terms.items()]


def value(s: Sym, env: Env) -> Optional[int]:
    """The value of ``s`` for the values in ``env``; None when something is unknown."""
    if s.is_const:
        return s.value
    folded = s.substitute({k: Sym.const(v) for k, v in env.items() if k in s.variables()})
    return folded.value if folded.is_const else None


def shown_name(ir_name: str) -> str:
    """A loop variable as the user wrote it (the IR numbers `with q` loops as q__0)."""
    return re.sub(r"__\d+$", "", ir_name)


def buffer_name(buf: ir.Buffer) -> str:
    """A buffer as the user knows it; a pipelined loop's stages as `a (stage 1)`."""
    return buffer_label(buf.source_name or buf.name)


@dataclass
class Var:
    """A value the reader sets: an instance index (``lo <= v < hi`` by ``step``) or a size."""
    name: str            # the IR's name
    label: str           # the user's
    kind: str            # parallel, loop, size, scalar
    default: int
    lo: Sym = field(default_factory=lambda: Sym.const(0))
    hi: Optional[Sym] = None
    step: Sym = field(default_factory=lambda: Sym.const(1))
    note: str = ""
    aliases: List[str] = field(default_factory=list)   # further IR names of the same size


@dataclass
class Mask:
    """A condition an instance must meet to run a statement: an `if` (spec 4's explicit
    masking) or the implicit one of code beside an inner `parallel` level."""
    cond: Sym
    implicit: bool


@dataclass
class Placed:
    """A statement with the statements around it (outermost first) and its masks."""
    stmt: ir.Stmt
    around: List[ir.Stmt]
    masks: List[Mask]


@dataclass
class Where:
    left: str
    right: str
    line: int


@dataclass
class Copy:
    """One copy statement (dma.copy, dma.transp, dma.pad, and any later IR statement
    that moves a source region into a destination region)."""
    placed: Placed
    label: str           # dma.copy.async, dma.transp, ...
    src: ir.Region
    dst: ir.Region

    @property
    def stmt(self) -> ir.Stmt:
        return self.placed.stmt


def copy_label(s: ir.Stmt) -> str:
    """The copy as written: `tma.copy.async.swiz<128>`, `dma.transp`, ..."""
    kind = str(getattr(s, "engine", type(s).__name__.lower()))
    op = getattr(s, "op", "copy")
    swizzle = getattr(s, "swizzle", 0)
    return (f"{kind}.{op}" + (".async" if getattr(s, "is_async", False) else "")
            + (f".swiz<{swizzle}>" if swizzle else ""))


# the tensor-core statements that get a card of their own (tensor.py)
TENSOR_STMTS = (ir.MmaLoad, ir.MmaStore, ir.MmaFill, ir.MmaMul)


def is_copy(s: ir.Stmt) -> bool:
    return isinstance(getattr(s, "src", None), ir.Region) and isinstance(getattr(s, "dst", None), ir.Region)


class FunctionModel:
    def __init__(self, fn: ir.Function, ast_fn: Optional[A.CoFunction], source: List[str],
                 overrides: Dict[str, int]):
        self.fn = fn
        self.source = source
        self.placed = self._place(fn.body, [], [])
        self.vars = self._size_vars(overrides) + self._instance_vars(overrides)
        self.derived = [(p.stmt.name, p.stmt.value) for p in self.placed
                        if isinstance(p.stmt, ir.ScalarDef) and p.stmt.value is not None]
        self._first_sizes(overrides)
        self.wheres = _wheres(ast_fn)
        self.copies = [Copy(p, copy_label(p.stmt), p.stmt.src, p.stmt.dst) for p in self.placed if is_copy(p.stmt)]
        self.tensor = [p for p in self.placed if isinstance(p.stmt, TENSOR_STMTS)]
        self.env = self.evaluate({v.name: v.default for v in self.vars})

    # -- the values ------------------------------------------------------------------
    def evaluate(self, given: Env) -> Env:
        """``given`` (the reader's values) with every alias and derived scalar filled in."""
        env = dict(given)
        for v in self.vars:
            for a in v.aliases:
                env[a] = env[v.name]
        for name, s in self.derived:
            got = value(s, env)
            if got is not None:
                env[name] = got
        return env

    def _first_sizes(self, overrides: Dict[str, int]) -> None:
        """Sizes the reader did not set start where the function's checks pass (sizes.py)."""
        sizes = [v for v in self.vars if v.kind in ("size", "scalar")]
        parts = [p for c in size_checks(self.fn, {n for v in sizes for n in [v.name] + v.aliases})
                 for p in conjuncts(c.cond)]
        if not parts:
            return
        free = [[v.name] + v.aliases for v in sizes
                if not any(n in overrides for n in [v.name, v.label] + v.aliases)]
        env = choose(parts, free, {v.name: v.default for v in self.vars}, self.evaluate)
        for v in sizes:
            v.default = env[v.name]

    def _size_vars(self, overrides: Dict[str, int]) -> List[Var]:
        out: List[Var] = []
        by_dim: Dict[Tuple[str, int], Var] = {}
        params = {p.name: p for p in self.fn.params}
        for b in self.fn.bindings:
            declared = params[b.param].buffer.shape[b.dim] if params[b.param].buffer is not None else None
            if declared is not None and declared.is_const:
                continue   # a fixed size: shapes fold it already
            key = (b.param, b.dim)
            if key in by_dim:
                by_dim[key].aliases.append(b.symbol)
                if "__dim" in by_dim[key].name and "__dim" not in b.symbol:
                    by_dim[key].label = b.symbol
                continue
            label = b.symbol if "__dim" not in b.symbol else f"{b.param}.span({b.dim})"
            by_dim[key] = Var(b.symbol, label, "size", DEFAULT_SIZE, note=f"{b.param}.span({b.dim})")
            out.append(by_dim[key])
        for p in self.fn.params:
            if p.kind in ("int", "bool"):
                out.append(Var(p.name, p.name, "scalar", DEFAULT_SCALAR if p.kind == "int" else 1,
                               note=f"{p.kind} parameter"))
        for v in out:
            names = [v.name, v.label] + v.aliases
            v.default = next((overrides[n] for n in names if n in overrides), v.default)
        return out

    def _instance_vars(self, overrides: Dict[str, int]) -> List[Var]:
        out = []
        for p in self.placed:
            s = p.stmt
            if isinstance(s, ir.Parallel):
                note = f"level {s.level}" + (f", {s.kind}" if s.kind else "")
                out.append(Var(s.var, s.var, "parallel", 0, hi=s.count, note=note))
            elif isinstance(s, ir.Loop):
                label = shown_name(s.var)
                start = s.start.value if s.start.is_const else 0
                out.append(Var(s.var, label, "loop", start, lo=s.start, hi=s.count, step=s.step, note="foreach"))
        shared = {v.label for v in out if v.kind == "loop" and sum(1 for w in out if w.label == v.label) > 1}
        for v in out:   # the elements of one i-tuple (`with index in [17, 4]`): index(0), index(1)
            if v.label in shared and v.name != v.label:
                v.label = f"{v.label}({v.name.rsplit('__', 1)[1]})"
        for v in out:
            v.default = overrides.get(v.name, overrides.get(v.label, v.default))
        return out

    def _place(self, stmts: List[ir.Stmt], around: List[ir.Stmt], masks: List[Mask]) -> List[Placed]:
        out: List[Placed] = []
        inner = [s for s in ir.walk(stmts) if isinstance(s, ir.Parallel)]
        here = masks
        if around and isinstance(around[-1], ir.Parallel):
            below = [s for s in inner if s.level == around[-1].level + 1]
            # spec 4: code beside an inner level runs as if masked to its first instance
            here = masks + [Mask(Sym.var(b.var).op("==", 0), True) for b in below[:1]]
        for s in stmts:
            body = getattr(s, "body", None)
            mine = masks if isinstance(s, ir.Parallel) else here
            out.append(Placed(s, around, mine))
            if body:
                inside = masks if isinstance(s, ir.Parallel) else here
                if isinstance(s, ir.If):
                    inside = inside + [Mask(s.cond, False)]
                out.extend(self._place(body, around + [s], inside))
        return out

    # -- what the pictures label things with -------------------------------------------
    def line_text(self, stmt: ir.Stmt) -> str:
        line = stmt.loc.line
        if stmt.loc.file and 1 <= line <= len(self.source):
            return self.source[line - 1].strip()
        return ""

    def show(self, s: Sym) -> str:
        """``s`` as C, with the names the user wrote (index(0) for the IR's index__0), without
        parentheses around the whole."""
        labels = {n: v.label for v in self.vars for n in [v.name] + v.aliases}
        out = s.to_c(lambda n: labels.get(n, n))
        return out[1:-1] if out.startswith("(") and matching(out, 0, "(", ")") == len(out) - 1 else out

    def var(self, name: str) -> Optional[Var]:
        return next((v for v in self.vars if v.name == name), None)


def _wheres(ast_fn: Optional[A.CoFunction]) -> List[Where]:
    if ast_fn is None:
        return []
    return [Where(w.left.name, w.right.name, w.loc.line)
            for node in A.walk(ast_fn) if isinstance(node, A.WithStmt) for w in node.wheres]
