"""Static placement of the factor target's scratchpads: one slot per buffer, placed by
live range within the profile's limits."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from ... import ir
from ...ir.symbolic import Sym
from ...codegen.kernel_emitter import matching, product


ALIGN = 16


PAD_NAMES = {"local": "local scratchpad of a factor thread", "shared": "shared scratchpad of a factor core"}


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _align_sym(s: Sym) -> Sym:
    return Sym.const(_align(s.value)) if s.is_const else (s + (ALIGN - 1)).floordiv(ALIGN) * ALIGN


def _show(s: Sym) -> str:
    """A dimension as messages show it: (M / 2) without the outer parentheses."""
    text = s.to_c()
    if text.startswith("(") and matching(text, 0, "(", ")") == len(text) - 1:
        return text[1:-1]
    return text


@dataclass
class Slot:
    buffer: ir.Buffer
    pad: str                              # local | shared
    copies: Optional[ir.Parallel] = None  # an inner level whose instances each hold one
    note: str = ""                        # why it is where it is, for messages
    offset: Optional[int] = None          # bytes into the pad when known here
    index: int = -1                       # else: its entry of croktile_layout

    @property
    def bytes(self) -> Sym:
        return product(self.buffer.shape) * self.buffer.elem_bytes

    @property
    def stride(self) -> Sym:
        return _align_sym(self.bytes)

    @property
    def total(self) -> Sym:
        return self.bytes if self.copies is None else self.stride * self.copies.count

    def what(self) -> str:
        b = self.buffer
        name = f"'{b.source_name}'" if b.source_name else "the destination of this copy"
        shape = "[" + ", ".join(_show(d) for d in b.shape) + "]"
        extra = f"; {self.note}" if self.note else ""
        if self.copies is not None:
            extra += f"; one per instance of '{self.copies.var}', {_show(self.copies.count)} of them"
        return f"{b.storage} buffer {name} ({b.elem} {shape}{extra})"


def plan_slots(par: ir.Parallel) -> List[Slot]:
    """Every buffer of a launch in its scratchpad: those of known size first, in declaration order."""
    has_inner = any(isinstance(s, ir.Parallel) and s.level >= 2 for s in ir.walk(par.body))
    slots: List[Slot] = []

    def visit(p: ir.Parallel, inner: Optional[ir.Parallel]) -> None:
        for b in p.buffers:
            if p.level == 1 and b.storage == "local" and has_inner:
                slots.append(Slot(b, "shared", note="outer-level data of a two-level kernel"))
            elif b.storage == "shared":
                slots.append(Slot(b, "shared", copies=inner))
            else:
                slots.append(Slot(b, "local"))
        for s in ir.walk(p.body):
            if isinstance(s, ir.Parallel) and s.level == p.level + 1:
                visit(s, inner if inner is not None else s)

    visit(par, None)
    return [s for s in slots if s.total.is_const] + [s for s in slots if not s.total.is_const]


def place_static(slots: List[Slot], limits: Dict[str, int], profile: str, diag) -> Dict[str, int]:
    """Offsets of the slots of known size; one that does not fit is an error (with the others as notes)."""
    ends = {"local": 0, "shared": 0}
    for slot in slots:
        if not slot.total.is_const:
            continue
        offset = _align(ends[slot.pad])
        end = offset + slot.total.value
        limit = limits[slot.pad + "_bytes"]
        if end > limit and ends[slot.pad] <= limit:
            diag.error(slot.buffer.loc, f"{slot.what()} needs {slot.total.value} bytes and does not fit in the "
                                        f"{PAD_NAMES[slot.pad]}: it would end at byte {end}, and profile "
                                        f"'{profile}' allows {limit}")
            for other in slots:
                if other is not slot and other.pad == slot.pad and other.total.is_const:
                    diag.note(other.buffer.loc, f"{other.what()}, {other.total.value} bytes, is in the same "
                                                "scratchpad")
        slot.offset = offset
        ends[slot.pad] = end
    index = 0
    for slot in slots:
        if slot.offset is None:
            slot.index = index
            index += 1
    return ends
