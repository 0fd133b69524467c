"""Where each 16-byte chunk of a swizzled shared tile lands: the function the generated
code uses (runtime/croktile_swizzle.h, ``croktile::swizzle::offset<SW>``: the byte at
offset o goes to o ^ (((o >> 7) & (SW / 16 - 1)) << 4), so with rows of SW bytes chunk c
of row r goes to chunk c ^ (r / (128 / SW) % (SW / 16)); CuTe's Swizzle<3,4,3> for 128
bytes). TMA writes this layout (``tma.copy.swiz<N>``), wgmma and ``mma.load.swiz<N>``
read it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

from .. import ir
from .model import buffer_name
from .svg import el, text, title

CHUNK = 16                # bytes
CELL_W, CELL_H = 34.0, 18.0


def offset(o: int, swizzle: int) -> int:
    """croktile::swizzle::offset<swizzle>(o)."""
    return o if swizzle == 0 else o ^ (((o >> 7) & (swizzle // 16 - 1)) << 4)


def rule(swizzle: int) -> str:
    """The chunk function for rows of ``swizzle`` bytes, as the reader writes it."""
    per = 128 // swizzle
    row = "r" if per == 1 else f"r / {per}"
    return f"chunk c of row r goes to chunk c ^ ({row} % {swizzle // 16})"


@dataclass
class Tile:
    """The swizzled shared buffers of one layout (element type, row width, swizzle)."""
    elem: str
    row_bytes: int
    rows: int
    swizzle: int
    names: List[str] = field(default_factory=list)
    lines: List[int] = field(default_factory=list)


def tiles(fn: ir.Function) -> List[Tile]:
    """Every swizzled shared layout that a copy writes or an mma.load reads."""
    out: List[Tile] = []
    for s in fn.walk():
        if isinstance(s, ir.Dma) and s.swizzle:
            buf = s.dst.buffer
        elif isinstance(s, ir.MmaLoad) and s.swizzle:
            buf = s.src.buffer
        else:
            continue
        swz = s.swizzle
        cols = buf.shape[-1] if buf.shape else None
        if cols is None or not cols.is_const:
            continue
        rows = buf.shape[-2].value if len(buf.shape) > 1 and buf.shape[-2].is_const else 8
        key = (buf.elem, cols.value * buf.elem_bytes, swz)
        tile = next((t for t in out if (t.elem, t.row_bytes, t.swizzle) == key), None)
        if tile is None:
            tile = Tile(buf.elem, cols.value * buf.elem_bytes, rows, swz)
            out.append(tile)
        name = buffer_name(buf)
        if name not in tile.names:
            tile.names.append(name)
        if s.loc.line not in tile.lines:
            tile.lines.append(s.loc.line)
    return out


def period(t: Tile) -> int:
    """Rows after which the pattern repeats (1024 bytes: 8 rows of 128)."""
    return max(1, 8 * 128 // max(t.row_bytes, 1))


def placement(t: Tile, rows: int) -> List[List[int]]:
    """[row][stored chunk] -> the chunk of the row-major tile stored there."""
    per_row = max(t.row_bytes // CHUNK, 1)
    out = [[-1] * per_row for _ in range(rows)]
    for r in range(rows):
        for c in range(per_row):
            o = offset(r * t.row_bytes + c * CHUNK, t.swizzle)
            pr, pc = o // t.row_bytes, o % t.row_bytes // CHUNK
            if pr < rows:
                out[pr][pc] = c
    return out


def _grid(cells: List[List[int]], cls: str, note) -> str:
    left, top = 42.0, 16.0
    parts = [el("text", f"{c}", x=left + c * CELL_W + CELL_W / 2, y=top - 4, class_="col")
             for c in range(len(cells[0]))]
    for r, row in enumerate(cells):
        parts.append(el("text", f"row {r}", x=left - 4, y=top + r * CELL_H + CELL_H - 5, class_="row"))
        for p, c in enumerate(row):
            x, y = left + p * CELL_W, top + r * CELL_H
            parts.append(el("g", el("rect", title(note(r, p, c)), x=x, y=y, width=CELL_W, height=CELL_H)
                            + el("text", str(c), x=x + CELL_W / 2, y=y + CELL_H - 5),
                            class_=f"chunk k{c % 8}", data_row=r, data_at=p, data_chunk=c))
    width, height = left + len(cells[0]) * CELL_W + 2, top + len(cells) * CELL_H + 2
    return el("svg", "".join(parts), class_=f"swizzle {cls}", width=width, height=height,
              viewBox=f"0 0 {width} {height}")


def anchor(swizzle: int) -> str:
    return f"swizzle-{swizzle}"


def link(swizzle: int) -> str:
    """A card's link to the picture of its swizzle ("" for a plain copy)."""
    return " · " + el("a", f"the {swizzle}-byte swizzle", href=f"#{anchor(swizzle)}") if swizzle else ""


def tile_html(t: Tile, first: bool) -> str:
    """``first``: the first tile of its swizzle, where the cards' links land."""
    rows = min(period(t), t.rows) if t.rows else period(t)
    stored = placement(t, rows)
    per_elem = CHUNK // max(ir.ELEM_BYTES.get(t.elem, 1), 1)
    plain = [list(range(len(stored[0]))) for _ in range(rows)]

    def written(r, p, c):
        return f"row {r}, chunk {c}: elements {c * per_elem}..{c * per_elem + per_elem - 1} of the row"

    def landed(r, p, c):
        return (f"row {r}, 16 bytes at {p * CHUNK}: chunk {c} of the row "
                f"(elements {c * per_elem}..{c * per_elem + per_elem - 1})")

    head = el("h3", el("code", text(f"swiz<{t.swizzle}>")) + " " + text(
        f"{', '.join(t.names)}: {t.elem}, rows of {t.row_bytes} bytes"))
    lines = ", ".join(f"L{n}" for n in t.lines)
    sub = el("p", text(f"{rule(t.swizzle)} (croktile::swizzle::offset<{t.swizzle}>, runtime/croktile_swizzle.h); "
                       f"{per_elem} elements per chunk; rows 0–{rows - 1} shown, the pattern repeats every "
                       f"{period(t)} rows ({period(t) * t.row_bytes} bytes) · {lines}"), class_="sub")
    pair = el("div", el("figure", el("figcaption", el("b", "as written") + " (row-major): chunk c of each row")
                        + _grid(plain, "plain", written))
              + el("div", "→", class_="arrow")
              + el("figure", el("figcaption", el("b", "in shared memory") + ": which chunk each 16 bytes hold")
                   + _grid(stored, "stored", landed)), class_="pair")
    return el("article", head + sub + pair, class_="card swz", data_swizzle=t.swizzle,
              id=anchor(t.swizzle) if first else None)


def section(fn: ir.Function) -> str:
    found = tiles(fn)
    return "".join(tile_html(t, all(u.swizzle != t.swizzle for u in found[:i])) for i, t in enumerate(found))


STYLE = """
.swizzle text { font-size: 10px; text-anchor: middle; fill: #0f172a; pointer-events: none; }
.swizzle text.row { text-anchor: end; fill: #64748b; } .swizzle text.col { fill: #64748b; }
.swizzle .chunk rect { stroke: #fff; stroke-width: 1; }
.swizzle .chunk:hover rect { stroke: #0f172a; stroke-width: 1.5; }
.swizzle .k0 rect { fill: #bfdbfe; } .swizzle .k1 rect { fill: #fde68a; } .swizzle .k2 rect { fill: #bbf7d0; }
.swizzle .k3 rect { fill: #fbcfe8; } .swizzle .k4 rect { fill: #ddd6fe; } .swizzle .k5 rect { fill: #fecaca; }
.swizzle .k6 rect { fill: #99f6e4; } .swizzle .k7 rect { fill: #fef08a; }
"""
