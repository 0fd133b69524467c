"""One OpenCL C kernel per launch: work-items, local memory, copies and barriers."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from .events import OpenclEvents
from .fast import RESTRICT, OpenclFast
from ... import ir
from ...ir.symbolic import Sym
from .mma import OpenclFragments, private_copies
from ...codegen.cxx import At, call_statement, elem_ctype, print_stmt
from ...codegen.device_host import where as _where
from ...codegen.dma_loops import copy_dims, element_loops, write_loops, write_shared_loops
from ...codegen.element_writer import ElementWriter
from .barriers import OpenclBarriers, check_exact_counts, uniform_count
from .check import statement_line
from ...codegen.fill_literal import fill_literal
from ...analysis.barriers import COOPERATIVE, EMPTY, EVERYTHING, MASKED, BarrierPlanner, State
from ...analysis.futures import plan_waits
from ...analysis.grid_split import split_nest
from ...codegen.kernel_emitter import (
    KernelEmitterBase,
    dev_expr,
    global_buffers,
    kernel_free_names,
    linear as _linear,
    paren as _paren,
    product as _product,
    shape_vars as _shape_vars,
    strides as _strides,
    waited_async_futures,
)
from .names import SPACE_QUALIFIER

if TYPE_CHECKING:   # for annotations only: importing it here would be a cycle
    from .host import HostEmitter


# Generated code spells types without OpenCL C's typedef names, which user code may rename.
DEVICE_CTYPES = dict(ir.ELEM_CTYPES, f16="unsigned short", bf16="unsigned short",
                     **{e: "unsigned char" for e in ir.NARROW_ELEMS})


def _capacity(b: ir.Buffer) -> int:
    """Elements of a statically allocated buffer: its size, or its stated bound's capacity."""
    return b.capacity if b.capacity is not None else _product(b.shape).value


@dataclass
class KernelArg:
    decl: str                   # the device parameter
    host: Tuple[str, str]       # (mem | local | C type, host expression)


class KernelEmitter(OpenclFast, OpenclEvents, OpenclBarriers, KernelEmitterBase, OpenclFragments):
    index_type = "long"
    check_fail = "croktile_check_fail"
    element_dialect = "opencl"

    def element_ctype(self, elem: str) -> str:
        return DEVICE_CTYPES[elem]
    # the barrier plan: only cooperative copies' accesses followed (analysis/barriers.py)
    barrier_plan = BarrierPlanner(coarse=True)

    def __init__(self, host: HostEmitter, par: ir.Parallel, name: str):
        super().__init__(host, par)
        self.gen = host.gen
        self.diag = host.gen.diag
        self.name = name
        self.args: List[KernelArg] = []
        self.uses_checks = False
        self.max_level = max(s.level for s, _ in self.all if isinstance(s, ir.Parallel))
        self.group = self.max_level >= 2
        # whether the barrier plan follows the buffers of cooperative copies (a swap makes
        # names unreliable)
        self.follows_copies = not any(isinstance(st, ir.Swap) for st in ir.walk(par.body))
        self.inner = [s for s, _ in self.all if isinstance(s, ir.Parallel) and s.level == 2]
        self.space: Dict[str, str] = {}          # buffer name -> g / l / p
        self.kind: Dict[str, str] = {}           # buffer name -> arg / static / dynlocal / scratch
        self.scratch: List[ir.Buffer] = []
        self.static_local: List[ir.Buffer] = []
        self.level_buffers: Dict[int, List[ir.Buffer]] = {}   # id(parallel) -> buffers to set up there
        self.event_futures: Set[str] = set()
        self.swapped_events: Set[str] = set()    # futures whose events a `swap` exchanges
        self.classify()
        # a loop of the work-items whose iterations the fast instance spreads over more
        # work-groups (grid_split.py); the generic instance is launched with one each
        self.split = None if self.scratch or self.fn.frags else split_nest(par, self.host_names)
        self.barrier_setup()
        self.events_setup()
        # inner levels whose instances run concurrently: a work-item each (targets/opencl/barriers.py)
        self.exact = [p for p in self.inner if id(p) in self.barrier_level_ids() or p in self.resumable_levels]
        check_exact_counts(self.exact, self.diag)
        self.concurrent = bool(self.exact)
        if not self.exact and uniform_count(self.inner):
            self.exact = list(self.inner)
        # a work-group of one work-item: nothing to synchronise (OpenclBarriers.barrier)
        self.single = bool(self.exact) and self.exact[0].count.is_const and self.exact[0].count.value == 1
        self.fast_setup()
        self.global_args: List[ir.Buffer] = []   # the kernel's global buffer arguments
        # a work-item may run several inner instances, each with its copy of a fragment;
        # where each instance that uses a fragment is a work-item of its own, the
        # work-item's private fragment is the instance's: no copy per instance
        self.frag_setup(private_copies(self.fn, one_each=self.exact))

    # -- analysis --------------------------------------------------------------------
    def classify(self) -> None:
        declared = set()
        for s, _ in self.all:
            if isinstance(s, ir.Parallel):
                for b in s.buffers:
                    declared.add(b.name)
                    if b.level == 1 and (self.group or b.storage == "shared"):
                        space = "l"
                    else:
                        space = "p"
                    static = all(d.is_const for d in b.shape) or b.capacity is not None
                    if static:
                        self.kind[b.name] = "static"
                        if space == "l":
                            self.static_local.append(b)
                    elif space == "l":
                        self.kind[b.name] = "dynlocal"
                    else:
                        self.kind[b.name] = "scratch"
                        self.scratch.append(b)
                        space = "g"
                    self.space[b.name] = space
                    if not (_shape_vars(b) <= self.host_names):
                        self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be known when the "
                                               "kernel is launched on target 'opencl'")
        # global buffers the kernel reaches: kernel arguments
        for b in global_buffers(self.fn):
            if b.name not in declared and self.uses(b):
                self.space[b.name] = "g"
                self.kind[b.name] = "arg"
        # asynchronous copies that can be work-group copies with events
        self.event_futures, self.future_of_buffer = waited_async_futures(self.all, self.eligible)
        self.swapped_events = self.events_swapped()
        self.event_futures -= self.events_out_of_scope()
        self.waits = plan_waits(self.par.body)   # a future waited twice: the second wait does nothing

    def eligible(self, dma: ir.Dma, level: int) -> bool:
        """An outer-level copy of one contiguous run between global and __local memory: a
        work-group copy. A box of several runs (the rows of a tile) would take a loop of
        async_work_group_copy calls; it is copied cooperatively instead, done when issued.
        PoCL runs each call on work-item 0 alone, so the rows would be copied one by one
        anyway, and with a work-group of one or two work-items (which PoCL builds by
        replicating the code of each work-item) such loops in a kernel with barriers abort
        its compiler ("Could not find a dominating alternative variable"): PoCL makes each
        row loop a barrier loop, and the replication cannot remap the values they share."""
        spaces = {self.space.get(dma.src.buffer.name), self.space.get(dma.dst.buffer.name)}
        k, _ = self.runs(dma)
        one_run = all(e.is_const and e.value == 1 for e in dma.src.extents[:k])
        return (level == 1 and not dma.element_wise and spaces == {"g", "l"} and self.kind.get(dma.src.buffer.name) != "scratch"
                and self.kind.get(dma.dst.buffer.name) != "scratch" and one_run)

    def free_scalars(self) -> List[str]:
        free = kernel_free_names(self.all)
        host = self.host_names
        for v in free:
            if v not in host:
                self.diag.error(self.par.loc, f"internal error: '{v}' used in a kernel is not a host value")
        return free

    # -- host-side sizes -------------------------------------------------------------
    def group_size_host(self) -> str:
        if not self.group:
            return "1"
        if self.exact:
            return f"(long long)({self.host.hx(self.exact[0].count)})"
        counts = ", ".join(f"(long long)({self.host.hx(p.count)})" for p in self.inner)
        return f"std::max<long long>({{1LL, {counts}}})"

    def buffer_bytes(self, b: ir.Buffer) -> str:
        return f"(long long)({self.host.hx(_product(b.shape))}) * (long long)sizeof({elem_ctype(b.elem)})"

    def slot_bytes_host(self) -> str:
        return " + ".join(f"(({self.buffer_bytes(b)} + 15) / 16 * 16)" for b in self.scratch)

    # -- emission --------------------------------------------------------------------
    def ptr(self, buf: ir.Buffer) -> str:
        return f"{buf.name}__ptr"

    def ctype(self, buf: ir.Buffer) -> str:
        return DEVICE_CTYPES[buf.elem]

    def qual(self, buf: ir.Buffer) -> str:
        return SPACE_QUALIFIER[self.space[buf.name]]

    def emit(self) -> str:
        par = self.par
        self.uses_checks = any(isinstance(s, (ir.Check, ir.EventWait)) for s, _ in self.all)
        # kernel parameters
        for b in global_buffers(self.fn):
            if self.kind.get(b.name) == "arg":
                self.global_args.append(b)
                self.args.append(KernelArg(f"__global {self.ctype(b)}* {RESTRICT}{self.ptr(b)}",
                                           ("mem", self.host.mem(b))))
        for s, _ in self.all:
            if isinstance(s, ir.Parallel):
                for b in s.buffers:
                    if self.kind[b.name] == "dynlocal":
                        self.args.append(KernelArg(f"__local {self.ctype(b)}* {b.name}",
                                                   ("local", self.buffer_bytes(b))))
        if self.scratch:
            self.args.append(KernelArg("__global unsigned char* croktile_scratch", ("mem", "croktile_scratch")))
            self.args.append(KernelArg("long croktile_slot", ("cl_long", "croktile_slot")))
            offset = "0"
            for b in self.scratch:
                self.args.append(KernelArg(f"long {b.name}__off", ("cl_long", offset)))
                offset = f"{offset} + (({self.buffer_bytes(b)} + 15) / 16 * 16)"
        for v in self.free_scalars():
            self.args.append(KernelArg(f"long {v}", ("cl_long", v)))
        for name in self.float_args():
            ctype = self.host.float_params[name]
            self.args.append(KernelArg(f"{ctype} {name}", (ctype, name)))
        if self.split is not None:
            self.args.append(KernelArg("long croktile_split", ("cl_long", "croktile_split")))
        if self.uses_checks:
            self.args.append(KernelArg("__global int* croktile_err", ("mem", f"croktile_checks.get(croktile_rt, {_where(self.par.loc)})")))

        self.lines.append(statement_line(par.loc))
        params = ",\n    ".join(a.decl for a in self.args)
        self.lines.append(f"{self.kernel_attributes()}__kernel void {self.name}({params}) {{")
        if self.split is not None:
            self.w(1, f"const long {par.var} = get_group_id(0) / croktile_split;")
            self.w(1, "const long croktile_part = get_group_id(0) % croktile_split;")
        else:
            self.w(1, f"const long {par.var} = get_group_id(0);")
        if self.group:
            self.w(1, "const long croktile_lid = get_local_id(0);")
            self.w(1, f"const long croktile_lsize = {self.group_size_expr()};")
        for b in self.static_local:
            self.w(1, f"__local {self.ctype(b)} {b.name}[{_capacity(b)}] __attribute__((aligned(16)));")
        self.event_declarations(1)
        for f in sorted(self.swapped_events):   # a swap may exchange it where its copy's scope has ended
            self.w(1, f"croktile_event_t {f}__ev = 0;")
        if self.scratch:
            self.w(1, "__global unsigned char* croktile_slot_base = croktile_scratch + get_global_id(0) * croktile_slot;")
        self.setup_buffers(par, 1)
        self.declare_frags(par.body, 1)
        self.stmts(par.body, At(1, 1, EMPTY))
        self.lines.append("}")
        return "\n".join(self.lines)

    def setup_buffers(self, par: ir.Parallel, depth: int) -> None:
        """Pointers to the buffers an instance of `par` owns (the zeros that declared data
        may need are an ir.Fill where it is declared: analysis/fills.py)."""
        for b in par.buffers:
            ct, kind = self.ctype(b), self.kind[b.name]
            q = self.qual(b)
            if kind == "static" and self.space[b.name] == "p":
                self.w(depth, f"{ct} {b.name}[{_capacity(b)}] __attribute__((aligned(16)));")
                self.w(depth, f"{ct}* {self.ptr(b)} = {b.name};")
            elif kind == "scratch":
                self.w(depth, f"__global {ct}* {self.ptr(b)} = (__global {ct}*)(croktile_slot_base + {b.name}__off);")
            else:   # __local, static or a kernel argument
                self.w(depth, f"{q} {ct}* {self.ptr(b)} = {b.name};")

    def stmts(self, stmts: List[ir.Stmt], at: At) -> State:
        if self.resumable and not self.in_run:
            return self.resumable_stmts(stmts, at)
        return self.each_stmt(stmts, at)

    def each_stmt(self, stmts: List[ir.Stmt], at: At) -> State:
        depth, level, state = at
        # a body entered with work pending (a loop's next iteration, an if): not followed
        state = self.barrier_plan.enter(state)
        for s in stmts:
            self.w(depth, statement_line(s.loc))
            after = getattr(self, "s_" + type(s).__name__)(s, At(depth, level, state))
            if after is not None:
                state = after
        return state

    def outer(self, level: int) -> bool:
        return self.group and level == 1

    def before(self, at: At, kind: int, copy: Optional[ir.Dma] = None) -> State:
        """Emits the barrier an outer-level step of `kind` (MASKED, COOPERATIVE) needs, and
        returns the state after it. The plan follows a cooperative `copy`'s buffers, so that
        one after other such copies needs none when it reads nothing they wrote and writes
        nothing they touched (two tiles loaded one after the other); of other steps, what
        they access is not followed."""
        if not self.outer(at.level):
            return EMPTY
        reads = writes = EVERYTHING
        if copy is not None and self.follows_copies:
            reads, writes = self.copy_keys(copy)
        return self.barrier_plan.step(at.state, kind, reads, writes, self.barrier, at.depth)

    @staticmethod
    def copy_keys(s: ir.Dma) -> Tuple[frozenset, frozenset]:
        """What a copy reads and writes: group memory by buffer, global memory as one (two
        parameters may be the same array)."""
        def key(b: ir.Buffer) -> tuple:
            return ("buffer", "global" if b.storage == "global" else b.name, 0)
        return frozenset({key(s.src.buffer)}), frozenset({key(s.dst.buffer)})

    def s_Parallel(self, s: ir.Parallel, at: At) -> Optional[State]:
        self.level_stack.append(s)
        state = self.level(s, at)
        self.level_stack.pop()
        return state

    def level(self, s: ir.Parallel, at: At) -> Optional[State]:
        depth = at.depth
        if s.level == 2:
            # the work-items may touch anything: a barrier before where anything is pending,
            # and the next outer-level step (not the end of the kernel) starts with one
            state = self.barrier_plan.step(at.state, COOPERATIVE, EVERYTHING, EVERYTHING, self.barrier, depth)
            self.w(depth, "{")
            if s in self.resumable_levels:   # instances that wait on each other's events
                self.resumable_level(s, depth + 1)
            else:
                self.instances(s, depth + 1)
            self.w(depth, "}")
            return state
        # deeper levels: a loop inside the work-item, as on the cpu target
        saved, self.resumable = self.resumable, False   # (it waits on nothing)
        self.w(depth, f"for (long {s.var} = 0; {s.var} < {dev_expr(s.count)}; ++{s.var}) {{")
        self.setup_buffers(s, depth + 1)
        self.stmts(s.body, At(depth + 1, s.level, EMPTY))
        self.w(depth, "}")
        self.resumable = saved
        return None

    def instances(self, s: ir.Parallel, depth: int) -> None:
        """The instances of the level-2 `s` that this work-item runs."""
        if s in self.exact:   # a work-item each: the group has exactly as many
            self.w(depth, f"{{ const long {s.var} = croktile_lid;")
        else:   # work-item i runs instances i, i + size, ... (the group may be smaller than the count)
            self.w(depth, f"for (long {s.var} = croktile_lid; {s.var} < {dev_expr(s.count)}; "
                          f"{s.var} += croktile_lsize) {{")
        self.instance_body(s, depth + 1, self.setup_buffers)
        self.w(depth, "}")

    def s_Alloc(self, s: ir.Alloc, at: At) -> None:
        pass   # every buffer is set up where its parallel instance starts, as on cpu

    def s_Fill(self, s: ir.Fill, at: At) -> Optional[State]:
        depth, state = at.depth, None
        b = s.buffer
        start, step = "0", "1"
        if self.outer(at.level) and self.qual(b) == "__local":   # the whole group fills group memory
            state = self.before(at, COOPERATIVE)
            start, step = "croktile_lid", "croktile_lsize"
        elif self.kind[b.name] == "static" and self.space[b.name] == "p" and self.whole_unroll([_product(b.shape)]):
            self.w(depth, "#pragma unroll")   # a private array stays in registers
        self.w(depth, f"for (long croktile_i = {start}; croktile_i < {dev_expr(_product(b.shape))}; "
                      f"croktile_i += {step}) {self.ptr(b)}[croktile_i] = {fill_literal(b.elem, s.value, as_bits=True)};")
        return state

    def events_swapped(self) -> Set[str]:
        """Futures whose events a `swap` exchanges: declared once, at the kernel's start."""
        out = set()
        for st, _ in self.all:
            if isinstance(st, ir.Swap):
                fa, fb = self.future_of_buffer.get(st.a.name), self.future_of_buffer.get(st.b.name)
                if fa in self.event_futures and fb in self.event_futures:
                    out |= {fa, fb}
        return out

    def events_out_of_scope(self) -> Set[str]:
        """Futures (not swapped) with a `wait` that their copy does not precede in the
        same block (a `wait` after the loop that issues it, or before the copy of the next
        iteration): their event would be out of scope there, and a wait on an event no copy
        has set yet is not portable, so such copies complete when issued."""
        out: Set[str] = set()

        def visit(body: List[ir.Stmt]) -> None:
            issued: Set[str] = set()
            for st in body:
                if isinstance(st, ir.Dma) and st.future in self.event_futures:
                    issued.add(st.future)
                elif isinstance(st, ir.Wait):
                    out.update(f for f in st.futures if f in self.event_futures and f not in issued)
                if getattr(st, "body", None):   # a loop's, a branch's: a block of its own
                    visit(st.body)
        visit(self.par.body)
        return out - self.swapped_events

    def s_Swap(self, s: ir.Swap, at: At) -> None:
        depth = at.depth
        q = self.qual(s.a)
        self.w(depth, f"{{ {q} {self.ctype(s.a)}* croktile_t = {self.ptr(s.a)}; {self.ptr(s.a)} = {self.ptr(s.b)}; "
                      f"{self.ptr(s.b)} = croktile_t; }}")
        fa, fb = self.future_of_buffer.get(s.a.name), self.future_of_buffer.get(s.b.name)
        if fa in self.event_futures and fb in self.event_futures:
            self.w(depth, f"{{ croktile_event_t croktile_e = {fa}__ev; {fa}__ev = {fb}__ev; {fb}__ev = croktile_e; }}")

    def s_Wait(self, s: ir.Wait, at: At) -> Optional[State]:
        depth = at.depth
        done = self.waits.complete(s)   # waited already on every path: its event is released
        events = [f for f in s.futures if f in self.event_futures and f not in done]
        others = [f for f in s.futures if f not in self.event_futures and f not in done]
        if done:
            self.w(depth, f"/* wait {', '.join(f for f in s.futures if f in done)}: complete already */")
        if others:
            self.w(depth, f"/* wait {', '.join(others)}: these copies completed when issued */")
        if events:
            self.w(depth, f"{{ croktile_event_t croktile_ev[{len(events)}] = {{{', '.join(f + '__ev' for f in events)}}}; "
                          f"wait_group_events({len(events)}, croktile_ev); }}")
            if self.group:
                self.barrier(depth)
                return EMPTY
        return None

    def region_ptr(self, r: ir.Region) -> str:
        off = _linear(r.offsets, r.shape)
        return self.ptr(r.buffer) + ("" if off.is_const and off.value == 0 else f" + ({dev_expr(off)})")

    def s_Call(self, s: ir.Call, at: At) -> Optional[State]:
        depth, state = at.depth, None
        args, spaces = [], []
        for a in s.args:
            if a.expr is not None:
                text = self.elements().value(a.expr)
                args.append(f"(int)({text})" if a.kind == "int" else text)
                spaces.append(None)
            elif a.kind == "data":
                args.append(self.region_ptr(a.region))
                spaces.append(self.space[a.region.buffer.name])
            elif a.kind == "int":
                args.append(f"(int)({dev_expr(a.value)})")
                spaces.append(None)
            elif a.kind == "bool":
                args.append(f"(bool)({dev_expr(a.value)})")
                spaces.append(None)
            else:
                args.append(a.text)
                spaces.append(None)
        name = self.gen.callee(s, spaces)
        text = call_statement(s, name, args, "long")
        if self.outer(at.level):
            state = self.before(at, COOPERATIVE if s.result else MASKED)
            # a value every work-item of the group needs: each calls (README "Scalars")
            self.w(depth, text if s.result else f"if (croktile_lid == 0) {text}")
        else:
            self.w(depth, text)
        return state

    def s_ScalarDef(self, s: ir.ScalarDef, at: At) -> Optional[State]:
        state = None
        if ir.stmt_reads(s):   # every work-item computes the scalar: all read
            state = self.before(at, COOPERATIVE)
        super().s_ScalarDef(s, at)
        return state

    def s_Assign(self, s: ir.Assign, at: At) -> Optional[State]:
        state = None
        if ir.stmt_reads(s):
            state = self.before(at, COOPERATIVE)
        super().s_Assign(s, at)
        return state

    def s_Store(self, s: ir.Store, at: At) -> Optional[State]:
        depth, state = at.depth, None
        text = ElementWriter("opencl", self.ptr, dev_expr, lambda e: DEVICE_CTYPES[e],
                             lambda e: self.diag.error(s.loc, f"computing with '{e}' elements is not supported on "
                                                              "target 'opencl' yet (copying them is)")).store(s)
        if self.outer(at.level):   # outer-level code runs as if on work-item 0 (spec 4)
            state = self.before(at, MASKED)
            self.w(depth, f"if (croktile_lid == 0) {text}")
        else:
            self.w(depth, text)
        return state

    def s_Print(self, s: ir.Print, at: At) -> Optional[State]:
        depth, state = at.depth, None
        text = print_stmt(s, dev_expr, printf="printf", int_fmt="%ld", int_type="long",
                          bool_as_text=False, flush="", value=self.elements().value, float_type="float")
        if self.outer(at.level):
            state = self.before(at, MASKED)
            self.w(depth, f"if (croktile_lid == 0) {{ {text} }}")
        else:
            self.w(depth, text)
        return state

    def s_Dma(self, s: ir.Dma, at: At) -> Optional[State]:
        depth, state = at.depth, None
        if s.element_wise:
            loops, body = element_loops(s, self.ptr, dev_expr, self.ctype(s.dst.buffer), "long")
            if self.outer(at.level):
                state = self.before(at, COOPERATIVE)
                write_shared_loops(self.w, depth, loops, body, dev_expr, "croktile_lid", "croktile_lsize", "long")
            else:
                write_loops(self.w, depth, loops, body, dev_expr, "long")
            return state
        if s.is_async and s.future in self.event_futures:
            state = self.before(at, COOPERATIVE)
            self.work_group_copy(s, depth)
            return state
        coop = self.outer(at.level)
        if coop:
            state = self.before(at, COOPERATIVE, copy=s)
        self.copy_loops(s, depth, coop)
        return state

    def runs(self, s: ir.Dma):
        """Dimensions of the copy with the contiguous innermost run merged: (outer dims, run)."""
        ext = list(s.src.extents)
        rank = len(ext)
        k = rank - 1
        while k > 0 and ext[k] == s.src.shape[k] and ext[k] == s.dst.shape[k]:
            k -= 1
        return k, _product(ext[k:])

    def copy_loops(self, s: ir.Dma, depth: int, coop: bool) -> None:
        if not coop:
            self.item_copy(s, depth)
            return
        k, run = self.runs(s)
        dims = list(s.src.extents[:k]) + [run]          # the loop nest; the last one is contiguous
        src_st = _strides(s.src.shape)[:k] + [Sym.const(1)]
        dst_st = _strides(s.dst.shape)[:k] + [Sym.const(1)]
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        loops = []
        for d, e in enumerate(dims):
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * src_st[d]
            dst_at = dst_at + i * dst_st[d]
            loops.append((f"croktile_i{d}", e))
        body = f"{self.ptr(s.dst.buffer)}[{dev_expr(dst_at)}] = {self.ptr(s.src.buffer)}[{dev_expr(src_at)}];"
        self.w(depth, "{")
        vector = self.vector_loops(s, dims, src_st, dst_st)
        if vector is not None and loops:   # 16 bytes per work-item and step where both sides allow
            tests, vloops, vbody = vector
            if tests:
                size = s.src.buffer.elem_bytes
                tested = [(r, size) for r in (s.dst, s.src) if self.alignment_test(r, "", size)]
                self.w(depth + 1, f"if ({self.aligned_test(tests, tested)}) {{")
            self.group_loops(depth + 1 + bool(tests), vloops, vbody)
            if not tests:
                self.w(depth, "}")
                return
            self.w(depth + 1, "} else {")
            self.group_loops(depth + 2, loops, body)
            self.w(depth + 1, "}")
            self.w(depth, "}")
            return
        if loops:     # all work-items, one element each in turn
            self.group_loops(depth + 1, loops, body)
        else:
            self.w(depth + 1, f"if (croktile_lid == 0) {body}")
        self.w(depth, "}")

    def vector_loops(self, s: ir.Dma, dims, src_st, dst_st):
        """A work-group copy in 16-byte vectors: (the alignment tests left for run time, the
        loops, the body), or None where the run or an offset is not whole vectors."""
        size = s.src.buffer.elem_bytes
        if 16 % size or not dims:
            return None
        per = 16 // size
        run = dims[-1]
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        whole = all(c % per == 0 for v in [src_at, dst_at] + src_st[:-1] + dst_st[:-1] for c in v.terms.values())
        if not (run.is_const and run.value % per == 0 and whole):
            return None
        loops = []
        for d, e in enumerate(dims):
            last = d == len(dims) - 1
            e = Sym.const(e.value // per) if last else e
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * (Sym.const(per) if last else src_st[d])
            dst_at = dst_at + i * (Sym.const(per) if last else dst_st[d])
            loops.append((f"croktile_i{d}", e))
        tests = [t for t in (self.alignment_test(s.dst, "", size), self.alignment_test(s.src, "", size)) if t]
        qd, qs = self.qual(s.dst.buffer), self.qual(s.src.buffer)
        body = (f"*(({qd} croktile_vec16*)({self.ptr(s.dst.buffer)} + {_paren(dev_expr(dst_at))})) = "
                f"*(({qs} const croktile_vec16*)({self.ptr(s.src.buffer)} + {_paren(dev_expr(src_at))}));")
        return tests, loops, body

    def group_loops(self, depth: int, loops, body: str) -> None:
        """The work-items of the group take the iterations of a loop nest in turn."""
        self.group_loop_header(depth, _product([e for _, e in loops]))
        rest = "croktile_t"
        for n, (i, e) in enumerate(reversed(loops)):
            if n == len(loops) - 1:
                self.w(depth + 1, f"const long {i} = {rest};")
            else:
                self.w(depth + 1, f"const long {i} = {rest} % {_paren(dev_expr(e))};")
                rest = f"({rest} / {_paren(dev_expr(e))})"
        self.w(depth + 1, body)
        self.w(depth, "}")

    def item_copy(self, s: ir.Dma, depth: int) -> None:
        """One work-item copies a box, as the cuda target's thread copy: base pointers
        computed once, loops with constant trip counts where the shapes are constant, and
        16-byte vectors where the run and the strides allow and both addresses turn out
        aligned (private arrays are declared 16-byte aligned)."""
        dims, run, sst, dstr = copy_dims(s)
        ext = s.src.extents
        ct, size = self.ctype(s.src.buffer), s.src.buffer.elem_bytes
        qd, qs = self.qual(s.dst.buffer), self.qual(s.src.buffer)
        vec = run.is_const and run.value * size % 16 == 0 and all(
            sst[d].is_const and dstr[d].is_const and sst[d].value * size % 16 == 0
            and dstr[d].value * size % 16 == 0 for d in dims)
        src_off = " + ".join(f"croktile_i{d} * {_paren(dev_expr(sst[d]))}" for d in dims) or "0"
        dst_off = " + ".join(f"croktile_i{d} * {_paren(dev_expr(dstr[d]))}" for d in dims) or "0"

        def nest(d0: int, body: str, inner: Sym, var: str) -> None:
            loops = [(f"croktile_i{d}", ext[d]) for d in dims] + [(var, inner)]
            whole = self.whole_unroll([e for _, e in loops])   # private arrays indexed by constants
            for n, (v, e) in enumerate(loops):
                if whole:
                    self.w(d0 + n, "#pragma unroll")
                self.w(d0 + n, f"for (long {v} = 0; {v} < {dev_expr(e)}; ++{v}){' {' if n < len(loops) - 1 else ''}")
            self.w(d0 + len(loops), body)
            for n in reversed(range(len(loops) - 1)):
                self.w(d0 + n, "}")
        self.w(depth, "{")
        self.w(depth + 1, f"{qd} {ct}* const croktile_d = {self.region_ptr(s.dst)};")
        self.w(depth + 1, f"{qs} const {ct}* const croktile_s = {self.region_ptr(s.src)};")
        scalar = f"croktile_d[{dst_off} + croktile_e] = croktile_s[{src_off} + croktile_e];"
        if vec:
            tests = [t for t in (self.alignment_test(s.dst, "croktile_d", size),
                                 self.alignment_test(s.src, "croktile_s", size)) if t]
            tested = [(r, size) for r, p in ((s.dst, "croktile_d"), (s.src, "croktile_s"))
                      if self.alignment_test(r, p, size)]
            if not tests:   # both private arrays at aligned offsets
                nest(depth + 1, f"(({qd} croktile_vec16*)(croktile_d + {dst_off}))[croktile_v] = "
                                f"(({qs} const croktile_vec16*)(croktile_s + {src_off}))[croktile_v];",
                     Sym.const(run.value * size // 16), "croktile_v")
                self.w(depth, "}")
                return
            self.w(depth + 1, f"if ({self.aligned_test(tests, tested)}) {{")
            nest(depth + 2, f"(({qd} croktile_vec16*)(croktile_d + {dst_off}))[croktile_v] = "
                            f"(({qs} const croktile_vec16*)(croktile_s + {src_off}))[croktile_v];",
                 Sym.const(run.value * size // 16), "croktile_v")
            self.w(depth + 1, "} else {")
            nest(depth + 2, scalar, run, "croktile_e")
            self.w(depth + 1, "}")
        else:
            nest(depth + 1, scalar, run, "croktile_e")
        self.w(depth, "}")

    def alignment_test(self, r: ir.Region, pointer: str, size: int) -> str:
        """What decides at run time whether the region starts 16-byte aligned: nothing for
        a private array (declared aligned) at an offset of whole 16-byte units, the
        buffer's base pointer (loop-invariant) for another buffer at such an offset, else
        the address itself. A private array's address is never taken as an integer: that
        keeps it out of registers on some implementations."""
        whole = 16 % size == 0 and not any(c % (16 // size) for c in _linear(r.offsets, r.shape).terms.values())
        b = r.buffer
        if whole and self.kind.get(b.name) == "static" and self.space.get(b.name) in ("p", "l"):
            return ""
        return f"(uint64_t){self.ptr(b) if whole else pointer}"

    def work_group_copy(self, s: ir.Dma, depth: int) -> None:
        k, run = self.runs(s)
        src_st, dst_st = _strides(s.src.shape), _strides(s.dst.shape)
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        loops = []
        for d in range(k):
            e = s.src.extents[d]
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * src_st[d]
            dst_at = dst_at + i * dst_st[d]
            loops.append((f"croktile_i{d}", e))
        hoisted = s.future in self.swapped_events   # declared at the kernel's start; an event_t takes no 0
        ev = "croktile_e" if hoisted else f"{s.future}__ev"
        if not hoisted:
            self.w(depth, f"croktile_event_t {ev} = 0;")
        self.w(depth, "{")
        if hoisted:
            self.w(depth + 1, f"croktile_event_t {ev} = 0;")
        for n, (i, e) in enumerate(loops):
            self.w(depth + 1 + n, f"for (long {i} = 0; {i} < {dev_expr(e)}; ++{i})")
        self.w(depth + 1 + len(loops), f"{ev} = async_work_group_copy({self.ptr(s.dst.buffer)} + {_paren(dev_expr(dst_at))}, "
                                       f"{self.ptr(s.src.buffer)} + {_paren(dev_expr(src_at))}, "
                                       f"(unsigned long){_paren(dev_expr(run))}, {ev});")
        if hoisted:
            self.w(depth + 1, f"{s.future}__ev = {ev};")
        self.w(depth, "}")
