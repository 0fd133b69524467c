"""cuda target: `tma.copy` on the Hopper copy engine (sm_90 and newer).

A block-level `tma.copy` between a kernel's global array and a dense box of its shared
arena is one `cp.async.bulk.tensor` (runtime/croktile_tma.h), issued by thread 0:
- the host encodes one tensor map per (array, box, swizzle) once per launch and passes it
  as a `__grid_constant__` kernel parameter;
- a load completes on an mbarrier of its destination buffer (`expect_tx` of the box's
  bytes); every thread waits on the barrier's phase, right after the run of loads it
  belongs to (consecutive synchronous loads are all in flight together), or at the `wait`
  of its future for an `.async` copy waited at the block level: a phase completes once,
  so a wait of a future that is complete already (analysis/futures.py) waits on nothing,
  and where it is complete on some paths only (a wait in every iteration of a loop for a
  copy issued before it) a bit per barrier records at run time that a load is in flight;
- a store follows `fence.proxy.async` and a barrier, and completes before thread 0 goes on.

The copies live in the kernel's fast instance (`CroktileFast`, which the launch takes when
every global pointer is 16-byte aligned and the driver encoded every map); the other
instance keeps the cooperative copies, so a misaligned array or a row pitch the copy
engine cannot take still runs. Barrier placement (`step`) is shared by both instances.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

from ... import ir
from ...ir.symbolic import Sym
from ...codegen.cxx import elem_ctype
from ...codegen.kernel_emitter import dev_expr, linear, sym_vars
from .archs import number as arch_number

TMA_MIN_SM = 90
MAX_BARRIERS = 32        # phase bits of one `unsigned`
SMEM_ALIGN = 128         # a bulk tensor copy's shared-memory address


def has_tma(arch: Optional[str]) -> bool:
    return arch_number(arch or "") >= TMA_MIN_SM


@dataclass
class TmaMap:
    index: int
    buffer: ir.Buffer          # the kernel's global array
    dims: List[Sym]            # the row-major shape the boxes lie in
    box: List[int]
    swizzle: int

    @property
    def name(self) -> str:
        return f"croktile_map{self.index}"


@dataclass
class TmaCopy:
    load: bool                 # global -> shared (else shared -> global)
    map: TmaMap
    shared: ir.Region
    coords: List[Sym]          # the box's first element in the map's dimensions
    bytes: int


def _dense(r: ir.Region) -> bool:
    """Whether the box is one contiguous run of its buffer in row-major order."""
    if r.strides is not None or r.base is not None or r.view is not None:
        return False
    shape = r.buffer.shape
    for d in range(len(shape)):
        inner = list(zip(r.extents[d + 1:], shape[d + 1:], r.offsets[d + 1:]))
        if all(e == s and o.is_const and o.value == 0 for e, s, o in inner):
            return True
        if not (r.extents[d].is_const and r.extents[d].value == 1):
            return False
    return True


def _aligned(r: ir.Region, align: int) -> bool:
    """The box starts `align` bytes into its buffer for every value of its symbols."""
    size = r.buffer.elem_bytes
    return all(c * size % align == 0 for c in linear(r.offsets, r.shape).terms.values())


class TmaPlan:
    """Which block-level copies of one kernel are bulk tensor copies, their maps, and the
    mbarriers (one per destination buffer; buffers that `swap` exchanges carry their
    barrier's index in a variable that swaps with them)."""

    def __init__(self, k, arch: Optional[str]):
        self.k = k
        self.copies: Dict[int, TmaCopy] = {}
        self.maps: List[TmaMap] = []
        self.map_of: Dict[tuple, TmaMap] = {}   # (array, dims, box, swizzle) -> its map
        self.barrier_of: Dict[str, int] = {}
        self.swapped: Set[str] = set()
        self.futures: Set[str] = set()     # async futures completed through barriers
        self.deferred: List[str] = []       # barriers of issued synchronous loads, not yet waited
        self.store_futures: Set[str] = set()   # async stores that `wait` completes (thread 0's bulk groups)
        self.store_sources: Dict[str, frozenset] = {}   # a store future -> the names of the buffers it reads
        self.pending_stores: Set[str] = set()   # store futures issued and not waited, in emission order
        self.tracked = False   # whether `croktile_tma_pending` records the async loads in flight
        if not has_tma(arch):
            return
        nested = {id(x) for s, _ in k.all if isinstance(s, ir.InThreads) for x in ir.walk(s.body)}
        for s, level in k.all:
            if isinstance(s, ir.Dma) and level == 1 and id(s) not in nested:
                copy = self._copy(s)
                if copy is not None:
                    self.copies[id(s)] = copy
        for s, _ in k.all:
            c = self.copies.get(id(s))
            if c is None or not c.load:
                continue
            group = k.swap_group.get(c.shared.buffer.name, [c.shared.buffer])
            for b in group:
                if b.name not in self.barrier_of and len(self.barrier_of) < MAX_BARRIERS:
                    self.barrier_of[b.name] = len(self.barrier_of)
                if len(group) > 1:
                    self.swapped.add(b.name)
            if c.shared.buffer.name not in self.barrier_of:
                del self.copies[id(s)]
        for c in self.copies.values():   # the arena places the buffer where the engine can reach it
            c.shared.buffer.align = max(c.shared.buffer.align, SMEM_ALIGN)
        self.futures = self._barrier_futures()
        self.tracked = any(isinstance(s, ir.Wait) and k.waits.unsure(s) & self.futures for s, _ in k.all)
        self._plan_async_stores()

    # -- analysis -------------------------------------------------------------------
    def _copy(self, s: ir.Dma) -> Optional[TmaCopy]:
        k = self.k
        if s.engine is not ir.CopyEngine.TMA or s.op is not ir.DmaOp.COPY:
            return None
        load = s.src.buffer.storage == "global"
        glob, shared = (s.src, s.dst) if load else (s.dst, s.src)
        if shared.partial:   # (a partial global box is the copy engine's own: zeros in, clipped out)
            return None
        if glob.partial and not all(lim == d for lim, d in zip(glob.limits, glob.shape)):
            return None   # a tile of a chunk, partial at the chunk's end: the engine clips at the array's
        if glob.buffer not in k.globals or shared.buffer.name not in k.arena_names:
            return None
        if glob.buffer.storage != "global" or glob.strides is not None or glob.base is not None:
            return None
        dims = glob.shape
        size = glob.buffer.elem_bytes
        if not (1 <= len(dims) <= 5) or not all(e.is_const and 1 <= e.value <= 256 for e in glob.extents):
            return None
        if not all(sym_vars(d) <= k.host_names for d in dims):
            return None
        box = [e.value for e in glob.extents]
        if box[-1] * size % 16:
            return None
        swizzle = s.swizzle if load else 0
        # a swizzled box has rows of the swizzle's width; leading dimensions beyond the rows
        # (the query rows of several heads) land row after row, as one tile of their rows
        if swizzle and (len(box) < 2 or box[-1] * size != swizzle):
            return None
        align = max(SMEM_ALIGN, 8 * swizzle)
        if not (_dense(shared) and _aligned(shared, align)):
            return None
        count = 1
        for e in box:
            count *= e
        key = (glob.buffer.name, tuple(d.key() for d in dims), tuple(box), swizzle)
        if key not in self.map_of:
            self.map_of[key] = TmaMap(len(self.maps), glob.buffer, list(dims), box, swizzle)
            self.maps.append(self.map_of[key])
        return TmaCopy(load, self.map_of[key], shared, list(glob.offsets), count * size)

    def _barrier_futures(self) -> Set[str]:
        """Async futures whose every copy (also through swaps) is a bulk tensor load and
        that the block waits for (`KernelEmitter.async_futures`)."""
        k = self.k
        issued: Dict[str, List[ir.Dma]] = {}
        for s, _ in k.all:
            if isinstance(s, ir.Dma) and s.is_async and s.future:
                issued.setdefault(s.future, []).append(s)
        out = set()
        for f in k.async_futures:
            group = k.swap_group.get(issued[f][0].dst.buffer.name, [issued[f][0].dst.buffer])
            members = [k.future_of_buffer.get(b.name) for b in group]
            if all(m is not None and all(id(x) in self.copies for x in issued.get(m, [None])) for m in members):
                out.add(f)
        return out

    def _plan_async_stores(self) -> None:
        """`f = tma.copy.async s => global` whose every copy is a bulk tensor store: thread 0
        commits it and goes on; `wait f` (or a write to its source) completes it."""
        issued: Dict[str, List[ir.Dma]] = {}
        for s, _ in self.k.all:
            if isinstance(s, ir.Dma) and s.future:
                issued.setdefault(s.future, []).append(s)
        for f, copies in issued.items():
            if all(s.is_async and id(s) in self.copies and not self.copies[id(s)].load for s in copies):
                self.store_futures.add(f)
                self.store_sources[f] = frozenset(self.copies[id(s)].shared.buffer.name for s in copies)

    # -- device code ----------------------------------------------------------------
    def bar(self, name: str) -> str:
        return f"croktile_tb_{name}" if name in self.swapped else str(self.barrier_of[name])

    def declare(self, w, depth: int) -> None:
        """The barriers, their phases and (for swapped buffers) index variables."""
        if not self.barrier_of:
            return
        n = len(self.barrier_of)
        w(depth, f"__shared__ __align__(8) croktile::mbarrier::type croktile_tma_bar[{n}];")
        w(depth, "[[maybe_unused]] unsigned croktile_tma_phase = 0;   // bit i: the phase barrier i waits for")
        if self.tracked:
            w(depth, "[[maybe_unused]] unsigned croktile_tma_pending = 0;   // bit i: an async load on barrier i not waited yet")
        for name in sorted(self.swapped, key=self.barrier_of.get):
            w(depth, f"int croktile_tb_{name} = {self.barrier_of[name]};")
        w(depth, "if constexpr (CroktileFast) {")
        w(depth + 1, "if (croktile_tid == 0) {")
        w(depth + 2, f"for (int croktile_b = 0; croktile_b < {n}; ++croktile_b) "
                     "croktile::mbarrier::init(&croktile_tma_bar[croktile_b], 1);")
        w(depth + 2, "croktile::mbarrier::fence_init();")
        w(depth + 1, "}")
        w(depth + 1, "__syncthreads();")
        w(depth, "}")

    def wait_line(self, bar: str) -> str:
        return (f"croktile::mbarrier::wait_parity(&croktile_tma_bar[{bar}], (croktile_tma_phase >> {bar}) & 1u); "
                f"croktile_tma_phase ^= 1u << {bar};")

    def issue(self, s: ir.Dma, region_ptr, w, depth: int) -> None:
        """Thread 0 starts the copy; a synchronous load's wait is deferred to `flush`."""
        c = self.copies[id(s)]
        coords = ", ".join(f"(int)({dev_expr(x)})" for x in c.coords)
        smem = region_ptr(c.shared)
        if c.load:
            bar = self.bar(c.shared.buffer.name)
            if bar in self.deferred:    # the buffer's previous load is still unwaited
                self.flush(w, depth, instance=False)
            w(depth, "if (croktile_tid == 0) {")
            w(depth + 1, "croktile::tma::fence_proxy_async();")
            w(depth + 1, f"croktile::mbarrier::arrive_expect_tx(&croktile_tma_bar[{bar}], {c.bytes});")
            w(depth + 1, f"croktile::tma::load_async({smem}, &{c.map.name}, &croktile_tma_bar[{bar}], {coords});")
            w(depth, "}")
            if not (s.is_async and s.future in self.futures):
                self.deferred.append(bar)
            elif self.tracked:
                w(depth, f"croktile_tma_pending |= 1u << {bar};")
            return
        w(depth, "croktile::tma::fence_proxy_async();   // the threads' writes, before the copy engine reads")
        w(depth, "__syncthreads();")
        w(depth, "if (croktile_tid == 0) {")
        w(depth + 1, f"croktile::tma::store_async(&{c.map.name}, {smem}, {coords});")
        w(depth + 1, "croktile::tma::store_commit();")
        if s.is_async and s.future in self.store_futures:   # completed at its `wait`
            self.pending_stores.add(s.future)
        else:
            w(depth + 1, "croktile::tma::store_wait_all<0>();")
        w(depth, "}")

    # -- asynchronous stores ---------------------------------------------------------
    def stores_in(self, body: List[ir.Stmt]) -> Set[str]:
        """The async store futures that a loop body issues: pending where it starts again."""
        return {s.future for s in ir.walk(body) if isinstance(s, ir.Dma) and s.future in self.store_futures}

    def stores_reading(self, names: Set[str]) -> bool:
        """Whether a pending async store reads one of these buffers (a write to it must
        wait for the copy engine to have read it)."""
        return any(self.store_sources[f] & names for f in self.pending_stores)

    def complete_stores(self, w, depth: int) -> None:
        """Thread 0 waits for its bulk stores (then the block's barrier tells the others)."""
        w(depth, "if constexpr (CroktileFast) {")
        w(depth + 1, "if (croktile_tid == 0) croktile::tma::store_wait_all<0>();   // the async stores are done")
        w(depth, "}")
        self.pending_stores.clear()

    def flush(self, w, depth: int, instance: bool = True) -> None:
        """Every thread waits for the synchronous loads issued since the last flush."""
        if not self.deferred:
            return
        lines = [self.wait_line(b) for b in self.deferred]
        self.deferred = []
        if instance:
            w(depth, "if constexpr (CroktileFast) {")
            for line in lines:
                w(depth + 1, line)
            w(depth, "}")
        else:
            for line in lines:
                w(depth, line)

    def defers(self, s: ir.Stmt) -> bool:
        """A synchronous load: the next one may be issued before this one is waited for."""
        c = self.copies.get(id(s))
        return c is not None and c.load and not (s.is_async and s.future in self.futures)

    def wait_future(self, future: str) -> str:
        """Every thread waits for an async load (that may have been waited already, where
        ``tracked``)."""
        name = next(b for b, f in self.k.future_of_buffer.items() if f == future)
        bar = self.bar(name)
        if not self.tracked:
            return self.wait_line(bar)
        return (f"if ((croktile_tma_pending >> {bar}) & 1u) {{ {self.wait_line(bar)} "
                f"croktile_tma_pending &= ~(1u << {bar}); }}")

    def swap(self, a: ir.Buffer, b: ir.Buffer) -> str:
        if a.name in self.swapped and b.name in self.swapped:
            return f" {{ const int croktile_t = croktile_tb_{a.name}; croktile_tb_{a.name} = croktile_tb_{b.name}; " \
                   f"croktile_tb_{b.name} = croktile_t; }}"
        return ""

    # -- host code -------------------------------------------------------------------
    def host_maps(self, w, depth: int, mem, hx) -> List[str]:
        """Declares and encodes the maps before the launch; returns the conditions of the
        fast instance (each map encoded)."""
        conds = []
        for m in self.maps:
            ct = elem_ctype(m.buffer.elem)
            dims = ", ".join(f"(long long)({hx(d)})" for d in m.dims)
            box = ", ".join(str(b) for b in m.box)
            w(depth, f"CUtensorMap {m.name}{{}};")
            conds.append(f"croktile::tma::box_map<{ct}, {len(m.dims)}>(&{m.name}, {mem(m.buffer)}.as<{ct}>(), "
                         f"{{{dims}}}, {{{box}}}, {m.swizzle})")
        return conds


def uses_tma(fn: ir.Function, arch: Optional[str]) -> bool:
    return has_tma(arch) and any(isinstance(s, ir.Dma) and s.engine is ir.CopyEngine.TMA for s in ir.walk(fn.body))
