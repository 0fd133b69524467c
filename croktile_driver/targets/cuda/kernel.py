"""One CUDA kernel per launch: the block's threads, its shared-memory arena, cooperative
and asynchronous copies, and the barriers between what threads write and read (planned by
analysis/barriers.py over the arena's bytes; here the rules of copy-engine loads and of
tensor-core operations still in flight)."""
from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from ... import ir
from ...ir.symbolic import Sym
from ...codegen.dma_loops import (copy_dims, element_loops, whole_conditions, whole_copy, write_loops,
                                  write_shared_loops)
from ...codegen.cxx import (
    At,
    scalar_ctype,
    call_arguments,
    call_statement,
    elem_ctype,
    line_directive,
    print_stmt,
)
from ...codegen.fill_literal import fill_literal
from .launch_invariants import LaunchInvariants
from .events import CudaEvents
from ...analysis.barriers import COOPERATIVE, EMPTY, MASKED, NOTHING, State, accesses, reads_of
from ...analysis.futures import plan_waits
from ...analysis.inthreads import inthreads_barriers
from ...codegen.kernel_emitter import (
    KernelEmitterBase,
    dev_expr,
    global_buffers,
    kernel_free_names,
    linear,
    paren,
    product,
    shape_vars,
    strides,
    waited_async_futures,
)
from ...codegen.element_writer import ElementWriter
from ...analysis.memplan import align_up, plan_arena, static_bytes, wait_extensions
from .mma import MMA_KINDS
from .wgmma_waits import plan_wgmma_keeps
from .tma import TmaPlan
from ...codegen.fragments import FragmentWriter
from ...analysis.grid_split import split_nest
from .limits import (
    BARRIER,
    DEFAULT_BLOCK,
    LANE_WIDTH,
    MAX_BLOCK,
    MAX_COPY_DIMS,
    MAX_LANES,
    STATIC_SHARED_MAX,
    UNROLL_LIMIT,
)

if TYPE_CHECKING:   # for annotations only: importing it here would be a cycle
    from .host import HostEmitter


class KernelEmitter(KernelEmitterBase, FragmentWriter, CudaEvents):
    index_type = "long long"
    check_fail = "croktile::cuda::check_fail"

    def __init__(self, host: HostEmitter, par: ir.Parallel, name: str):
        super().__init__(host, par)
        self.diag = host.gen.diag
        self.toolchain = host.gen.toolchain
        self.name = name
        self.params: List[str] = []
        self.host_args: List[str] = []
        self.inner = [s for s, _ in self.all if isinstance(s, ir.Parallel) and s.level == 2]
        self.aligned_copies = 0   # vector copies that the kernel's fast instance makes unconditional
        self.uses_checks = any(isinstance(s, (ir.Check, ir.EventWait)) for s, _ in self.all)
        self.arena = list(par.buffers)                     # what one block owns
        self.arena_names = {b.name for b in self.arena}
        # data of inner levels: a per-thread array, or (sized at run time) a slice of a
        # global scratch buffer, one slot per thread of the launch
        self.scratch = [b for s, _ in self.all if isinstance(s, ir.Parallel) and s.level >= 2
                        for b in s.buffers if static_bytes(b) is None]
        self.globals = [b for b in global_buffers(self.fn) if self.uses(b)]
        # a loop of the threads whose iterations the fast instance spreads over more blocks
        self.split = None if self.scratch or self.fn.frags else split_nest(par, self.host_names)
        self.async_futures, self.future_of_buffer = waited_async_futures(self.all, self.cp_async_eligible)
        # Without async copies of its own, a block's synchronous copies from global into
        # shared memory are issued as cp.async too, and waited for at the next barrier
        # (every barrier waits, and so does the end of the block): consecutive copies then
        # have all their loads in flight at once instead of one copy's at a time.
        self.sync_as_async = not any(isinstance(s, ir.Dma) and s.is_async for s, _ in self.all)
        self.issued_sync_async = self.sync_as_async and any(
            isinstance(s, ir.Dma) and self.cp_async_eligible(s, level) for s, level in self.all)
        self.copies_through_registers = self.last_of_copy_runs() if self.sync_as_async else set()
        # what each wait finds in flight: cp.async groups it may leave, futures complete already
        self.waits = plan_waits(self.par.body, self.async_futures)
        self.swap_group: Dict[str, List[ir.Buffer]] = {}
        for st, _ in self.all:
            if isinstance(st, ir.Swap):
                group = self.swap_group.get(st.a.name, [st.a]) + self.swap_group.get(st.b.name, [st.b])
                group = list({b.name: b for b in group}.values())
                for b in group:
                    self.swap_group[b.name] = group
        self.tma = TmaPlan(self, self.toolchain.arch())   # sets the alignment its destinations need
        for st, _ in self.all:   # a swizzled layout repeats every 8 of its rows (croktile_swizzle.h)
            if isinstance(st, ir.Dma) and st.swizzle:
                st.dst.buffer.align = max(st.dst.buffer.align, 8 * st.swizzle)
        self.plan = plan_arena(self.arena, wait_extensions(s for s, _ in self.all))
        self.arena_align = max([16] + [b.align for b in self.arena])
        # A plan of known size up to 48 KiB is a static __shared__ array: nvcc then knows
        # the base address, and its code for tile loops was measured faster (bench/bench_cuda.py,
        # tiled_mm) than with the same bytes as dynamic shared memory. Larger or run-time
        # sized plans are dynamic shared memory, which the launch requests exactly.
        self.static_arena = bool(self.arena) and not self.plan.dynamic and 0 < self.plan.static_bytes <= STATIC_SHARED_MAX
        self.slot_of = {slot.buffer.name: slot for slot in self.plan.slots}
        self.check_limits()
        self.frag_setup({})   # each warp holds its fragments in its own registers
        self.uses_wgmma = any(f.engine is ir.MmaEngine.WGMMA for f in self.fn.frags)
        # copy-engine loads that the multiplies of earlier steps may overlap (targets/cuda/wgmma_waits.py)
        loads = {id(s): s for s, _ in self.all if id(s) in self.tma.copies and self.tma.copies[id(s)].load}
        self.wgmma_keep = plan_wgmma_keeps(self.par.body, loads, self.slot_range) \
            if self.uses_wgmma and self.wgmma_async() else {}
        self.wgmma_run: Optional[int] = None   # in a run of such loads: the groups its barrier keeps
        # the bytes that multiplies in flight may read: their operands' arena slots
        self.tc_keys = frozenset(("tc",) + k[1:] if k[0] == "arena" else ("everything", 0, 0)
                                 for s, _ in self.all if isinstance(s, ir.MmaLoad) and s.ref.frag.engine is ir.MmaEngine.WGMMA
                                 for k in self.keys(s.src.buffer))
        self.collective = False            # inside a level whose warps run tensor-core operations
        self.barriers = inthreads_barriers(self.fn)
        # the level whose instances the threads now run one each, and how many threads run
        # it (whole warps), or None: where an `inthreads` barrier (inthreads.py) can be
        self.thread_run: Tuple[Optional[ir.Parallel], Optional[int]] = (None, None)

    def expr(self, s: Sym) -> str:
        return dev_expr(s)

    # tensor-core statements (fragments.py): every lane of the warp takes part
    def s_MmaLoad(self, s: ir.MmaLoad, at: At) -> Optional[State]:
        state = None
        if at.level == 1:   # the whole block (a warp group) reads: after what others wrote there
            state = self.step(at, COOPERATIVE, self.keys(s.src.buffer), NOTHING)
        super().s_MmaLoad(s, at)
        return state

    def s_MmaStore(self, s: ir.MmaStore, at: At) -> Optional[State]:
        state = None
        if at.level == 1:   # the whole block writes: later readers of the data wait for it
            state = self.step(at, COOPERATIVE, NOTHING, self.keys(s.dst.buffer))
        super().s_MmaStore(s, at)
        return state

    # -- analysis --------------------------------------------------------------------
    def last_of_copy_runs(self) -> Set[int]:
        """The last copy (by id) of each run of two or more consecutive synchronous block
        copies from global into shared memory: it loads through registers while the copies
        before it, issued as cp.async, are in flight. Both paths' loads then overlap; on an
        H100 and an H200 a block staging two 16 KiB tiles ran 5-8% faster than with every
        copy as cp.async or every copy through registers."""
        last: Set[int] = set()

        def visit(stmts: List[ir.Stmt], level: int) -> None:
            run: List[ir.Dma] = []
            for st in stmts + [None]:
                if (isinstance(st, ir.Dma) and not st.is_async and not st.swizzle
                        and self.cp_async_eligible(st, level)):
                    run.append(st)
                    continue
                if isinstance(st, ir.Alloc):   # a declaration between the copies
                    continue
                if len(run) >= 2:
                    last.add(id(run[-1]))
                run = []
                if st is not None and getattr(st, "body", None):
                    visit(st.body, st.level if isinstance(st, ir.Parallel) else level)

        visit(self.par.body, 1)
        return last

    def cp_async_eligible(self, dma: ir.Dma, level: int) -> bool:
        """(A copy from or to a partial tile is eligible too: its box copy, where the tile is
        whole at run time, or the copy engine's, is asynchronous; its element loop and
        swizzled copy are complete when issued, and a wait for them waits for nothing.)"""
        return (level == 1 and dma.op is ir.DmaOp.COPY and dma.dst.buffer.name in self.arena_names
                and dma.src.buffer.storage == "global" and dma.src.buffer.name not in self.arena_names)

    def check_limits(self) -> None:
        limit = self.toolchain.shared_limit()
        for b in self.arena + self.scratch:
            if not (shape_vars(b) <= self.host_names):
                self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be known when the kernel is "
                                       "launched on target 'cuda'")
        if limit is not None and self.plan.static_bytes > limit:
            source = self.toolchain.limit_set_by("shared_bytes") or f"profile '{self.toolchain.profile['name']}'"
            self.diag.error(self.par.loc, f"shared memory plan of this 'parallel' needs {self.plan.static_bytes} "
                                          f"bytes per block, more than the {limit} bytes {source} allows")
            for slot in self.plan.peak():
                b = slot.buffer
                self.diag.note(b.loc, f"'{b.source_name or b.name}' ({b.storage} {b.elem} "
                                      f"[{', '.join(d.to_c() for d in b.shape)}], {slot.size} bytes) is live at the "
                                      "same time")

    # -- the memory report -------------------------------------------------------------
    def report_plan(self) -> None:
        if not getattr(self.toolchain.options, "memory_report", False):
            return
        limit = self.toolchain.shared_limit()
        loc = self.par.loc
        out = [f"{loc.file}:{loc.line}:{loc.col}: memory plan of kernel '{self.name}' "
               f"({self.toolchain.setting()}): shared arena {self.plan.static_bytes} bytes"
               + (" + run-time sized buffers" if self.plan.dynamic else "")
               + (f", limit {limit}" if limit is not None else "")]
        out.append(f"  {'offset':>8}  {'bytes':>8}  {'live':<12} buffer")
        for slot in sorted(self.plan.slots, key=lambda s: (s.offset is None, s.offset or 0, s.first)):
            b = slot.buffer
            off = str(slot.offset) if slot.offset is not None else "run time"
            size = str(slot.size) if slot.size is not None else self.host_bytes(b)
            out.append(f"  {off:>8}  {size:>8}  {'[' + str(slot.first) + ', ' + str(slot.last) + ']':<12} "
                       f"{b.source_name or b.name} ({b.storage} {b.elem} [{', '.join(d.to_c() for d in b.shape)}])")
        if self.split is not None:
            names = ", ".join(re.sub(r"__[0-9]+$", "", loop.var) for loop in self.split.loops)
            out.append(f"  the fast instance runs the loop over {names} (line {self.split.loops[0].loc.line}) "
                       f"one iteration per block while the grid has fewer than 64 blocks per SM (grid_split.py)")
        print("\n".join(out), file=sys.stderr)

    # -- host-side values ------------------------------------------------------------
    def block_size_host(self) -> str:
        if not self.inner:
            return str(DEFAULT_BLOCK)
        counts = [p.count if self.lanes(p) is None else Sym.const(self.threads_of(p)) for p in self.inner]
        if all(c.is_const for c in counts):
            return str(self.static_block())
        listed = ", ".join(f"(long long)({self.host.hx(c)})" for c in counts)
        return f"std::min<long long>({MAX_BLOCK}, (std::max<long long>({{1LL, {listed}}}) + 31) / 32 * 32)"

    def static_block(self) -> int:
        if not self.inner:
            return DEFAULT_BLOCK
        lanes = [self.threads_of(p) for p in self.inner if self.lanes(p) is not None]
        plain = [p for p in self.inner if self.lanes(p) is None]
        if not all(p.count.is_const for p in plain):
            return max([MAX_BLOCK] + lanes)
        return max([min(MAX_BLOCK, align_up(max([1] + [p.count.value for p in plain]), 32))] + lanes)

    def lanes(self, s: ir.Parallel) -> Optional[Tuple[int, Optional[ir.Parallel]]]:
        """A `group-4` or `group` level directly inside the launch, mapped as annotated: each
        instance is a warp group (128 threads) or a warp (32), or as many threads as its
        `thread` level has, which then runs one instance per thread. Returns (threads per
        instance, that thread level or None); None where the level keeps the plain mapping
        (not annotated, sizes known only at run time, code beside the thread level, more
        than MAX_LANES threads)."""
        if s.level != 2 or s.kind not in LANE_WIDTH or not s.count.is_const:
            return None
        body = s.body
        if not any(isinstance(x, ir.Parallel) for x in ir.walk(body)):
            per, thread = LANE_WIDTH[s.kind], None
        elif (isinstance(body[-1], ir.Parallel) and body[-1].kind in (None, "thread") and body[-1].count.is_const
              and all(isinstance(x, ir.ScalarDef) for x in body[:-1]) and not s.buffers):
            per, thread = body[-1].count.value, body[-1]
        else:
            return None
        if per <= 0 or s.count.value * per > MAX_LANES:
            return None
        return per, thread

    def threads_of(self, s: ir.Parallel) -> int:
        per, _ = self.lanes(s)
        return align_up(s.count.value * per, 32)

    def host_bytes(self, b: ir.Buffer) -> str:
        return f"((long long)({self.host.hx(product(b.shape))}) * (long long)sizeof({elem_ctype(b.elem)}) + 15) / 16 * 16"

    # -- emission --------------------------------------------------------------------
    @staticmethod
    def ptr(buf: ir.Buffer) -> str:
        return f"{buf.name}__ptr"

    def emit(self) -> str:
        par = self.par
        for b in self.globals:
            self.params.append(f"{elem_ctype(b.elem)}* {self.ptr(b)}")
            self.host_args.append(f"{self.host.mem(b)}.as<{elem_ctype(b.elem)}>()")
        for slot in self.plan.dynamic:
            self.params.append(f"long long {slot.buffer.name}__off")
            self.host_args.append(f"{slot.buffer.name}__off")
        if self.scratch:
            self.params.append("unsigned char* croktile_scratch")
            self.host_args.append("croktile_scratch.as<unsigned char>()")
            self.params.append("long long croktile_slot")
            self.host_args.append("croktile_slot")
            for b in self.scratch:
                self.params.append(f"long long {b.name}__off")
                self.host_args.append(f"{b.name}__off")
        free = kernel_free_names(self.all)
        for v in free:
            if v not in self.host_names:
                self.diag.error(par.loc, f"internal error: '{v}' used in a kernel is not a host value")
            self.params.append(f"long long {v}")
            self.host_args.append(f"(long long)({v})")
        for name in self.float_args():
            ctype = self.host.float_params[name]
            self.params.append(f"{ctype} {name}")
            self.host_args.append(f"({ctype})({name})")
        for m in self.tma.maps:
            self.params.append(f"const __grid_constant__ CUtensorMap {m.name}")
            self.host_args.append(m.name)
        self.aligned_copies += len(self.tma.copies)   # the copies live in the fast instance
        if self.split is not None:
            self.params.append("long long croktile_split")
            self.host_args.append("croktile_split")

        # run-time divisions over the host values above: parameters, computed by the host
        invariants = LaunchInvariants({v for v in free if v in self.host_names})

        self.lines.append(line_directive(par.loc))
        header = len(self.lines)
        self.lines.append(self.header())
        # the body is device code only: nvcc's host pass (and the host half of a split
        # build, built by the host compiler: toolchain.py) sees an empty kernel, which is all
        # a launch needs; one build of several architectures compiles it where it can run
        guard = self.toolchain.kernel_guard() or "defined(__CUDA_ARCH__)"
        self.lines.append(f"#if {guard}")
        with invariants.naming():
            if self.arena:
                if self.static_arena:
                    self.w(1, f"__shared__ __align__({self.arena_align}) unsigned char croktile_smem[{self.plan.static_bytes}];")
                else:
                    self.w(1, f"extern __shared__ __align__({self.arena_align}) unsigned char croktile_smem[];")
            if self.uses_checks:
                self.w(1, f"croktile::cuda::check_record* const croktile_err = &{self.host.record()};")
            if self.split is not None:
                self.w(1, f"[[maybe_unused]] const long long {par.var} = blockIdx.x / croktile_split;")
                self.w(1, "const long long croktile_part = blockIdx.x % croktile_split;")
            else:
                self.w(1, f"[[maybe_unused]] const long long {par.var} = blockIdx.x;")
            self.w(1, "[[maybe_unused]] const long long croktile_tid = threadIdx.x;")
            self.w(1, "[[maybe_unused]] const long long croktile_nt = blockDim.x;")
            if self.scratch:
                self.w(1, "unsigned char* const croktile_slot_base = croktile_scratch + "
                          "((long long)blockIdx.x * blockDim.x + threadIdx.x) * croktile_slot;")
            for slot in self.plan.slots:
                b = slot.buffer
                at = str(slot.offset) if slot.offset is not None else f"{b.name}__off"
                self.w(1, f"{elem_ctype(b.elem)}* {self.ptr(b)} = reinterpret_cast<{elem_ctype(b.elem)}*>(croktile_smem + "
                          f"{at});")
            self.tma.declare(self.w, 1)
            self.declare_frags(par.body, 1)
            self.stmts(par.body, At(1, 1, EMPTY))
            if self.tma.pending_stores:
                self.tma.complete_stores(self.w, 1)
            if self.issued_sync_async:
                self.w(1, "croktile::cuda::cp_async_wait_group<0>();  // no copy into shared memory outlives the block")
            if self.uses_wgmma:
                self.w(1, "croktile::wgmma::wait<0>();   // no multiply reads shared memory after the block")
        self.lines.append("#endif")
        self.lines.append("}")
        if invariants.named:
            self.params += invariants.params()
            self.host_args += invariants.host_args(self.host.hx)
            self.lines[header] = self.header()
        if self.instanced:
            # two instances: the launch takes <true> when every global pointer is 16-byte
            # aligned and no global buffer the kernel writes overlaps another; its vector
            # copies then need no address test, and its pointers are __restrict__, so that
            # loads are issued ahead of earlier stores
            self.lines.insert(header, "template <bool CroktileFast>")
            for b in self.globals:
                ct = elem_ctype(b.elem)
                i = next(i for i in range(header, len(self.lines)) if f"{ct}* {self.ptr(b)}" in self.lines[i])
                self.lines[i] = self.lines[i].replace(f"{ct}* {self.ptr(b)}",
                                                      f"croktile::cuda::kernel_ptr<CroktileFast, {ct}> {self.ptr(b)}", 1)
        return "\n".join(self.lines)

    def header(self) -> str:
        params = ",\n    ".join(self.params)
        return f"__global__ void __launch_bounds__({self.static_block()}) {self.name}({params}) {{"

    @property
    def instanced(self) -> bool:
        """Whether the kernel has a fast instance beside its generic one."""
        return bool(self.aligned_copies) or self.split is not None

    def slot_range(self, name: str):
        slot = self.slot_of.get(name)
        return (slot.offset, slot.offset + align_up(slot.size)) if slot is not None and slot.offset is not None \
            else None

    def wgmma_run_keep(self, stmts: List[ir.Stmt], i: int, level: int) -> Optional[int]:
        """In a run of copy-engine loads (checks between them): the multiply groups the
        barrier before the run may leave in flight, the fewest any load of it allows."""
        if level != 1 or id(stmts[i]) not in self.wgmma_keep:
            return None
        if self.wgmma_run is not None:
            return self.wgmma_run
        run = []
        for x in stmts[i:]:
            if id(x) in self.wgmma_keep:
                run.append(self.wgmma_keep[id(x)])
            elif not isinstance(x, ir.Check):
                break
        return min(run)

    def stmts(self, stmts: List[ir.Stmt], at: At) -> State:
        depth, level, state = at
        for i, s in enumerate(stmts):
            if not isinstance(s, ir.Check):
                self.wgmma_run = self.wgmma_run_keep(stmts, i, level)
            if not self.tma.defers(s):
                self.tma.flush(self.w, depth)
            if level == 1 and self.tma.pending_stores and self.tma.stores_reading(
                    {b.name for x in ir.walk([s]) for b in ir.stmt_writes(x)}):
                self.tma.complete_stores(self.w, depth)   # the copy engine has read what this overwrites
                self.barrier(depth)
                state = EMPTY
            pending = set(self.tma.pending_stores)
            if level == 1 and isinstance(s, ir.Loop):   # issued by an earlier iteration
                self.tma.pending_stores |= self.tma.stores_in(s.body)
            self.w(depth, line_directive(s.loc))
            if self.collective and self.lane_zero_only(s):
                # a warp runs the level for its tensor-core operations; the statement is the
                # instance's, done once, by lane 0, and seen by the other lanes after it
                self.w(depth, "if (croktile_tid % 32 == 0) {")
                after = getattr(self, "s_" + type(s).__name__)(s, At(depth + 1, level, state))
                self.w(depth, "}")
                self.w(depth, "__syncwarp();")
            else:
                after = getattr(self, "s_" + type(s).__name__)(s, At(depth, level, state))
            if after is not None:
                state = after
            if isinstance(s, (ir.If, ir.Loop)):   # its body may not have run
                self.tma.pending_stores |= pending
        self.tma.flush(self.w, depth)
        return state

    @staticmethod
    def lane_zero_only(s: ir.Stmt) -> bool:
        """Statements of a warp level that write memory beyond the thread's own (a copy into
        shared or global data, an element store, a call, a print)."""
        if isinstance(s, ir.Dma):
            return s.dst.buffer.storage != "local"
        return isinstance(s, (ir.Store, ir.Call, ir.Print))

    def keys(self, buf: ir.Buffer) -> frozenset:
        """The memory a buffer's pointer may reach: its arena bytes (buffers that share
        bytes conflict), or the buffer itself; `swap` makes its group one."""
        out = set()
        for b in self.swap_group.get(buf.name, [buf]):
            slot = self.slot_of.get(b.name)
            if slot is not None and slot.offset is not None:
                out.add(("arena", slot.offset, slot.offset + align_up(slot.size)))
            elif b.storage == "global" or slot is not None:
                out.add(("buffer", b.name, 0))
        return frozenset(out)

    def barrier(self, depth: int) -> None:
        """__syncthreads(), after the cp.async copies issued for synchronous copies and the
        warp groups' tensor-core operations (which may still read shared operands that
        others overwrite after the barrier: codegen/fragments.py issues them without waiting)."""
        if self.issued_sync_async:
            self.w(depth, "croktile::cuda::cp_async_wait_group<0>();")
        if self.uses_wgmma:
            keep = self.wgmma_run or 0
            self.w(depth, f"croktile::wgmma::wait<{keep}>();" + (
                f"   // the {keep} newest multiply groups read none of the buffers loaded next" if keep else ""))
        self.w(depth, BARRIER)

    def step(self, at: At, kind: int, reads: frozenset, writes: frozenset, record_writes: bool = True) -> State:
        """Emits the barrier an outer-level step needs (analysis/barriers.py); returns the
        state after it. `record_writes=False`: the step's writes need no barrier before
        they are read (a copy-engine load, whose readers wait on its mbarrier)."""
        state = seen = at.state
        if self.wgmma_run is not None:   # the run's barrier waited for what its loads need
            seen = state._replace(group_reads=frozenset(k for k in state.group_reads if k[0] != "tc"))
        if self.barrier_plan.needs(seen, kind, reads, writes):
            self.barrier(at.depth)
            # multiplies still in flight read these bytes
            state = State(self.tc_keys, NOTHING, NOTHING, NOTHING) if self.wgmma_run else EMPTY
        return self.barrier_plan.record(state, kind, reads, writes if record_writes else NOTHING)

    def s_Loop(self, s: ir.Loop, at: At) -> State:
        """A block-level loop whose body touches what is pending starts with the barrier
        it needs before the loop, not in every iteration (the state a loop body starts in
        joins the one it ends in: a copy before the loop would keep the barrier inside)."""
        depth, level, state = at
        if level == 1 and any(state):
            reads, writes = accesses(s.body, self.keys)
            # what needs a barrier whoever runs the body: the rule of a masked step (the
            # one thread's own earlier accesses need none)
            if self.barrier_plan.needs(state, MASKED, reads, writes):
                self.barrier(depth)
                at = At(depth, level, EMPTY)
        return super().s_Loop(s, at)

    def wgmma_async(self) -> bool:
        return bool(self.tma.copies)

    def before_leaving(self) -> str:
        """A kernel may not end with its warp group's multiplies in flight: ptxas would add
        the wait itself, and say so on every build (C7517)."""
        return "croktile::wgmma::wait<0>(); " if self.uses_wgmma else ""

    def s_Parallel(self, s: ir.Parallel, at: At) -> Optional[State]:
        depth, level, state = at
        if s.level == 2:
            # entering: a barrier where the instances' accesses meet the outer level's
            # since the last one; leaving: theirs are pending for the next outer step
            reads, writes = accesses(s.body, self.keys)
            after = self.barrier_plan.step(state, COOPERATIVE, reads, writes, self.barrier, depth)
            lanes = self.lanes(s)
            if lanes is not None:
                self.lane_level(s, depth, *lanes)
                return after
            saved_run, self.thread_run = self.thread_run, (s, None)
            if s.count.is_const and s.count.value <= self.static_block():
                # every instance has its own thread: a guard, not a loop
                self.w(depth, f"if (croktile_tid < {s.count.value}) {{   // one instance per thread")
                self.w(depth + 1, f"[[maybe_unused]] const long long {s.var} = croktile_tid;")
                self.thread_run = (s, s.count.value)
            else:   # thread t runs instances t, t + blockDim.x, ...
                self.w(depth, f"for (long long {s.var} = croktile_tid; {s.var} < {dev_expr(s.count)}; "
                              f"{s.var} += croktile_nt) {{")
            self.instance_body(s, depth + 1, self.thread_buffers)
            self.thread_run = saved_run
            self.w(depth, "}")
            return after
        self.w(depth, f"for (long long {s.var} = 0; {s.var} < {dev_expr(s.count)}; ++{s.var}) {{")
        self.thread_buffers(s, depth + 1)
        self.stmts(s.body, At(depth + 1, s.level, EMPTY))
        self.w(depth, "}")
        return None

    def lane_level(self, s: ir.Parallel, depth: int, per: int, thread: Optional[ir.Parallel]) -> None:
        """An annotated `group-4`/`group` level (``lanes``): instance `tid / per`; its
        `thread` level, if any, is instance `tid % per`, else the instance runs on the
        first thread of its warp (group) and the others idle."""
        total = s.count.value * per
        warp_ops = thread is None and any(isinstance(x, MMA_KINDS) for x in ir.walk(s.body))
        first = "" if thread is not None or warp_ops else f" && croktile_tid % {per} == 0"
        # every thread of the block runs an instance: no test (a divergent branch around
        # wgmma makes ptxas serialize the warp group's multiplies)
        every = not first and total == self.static_block()
        guard = "" if every else f"if (croktile_tid < {total}{first}) "
        self.w(depth, f"{guard}{{   // '{s.kind}': {s.count.value} x {per} threads")
        self.w(depth + 1, f"[[maybe_unused]] const long long {s.var} = croktile_tid / {per};")
        runs = s
        if thread is not None:
            for d in s.body[:-1]:
                self.s_ScalarDef(d, At(depth + 1, 2, EMPTY))
            self.w(depth + 1, f"[[maybe_unused]] const long long {thread.var} = croktile_tid % {per};")
            runs = thread
        saved = self.end_label
        self.end_label = None
        if any(isinstance(c, ir.Check) for c in ir.walk(runs.body)):
            self.end_label = f"croktile_end{self.label_count}"
            self.label_count += 1
        self.thread_buffers(runs, depth + 1)
        saved_collective, self.collective = self.collective, warp_ops
        saved_run, self.thread_run = self.thread_run, (runs, total if not first or s.count.value == 1 else None)
        self.stmts_before_label(runs.body, At(depth + 1, runs.level, EMPTY))
        self.collective, self.thread_run = saved_collective, saved_run
        self.end_label = saved
        self.w(depth, "}")

    def s_InThreads(self, s: ir.InThreads, at: At) -> State:
        barrier = self.barriers.get(id(s))
        if barrier is None:
            return self.s_If(s, at)
        bar = self.instance_barrier(s, barrier.levels[-1])
        if bar and barrier.before:
            self.w(at.depth, bar)
        state = self.s_If(s, at)
        if bar:
            self.w(at.depth, bar)
        return state

    def instance_barrier(self, s: ir.InThreads, level: ir.Parallel) -> str:
        """The barrier of the threads that run the instances of `level` one each
        (``thread_run``): none for one thread, `__syncwarp` for the first lanes of a warp,
        `__syncthreads()` for the whole block, a named barrier for whole warps; an error for
        other mappings (instances looped over by a thread, or not whole warps)."""
        runs, threads = self.thread_run
        if runs is level and threads == 1:
            return ""
        if runs is level and threads is not None and threads < 32:
            return f"__syncwarp({hex((1 << threads) - 1)}u);"
        if runs is level and threads is not None and threads % 32 == 0:
            return BARRIER if threads == self.static_block() else f"croktile::cuda::bar_sync(1, {threads});"
        if runs is level and threads is None and level.kind in ("group", "group-4"):
            self.diag.error(s.loc, f"this 'inthreads' block ends in a barrier of the instances of its "
                                   f"'{level.kind}' level, but on target 'cuda' each of them runs on one thread of "
                                   "its warp here (this part of the level, between block-wide statements, holds no "
                                   "tensor-core statement and no ': thread' level), and those threads cannot meet at "
                                   "a barrier; give the level a ': thread' level for its work, or use "
                                   "'inthreads.async' with events")
            return ""
        self.diag.error(s.loc, "this 'inthreads' block ends in a barrier of the instances of its level, and "
                               "on target 'cuda' each instance must then be a thread (or a warp or warp group) "
                               "of its own, at most 32 of them or whole warps; make the level 'group'/'group-4' "
                               "or its size at most 32 or a multiple of 32, or use 'inthreads.async' with events")
        return ""

    def thread_buffers(self, par: ir.Parallel, depth: int) -> None:
        for b in par.buffers:
            ct = elem_ctype(b.elem)
            count = static_bytes(b)
            if count is None:
                self.w(depth, f"{ct}* {self.ptr(b)} = reinterpret_cast<{ct}*>(croktile_slot_base + {b.name}__off);")
                continue
            self.w(depth, f"__align__(16) {ct} {b.name}[{max(count // b.elem_bytes, 1)}];")
            self.w(depth, f"[[maybe_unused]] {ct}* {self.ptr(b)} = {b.name};")   # nvcc warns of an unused one

    def s_Alloc(self, s: ir.Alloc, at: At) -> None:
        pass   # arena slots and thread arrays are set up where the kernel and the level start

    def s_Fill(self, s: ir.Fill, at: At) -> Optional[State]:
        depth, state = at.depth, None
        b = s.buffer
        start, step = "0", "1"
        if at.level == 1:   # the whole block fills the arena buffer
            state = self.step(at, COOPERATIVE, NOTHING, self.keys(b))
            start, step = "croktile_tid", "croktile_nt"
        self.w(depth, f"for (long long croktile_i = {start}; croktile_i < {dev_expr(product(b.shape))}; "
                      f"croktile_i += {step}) {self.ptr(b)}[croktile_i] = {fill_literal(b.elem, s.value)};")
        return state

    def s_Swap(self, s: ir.Swap, at: At) -> None:
        ct = elem_ctype(s.a.elem)
        self.w(at.depth, f"{{ {ct}* croktile_t = {self.ptr(s.a)}; {self.ptr(s.a)} = {self.ptr(s.b)}; "
                         f"{self.ptr(s.b)} = croktile_t; }}" + self.tma.swap(s.a, s.b))

    def s_Wait(self, s: ir.Wait, at: At) -> Optional[State]:
        depth = at.depth
        done = self.waits.complete(s)   # waited already on every path: nothing left (analysis/futures.py)
        if done:
            self.w(depth, f"/* wait {', '.join(f for f in s.futures if f in done)}: complete already */")
        futures = [f for f in s.futures if f not in done]
        pending = [f for f in futures if f in self.async_futures]
        stores = [f for f in futures if f in self.tma.store_futures]
        others = [f for f in futures if f not in self.async_futures and f not in stores]
        if others:
            self.w(depth, f"/* wait {', '.join(others)}: these copies completed when issued */")
        if stores:
            self.tma.complete_stores(self.w, depth)
            if not pending:
                self.barrier(depth)
                return EMPTY
        if pending:
            keep = self.waits.keep.get(id(s), 0)
            d = depth
            if self.tma.futures:   # the fast instance's bulk tensor copies commit no cp.async group
                self.w(depth, "if constexpr (CroktileFast) {")
                for f in pending:
                    self.w(depth + 1, self.tma.wait_future(f) if f in self.tma.futures else
                           f"croktile::cuda::cp_async_wait_group<0>();  // wait {f}")
                self.w(depth, "} else {")
                d = depth + 1
            self.w(d, f"croktile::cuda::cp_async_wait_group<{keep}>();  // wait {', '.join(pending)}"
                      + (f"; {keep} later cp.async group(s) may stay in flight" if keep else ""))
            if all(f in self.tma.futures for f in pending):
                # the copy-engine loads left no pending write (s_Dma): every thread has
                # waited on their mbarriers; the block's own copies need the barrier
                self.w(d, BARRIER)
                self.w(depth, "}")
                return None
            if self.tma.futures:
                self.w(depth, "}")
            if self.uses_wgmma:
                self.w(depth, "croktile::wgmma::wait<0>();")
            self.w(depth, BARRIER)
            return EMPTY
        return None

    def region_ptr(self, r: ir.Region) -> str:
        off = linear(r.offsets, r.shape)
        return self.ptr(r.buffer) + ("" if off.is_const and off.value == 0 else f" + {paren(dev_expr(off))}")

    def s_Call(self, s: ir.Call, at: At) -> Optional[State]:
        depth, state = at.depth, None
        args = call_arguments(s, self.region_ptr, dev_expr, self.elements().value)
        targs = ""
        if s.template_args is not None:
            vals = []
            for t in s.template_args:
                if not t.is_const:
                    self.diag.error(s.loc, f"template argument '{t.to_c()}' of '{s.func}' is not a compile-time "
                                           "constant")
                    return state
                vals.append(str(t.value))
            targs = f"<{', '.join(vals)}>"
        text = call_statement(s, f"{s.func}{targs}", args)
        if at.level == 1:
            touched = frozenset().union(*(self.keys(a.region.buffer) for a in s.args if a.region is not None))
            state = self.step(at, COOPERATIVE if s.result else MASKED, touched | self.read_keys(s), touched)
            # a value every thread of the block needs: each calls (README "Scalars")
            self.w(depth, text if s.result else f"if (croktile_tid == 0) {text}")
        else:
            self.w(depth, text)
        return state

    def read_keys(self, s: ir.Stmt) -> frozenset:
        return reads_of(s, self.keys)

    def s_ScalarDef(self, s: ir.ScalarDef, at: At) -> Optional[State]:
        state = None
        if at.level == 1 and ir.stmt_reads(s):   # every thread computes the scalar: all read
            state = self.step(at, COOPERATIVE, self.read_keys(s), NOTHING)
        # a part of a level that block_shared.py split may use none of the level's indices
        ctype = scalar_ctype(s.ctype, self.index_type)
        self.w(at.depth, f"[[maybe_unused]] {ctype} {s.name} = {self.scalar_value(s.ctype, s.elem, s.expr, s.value)};")
        return state

    def s_Assign(self, s: ir.Assign, at: At) -> Optional[State]:
        state = None
        if at.level == 1 and ir.stmt_reads(s):
            state = self.step(at, COOPERATIVE, self.read_keys(s), NOTHING)
        super().s_Assign(s, at)
        return state

    def s_Store(self, s: ir.Store, at: At) -> Optional[State]:
        text = ElementWriter("cxx", self.ptr, dev_expr, elem_ctype).store(s)
        if at.level != 1:   # one thread of an inner level: a plain access
            self.w(at.depth, text)
            return None
        # outer-level code runs as if on thread 0 (spec 4)
        reads = frozenset().union(*(self.keys(r.buffer) for r in s.reads()))
        state = self.step(at, MASKED, reads, self.keys(s.buffer))
        self.w(at.depth, f"if (croktile_tid == 0) {text}")
        return state

    copy_dims = staticmethod(copy_dims)

    def copy_box(self, s: ir.Dma) -> Optional[Tuple[int, str]]:
        """The strided dimensions and the `box` fields of a block-cooperative copy."""
        dims, run, sst, dst = self.copy_dims(s)
        if len(dims) > MAX_COPY_DIMS:
            self.diag.error(s.loc, f"a copy over more than {MAX_COPY_DIMS + 1} non-contiguous dimensions is not "
                                   "supported on target 'cuda'")
            return None

        def arr(items):
            return "{" + ", ".join(dev_expr(x) for x in items) + "}"
        ext = s.src.extents
        return len(dims), (f"{dev_expr(run)}, {arr([ext[d] for d in dims])}, {arr([sst[d] for d in dims])}, "
                           f"{arr([dst[d] for d in dims])}")

    def s_Print(self, s: ir.Print, at: At) -> Optional[State]:
        text = print_stmt(s, dev_expr, printf="printf", flush="", value=self.elements().value)
        if at.level != 1:
            self.w(at.depth, text)
            return None
        state = self.step(at, MASKED, self.read_keys(s), NOTHING)
        self.w(at.depth, f"if (croktile_tid == 0) {{ {text} }}")
        return state

    def s_Dma(self, s: ir.Dma, at: At) -> Optional[State]:
        depth = at.depth
        tma = self.tma.copies.get(id(s)) if at.level == 1 else None
        if s.element_wise and tma is None and not (self.swizzled_copy(s) and at.level == 1):
            if at.level != 1:
                self.element_copy(s, depth, shared=False)
                return None
            state = self.step(at, COOPERATIVE, self.keys(s.src.buffer), self.keys(s.dst.buffer))
            self.element_copy(s, depth, shared=True)
            return state
        if at.level != 1:
            self.thread_copy(s, depth)
            return None
        state = self.step(at, COOPERATIVE, self.keys(s.src.buffer), self.keys(s.dst.buffer),
                          record_writes=not (tma is not None and tma.load))
        if tma is not None:   # the fast instance's copy engine (targets/cuda/tma.py)
            self.w(depth, "if constexpr (CroktileFast) {")
            self.tma.issue(s, self.region_ptr, self.w, depth + 1)
            self.w(depth, "} else {")
            self.block_copy(s, depth + 1)
            if tma.load and not (s.is_async and s.future in self.async_futures):
                # the block's own copy, seen by all before they read (the fast instance's
                # readers wait on the load's mbarrier instead)
                if self.sync_as_async and self.cp_async_eligible(s, 1):
                    self.w(depth + 1, "croktile::cuda::cp_async_wait_group<0>();")
                self.w(depth + 1, BARRIER)
            self.w(depth, "}")
        else:
            self.block_copy(s, depth)
        return state

    def element_copy(self, s: ir.Dma, depth: int, shared: bool) -> None:
        """A copy as element loops (a transpose, a pad, a partial tile): by one thread, or
        shared among the threads of the block. A partial tile found whole at run time (every
        tile but the last ones) takes the box copy."""
        whole = whole_copy(s)
        if whole is not None:
            cond = " && ".join(f"({dev_expr(c)})" for c in whole_conditions(s))
            self.w(depth, f"if ({cond}) {{")
            if shared:   # (synchronous: the barriers wait for cp.async only where planned)
                self.block_copy(whole, depth + 1, as_async=False)
            else:
                self.thread_copy(whole, depth + 1)
            self.w(depth, "} else {")
            depth += 1
        loops, body = element_loops(s, self.ptr, dev_expr, elem_ctype(s.dst.buffer.elem))
        if shared:
            write_shared_loops(self.w, depth, loops, body, dev_expr, "croktile_tid", "croktile_nt")
        else:
            write_loops(self.w, depth, loops, body, dev_expr)
        if whole is not None:
            self.w(depth - 1, "}")

    @staticmethod
    def swizzled_copy(s: ir.Dma) -> bool:
        """A copy into a swizzled shared tile: block_copy writes it by `copy_2d`, zeros past a
        partial source included."""
        return bool(s.swizzle) and s.dst.buffer.storage == "shared" and s.op is ir.DmaOp.COPY

    def block_copy(self, s: ir.Dma, depth: int, as_async: bool = True) -> None:
        """The threads of the block copy a box together, each a slice (``as_async``: a
        synchronous copy may be issued as cp.async, waited at the next barrier)."""
        if self.swizzled_copy(s):
            # written in the swizzled layout a warp group's wgmma descriptors read; a partial
            # source gives its rows and columns in the data (zeros past them)
            ct = elem_ctype(s.dst.buffer.elem)
            rows, cols = s.dst.extents[-2:]   # the source's equal them (a checked copy)
            src_strides = strides(s.src.shape)
            stride = src_strides[-2]
            rank = len(s.src.extents)
            lead = [d for d in range(rank - 2) if not (s.src.extents[d].is_const and s.src.extents[d].value == 1)]
            if not lead:
                edge = ""
                if s.src.partial:
                    edge = f", {dev_expr(s.src.valid_extent(rank - 2))}, {dev_expr(s.src.valid_extent(rank - 1))}"
                self.w(depth, f"croktile::swizzle::copy_2d<{ct}, {s.swizzle}>({self.region_ptr(s.dst)}, "
                              f"{self.region_ptr(s.src)}, {dev_expr(rows)}, {dev_expr(cols)}, "
                              f"{dev_expr(stride)}{edge});")
                return
            # a box of several 2-D tiles (the rows of several heads): one tile after the other
            # in the destination, each its own source rows; a tile past the data is zeros
            self.swizzled_tiles(s, depth, ct, lead, src_strides)
            return
        if s.element_wise:
            self.element_copy(s, depth, shared=True)
            return
        box = self.copy_box(s)
        if box is None:
            return
        nd, literal = box
        dst, src = self.region_ptr(s.dst), self.region_ptr(s.src)
        sync_as_async = (as_async and self.sync_as_async and self.cp_async_eligible(s, 1)
                         and id(s) not in self.copies_through_registers)
        is_async = "true" if (s.future in self.async_futures and s.is_async) or sync_as_async else "false"
        self.w(depth, f"croktile::cuda::block_copy<{nd}, {is_async}>({dst}, {src}, "
                      f"croktile::cuda::box{{{literal}}});")

    def swizzled_tiles(self, s: ir.Dma, depth: int, ct: str, lead: List[int], src_strides: List[Sym]) -> None:
        """A swizzled copy whose box has leading dimensions beyond 1 (`lead`): a loop of
        copy_2d over them, the tiles row after row in the destination (as the copy engine
        writes such a box)."""
        rows, cols = s.dst.extents[-2:]
        counts = [dev_expr(s.src.extents[d]) for d in lead]
        self.w(depth, f"for (long long croktile_l = 0; croktile_l < {' * '.join(f'({c})' for c in counts)}; "
                      "++croktile_l) {")
        index, offset, inside = "croktile_l", [], []
        for d, count in reversed(list(zip(lead, counts))):
            var = f"croktile_l{d}"
            self.w(depth + 1, f"const long long {var} = {index} % ({count});")
            index = f"{index} / ({count})"
            offset.append(f"{var} * ({dev_expr(src_strides[d])})")
            if s.src.crosses(d):
                inside.append(f"{var} < ({dev_expr(s.src.valid_extent(d))})")
        in_rows = dev_expr(s.src.valid_extent(len(s.src.extents) - 2)) if s.src.partial else dev_expr(rows)
        in_cols = dev_expr(s.src.valid_extent(len(s.src.extents) - 1)) if s.src.partial else dev_expr(cols)
        if inside:
            in_rows = f"({' && '.join(inside)}) ? ({in_rows}) : 0"
        self.w(depth + 1, f"croktile::swizzle::copy_2d<{ct}, {s.swizzle}>({self.region_ptr(s.dst)} + croktile_l * "
                          f"({dev_expr(rows)}) * ({dev_expr(cols)}), {self.region_ptr(s.src)} + {' + '.join(offset)}, "
                          f"{dev_expr(rows)}, {dev_expr(cols)}, {dev_expr(src_strides[-2])}, {in_rows}, {in_cols});")
        self.w(depth, "}")

    def unroll_hint(self, s: ir.Loop, level: int) -> str:
        """A thread's innermost loop of run-time count over straight-line work (copies,
        calls, element code) is unrolled 8 times: with the fast instance's __restrict__
        pointers the loads of 8 iterations are in flight together, as in the same loop
        of constant count, which nvcc unrolls whole (it unrolls 4 times by itself)."""
        if s.count.is_const and self.uses_wgmma and any(
                isinstance(x, ir.MmaMul) and x.c.frag.engine is ir.MmaEngine.WGMMA for x in ir.walk(s.body)):
            # the warp group's multiplies of all steps issued back to back: ptxas serializes
            # wgmma whose accumulator registers a loop's moves touch between them
            return "#pragma unroll"
        if level < 2 or s.count.is_const or self.collective:
            return ""
        if any(isinstance(x, (ir.Loop, ir.Parallel, ir.If, ir.Break, ir.Continue, ir.InThreads)) for x in ir.walk(s.body)):
            return ""
        return "#pragma unroll 8"

    def vector_aligned(self, r: ir.Region, size: int) -> bool:
        """The region starts 16-byte aligned whenever its buffer's base is: its element
        offset is a multiple of 16 bytes for every value of its symbols, and the base is a
        thread array (__align__(16)), an arena slot at an aligned constant offset, or global
        memory (which the fast instance of the kernel is launched for only)."""
        b = r.buffer
        if 16 % size:
            return False
        per = 16 // size
        if any(c % per for c in linear(r.offsets, r.shape).terms.values()):
            return False
        if b.storage == "global":
            return True
        slot = self.slot_of.get(b.name)
        if slot is not None:
            return slot.offset is not None and slot.offset % 16 == 0 and self.arena_align >= 16
        return b.storage == "local" and b not in self.scratch and static_bytes(b) is not None

    def thread_copy(self, s: ir.Dma, depth: int) -> None:
        """One thread copies a box: loops written out, so that constant trip counts unroll
        and per-thread arrays indexed by them stay in registers; 16-byte vectors where
        the run and the strides allow and both addresses turn out aligned."""
        dims, run, sst, dstr = self.copy_dims(s)
        ext = s.src.extents
        ct = elem_ctype(s.src.buffer.elem)
        size = s.src.buffer.elem_bytes
        vec = run.is_const and run.value * size % 16 == 0 and all(
            sst[d].is_const and dstr[d].is_const and sst[d].value * size % 16 == 0
            and dstr[d].value * size % 16 == 0 for d in dims)

        def nest(d0: int, body: str, inner: Sym, var: str) -> None:
            loops = [(f"croktile_i{d}", ext[d]) for d in dims] + [(var, inner)]
            trips = 1
            for _, e in loops:
                trips = trips * e.value if e.is_const else UNROLL_LIMIT + 1
            for n, (v, e) in enumerate(loops):
                if trips <= UNROLL_LIMIT:   # beyond it nvcc spends minutes and the array spills anyway
                    self.w(d0 + n, "#pragma unroll")
                self.w(d0 + n, f"for (long long {v} = 0; {v} < {dev_expr(e)}; ++{v})")
            self.w(d0 + len(loops), body)

        src_off = " + ".join([f"croktile_i{d} * {paren(dev_expr(sst[d]))}" for d in dims]) or "0"
        dst_off = " + ".join([f"croktile_i{d} * {paren(dev_expr(dstr[d]))}" for d in dims]) or "0"
        self.w(depth, "{")
        self.w(depth + 1, f"{ct}* const croktile_d = {self.region_ptr(s.dst)};")
        self.w(depth + 1, f"const {ct}* const croktile_s = {self.region_ptr(s.src)};")
        scalar = f"croktile_d[{dst_off} + croktile_e] = croktile_s[{src_off} + croktile_e];"
        if vec:
            test = "((unsigned long long)croktile_d | (unsigned long long)croktile_s) % 16 == 0"
            if self.vector_aligned(s.src, size) and self.vector_aligned(s.dst, size):
                # the kernel's fast instance (every global pointer 16-byte aligned) knows it
                test = f"CroktileFast || ({test})"
                self.aligned_copies += 1
            self.w(depth + 1, f"if ({test}) {{")
            nest(depth + 2, f"reinterpret_cast<uint4*>(croktile_d + {dst_off})[croktile_v] = "
                            f"reinterpret_cast<const uint4*>(croktile_s + {src_off})[croktile_v];",
                 Sym.const(run.value * size // 16), "croktile_v")
            self.w(depth + 1, "} else {")
            nest(depth + 2, scalar, run, "croktile_e")
            self.w(depth + 1, "}")
        else:
            nest(depth + 1, scalar, run, "croktile_e")
        self.w(depth, "}")
