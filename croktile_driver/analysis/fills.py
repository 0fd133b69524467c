"""Which declared data must start as zeros: the one rule every target follows.

Declared data (`f32 [M, N] out;`, `local s32 [8] t;`) reads as zeros where the program
reads an element it has not written. Filling costs a pass over the memory (a 256 MiB
`cudaMemsetAsync` per call for a streaming result), so the fill is left out where this
pass shows that every element is written before any is read:

- a write covers the buffer when it is unconditional (no `if`, no `foreach ... if`, no
  loop with `break`/`continue` or a start past 0 on the way) and its box, over all values
  of the `parallel` and `foreach` indices that enclose it inside the buffer's scope,
  tiles every dimension: per dimension the offset is a sum of index * stride whose
  strides chain from the box's extent up to the dimension (`chunkat(p, i)` with `p` and
  `i` over their whole bounds; `chunkat(p).chunkat(q)`; `at(i, j)` over the full ranges;
  symbolic shapes whose chunk is `M / n`, checked to divide);
- an `if (c) A else B` whose branches each write the whole buffer so (a kernel chosen by
  the shapes) writes it;
- the buffer counts as written once the outermost construct of those indices ends;
  before that, a read is fine only of a box the same iteration wrote before it;
- a `call` may read any argument (the device function is not seen), a `swap` gives the
  storage to another name, `return` reads the whole buffer: before the buffer is
  written, each of them needs the fill.

Data with an initialiser (`out{0.0f}`) is filled as written. Where a fill is needed it
becomes an ``ir.Fill`` with ``implicit`` set, right after the ``Alloc``, so every target
fills at the same place, with the code it has for initialisers; ``-Wimplicit-fill``
names each one, with a note at the read that needs it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..diagnostics import Loc
from .. import ir
from ..ir.symbolic import Sym, prove_equal


@dataclass
class NeedsFill:
    """Why a buffer must be zero-filled: the first place that may read it unwritten."""
    loc: Loc
    what: str


def plan_fills(fn: ir.Function, diag, warn: bool = False) -> None:
    """Puts an implicit zero ``Fill`` after each ``Alloc`` of declared data that may be read
    before it is written (see the module docstring)."""
    fn.implicit_fills = []
    _place(fn.body, fn, diag, warn)


def _place(stmts: List[ir.Stmt], fn: ir.Function, diag, warn: bool) -> None:
    i = 0
    while i < len(stmts):
        s = stmts[i]
        body = getattr(s, "body", None)
        if body:
            _place(body, fn, diag, warn)
        elif isinstance(s, ir.Alloc) and s.buffer.origin == "decl" and not _filled_next(stmts, i):
            cover = _Coverage(s.buffer)
            why = cover.first_unwritten_read(stmts[i + 1:])
            fill = ir.Fill(s.loc, s.buffer, 0, implicit=True)
            how = ": it may be read before every element is written"
            if why is None and cover.conditions:
                # the tiles cover the buffer when the shapes divide as the conditions say:
                # filled only where they do not
                unless = cover.conditions[0]
                for c in cover.conditions[1:]:
                    unless = unless.op("&&", c)
                why = NeedsFill(cover.conditions_loc, f"the tiles written here cover it only when "
                                                      f"{unless.to_c()}; it is filled when that does not hold")
                fill, how = ir.If(s.loc, unless.op("!"), [fill]), f" unless {unless.to_c()}"
            if why is not None:
                stmts.insert(i + 1, fill)
                fn.implicit_fills.append((s.buffer, why))
                if warn:
                    name = s.buffer.source_name or s.buffer.name
                    diag.warning(s.buffer.loc, f"'{name}' is zero-filled{how} [-Wimplicit-fill]")
                    diag.note(why.loc, why.what)
                i += 1
        i += 1


def _filled_next(stmts: List[ir.Stmt], i: int) -> bool:
    return i + 1 < len(stmts) and isinstance(stmts[i + 1], ir.Fill) and stmts[i + 1].buffer is stmts[i].buffer


def _region_key(offsets, extents, view=None, strides=None, base=None) -> Tuple:
    return (tuple(offsets), tuple(extents), None if view is None else tuple(view),
            None if strides is None else tuple(strides), base)


def _key(r: ir.Region) -> Tuple:
    return _region_key(r.offsets, r.extents, r.view, r.strides, r.base)


@dataclass
class _Index:
    """A `parallel`/`foreach` index inside the buffer's scope that runs over [0, count)."""
    var: str
    count: Sym
    construct: ir.Stmt


class _Coverage:
    """Follows one buffer through the statements of its scope, in execution order."""

    def __init__(self, buf: ir.Buffer):
        self.buf = buf
        self.covered = False
        self.written: List[Tuple] = []      # boxes written so far on every path (keys)
        self.covers_at: Optional[ir.Stmt] = None   # the construct whose end completes a covering write
        self.conditions: List[Sym] = []     # run-time equalities under which that write covers
        self.conditions_loc: Optional[Loc] = None
        self.pieces: Dict[Tuple, set] = {}   # (construct, dimension, the other dimensions) -> [start, end) written

    def first_unwritten_read(self, stmts: List[ir.Stmt]) -> Optional[NeedsFill]:
        try:
            self.visit(stmts, [], False)
        except _Read as r:
            return r.why
        return None

    # -- the walk ------------------------------------------------------------------------
    def visit(self, stmts: List[ir.Stmt], indices: List[_Index], conditional: bool,
              guards: Tuple[Tuple[Sym, Sym], ...] = ()) -> None:
        indices = list(indices)
        for i, s in enumerate(stmts):
            if self.covered:
                return
            self.reads(s)
            self.writes(s, indices, conditional, guards)
            skip = None if isinstance(s, ir.InThreads) or conditional else _skip_guard(s)
            if skip is not None:
                # `if (i < n)` over indices: it may skip only tiles past the data (writes())
                before = list(self.written)
                self.visit(s.body, indices, conditional, guards + (skip,))
                self.written = before
            elif isinstance(s, ir.If):
                other = _else_of(s, stmts[i + 1] if i + 1 < len(stmts) else None)
                if not conditional and other is not None and self.both_cover([s.body, other.body], indices, guards):
                    self.covered = True   # `if (c) A else B`, each writing all of it
                    return
                self.visit_maybe(s.body, indices)
            elif isinstance(s, (ir.Loop, ir.Parallel)):
                plain = isinstance(s, ir.Parallel) or (
                    not s.may_skip and s.step == Sym.const(1) and
                    not any(isinstance(x, (ir.Break, ir.Continue)) for x in ir.walk(s.body)))
                if plain:
                    inner = [_Index(s.var, s.count, s)]
                    if isinstance(s, ir.Parallel):
                        inner += _split_indices(s)
                    self.visit(s.body, indices + inner, conditional, guards)
                else:
                    self.visit_maybe(s.body, indices)
                # what one iteration wrote is no box of the code after the loop
                self.written = [k for k in self.written if s.var not in _key_vars(k)]
                if self.covers_at is s:
                    self.covered = True

    def both_cover(self, bodies: List[List[ir.Stmt]], indices: List[_Index], guards) -> bool:
        """Whether each branch of an `if`/`else` writes the whole buffer unconditionally (a
        read before that, in either, is raised as in the straight walk)."""
        for body in bodies:
            branch = _Coverage(self.buf)
            branch.written = list(self.written)
            branch.visit(body, indices, False, guards)
            if not branch.covered or branch.conditions:
                return False
        return True

    def visit_maybe(self, stmts: List[ir.Stmt], indices: List[_Index]) -> None:
        """A body that may not run (or not in full): what it writes counts only inside it."""
        before = list(self.written)
        self.visit(stmts, indices, True)
        self.written = before

    def reads(self, s: ir.Stmt) -> None:
        b = self.buf
        for r in ir.stmt_reads(s):
            if r.buffer is b:
                self.read(_region_key(r.index, [Sym.const(1)] * len(r.index), r.view), s.loc,
                          "an element is read here")
        if isinstance(s, ir.Dma) and s.src.buffer is b:
            self.read(_key(s.src), s.loc, "it is copied from here")
        elif isinstance(s, ir.MmaLoad) and s.src.buffer is b:
            self.read(_key(s.src), s.loc, "a fragment is loaded from here")
        elif isinstance(s, ir.Call):
            for a in s.args:
                if a.region is not None and a.region.buffer is b:
                    self.read(_key(a.region), s.loc, "it is passed to a function that may read it here")
        elif isinstance(s, ir.Swap) and b in (s.a, s.b):
            raise _Read(NeedsFill(s.loc, "its storage is swapped here"))
        elif isinstance(s, ir.Return) and s.buffer is b:
            raise _Read(NeedsFill(s.loc, "it is returned here"))

    def read(self, key: Tuple, loc: Loc, what: str) -> None:
        if key not in self.written:
            raise _Read(NeedsFill(loc, what))

    def writes(self, s: ir.Stmt, indices: List[_Index], conditional: bool,
               guards: Tuple[Tuple[Sym, Sym], ...] = ()) -> None:
        if isinstance(s, ir.Dma) and s.dst.buffer is self.buf:
            region = s.dst
            key = _key(region)
        elif isinstance(s, ir.MmaStore) and s.dst.buffer is self.buf:
            region = s.dst
            key = _key(region)
        elif isinstance(s, ir.Store) and s.buffer is self.buf:
            region = ir.Region(s.buffer, list(s.index), [Sym.const(1)] * len(s.index), s.view)
            key = _region_key(region.offsets, region.extents, s.view)
        else:
            return
        self.written.append(key)
        if conditional or not all(_skips_only_past_the_data(region, g) for g in guards):
            return
        construct, conditions = _covering_construct(region, indices)
        if construct is None:
            construct, conditions = self.pieces_cover(region, indices)
        if construct is _WHOLE and not conditions:
            self.covered = True
        elif construct is not None and self.covers_at is None:
            self.covers_at = construct
            self.conditions, self.conditions_loc = conditions, s.loc


    def pieces_cover(self, region: ir.Region, indices: List[_Index]):
        """Writes that cover the buffer together: alike but for one dimension, where each
        is a constant piece (`.at(0, g, 0)` and `.at(0, g, 1)` of a two-part row) and the
        pieces so far fill it. (construct, conditions) as _covering_construct's."""
        for d, (off, ext, dim) in enumerate(zip(region.offsets, region.extents, region.buffer.shape)):
            if not (off.is_const and ext.is_const and dim.is_const):
                continue
            construct, conditions = _covering_construct(region, indices, skip=d)
            if construct is None:
                continue
            others = tuple((o.key(), e.key()) for i, (o, e) in enumerate(zip(region.offsets, region.extents))
                           if i != d)
            pieces = self.pieces.setdefault((id(construct), d, others), set())
            pieces.add((off.value, off.value + ext.value))
            end = 0
            for start, stop in sorted(pieces):
                if start > end:
                    break
                end = max(end, stop)
            if end >= dim.value:
                return construct, conditions
        return None, []


class _Read(Exception):
    def __init__(self, why: NeedsFill):
        super().__init__(why.what)
        self.why = why


def _key_vars(key: Tuple) -> set:
    out = set()
    for part in key:
        if isinstance(part, tuple):
            for sym in part:
                out |= sym.variables()
        elif isinstance(part, Sym):
            out |= part.variables()
    return out


_WHOLE = object()


def _covering_construct(region: ir.Region, indices: List[_Index], skip: Optional[int] = None):
    """(construct, conditions): the outermost construct whose end completes the writes of
    ``region`` over all its indices to the whole buffer (``_WHOLE``: the region is the
    buffer), or None when they do not tile it; the conditions are equalities of run-time
    sizes under which they do (tiles of 128 over `M / 128` instances cover `M` rows when
    `128 * (M / 128) == M`)."""
    if region.view is not None or region.strides is not None:
        return None, []
    by_var: Dict[str, _Index] = {ix.var: ix for ix in indices}
    used: Dict[str, _Index] = {}
    conditions: List[Sym] = []
    for d, (off, ext, dim) in enumerate(zip(region.offsets, region.extents, region.buffer.shape)):
        if d == skip:   # (pieces_cover: the dimension the writes share out)
            continue
        if ext.variables() & set(by_var):
            return None, []
        strides = _strides(off, by_var)
        if strides is None:
            strides = _reversed_strides(off, by_var)
        if strides is None or any(v in used for v in strides):
            return None, []
        # an index of one value (`parallel g by 1`) is always 0: its stride, which may equal
        # another index's, would otherwise be taken for that one's
        strides = {v: st for v, st in strides.items() if by_var[v].count != Sym.const(1)}
        forms = [(ext, True)]   # forms of the extent covered so far (and whether each is exact)
        while strides:
            var = next((v for v, st in strides.items() if any(prove_equal(st, f) for f, _ in forms)), None)
            if var is None:
                return None, []
            forms = _times(forms, by_var[var].count)
            used[var] = by_var[var]
            del strides[var]
        if _clipped_at_end(region, d, dim) and any(_at_least(f, dim) for f, _ in forms):
            continue   # a partial tile stops at the data's end: tiles reaching past it cover it
        if not any(exact and prove_equal(f, dim) for f, exact in forms):
            # the product of the tiles' extent and counts (forms[0]) covers the dimension
            # when it equals it
            if dim.is_const and forms[0][0].is_const:
                return None, []
            conditions.append(forms[0][0].op("==", dim))
    if not used:
        return _WHOLE, conditions
    return next(ix.construct for ix in indices if ix.var in used), conditions


def _clipped_at_end(region: ir.Region, d: int, dim: Sym) -> bool:
    """Whether the writes of ``region`` in dimension ``d`` stop at ``dim``, the buffer's end
    (a partial tile of the buffer itself)."""
    return region.limits is not None and bool(prove_equal(region.limits[d], dim))


def _scaled_atom(sym: Sym, op: str):
    """``(c, atom)`` where ``sym`` is c times one ``op`` atom (`c * (a / b)`), else None."""
    if len(sym.terms) != 1:
        return None
    (mono, coeff), = sym.terms.items()
    if len(mono) != 1 or mono[0].op != op:
        return None
    return coeff, mono[0]


def _cdiv_parts(sym: Sym) -> Optional[Tuple[int, Sym, Sym]]:
    """``(k, n, c)`` where ``sym`` is k * cdiv(n, c), cdiv(n, c) = (n + c - 1) / c for a
    constant c, else None."""
    found = _scaled_atom(sym, "/")
    if found is None:
        return None
    k, atom = found
    num, den = atom.args
    if not den.is_const or den.value <= 0:
        return None
    return k, num - (den - Sym.const(1)), den


def _at_least(form: Sym, dim: Sym) -> bool:
    """``form`` is c * cdiv(dim, c): c tiles' worth of elements per tile index over
    cdiv(dim, c) of them, at least ``dim``."""
    parts = _cdiv_parts(form)
    return parts is not None and parts[0] == parts[2].value and bool(prove_equal(parts[1], dim))


def _else_of(s: ir.If, after: Optional[ir.Stmt]) -> Optional[ir.If]:
    """The `else` of `s` (sema lowers `if (c) A else B` to `if (c) A` and `if (!c) B`)."""
    if isinstance(after, ir.If) and not isinstance(after, ir.InThreads) and not isinstance(s, ir.InThreads):
        if after.cond == s.cond.op("!"):
            return after
    return None


def _skip_guard(s: ir.Stmt) -> Optional[Tuple[Sym, Sym]]:
    """``(e, n)`` for `if (e < n)` (no else branch in the IR), else None."""
    found = _scaled_atom(s.cond, "<") if isinstance(s, ir.If) else None
    if found is None or found[0] != 1:
        return None
    return found[1].args[0], found[1].args[1]


def _skips_only_past_the_data(region: ir.Region, guard: Tuple[Sym, Sym]) -> bool:
    """The guard `e < n` leaves out only tiles that start past the buffer's end: some
    dimension's offset is ext * e, written up to the buffer's end (a partial tile) or
    whole, and ext * n reaches that end (n = cdiv(dim, ext))."""
    e, n = guard
    parts = _cdiv_parts(n)
    if parts is None or parts[0] != 1:
        return False
    _, count_of, tile = parts
    return any(off == e * ext and tile == ext and prove_equal(count_of, dim)
               for off, ext, dim in zip(region.offsets, region.extents, region.buffer.shape))


def _reversed_strides(off: Sym, by_var: Dict[str, _Index]) -> Optional[Dict[str, Sym]]:
    """The strides of ``off`` over an index taken in reverse, n - 1 - i over [0, n) (the
    same elements: `parallel` blocks of a causal attention, the longest rows first)."""
    for var in off.variables() & set(by_var):
        count = by_var[var].count
        strides = _strides(off.substitute({var: count - Sym.const(1) - Sym.var(var)}), by_var)
        if strides is not None:
            return strides
    return None


def _split_indices(par: ir.Parallel) -> List[_Index]:
    """`parallel {a, b} by [A, B]` is one index `p` over A * B with `a = p / B` and
    `b = p % B` defined at the start of its body: those, as indices over A and B."""
    out = []
    for st in par.body:
        if not (isinstance(st, ir.ScalarDef) and st.value is not None):
            break
        count = _part_count(st.value, par.var, par.count)
        if count is not None:
            out.append(_Index(st.name, count, par))
    return out


def _part_count(value: Sym, var: str, count: Sym) -> Optional[Sym]:
    """The range of `var / D` (count / D, where D divides it), `var % D` or `(var / E) % D`
    (D), else None."""
    found = _scaled_atom(value, "/") or _scaled_atom(value, "%")
    if found is None or found[0] != 1:
        return None
    atom = found[1]
    num, den = atom.args
    if atom.op == "%":
        inner = _scaled_atom(num, "/")
        of_var = num == Sym.var(var) or (inner is not None and inner[0] == 1 and inner[1].args[0] == Sym.var(var))
        return den if of_var else None
    if num != Sym.var(var):
        return None
    return count.exact_div(den)


def _strides(off: Sym, by_var: Dict[str, _Index]) -> Optional[Dict[str, Sym]]:
    """``off`` as sum(var * stride) over the indices (strides free of them), else None."""
    out: Dict[str, Sym] = {}
    for mono, coeff in off.terms.items():
        found = [a for a in mono if a.op == "var" and a.name in by_var]
        rest = tuple(a for a in mono if a not in found)
        if len(found) != 1 or mono.count(found[0]) != 1:
            return None
        stride = Sym({rest: coeff})
        if stride.variables() & set(by_var):
            return None
        out[found[0].name] = out.get(found[0].name, Sym.const(0)) + stride
    return out


def _times(forms: List[Tuple[Sym, bool]], count: Sym) -> List[Tuple[Sym, bool]]:
    """``extent * count`` for each form of the extent, and, where one of them is the other's
    dimension divided by it, that dimension too: chunkat's extent ``M / n`` of a symbolic
    dimension (sema checks at run time that the division is exact: the form is exact), or
    a count ``parallel p by M / 64`` over tiles of 64 (nothing checks it: the form holds
    only where 64 divides M). The first form is always the plain product."""
    out = []
    for extent, exact in forms:
        out.append((extent * count, exact))
        for quotient, factor, checked in ((extent, count, True), (count, extent, False)):
            if len(quotient.terms) == 1:
                (mono, coeff), = quotient.terms.items()
                if coeff == 1 and len(mono) == 1 and mono[0].op == "/" and mono[0].args[1] == factor:
                    out.append((mono[0].args[0], exact and checked))
    return out


def report(fn: ir.Function) -> str:
    """--memory-report: which declared data of ``fn`` is zero-filled, and why."""
    declared = [b for b in fn.buffers if b.origin == "decl"]
    loc = fn.loc
    out = [f"{loc.file}:{loc.line}:{loc.col}: zero fills of '{fn.name}': {len(fn.implicit_fills)} of "
           f"{len(declared)} declared buffers (the others are written in full before any read, or have "
           "an initialiser)"]
    for buf, why in fn.implicit_fills:
        out.append(f"  {buf.source_name or buf.name} ({buf.describe()}, line {buf.loc.line}): {why.what} "
                   f"(line {why.loc.line})")
    return "\n".join(out)
