"""Which thread holds which element of a fragment: the layouts the CUDA runtime uses, so
the picture is what the generated code does.

- a warp's fragment (``mma.sync``; runtime/croktile_mma_warp_cuda.h ``lanes::where``):
  g = lane / 4, t = lane % 4; A holds rows g (and g + 8) and columns t*E.. of each k
  block, B column g and rows t*E.., the accumulator rows g (g + 8) and columns 2t, 2t + 1
  of each 8-column block (the PTX ISA's m16n8k16 layouts, repeated over the tile);
- a warp group's accumulator (``wgmma``; runtime/croktile_wgmma.h ``acc::where``): warp w
  of the group holds rows 16w + g (+ 8), columns 8i + 2t (+ 1), element 4i + 2r + c; an A
  operand converted from it (``mma.cvt``) has the same owners;
- a warp group's A and B read from shared memory have no owner: the tensor cores read
  them through a descriptor (the swizzle picture shows their layout there).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import ir
from .svg import el, text, title

MAX_ROWS, MAX_COLS = 64, 16       # the part of a large tile drawn (the pattern repeats)
CELL_W, CELL_H = 22.0, 14.0
ROLE_NAMES = {"a": "A operand", "b": "B operand", "c": "accumulator", "r": "row vector", "e": "sparse metadata"}


@dataclass
class Owner:
    warp: int       # warp of the warp group (0 for a warp's fragment)
    lane: int
    element: int    # the element's index among the thread's (the runtime's n)


def held(frag: ir.Frag) -> bool:
    """Whether threads hold the fragment in registers (else the tensor cores read it)."""
    if frag.rows is None or frag.cols is None or frag.role not in ("a", "b", "c"):
        return False
    if frag.engine == ir.MmaEngine.WGMMA:
        return frag.role == "c" or frag.converted
    return frag.inst is not None


def owners(frag: ir.Frag) -> Dict[Tuple[int, int], Owner]:
    """(row, column) -> its owner, for the part of the tile drawn."""
    rows, cols = min(frag.rows, MAX_ROWS), min(frag.cols, MAX_COLS)
    if frag.engine == ir.MmaEngine.WGMMA:
        own = _areg_owner if frag.role == "a" else _group_owner
        return {(r, c): own(r, c) for r in range(rows) for c in range(cols)}
    return {rc: o for rc, o in _warp_owners(frag).items() if rc[0] < rows and rc[1] < cols}


def _group_owner(r: int, c: int) -> Owner:
    """croktile_wgmma.h: rows 16w + lane / 4 (+ 8 for r), columns 8i + 2 (lane % 4) + c."""
    lane = (r % 8) * 4 + (c % 8) // 2
    return Owner(r % 64 // 16, lane, 4 * (c // 8) + 2 * (r % 16 // 8) + c % 2)


def _areg_owner(r: int, c: int) -> Owner:
    """croktile_wgmma.h's areg (an A operand converted from an accumulator): register
    4k + q of step k is rows 16w + lane / 4 (+ 8 for q odd), columns 16k + 2 (lane % 4)
    (+ 8 for q >= 2), two elements per register."""
    q = r % 16 // 8 + 2 * (c % 16 // 8)
    return Owner(r % 64 // 16, (r % 8) * 4 + (c % 8) // 2, 2 * (4 * (c // 16) + q) + c % 2)


def _warp_owners(frag: ir.Frag) -> Dict[Tuple[int, int], Owner]:
    """lanes<T, R, ROWS, COLS, IM, IN, IK>::where of croktile_mma_warp_cuda.h, run for
    every lane and element."""
    im, _, ik = frag.inst
    size = ir.ELEM_BYTES.get(frag.elem or "f32", 4)
    per_reg = 1 if size >= 4 else 4 // size
    block_w = min(4 * per_reg, ik)
    row_regs = im // 8
    role, rows, cols = frag.role, frag.rows, frag.cols
    k_blocks = (cols if role == "a" else rows) // block_w
    count = (rows // im * k_blocks * row_regs * per_reg if role == "a"
             else cols // 8 * k_blocks * per_reg if role == "b"
             else rows // im * (cols // 8) * row_regs * 2)
    out: Dict[Tuple[int, int], Owner] = {}
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for n in range(count):
            if role == "a":
                e, r = n % per_reg, n // per_reg % row_regs
                kb, mb = n // (per_reg * row_regs) % k_blocks, n // (per_reg * row_regs * k_blocks)
                kk = t * per_reg + e
                where, ok = (mb * im + g + 8 * r, kb * block_w + kk), kk < block_w
            elif role == "b":
                e, kb, nb = n % per_reg, n // per_reg % k_blocks, n // (per_reg * k_blocks)
                kk = t * per_reg + e
                where, ok = (kb * block_w + kk, nb * 8 + g), kk < block_w
            else:
                c, r = n % 2, n // 2 % row_regs
                nb, mb = n // (2 * row_regs) % (cols // 8), n // (2 * row_regs * (cols // 8))
                where, ok = (mb * im + g + 8 * r, nb * 8 + 2 * t + c), True
            if ok:
                out[where] = Owner(0, lane, n)
    return out


def who(frag: ir.Frag) -> str:
    if frag.engine == ir.MmaEngine.WGMMA:
        if held(frag):
            return "held by the 128 threads of a warp group (4 warps)"
        return "read by wgmma from shared memory through a descriptor: no thread holds it"
    return "held by the 32 lanes of one warp"


def instruction(frag: ir.Frag) -> str:
    if frag.inst is None:
        return "?"
    shape = "m{}n{}k{}".format(*frag.inst)
    return f"wgmma {shape}" if frag.engine == ir.MmaEngine.WGMMA else f"mma.sync {shape}"


def describe(frag: ir.Frag) -> str:
    """``mc: accumulator f32 [64, 256] (wgmma m64n256k16)``."""
    shape = f"[{frag.rows}, {frag.cols}]" if frag.rows is not None else "[?]"
    arr = "".join(f"[{d}]" for d in frag.dims)
    return (f"{frag.name}{arr}: {ROLE_NAMES.get(frag.role, 'fragment')} {frag.elem or '?'} {shape} "
            f"({instruction(frag)})")


def anchor(frag: ir.Frag) -> str:
    return f"frag-{frag.name}"


def ownership_svg(frag: ir.Frag) -> str:
    """The drawn part of the tile, a cell per element: its colour the warp (shaded by
    lane % 4), its text the lane, its title the position, warp, lane and the element's
    index among the thread's (the runtime's n)."""
    cells = owners(frag)
    rows = max((r for r, _ in cells), default=-1) + 1
    cols = max((c for _, c in cells), default=-1) + 1
    left, top = 30.0, 16.0
    parts = []
    for c in range(cols):
        parts.append(el("text", str(c), x=left + c * CELL_W + CELL_W / 2, y=top - 4, class_="col"))
    for r in range(rows):
        parts.append(el("text", str(r), x=left - 4, y=top + r * CELL_H + CELL_H - 3, class_="row"))
        for c in range(cols):
            o = cells.get((r, c))
            if o is None:
                continue
            x, y = left + c * CELL_W, top + r * CELL_H
            tip = f"({r}, {c}): warp {o.warp}, lane {o.lane}, its element {o.element}"
            parts.append(el("rect", title(tip), x=x, y=y, width=CELL_W, height=CELL_H,
                            class_=f"w{o.warp} t{o.lane % 4}")
                         + el("text", str(o.lane), x=x + CELL_W / 2, y=y + CELL_H - 3))
    width, height = left + cols * CELL_W + 2, top + rows * CELL_H + 2
    return el("svg", "".join(parts), class_="owners", width=width, height=height,
              viewBox=f"0 0 {width} {height}")


def drawn_part(frag: ir.Frag) -> Optional[str]:
    """What part of a large tile is drawn, and why that is enough."""
    rows, cols = min(frag.rows, MAX_ROWS), min(frag.cols, MAX_COLS)
    if (rows, cols) == (frag.rows, frag.cols):
        return None
    return (f"rows 0–{rows - 1} and columns 0–{cols - 1} of {frag.rows} x {frag.cols}: the owners repeat "
            f"every {8 if frag.engine == ir.MmaEngine.WGMMA or frag.role != 'b' else 'k block'} columns "
            "with the thread's next elements")


def legend(frag: ir.Frag) -> str:
    if frag.engine == ir.MmaEngine.WGMMA:
        swatches = "".join(el("span", "", class_=f"sw w{w}") + f" warp {w} " for w in range(4))
        return el("p", "colour: the warp of the warp group (rows 16w..16w+15); shade: lane % 4; "
                  "text: the lane · " + swatches, class_="legend")
    return el("p", "one warp holds the whole tile (each instance of its level its own); shade: lane % 4; "
              "text: the lane (g = lane / 4 picks the row, t = lane % 4 the columns)", class_="legend")


def section(frags: List[ir.Frag]) -> str:
    """A card per distinct layout of the fragments threads hold, the others listed."""
    out, seen = [], {}
    for f in frags:
        if not held(f):
            continue
        key = (f.engine, f.role, min(f.rows, MAX_ROWS), min(f.cols, MAX_COLS), f.inst if f.engine != ir.MmaEngine.WGMMA
               else None, ir.ELEM_BYTES.get(f.elem or "f32", 4), f.converted)
        if key in seen:
            seen[key].append(f)
            continue
        seen[key] = [f]
    for same in seen.values():
        f = same[0]
        names = ", ".join(text(describe(x)) for x in same)
        part = drawn_part(f)
        also = "".join(el("span", "", id=anchor(x)) for x in same[1:])   # the others' links land here
        out.append(el("article", also + el("h3", el("code", text(f.name)) + ("" if len(same) == 1 else
                                           " " + text("and " + ", ".join(x.name for x in same[1:]))))
                      + el("p", names + " · " + text(who(f)), class_="sub")
                      + (el("p", text(part), class_="sub") if part else "") + legend(f)
                      + el("div", ownership_svg(f), class_="ownerwrap"),
                      class_="card frag", id=anchor(f), data_frag=f.name))
    not_held = [f for f in frags if not held(f) and f.role in ("a", "b")]
    if not_held:
        out.append(el("p", text("not held by threads: " + "; ".join(f"{describe(f)}: {who(f)}" for f in not_held)),
                      class_="sub"))
    return "".join(out)


STYLE = """
.owners text { font-size: 9px; text-anchor: middle; fill: #0f172a; pointer-events: none; }
.owners text.row { text-anchor: end; fill: #64748b; } .owners text.col { fill: #64748b; }
.owners rect { stroke: #fff; stroke-width: .6; }
.owners rect.w0 { fill: #93c5fd; } .owners rect.w1 { fill: #fcd34d; }
.owners rect.w2 { fill: #86efac; } .owners rect.w3 { fill: #f9a8d4; }
.owners rect.t1 { fill-opacity: .8; } .owners rect.t2 { fill-opacity: .6; } .owners rect.t3 { fill-opacity: .45; }
.owners rect:hover { stroke: #0f172a; stroke-width: 1.5; }
.sw.w0 { background: #93c5fd; } .sw.w1 { background: #fcd34d; } .sw.w2 { background: #86efac; }
.sw.w3 { background: #f9a8d4; }
.ownerwrap { overflow-x: auto; }
"""
