"""Facts about kernels that every device target's generator needs, and the statements
the kernel emitters (cuda, opencl) write alike (``KernelEmitterBase``).

Row-major strides and offsets of regions, the statements of a launch with the
level each sits in, and which scalars a kernel must receive from the host.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Set, Tuple

from .. import ir
from ..analysis.barriers import EMPTY, BarrierPlanner, State
from ..analysis.memo import per_function
from ..ir.symbolic import Sym
from .cxx import At, condition, loop_header, scalar_ctype, sym_c
from .element_writer import ElementWriter, float_names

MAX_CHECK_VALUES = 4     # values a device-side runtime check can report


def matching(text: str, pos: int, open_c: str, close_c: str) -> int:
    """Index of the bracket that closes the one at `pos`, or -1."""
    depth = 0
    for k in range(pos, len(text)):
        if text[k] == open_c:
            depth += 1
        elif text[k] == close_c:
            depth -= 1
            if depth == 0:
                return k
    return -1


def dev_expr(s: Sym) -> str:
    return sym_c(s).replace("std::min<long long>(", "croktile_min(").replace("std::max<long long>(", "croktile_max(")


def product(dims: List[Sym]) -> Sym:
    total = Sym.const(1)
    for d in dims:
        total = total * d
    return total


def sym_vars(s: Optional[Sym]) -> Set[str]:
    return set(s.variables()) if s is not None else set()


def strides(shape: List[Sym]) -> List[Sym]:
    out = [Sym.const(1)] * len(shape)
    acc = Sym.const(1)
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc = acc * shape[d]
    return out


def linear(offsets: List[Sym], shape: List[Sym]) -> Sym:
    total = Sym.const(0)
    for off, st in zip(offsets, strides(shape)):
        total = total + off * st
    return total


def walk_levels(stmts: List[ir.Stmt], level: int):
    """(stmt, level of the code it sits in) for every statement below."""
    for s in stmts:
        yield s, level
        body = getattr(s, "body", None)
        if body:
            yield from walk_levels(body, s.level if isinstance(s, ir.Parallel) else level)


def same_level(stmts: List[ir.Stmt]):
    """The statements of one level: nested loops and conditions, not deeper `parallel`s."""
    for s in stmts:
        yield s
        if not isinstance(s, ir.Parallel) and getattr(s, "body", None):
            yield from same_level(s.body)


def paren(text: str) -> str:
    """`text` as one operand: parenthesised unless it is a name, a number or one (...) group."""
    if re.fullmatch(r"[\w.]+", text) or (text.startswith("(") and matching(text, 0, "(", ")") == len(text) - 1):
        return text
    return f"({text})"


def shape_vars(b: ir.Buffer) -> Set[str]:
    out: Set[str] = set()
    for d in b.shape:
        out |= sym_vars(d)
    return out


def kernel_free_names(stmts_with_levels) -> List[str]:
    """Scalars a kernel reads but does not define: the host values it takes as arguments."""
    used: Set[str] = set()
    defined: Set[str] = set()
    bufs: List[ir.Buffer] = []
    for s, _ in stmts_with_levels:
        if isinstance(s, ir.Parallel):
            defined.add(s.var)
            used |= sym_vars(s.count)
            bufs += s.buffers
        elif isinstance(s, ir.Loop):
            defined.add(s.var)
            used |= sym_vars(s.count) | sym_vars(s.start) | sym_vars(s.step)
        elif isinstance(s, ir.Store):
            bufs += [s.buffer] + [r.buffer for r in s.reads()]
            for x in s.syms():
                used |= sym_vars(x)
        elif isinstance(s, ir.If):
            used |= sym_vars(s.cond)
        elif isinstance(s, ir.ScalarDef):
            defined.add(s.name)
            used |= sym_vars(s.value)
        elif isinstance(s, ir.Assign):
            used |= sym_vars(s.value)
        elif isinstance(s, ir.Dma):
            for r in (s.src, s.dst):
                bufs.append(r.buffer)
                for x in r.offsets + r.extents:
                    used |= sym_vars(x)
            if s.pad is not None:   # `dma.pad`: its paddings and value may be host values
                low, high, mid, value = s.pad
                for x in low + high + mid + ([value] if isinstance(value, Sym) else []):
                    used |= sym_vars(x)
        if isinstance(s, (ir.MmaFill, ir.MmaLoad, ir.MmaStore, ir.MmaMul, ir.FragUpdate, ir.FragOp)):
            refs = [s.c, s.a, s.b, s.e] if isinstance(s, ir.MmaMul) else \
                [s.ref] + [a for a in s.args if isinstance(a, ir.FragRef)] if isinstance(s, ir.FragOp) else [s.ref]
            for ref in refs:
                for x in (ref.index if ref is not None else []):
                    used |= sym_vars(x)
        if isinstance(s, (ir.MmaLoad, ir.MmaStore)):
            r = s.src if isinstance(s, ir.MmaLoad) else s.dst
            bufs.append(r.buffer)
            for x in r.offsets + list(r.strides or []) + ([r.base] if r.base is not None else []):
                used |= sym_vars(x)
        elif isinstance(s, ir.Call):
            for a in s.args:
                used |= sym_vars(a.value)
                if a.region is not None:
                    bufs.append(a.region.buffer)
                    for x in a.region.offsets:
                        used |= sym_vars(x)
            for t in s.template_args or []:
                used |= sym_vars(t)
        elif isinstance(s, ir.Print):
            for item in s.items:
                if item.value is not None:
                    used |= sym_vars(item.value)
        elif isinstance(s, ir.Check):
            used |= sym_vars(s.cond)
            for v in s.values:
                used |= sym_vars(v)
        if not isinstance(s, ir.Store):   # (a Store's are among its syms)
            for x in ir.stmt_eexprs(s):
                for e in ir.e_walk(x):
                    if isinstance(e, ir.EInt):
                        used |= sym_vars(e.value)
                    elif isinstance(e, ir.ERead):
                        bufs.append(e.buffer)
                        for i in e.index:
                            used |= sym_vars(i)
    for b in bufs:
        for d in b.shape:
            used |= sym_vars(d)
    return sorted(used - defined)


@per_function
def global_buffers(fn: ir.Function) -> List[ir.Buffer]:
    """The function's buffers in global memory, in order: those a kernel may take as arguments."""
    return [b for b in fn.buffers if b.storage == "global"]


@per_function
def host_level_names(fn: ir.Function) -> Set[str]:
    """Names defined at host level (level 0): what a kernel may take from the host (the
    function's parameters and the names of their dimensions among them)."""
    names = {b.symbol for b in fn.bindings} | {p.name for p in fn.params}
    for s, level in walk_levels(fn.body, 0):
        if level == 0 and isinstance(s, ir.ScalarDef):
            names.add(s.name)
        if level == 0 and isinstance(s, ir.Loop):
            names.add(s.var)
    return names


def _swap_groups(stmts_with_levels):
    """Async futures (name -> (dma, level)), their waits' levels, the groups of futures whose
    buffers `swap` exchanges, the map destination buffer -> future, and the futures whose
    copies must complete when issued: those swapped (also through other swaps) with a
    buffer that no async copy fills (a `dma.any` that only took its type from a partner),
    whose waits wait for nothing."""
    futures: Dict[str, Tuple[ir.Dma, int]] = {}
    waits: Dict[str, List[int]] = {}
    swaps: List[Tuple[ir.Buffer, ir.Buffer]] = []
    for s, level in stmts_with_levels:
        if isinstance(s, ir.Dma) and s.is_async and s.future:
            futures[s.future] = (s, level)
        elif isinstance(s, ir.Wait):
            for f in s.futures:
                waits.setdefault(f, []).append(level)
        elif isinstance(s, ir.Swap):
            swaps.append((s.a, s.b))
    by_buffer = {dma.dst.buffer.name: f for f, (dma, _) in futures.items()}
    group = {f: {f} for f in futures}
    for a, b in swaps:
        fa, fb = by_buffer.get(a.name), by_buffer.get(b.name)
        if fa and fb and group[fa] is not group[fb]:
            merged = group[fa] | group[fb]
            for f in merged:
                group[f] = merged
    tainted: Set[str] = set()
    for a, b in swaps:
        fa, fb = by_buffer.get(a.name), by_buffer.get(b.name)
        if (fa is None) != (fb is None):
            tainted |= group[fa or fb]
    return futures, waits, group, by_buffer, tainted


def swap_tainted(stmts: List[ir.Stmt]) -> Set[str]:
    """Async futures whose copies must complete when issued (see _swap_groups)."""
    return _swap_groups((s, 1) for s in ir.walk(stmts))[4]


def waited_async_futures(stmts_with_levels, eligible) -> Tuple[Set[str], Dict[str, str]]:
    """The async copies a kernel may leave in flight until their `wait`: those whose
    every wait is at the outer level and for which ``eligible(dma, level)`` holds. Futures
    whose buffers `swap` exchanges are judged together (a wait of one is a wait of the
    other's copy). Returns them and the map destination buffer -> future."""
    futures, waits, group, by_buffer, tainted = _swap_groups(stmts_with_levels)
    out = set()
    for f in futures:
        members = group[f]
        if f in tainted:
            continue
        levels = [lv for m in members for lv in waits.get(m, [])]
        if levels and all(lv == 1 for lv in levels) and all(eligible(*futures[m]) for m in members):
            out.add(f)
    return out, by_buffer


class KernelEmitterBase:
    """What the opencl and cuda kernel emitters share: statements of the outer level run
    on every thread of a group, with the barrier state of analysis/barriers.py threaded
    through them (``At.state``; a visitor returns the state after its statement, or None
    where it changed none, and ``barrier_plan``, the target's policy, joins states where
    paths meet); the rest is written alike."""

    index_type = "long long"          # the device's 64-bit integer
    check_fail = ""                   # the device function that records a failed check
    barrier_plan = BarrierPlanner()   # where the group's threads need a barrier (a target's policy)

    def __init__(self, host, par: ir.Parallel):
        self.host = host
        self.fn = host.fn
        self.par = par
        self.lines: List[str] = []
        self.all = list(walk_levels([par], 0))
        # what the kernel may take from the host (sizes of its buffers must be among them)
        self.host_names = host_level_names(self.fn)
        self.label_count = 0
        self.end_label: Optional[str] = None

    def w(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def stmts(self, stmts: List[ir.Stmt], at: At) -> State:
        """Writes the statements from `at`; returns the barrier state after them."""
        raise NotImplementedError

    def writes(self, buf: ir.Buffer) -> bool:
        """Whether the kernel may write the buffer (a call may write any argument)."""
        return any(b is buf for s, _ in self.all for b in ir.stmt_writes(s))

    def uses(self, buf: ir.Buffer) -> bool:
        for s, _ in self.all:
            if isinstance(s, ir.Dma) and buf in (s.src.buffer, s.dst.buffer):
                return True
            if isinstance(s, ir.Call) and any(a.region is not None and a.region.buffer is buf for a in s.args):
                return True
            if isinstance(s, ir.Swap) and buf in (s.a, s.b):
                return True
            if isinstance(s, ir.Store) and s.buffer is buf:
                return True
            if (isinstance(s, ir.MmaLoad) and s.src.buffer is buf) or (isinstance(s, ir.MmaStore) and s.dst.buffer is buf):
                return True
            if any(r.buffer is buf for r in ir.stmt_reads(s)):
                return True
        return False

    def float_args(self) -> List[str]:
        """Float parameters of the __co__ function that calls in the kernel pass on."""
        names = []
        for s, _ in self.all:
            if isinstance(s, ir.Call):
                for a in s.args:
                    if a.kind == "float" and a.text in self.host.float_params and a.text not in names:
                        names.append(a.text)
        for name in float_names(s for s, _ in self.all):
            if name in self.host.float_params and name not in names:
                names.append(name)
        return names

    element_dialect = "cxx"

    def elements(self):
        return ElementWriter(self.element_dialect, self.ptr, dev_expr, self.element_ctype)

    def element_ctype(self, elem: str) -> str:
        return ir.ELEM_CTYPES[elem]

    def scalar_value(self, ctype: str, elem, e, sym) -> str:
        if e is None and elem is None:
            return dev_expr(sym)
        return self.elements().scalar(ctype, elem, e, sym)

    split = None   # the nest the launch may run one iteration per block (grid_split.SplitNest)

    def s_Loop(self, s: ir.Loop, at: At) -> State:
        if self.split is not None and s is self.split.loops[0]:
            return self.split_nest(s, at)
        return self.loop(s, at)

    def loop(self, s: ir.Loop, at: At) -> State:
        depth, level, state = at
        mark = len(self.lines)
        entry = self.barrier_plan.enter(state)
        while True:
            hint = self.unroll_hint(s, level)
            if hint:
                self.w(depth, hint)
            self.w(depth, loop_header(self.index_type, s, dev_expr))
            end = self.stmts(s.body, At(depth + 1, level, entry))
            self.w(depth, "}")
            joined = self.barrier_plan.join(entry, end)
            if joined == entry:
                return joined
            del self.lines[mark:]        # the next iteration starts in the state this one ends in
            entry = joined

    def split_nest(self, s: ir.Loop, at: At) -> State:
        """The nest whole where the launch did not split it (`croktile_split` 1), else
        iteration `croktile_part` of it (the kernel's prologue has both; grid_split.py)."""
        depth = at.depth
        self.w(depth, "if (croktile_split == 1) {")
        whole = self.loop(s, at.inner())
        self.w(depth, "} else {   // one iteration of the nest per block")
        counts = [paren(dev_expr(loop.count)) for loop in self.split.loops]
        for i, loop in enumerate(self.split.loops):
            value = f"croktile_part / ({' * '.join(counts[i + 1:])})" if i + 1 < len(counts) else "croktile_part"
            self.w(depth + 1, f"const {self.index_type} {loop.var} = {value}{f' % {counts[i]}' if i else ''};")
        end = self.stmts(self.split.body, at.inner())
        self.w(depth, "}")
        return self.barrier_plan.join(whole, end)

    def unroll_hint(self, s: ir.Loop, level: int) -> str:
        """A line before the loop asking the device compiler to unroll it (none by default)."""
        return ""

    def s_If(self, s: ir.If, at: At) -> State:
        self.w(at.depth, f"if ({condition(dev_expr(s.cond))}) {{")
        end = self.stmts(s.body, at.inner())
        self.w(at.depth, "}")
        return self.barrier_plan.join(at.state, end)

    s_InThreads = s_If

    def s_ScalarDef(self, s: ir.ScalarDef, at: At) -> None:
        ctype = scalar_ctype(s.ctype, self.index_type)
        self.w(at.depth, f"{ctype} {s.name} = {self.scalar_value(s.ctype, s.elem, s.expr, s.value)};")

    def s_Assign(self, s: ir.Assign, at: At) -> None:
        self.w(at.depth, f"{s.name} = {self.scalar_value(s.ctype, s.elem, s.expr, s.value)};")

    def s_Break(self, s: ir.Break, at: At) -> None:
        self.w(at.depth, "break;")

    def s_Continue(self, s: ir.Continue, at: At) -> None:
        self.w(at.depth, "continue;")

    def instance_body(self, s: ir.Parallel, depth: int, setup) -> None:
        """The statements of an instance of the level-2 `s`, after `setup(s, depth)` (its
        buffers); a failed check leaves them by a goto to their end."""
        saved = self.end_label
        self.end_label = None
        if any(isinstance(c, ir.Check) for c in ir.walk(s.body)):
            self.end_label = f"croktile_end{self.label_count}"
            self.label_count += 1
        setup(s, depth)
        self.stmts_before_label(s.body, At(depth, 2, EMPTY))
        self.end_label = saved

    def stmts_before_label(self, body, at: At) -> None:
        """The statements, then the label a failed check among them jumps to: in a block of
        their own, so that the jump leaves the scope of the declarations it passes (C++
        forbids a goto past an initialisation into the scope it is still in)."""
        if not self.end_label:
            self.stmts(body, at)
            return
        self.w(at.depth, "{")
        self.stmts(body, At(at.depth + 1, at.level, at.state))
        self.w(at.depth, "}")
        self.w(at.depth, f"{self.end_label}:;")

    def check_fail_call(self, s: ir.Check) -> str:
        """The device call that records the check's failure (its values, padded)."""
        cid = self.host.check_id(s)
        vals = [f"({self.index_type})({dev_expr(v)})" for v in s.values[:MAX_CHECK_VALUES]]
        vals += ["0"] * (MAX_CHECK_VALUES - len(vals))
        return f"{self.check_fail}(croktile_err, {cid}, {', '.join(vals)});"

    def s_Check(self, s: ir.Check, at: At) -> None:
        leave = "return;" if at.level == 1 or self.end_label is None else f"goto {self.end_label};"
        self.w(at.depth, f"if (!({dev_expr(s.cond)})) {{ {self.check_fail_call(s)} {self.before_leaving()}{leave} }}")

    def before_leaving(self) -> str:
        """What a failed check runs before it leaves the kernel (a target's override)."""
        return ""
