"""Static planning of a kernel's per-block scratch memory (DESIGN section 5).

Every buffer an instance of the launch level owns (`shared` data, DMA
destinations) gets an offset into one arena. Offsets come from live ranges, as
QUDA's KernelOps tracks concurrent shared-memory users: buffers that are live at
the same time never overlap, buffers that never are may share bytes. Each
offset is 16-byte aligned (vector and asynchronous copies need it; it also covers
every element type). Buffers whose size is only known at run time go after the
planned part, one after another, with offsets the host computes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional

from .. import ir

ALIGN = 16


def align_up(n: int, a: int = ALIGN) -> int:
    return (n + a - 1) // a * a


@dataclass
class Slot:
    buffer: ir.Buffer
    first: int                    # live range: statement ids
    last: int
    size: Optional[int]           # bytes; None when only known at run time
    offset: Optional[int] = None  # bytes into the arena; None for run-time sized buffers


@dataclass
class ArenaPlan:
    slots: List[Slot] = field(default_factory=list)
    static_bytes: int = 0         # the planned part (run-time sized buffers follow it)

    @property
    def dynamic(self) -> List[Slot]:
        return [s for s in self.slots if s.size is None]

    def peak(self) -> List[Slot]:
        """The statically sized buffers live together at the point where their bytes peak."""
        best: List[Slot] = []
        best_bytes = -1
        for point in sorted({s.first for s in self.slots}):
            live = [s for s in self.slots if s.size is not None and s.first <= point <= s.last]
            total = sum(s.size for s in live)
            if total > best_bytes:
                best, best_bytes = live, total
        return best


def static_bytes(buf: ir.Buffer) -> Optional[int]:
    """Bytes of the buffer's storage when known at compile time: its constant size, or the
    capacity a stated bound gives it (analysis/bounds.py)."""
    if buf.capacity is not None:
        return buf.capacity * buf.elem_bytes
    n = buf.elem_bytes
    for d in buf.shape:
        if not d.is_const:
            return None
        n *= d.value
    return n


def plan_arena(buffers: List[ir.Buffer], extend: Dict[str, int]) -> ArenaPlan:
    """First-fit placement in order of first use (largest first among equals).

    ``extend`` lengthens live ranges (buffer name -> last statement id), e.g. to the
    ``wait`` of an asynchronous copy that is still writing the buffer.
    """
    plan = ArenaPlan()
    for b in buffers:
        last = max(b.last_use, extend.get(b.name, -1))
        first = b.first_use if b.first_use >= 0 else 0
        plan.slots.append(Slot(b, first, max(last, first), static_bytes(b)))
    live: List[Slot] = []   # placed slots still live where this one starts (in order of first use,
    # a slot that ended before one starts ends before every later one: comparing each slot
    # with every slot placed before it was O(n^2) in a kernel of n buffers)
    for slot in sorted((s for s in plan.slots if s.size is not None), key=lambda s: (s.first, -s.size, s.buffer.name)):
        live = [p for p in live if p.last >= slot.first]
        busy = sorted((p.offset, p.offset + align_up(p.size)) for p in live)
        offset = 0
        for lo, hi in busy:
            offset = align_up(offset, slot.buffer.align)
            if offset + align_up(slot.size) <= lo:
                break
            offset = max(offset, hi)
        slot.offset = align_up(offset, slot.buffer.align)
        live.append(slot)
        plan.static_bytes = max(plan.static_bytes, slot.offset + align_up(slot.size))
    return plan


def wait_extensions(stmts: Iterable[ir.Stmt]) -> Dict[str, int]:
    """An async copy writes its destination until the wait: it stays live until then
    (buffer name -> the statement id of the wait), for ``plan_arena``'s ``extend``."""
    pending: Dict[str, str] = {}
    out: Dict[str, int] = {}
    for s in stmts:
        if isinstance(s, ir.Dma) and s.is_async and s.future:
            pending[s.future] = s.dst.buffer.name
        elif isinstance(s, ir.Wait):
            for f in s.futures:
                if f in pending:
                    out[pending[f]] = max(out.get(pending[f], -1), s.sid)
    return out
