"""Checks and lowering of the reference compiler's data-movement forms (issue #13):
`dma.any`, `select(k, a, b, ...)` of data and futures, DMA into a `select`, `after`
dependences, `dma.pad<...>` and `dma.transp<...>`.

The copies themselves (`dma.copy`, into new or named data) and the futures they give
(`swap`, `wait`, `f.data`) are here too: the expression checker makes one ``DmaForms``
(`select` and `f.data` are expressions), the statement checker sends it the copies. Two
lowering ideas carry the forms beyond the spec:

* a `select` of data is an *alias* buffer (``ir.Buffer.alias``: the selector, held in a
  scalar defined where the select is, and the candidate regions); ``expand_aliases``
  rewrites each statement that touches one into one copy per candidate under
  ``if (selector == i)``, so no code generator ever sees an alias;
* a `select` of futures is a future whose ``candidates`` are the selected ones: waiting it
  waits them all (more waiting than needed is never wrong), and its data is the alias.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from .. import ast as A
from ... import ir
from . import pending as P
from ...ir.symbolic import Sym, prove_equal
from ...diagnostics import Loc
from .context import CheckContext, ExprCheck, shape_text as _shape_text
from .spanned import SpannedData
from .values import Future, Symbol, VData, VError, VExpr, VFloat, VFuture, VInt, VPacked, VTuple, Value
from .values import article as _article, kind_name as _kind_name, scalar, start_loc as _start_loc

_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def _ordinal(n: int) -> str:
    return _ORDINAL.get(n, f"{n}th")


_int = scalar   # a one-element ituple is its integer


def _describe(v: Value) -> str:
    """`local f32 [4, 2]` / `async local f32 [4, 2]` for select's type messages."""
    if isinstance(v, VFuture):
        f = v.future
        buf = f.region.buffer
        return (f"{'async' if f.is_async else 'sync'} future of {buf.storage} {f.elem} "
                f"[{', '.join(d.to_c() for d in f.region.extents)}]")
    buf = v.region.buffer
    return f"{buf.storage} {v.elem} [{', '.join(d.to_c() for d in v.region.extents)}]"


def substitute_region(r: ir.Region, mapping: dict) -> ir.Region:
    """The region with an alias buffer replaced by the chosen candidate region."""
    cand = mapping.get(id(r.buffer))
    if cand is None:
        return r
    limits = None if r.limits is None else [c + lim for c, lim in zip(cand.offsets, r.limits)]
    return ir.Region(cand.buffer, [c + o for c, o in zip(cand.offsets, r.offsets)], list(r.extents), limits=limits)


def _aliases_of(s: ir.Stmt) -> List[ir.Buffer]:
    regions = []
    if isinstance(s, ir.Dma):
        regions = [s.src, s.dst]
    elif isinstance(s, ir.Call):
        regions = [a.region for a in s.args if a.region is not None]
    out: List[ir.Buffer] = []
    for r in regions:
        if r.buffer.alias is not None and all(r.buffer is not b for b in out):
            out.append(r.buffer)
    return out


def _rewrite(s: ir.Stmt, mapping: dict) -> ir.Stmt:
    if isinstance(s, ir.Dma):
        return ir.Dma(s.loc, substitute_region(s.src, mapping), substitute_region(s.dst, mapping),
                      s.is_async, s.future, s.op, s.perm, s.pad, s.swizzle, s.engine)
    args = [ir.CallArg(a.kind, substitute_region(a.region, mapping) if a.region is not None else None,
                       a.value, a.text) for a in s.args]
    return ir.Call(s.loc, s.func, s.template_args, args)


def expand_aliases(stmts: List[ir.Stmt]) -> List[ir.Stmt]:
    """Each copy or call that touches a `select` alias becomes one statement per candidate,
    each under `if (selector == i)` (nested when it touches several aliases)."""
    out: List[ir.Stmt] = []
    for s in stmts:
        aliases = _aliases_of(s)
        if not aliases:
            out.append(s)
            continue

        def build(k: int, mapping: dict) -> List[ir.Stmt]:
            if k == len(aliases):
                return [_rewrite(s, mapping)]
            selector, candidates = aliases[k].alias
            branches = []
            for i, cand in enumerate(candidates):
                body = build(k + 1, {**mapping, id(aliases[k]): cand})
                branches.append(ir.If(s.loc, selector.op("==", i), body))
            return branches
        out.extend(build(0, {}))
    return out


class DmaForms:
    """Copies, futures and the data-movement forms beyond the spec; see the module docstring."""

    def __init__(self, ctx: CheckContext, expr: ExprCheck, spanned: SpannedData):
        self.ctx = ctx
        self.error = ctx.error
        self.expr = expr             # the expression checker's
        self.spanned = spanned       # strided and reshaped regions (spanned.py)
        self.dma_counter = 0         # copies into new buffers so far (their names)
        self.placeholders: List[Future] = []   # futures defined by `dma.any`
        self.any_classes: Dict[int, List[Future]] = {}   # futures of one type (``infer_any``)
        self.any_reported: Set[int] = set()   # `dma.any` futures already in an error
        self.ir_waits: List[ir.Wait] = []     # every `wait` of futures (``finish_placeholders`` trims them)

    # -- copies ------------------------------------------------------------------------
    def copy(self, node: A.DmaCopy, future_name: Optional[A.Name],
             placeholder: Optional[Future] = None) -> List[ir.Stmt]:
        """`dma.copy src => dst;` (also `.async`, `dma.pad`, `dma.transp`), its future named
        ``future_name`` (or the `dma.any` ``placeholder`` it binds)."""
        if node.op not in ("copy", "pad", "transp"):
            self.error(node.op_loc, f"unknown DMA operation 'dma.{node.op}'; expected 'dma.copy', 'dma.pad', "
                                    "'dma.transp' or 'dma.any'")
            return self._declare_failed_future(future_name)
        if node.is_async == "sp" or node.sparse is not None:
            self.error(getattr(node, "config_loc", None) or node.async_word or node.op_loc,
                       "structured-sparsity copies ('dma.copy.sp<2:4>') are not supported yet")
            return self._declare_failed_future(future_name)
        if node.is_async not in (False, "async"):
            self.error(node.async_word, f"unknown DMA modifier '.{node.is_async}'; expected '.async'")
            return self._declare_failed_future(future_name)
        if (node.config is None) != (node.op == "copy"):
            what = (f"'dma.{node.op}' needs its configuration, e.g. "
                    + ("'dma.transp<1, 0>'" if node.op == "transp" else "'dma.pad<{1, 1}, {1, 1}, {0, 0}, 0>'")
                    if node.config is None else "'dma.copy' takes no '<...>' configuration")
            self.error(getattr(node, "config_loc", None) or node.op_loc, what)
            return self._declare_failed_future(future_name)
        is_async = node.is_async == "async"
        swizzle = self.dma_swizzle(node)
        if swizzle is None:
            return self._declare_failed_future(future_name)
        after = self.after_waits(node)
        src = self.expr(node.src)
        if isinstance(src, VFuture):
            src = self.future_data(src.future, node.src.loc)
        if isinstance(src, VError):
            return self._declare_failed_future(future_name)
        packed = None   # `x.chunkat(..).span_as(s)` of non-contiguous x: copied into shape s
        if isinstance(src, VPacked):
            if node.op != "copy":
                self.error(node.src.loc, f"'dma.{node.op}' of non-contiguous data reshaped by 'span_as' is not "
                                         "supported yet; 'dma.copy' packs it")
                return self._declare_failed_future(future_name)
            packed, src = src.dims, src.data
        if not isinstance(src, VData):
            if isinstance(src, VExpr):   # `a.at(i)` on data is one element, not a tile
                self.error(node.src.loc, "the source of 'dma.copy' must be spanned data, not an element: in a "
                                         "copy, '.at(...)' must follow '.chunk(...)' or '.subspan(...)'")
            else:
                self.error(node.src.loc, f"the source of 'dma.copy' must be spanned data, not {_kind_name(src)}")
            return self._declare_failed_future(future_name)
        self.ctx.check_readable(src, _start_loc(node.src))
        out: List[ir.Stmt] = list(after)
        extents = list(src.region.extents) if packed is None else list(packed)
        perm = pad = None
        if node.op != "copy":
            shaped = self.transform_shape(node, src)
            if shaped is None:
                return self._declare_failed_future(future_name)
            extents, perm, pad = shaped
        if isinstance(node.dst, A.StorageRef):
            storage = node.dst.storage
            if self.ctx.level == 0 and storage in ("local", "shared"):
                self.error(node.dst.loc, f"a copy into '{storage}' memory must be inside 'parallel'")
                return self._declare_failed_future(future_name)
            if self.ctx.level > 0 and storage == "global":
                self.error(node.dst.loc, "a copy into new 'global' data must be outside 'parallel'")
                return self._declare_failed_future(future_name)
            self.dma_counter += 1
            own = None if placeholder is None else \
                self.assign_to_any(placeholder, storage, src.elem, extents, is_async, node.dst.loc)
            if own is False:
                return []
            if own is not None:   # a `dma.any` that has its buffer already
                buf = own
            else:
                base = f"{future_name.name}_buf" if future_name else f"dma{self.dma_counter}_buf"
                buf = self.ctx.new_buffer(base, src.elem, storage, extents, node.dst.loc, "dma",
                                          future_name.name if future_name else "")
            dst = VData(ir.Region(buf, [Sym.const(0)] * len(extents), extents), src.elem)
            self.ctx.check_readable(dst, node.dst.loc, "written")  # the previous iteration's copy
            if own is None:
                out.append(ir.Alloc(node.dst.loc, buf))
        else:
            dst = self.expr(node.dst)
            if isinstance(dst, VFuture):
                dst = self.future_data(dst.future, node.dst.loc)
            if isinstance(dst, VError):
                return self._declare_failed_future(future_name)
            if not isinstance(dst, VData):
                self.error(node.dst.loc, f"the destination of 'dma.copy' must be spanned data or a storage "
                                         f"class ('local', 'shared', 'global'), not {_kind_name(dst)}")
                return self._declare_failed_future(future_name)
            dst_at = _start_loc(node.dst)
            if dst.elem != src.elem:
                self.error(dst_at, f"'dma.{node.op}' does not convert: source is '{src.elem}' data, "
                                   f"destination is '{dst.elem}' data")
                return self._declare_failed_future(future_name)
            self.ctx.check_readable(dst, dst_at, "written")
            before = self.ctx.diag.errors
            out += self.ctx.shape_match(dst_at, extents, list(dst.region.extents),
                                        "the copied chunk", "the destination")
            if self.ctx.diag.errors != before:
                return self._declare_failed_future(future_name)
        fut_ir_name = None
        if placeholder is not None:   # the first copy assigned to a `dma.any`
            fut = placeholder
            if len(self.any_class(fut)) > 1 and dst.region.buffer is not fut.shell:
                self.error(_start_loc(node.dst), f"'{fut.user_name}' was swapped or selected before this copy, "
                                                 "which must therefore go to its own buffer ('=> local' or "
                                                 "'=> shared')")
                return []
            fut.region, fut.elem, fut.is_async, fut.used = dst.region, src.elem, is_async, True
            fut.assigned = True
            fut.loc = future_name.loc
            fut_ir_name = fut.name
            if is_async:
                self.ctx.flow.append(P.Issue(fut))
        elif future_name is not None:
            fut_ir_name = self.ctx.unique(future_name.name)
            fut = Future(fut_ir_name, future_name.name, dst.region, src.elem, is_async, future_name.loc)
            self.ctx.declare(future_name, Symbol(future_name.name, "future", VFuture(fut), future_name.loc,
                                                 fut_ir_name))
            if is_async:
                self.ctx.flow.append(P.Issue(fut))
        elif is_async:
            self.ctx.diag.warning(node.loc, "the future of this 'dma.copy.async' is discarded, so it can never be "
                                        "waited; assign it, e.g. 'f = dma.copy.async ...;'")
        dst_region = dst.region
        if packed is not None:   # the destination seen with the source chunk's shape
            chunk = list(src.region.extents)
            whole = dst.region.is_whole and dst.region.view is None and dst.region.strides is None
            dst_region = (ir.Region(dst.region.buffer, [Sym.const(0)] * len(chunk), chunk, list(chunk)) if whole
                          else self.spanned.contiguous_view(dst.region, chunk))
            if dst_region is None:
                self.error(_start_loc(node.dst), "a copy that packs non-contiguous data needs a contiguous "
                                                 f"destination, not {_shape_text(dst.region.extents)} of "
                                                 f"{_shape_text(dst.region.shape)}")
                return out
        if src.region.strides is not None or dst_region.strides is not None:
            return out + self.spanned.strided_copy(node, src.region, dst_region, is_async)
        out.append(ir.Dma(node.loc, src.region, dst_region, is_async, fut_ir_name, node.op, perm, pad,
                          swizzle=swizzle, engine=getattr(node, "engine", "dma")))
        return out

    def _declare_failed_future(self, name: Optional[A.Name]) -> List[ir.Stmt]:
        if name is not None and self.ctx.scope.lookup(name.name) is None:
            self.ctx.declare(name, Symbol(name.name, "error", VError(), name.loc))
        return []

    def future_data(self, fut: Future, loc: Loc) -> Value:
        """`f.data`: a read that the dataflow of pending.py checks against f's pending copy
        (for a `select` of futures: against every copy its alias may reach)."""
        if not self.require_bound(fut, loc, "data"):
            return VError()
        self.ctx.flow.append(P.Access(fut.region.buffer, loc, via=fut if fut.candidates is None else None))
        return VData(fut.region, fut.elem, fut)

    # -- swap and wait ---------------------------------------------------------------
    def swap(self, e: A.Call) -> List[ir.Stmt]:
        """`swap(f, g)`: the two futures exchange their buffers (double buffering);
        `rotate(f, g, h)` is `swap(f, g); swap(g, h);` (f takes g's, g takes h's, h takes f's)."""
        fname = e.func.name
        n = len(e.args)
        if not all(isinstance(a, A.Name) for a in e.args) or (n != 2 if fname == "swap" else n < 2):
            self.error(e.loc, "'swap' takes two futures: 'swap(f, g);'" if fname == "swap"
                       else "'rotate' takes two or more futures: 'rotate(f, g, h);'")
            return []
        futures = []
        for a in e.args:
            sym = self.ctx.scope.lookup(a.name)
            if sym is None:
                self.error(a.loc, f"'{a.name}' was not declared in this scope")
                return []
            if sym.kind == "error":
                return []
            if sym.kind != "future":
                self.error(a.loc, f"'{fname}' takes futures, but '{a.name}' is {_article(sym.kind)}")
                return []
            fut = sym.value.future
            fut.used = True
            futures.append(fut)
        out: List[ir.Stmt] = []
        for i in range(n - 1):
            pair = self.swap_pair(e, e.args[i], e.args[i + 1], futures[i], futures[i + 1])
            if pair is None:
                return []
            out += pair
        return out

    def swap_pair(self, e: A.Call, a: A.Name, b: A.Name, f: Future, g: Future) -> Optional[List[ir.Stmt]]:
        if f is g:
            return []
        if not self.swap_scopes_agree(e.loc, a, b, f, g):
            return None
        for name, fut in ((a, f), (b, g)):
            if fut.region is None or fut.candidates is not None:
                continue
            buf = fut.region.buffer
            if buf.origin != "dma" or not fut.region.is_whole:
                self.error(name.loc, f"'swap' needs futures of copies into 'local' or 'shared' ('{name.name} = "
                                     f"dma.copy ... => local;'); swapping a future whose copy fills named data "
                                     f"('{buf.source_name or buf.name}') is not supported yet")
                return None
            if not all(v in self.ctx.host_vars for d in buf.shape for v in d.variables()):
                self.error(name.loc, f"the shape of '{name.name}' must be known when its 'parallel' block starts "
                                     "to swap it")
                return None
        for name, fut in ((a, f), (b, g)):
            if fut.candidates is not None:
                self.error(name.loc, f"'swap' of a 'select' of futures ('{name.name}') is not supported yet")
                return None
        if f.region is None or g.region is None:
            if not self.infer_any([f, g], e.loc, e.func.name):
                return None
            if f.region is None or g.region is None:   # both typeless yet: their buffers get a type later
                self.ctx.flow.append(P.Swap(f, g))
                return [ir.Swap(e.loc, f.shell, g.shell)]
        fb, gb = f.region.buffer, g.region.buffer
        if fb is gb:
            return []
        if fb.storage != gb.storage or f.elem != g.elem or fb.level != gb.level or f.is_async != g.is_async:
            self.error(e.loc, f"'swap' needs two futures of the same storage, element type, parallel level and "
                              f"kind (async or not) ('{'async ' if f.is_async else ''}{fb.storage} {f.elem}' and "
                              f"'{'async ' if g.is_async else ''}{gb.storage} {g.elem}')")
            return None
        before = self.ctx.diag.errors
        checks = self.ctx.shape_match(e.loc, list(fb.shape), list(gb.shape), f"'{f.user_name}'", f"'{g.user_name}'")
        if self.ctx.diag.errors != before:
            return None
        if checks:
            self.error(e.loc, "'swap' needs futures whose shapes are provably equal")
            return None
        if f.placeholder or g.placeholder:
            self.infer_any([f, g], e.loc, e.func.name)
        self.ctx.flow.append(P.Swap(f, g))
        return [ir.Swap(e.loc, fb, gb)]

    def wait(self, waited: List[Future], loc) -> List[ir.Stmt]:
        """`wait f, g;`: the futures it waits (those of a `select` included), checked by
        the statement checker."""
        if not waited:
            return []
        self.ctx.flow.append(P.Wait(waited, loc))
        self.ir_waits.append(ir.Wait(loc, [f.name for f in waited]))
        return [self.ir_waits[-1]]

    # -- dma.any ---------------------------------------------------------------------------
    def dma_swizzle(self, node: A.DmaCopy) -> Optional[int]:
        """`.swiz<N>` of a `dma.copy`/`tma.copy`: the bytes of the destination's swizzle
        atom (0: none); None after an error. Every target keeps the plain row-major
        layout in memory except where a cuda warp group reads it through wgmma descriptors
        (docs/language/tensor-cores.md), so a swizzle changes no result."""
        if node.swizzle is None:
            return 0
        v = scalar(self.expr(node.swizzle))
        if not (isinstance(v, VInt) and v.sym.is_const and v.sym.value in (32, 64, 128)):
            self.error(node.swizzle.loc, "the swizzle of '.swiz<N>' is 32, 64 or 128 bytes")
            return None
        return v.sym.value

    def dma_any(self, name: A.Name) -> List[ir.Stmt]:
        """`f = dma.any;`: a future with no copy yet; the first copy assigned to `f` (also in
        a nested block, as in a loop's body) is the one it names from then on. Its type may
        also come from a future it is swapped or selected with (`infer_any`); then it gets a
        buffer of its own here, where it is defined (the reference hoists it so too)."""
        existing = self.ctx.scope.names.get(name.name)
        if existing is not None:
            self.error(name.loc, f"future '{name.name}' is already defined")
            self.ctx.diag.note(existing.loc, "previous definition is here")
            return []
        fut = Future(self.ctx.unique(name.name), name.name, None, None, True, name.loc, placeholder=True,
                     assigned=False, any_level=self.ctx.level,
                     any_parallel=self.ctx.parallel_stack[-1] if self.ctx.parallel_stack else None)
        # its buffer, typed once inferred; dropped by finish_placeholders if never needed
        fut.shell = ir.Buffer(self.ctx.unique(f"{name.name}_buf"), None, None, [], self.ctx.level, name.loc, "dma",
                              name.name)
        self.placeholders.append(fut)
        self.ctx.declare(name, Symbol(name.name, "future", VFuture(fut), name.loc, fut.name))
        return [ir.Alloc(name.loc, fut.shell)]

    def unbound_placeholder(self, sym: Optional[Symbol]) -> Optional[Future]:
        """The `dma.any` that a copy assigned to this name binds (none assigned yet)."""
        if sym is not None and sym.kind == "future" and not sym.value.future.assigned:
            return sym.value.future
        return None

    def require_bound(self, fut: Future, loc, what: str) -> bool:
        fut.used = True
        if fut.region is None:
            self.any_reported.add(id(fut))
            self.error(loc, f"'{fut.user_name}' is 'dma.any' here: no copy has been assigned to it, nor to a "
                            f"future it is swapped or selected with, so it has no {what}")
            return False
        return True

    # Type inference of `dma.any` futures: `swap` and `select` say that their futures have
    # one type (the reference's "establish constraint and propagate"), so they form classes
    # (union-find over futures); a class takes the type of its first member with a copy,
    # and every `dma.any` in it then gets a buffer of that type (`Future.shell`).
    def any_class(self, fut: Future) -> List[Future]:
        cls = self.any_classes.get(id(fut))
        if cls is None:
            cls = self.any_classes[id(fut)] = [fut]
        return cls

    def infer_any(self, futs: List[Future], loc, what: str) -> bool:
        """Puts `futs` in one class; types its `dma.any` futures when a member has a type.
        False after an error."""
        cls: List[Future] = []
        for f in futs:
            for m in self.any_class(f):
                if all(m is not c for c in cls):
                    cls.append(m)
        for m in cls:
            self.any_classes[id(m)] = cls
        typed = [m for m in cls if m.region is not None]
        if not typed:
            return True
        t = typed[0]
        for m in typed[1:]:
            if not self.same_future_type(loc, t, m, what):
                return False
        return all(self.give_type(m, t, loc) for m in cls if m.region is None)

    def same_future_type(self, loc, f: Future, g: Future, what: str) -> bool:
        fb, gb = f.region.buffer, g.region.buffer
        same = (fb.storage == gb.storage and f.elem == g.elem and f.is_async == g.is_async
                and len(f.region.extents) == len(g.region.extents)
                and all(prove_equal(x, y) for x, y in zip(f.region.extents, g.region.extents)))
        if not same:
            self.error(loc, f"'{what}' needs futures of one type: '{f.user_name}' is {_describe(VFuture(f))}, "
                            f"'{g.user_name}' is {_describe(VFuture(g))}")
        return same

    def give_type(self, m: Future, t: Future, loc) -> bool:
        """`dma.any` m takes t's type, and its own buffer of that type."""
        buf, ext = t.region.buffer, list(t.region.extents)
        if buf.storage not in ("local", "shared") or m.any_level != buf.level:
            self.error(loc, f"'{m.user_name} = dma.any' would take the type of '{t.user_name}' "
                            f"({_describe(VFuture(t))}), but a 'dma.any' gets a buffer only of 'local' or "
                            "'shared' memory of the 'parallel' level where it is defined")
            self.ctx.diag.note(m.loc, f"'{m.user_name}' is defined here")
            self.any_reported.add(id(m))
            return False
        if not all(v in self.ctx.host_vars for d in ext for v in d.variables()):
            self.error(loc, f"the shape of '{t.user_name}' must be known when its 'parallel' block starts to "
                            f"give it to '{m.user_name} = dma.any'")
            return False
        self.type_any(m, buf.storage, t.elem, ext, t.is_async)
        m.used = True
        return True

    def type_any(self, fut: Future, storage: str, elem: str, extents: List[Sym], is_async: bool) -> None:
        """`dma.any` fut gets its type and its own buffer (``fut.shell``) of that type, at the
        'parallel' level where it is defined."""
        shell = fut.shell
        shell.elem, shell.storage, shell.shape = elem, storage, list(extents)
        self.ctx.buffers.append(shell)
        if fut.any_parallel is not None:
            fut.any_parallel.buffers.append(shell)
        fut.region = ir.Region(shell, [Sym.const(0)] * len(extents), list(extents))
        fut.elem, fut.is_async = elem, is_async

    def assign_to_any(self, fut: Future, storage: str, elem: str, extents: List[Sym], is_async: bool,
                      loc) -> Optional[object]:
        """The destination buffer of the first copy assigned to `dma.any` `fut` when the copy
        goes to `local`/`shared`: its own buffer if its type is known or constrained already
        (it was swapped or selected), else None (a new buffer, as for any copy); False after
        an error."""
        if fut.region is None and len(self.any_class(fut)) == 1:
            return None
        if fut.region is None:   # constrained, untyped: this copy types the class
            if fut.any_level != self.ctx.level:
                self.error(loc, f"the copy assigned to '{fut.user_name}' is at another 'parallel' level than "
                                f"its 'dma.any', which was swapped or selected before")
                return False
            self.type_any(fut, storage, elem, extents, is_async)
            if not self.infer_any([fut], loc, "swap"):
                return False
            return fut.shell
        buf = fut.region.buffer
        same = (buf.storage == storage and fut.elem == elem and fut.is_async == is_async
                and len(extents) == len(fut.region.extents)
                and all(prove_equal(x, y) for x, y in zip(extents, fut.region.extents)))
        if not same:
            self.error(loc, f"the copy assigned to '{fut.user_name}' is {'async' if is_async else 'sync'} "
                            f"{storage} {elem} [{', '.join(d.to_c() for d in extents)}], but '{fut.user_name}' is "
                            f"{_describe(VFuture(fut))} (from the futures it is swapped or selected with)")
            return False
        return buf

    def defining_scope(self, name: str):
        scope = self.ctx.scope
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    def swap_scopes_agree(self, loc, a: A.Name, b: A.Name, f: Future, g: Future) -> bool:
        """The reference's rule for `dma.any` rotations: the futures swapped are defined in
        one scope (a `dma.any` where it is written, not where a copy is assigned to it)."""
        if not (f.placeholder or g.placeholder):
            return True   # our pipelining extension swaps a loop's future with an outer one
        if self.defining_scope(a.name) is self.defining_scope(b.name):
            return True
        self.error(loc, f"'swap' of futures defined in different scopes ('{a.name}' and '{b.name}'): a "
                        "'dma.any' is swapped only with futures of its own scope")
        return False

    def finish_placeholders(self, waits: List[ir.Wait], body: List[ir.Stmt]) -> None:
        """A `dma.any` never used is an error (as in the reference), as is one whose type
        nothing gives. Waits of one that no copy was ever assigned to wait for nothing and
        are dropped (a copy swapped into it is complete when issued: the code generators'
        kernel_emitter.swap_tainted), as are the `wait` statements left empty and the
        buffers no `dma.any` needed."""
        for fut in self.placeholders:
            if fut.region is None and not fut.used:
                self.error(fut.loc, f"'{fut.user_name} = dma.any' is defined but never used")
            elif fut.region is None and len(self.any_class(fut)) > 1 and \
                    not any(id(m) in self.any_reported for m in self.any_class(fut)):
                self.error(fut.loc, f"the type of '{fut.user_name} = dma.any' cannot be inferred: no copy is "
                                    "assigned to it or to a future it is swapped or selected with")
        unassigned = {f.name for f in self.placeholders if not f.assigned}
        for w in waits:
            w.futures[:] = [f for f in w.futures if f not in unassigned]
        dead = {id(f.shell) for f in self.placeholders if f.region is None or f.region.buffer is not f.shell}

        def prune(stmts: List[ir.Stmt]) -> None:
            stmts[:] = [s for s in stmts if not (isinstance(s, ir.Alloc) and id(s.buffer) in dead)
                        and not (isinstance(s, ir.Wait) and not s.futures)]
            for s in stmts:
                if getattr(s, "body", None):
                    prune(s.body)
        prune(body)

    # -- after -----------------------------------------------------------------------------
    def after_waits(self, node: A.DmaCopy) -> List[ir.Stmt]:
        """`dma.copy ... after f, g`: the copy starts once f and g have landed; lowered as a
        `wait` of them just before the copy."""
        waited: List[Future] = []
        for e in node.after:
            v = self.expr(e)
            if isinstance(v, VError):
                continue
            if not isinstance(v, VFuture):
                self.error(e.loc, f"'after' takes futures, not {v.kind}")
                continue
            waited += [f for f in self.waited_futures(v.future) if f.is_async]
        if not waited:
            return []
        self.ctx.flow.append(P.Wait(waited, node.loc))
        return [ir.Wait(node.loc, [f.name for f in waited])]

    def waited_futures(self, fut: Future) -> List[Future]:
        """What waiting `fut` waits: itself, or every candidate of a `select` of futures."""
        fut.used = True
        if fut.candidates is None:
            return [fut]
        out: List[Future] = []
        for c in fut.candidates:
            out += [f for f in self.waited_futures(c) if f not in out]
        return out

    # -- select ----------------------------------------------------------------------------
    def select(self, e: A.Call) -> Value:
        """`select(k, a, b, ...)`: the k-th of data (an alias buffer) or of futures."""
        if len(e.args) < 2:
            return self.error(e.loc, "'select' takes a selector and at least one value: 'select(k, a, b)'")
        k = _int(self.expr(e.args[0]))
        if isinstance(k, VError):
            return k
        if not isinstance(k, VInt):
            return self.error(e.args[0].loc, f"the selector of 'select' must be an integer, not {k.kind}")
        values: List[Value] = []
        for a in e.args[1:]:
            v = self.select_operand(a)
            if isinstance(v, VError):
                return v
            if not isinstance(v, (VData, VFuture)):
                return self.error(a.loc, f"'select' chooses among spanned data or futures, not {v.kind}")
            values.append(v)
        futs = [v.future for v in values if isinstance(v, VFuture)]
        if futs and len(futs) == len(values):
            if not self.infer_any(futs, e.loc, "select"):
                return VError()
            for a, f in zip(e.args[1:], futs):
                if not self.require_bound(f, a.loc, "type to select"):
                    return VError()
        first = values[0]
        for a, v in zip(e.args[2:], values[1:]):
            if type(v) is not type(first):
                return self.error(a.loc, f"'select' needs values of one kind: {v.kind} and {first.kind}")
            if not self.same_select_type(a, v, first, e.args[1]):
                return VError()
        n = len(values)
        sel = k.sym
        if sel.is_const:
            if not 0 <= sel.value < n:
                return self.error(e.args[0].loc, f"the selector of 'select' is {sel.value}, outside [0, {n})")
        else:
            inside = sel.op(">=", 0).op("&&", sel.op("<", n))
            self.ctx.pending_checks(self.ctx.runtime_check(
                e.args[0].loc, inside, f"the selector of 'select' is {{0}}, outside [0, {n})", [sel]))
            name = self.ctx.unique("croktile_select")
            self.ctx.prefix.append(ir.ScalarDef(e.loc, name, "int", sel))
            sel = Sym.var(name)
        if isinstance(first, VFuture):
            futs = [v.future for v in values]
            for f in futs:
                f.used = True
            region = self.alias_region(e, sel, [f.region for f in futs], first.future.elem)
            fut = Future(self.ctx.unique("croktile_selected"), "select(...)", region, first.future.elem,
                         first.future.is_async, e.loc, candidates=futs)
            return VFuture(fut)
        regions = [v.region for v in values]
        return VData(self.alias_region(e, sel, regions, first.elem), first.elem)

    @staticmethod
    def selected(v: Value) -> bool:
        """A value made by `select` (a name may be given to it)."""
        if isinstance(v, VFuture):
            return v.future.candidates is not None
        return isinstance(v, VData) and v.region.buffer.alias is not None and v.region.is_whole

    def select_operand(self, a: A.Node) -> Value:
        """A future named in `select` is the future itself (not its data): it may still be
        pending, as may the copy behind `f.data`: selecting is no access, using the result is."""
        if isinstance(a, A.Member) and a.name == "data" and isinstance(a.base, A.Name):
            sym = self.ctx.scope.lookup(a.base.name)
            if sym is not None and sym.kind == "future":
                fut = sym.value.future
                if not self.require_bound(fut, a.loc, "data"):
                    return VError()
                fut.used = True
                return VData(fut.region, fut.elem)
        if not isinstance(a, A.Name):
            return self.expr(a)
        sym = self.ctx.scope.lookup(a.name)
        if sym is not None and sym.kind == "future":
            sym.value.future.used = True
            return sym.value   # a `dma.any` may take its type from the others (select)
        return self.expr(a)

    def same_select_type(self, a: A.Node, v: Value, first: Value, first_node: A.Node) -> bool:
        fa, fb = (v.future, first.future) if isinstance(v, VFuture) else (None, None)
        ra, rb = (fa.region, fb.region) if fa else (v.region, first.region)
        ea, eb = (fa.elem, fb.elem) if fa else (v.elem, first.elem)
        same = (ra.buffer.storage == rb.buffer.storage and ea == eb and len(ra.extents) == len(rb.extents)
                and (fa is None or fa.is_async == fb.is_async))
        if same:   # shapes must be provably equal: the alias has one shape
            same = all(prove_equal(x, y) for x, y in zip(ra.extents, rb.extents))
        if not same:
            self.error(a.loc, f"'select' needs values of one type: {_describe(v)} is not {_describe(first)} "
                              f"(the type of the {_ordinal(1)} value)")
        return same

    def alias_region(self, e: A.Call, sel: Sym, regions: List[ir.Region], elem: str) -> ir.Region:
        extents = list(regions[0].extents)
        buf = ir.Buffer(self.ctx.unique("croktile_alias"), elem, regions[0].buffer.storage, extents,
                        self.ctx.level, e.loc, "select", "select(...)", alias=(sel, regions))
        return ir.Region(buf, [Sym.const(0)] * len(extents), extents)

    # -- pad and transpose -----------------------------------------------------------------
    def transform_shape(self, node: A.DmaCopy, src: VData) -> Optional[tuple]:
        """The destination shape of `dma.pad` / `dma.transp` and the IR fields describing
        them: (extents, perm, pad); None after an error."""
        rank = len(src.region.extents)
        ext = list(src.region.extents)
        cfg = node.config or []
        where = getattr(node, "config_loc", None) or node.op_loc
        if src.elem in ("f16", "bf16"):
            self.error(node.op_loc, f"'dma.{node.op}' of '{src.elem}' data is not supported yet")
            return None
        if node.op == "transp":
            perm = []
            for item in cfg:
                v = _int(self.expr(item))
                if isinstance(v, VError):
                    return None
                if not isinstance(v, VInt) or not v.sym.is_const:
                    self.error(item.loc, "a 'dma.transp' layout holds integer constants")
                    return None
                perm.append(v.sym.value)
            if len(perm) != rank:
                self.error(where, f"the 'dma.transp' layout has {len(perm)} dimension{'s' if len(perm) != 1 else ''}, "
                                  f"but the source has rank {rank}")
                return None
            if sorted(perm) != list(range(rank)):
                self.error(where, f"the 'dma.transp' layout <{', '.join(map(str, perm))}> is not a permutation "
                                  f"of 0..{rank - 1}")
                return None
            return [ext[i] for i in perm], perm, None
        if len(cfg) != 4:
            self.error(where, "'dma.pad' takes <{low...}, {high...}, {mid...}, value>")
            return None
        parts = []
        for what, item in zip(("low", "high", "mid"), cfg[:3]):
            v = self.expr(item)
            if isinstance(v, VError):
                return None
            v = VTuple([v.sym]) if isinstance(v, VInt) else v
            if not isinstance(v, VTuple):
                self.error(item.loc, f"the {what} padding of 'dma.pad' is an ituple like '{{1, 0}}', not {v.kind}")
                return None
            if len(v.items) != rank:
                self.error(item.loc, f"the {what} padding of 'dma.pad' has {len(v.items)} element"
                                     f"{'s' if len(v.items) != 1 else ''}, but the source has rank {rank}")
                return None
            for d in v.items:
                if d.is_const and d.value < 0:
                    self.error(item.loc, f"the {what} padding of 'dma.pad' is negative ({d.value})")
                    return None
            parts.append(list(v.items))
        value = cfg[3]
        if isinstance(value, A.FloatLit):
            val: object = value.text
        else:
            v = _int(self.expr(value))
            if isinstance(v, VError):
                return None
            if isinstance(v, VFloat):
                self.error(value.loc, "a floating-point parameter as the padding value of 'dma.pad' is not "
                                      "supported yet; use a literal")
                return None
            elif isinstance(v, VInt):
                val = v.sym
            else:
                self.error(value.loc, f"the padding value of 'dma.pad' is a number, not {v.kind}")
                return None
        low, high, mid = parts
        if not all(m.is_const and m.value == 0 for m in mid):
            # the reference sizes the result n + low + high + mid without saying where the
            # middle padding goes: no meaning to give it yet
            self.error(cfg[2].loc, "'dma.pad' with a middle padding other than 0 is not supported yet")
            return None
        out = [lo + hi + d + m * (d - 1) for lo, hi, m, d in zip(low, high, mid, ext)]
        return out, None, (low, high, mid, val)
