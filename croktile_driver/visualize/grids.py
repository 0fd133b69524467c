"""The chunks a copy moves, drawn as grids of elements.

A buffer of shape [d0, ..., dn-2, dn-1] is drawn as a plane of dn-1 columns and
d0 * ... * dn-2 rows (rank 1: one row): the leading dimensions stack panels of
dn-2 rows, one below the other. A box (offsets, extents) is one rectangle per run of
rows it covers in that plane. Coordinates are in elements (the SVG's viewBox), and
symbolic: the page re-evaluates them when the reader moves a slider or types a size.
The faint tiles are the boxes of every instance; the strong one is the selected
instance's.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import List, Optional, Tuple

from .. import ir
from ..ir.symbolic import Sym
from .model import Copy, Env, FunctionModel, Var, sym_json, value
from .svg import el, sym_rect, sym_text, text, title

MAX_TILES = 1024      # instances whose boxes are drawn faintly
MAX_RUNS = 64         # rectangles of one box
ELEMENT_LINES = 64    # draw every element's cell up to this many columns and rows
WIDTH, HEIGHT, CELL = 440.0, 300.0, 16.0


def _product(dims: List[Sym]) -> Sym:
    total = Sym.const(1)
    for d in dims:
        total = total * d
    return total


def plane(shape: List[Sym]) -> Tuple[Sym, Sym, Sym]:
    """(columns, rows, rows of one panel) of the plane a buffer is drawn in."""
    if not shape:
        return Sym.const(1), Sym.const(1), Sym.const(1)
    if len(shape) == 1:
        return shape[0], Sym.const(1), Sym.const(1)
    return shape[-1], _product(shape[:-1]), shape[-2]


def box_rects(offsets: List[Sym], extents: List[Sym], shape: List[Sym], env: Env) -> List[List[Sym]]:
    """The box as [x, y, w, h] rectangles of the plane: one per run of consecutive rows
    (dimensions after the first partly covered one merge into the run)."""
    if not shape:
        return [[Sym.const(0), Sym.const(0), Sym.const(1), Sym.const(1)]]
    if len(shape) == 1:
        return [[offsets[0], Sym.const(0), extents[0], Sym.const(1)]]
    dims, offs, exts = shape[:-1], offsets[:-1], extents[:-1]
    k = len(dims) - 1
    while k > 0 and exts[k] == dims[k] and offs[k] == Sym.const(0):
        k -= 1
    below = _product(dims[k + 1:])
    start, run = offs[k] * below, exts[k] * below
    counts = [value(e, env) for e in exts[:k]]
    if any(c is None or c < 1 for c in counts):
        counts = [1] * k
    out = []
    for js in itertools.islice(itertools.product(*(range(c) for c in counts)), MAX_RUNS):
        y = start
        for d, j in enumerate(js):
            y = y + (offs[d] + j) * _product(dims[d + 1:])
        out.append([offsets[-1], y, extents[-1], run])
    return out


def _indices(v: Var, env: Env) -> List[int]:
    lo, hi, step = (value(s, env) if s is not None else None for s in (v.lo, v.hi, v.step))
    if lo is None or hi is None or not step or step < 1:
        return [v.default]
    return list(range(lo, hi, step))


def tiles(region: ir.Region, model: FunctionModel, env: Env) -> Tuple[List[Tuple[str, List[List[Sym]]]], int]:
    """The box of every instance (a label and its rectangles), distinct ones only, and how
    many instances there are."""
    names = set().union(*(s.variables() for s in region.offsets + region.extents))
    varying = [v for v in model.vars if v.kind in ("parallel", "loop") and v.name in names]
    ranges = [_indices(v, env) for v in varying]
    total = 1
    for r in ranges:
        total *= len(r)
    seen, out = set(), []
    for combo in itertools.islice(itertools.product(*ranges), MAX_TILES):
        fixed = {v.name: Sym.const(i) for v, i in zip(varying, combo)}
        offs = [o.substitute(fixed) for o in region.offsets]
        exts = [e.substitute(fixed) for e in region.extents]
        key = tuple(value(s, env) for s in offs + exts)
        if key in seen:
            continue
        seen.add(key)
        label = ", ".join(f"{v.label}={i}" for v, i in zip(varying, combo)) or "every instance"
        out.append((label, box_rects(offs, exts, region.shape, env)))
    return out, total


@dataclass
class Grid:
    markup: str
    width: float
    height: float


def _extent(region: ir.Region, env: Env) -> Tuple[int, int]:
    cols, rows, _ = plane(region.shape)
    return value(cols, env) or 1, value(rows, env) or 1


def common_scale(regions: List[ir.Region], env: Env) -> float:
    """Pixels per element that fit every region: one scale for the grids of one copy, so
    that a chunk and its destination look the same size."""
    return min(min(CELL, WIDTH / c, HEIGHT / r) for c, r in (_extent(x, env) for x in regions))


def grid_svg(region: ir.Region, model: FunctionModel, env: Env, role: str, scale: float) -> Grid:
    """The buffer of ``region`` with every instance's box faint and the selected one strong."""
    cols, rows, panel = plane(region.shape)
    c, r = _extent(region, env)
    # a few rows or columns of a long buffer keep 6 pixels each (the picture stretches)
    width, height = max(c * scale, min(c * 6.0, 120.0), 24.0), max(r * scale, min(r * 6.0, 120.0), 12.0)
    parts = [sym_rect([Sym.const(0), Sym.const(0), cols, rows], env, class_="bg")]
    constant = all(d.is_const for d in region.shape)
    if constant and c <= ELEMENT_LINES and r <= 2 * ELEMENT_LINES:
        lines = [el("line", x1=x, y1=0, x2=x, y2=r) for x in range(1, c)]
        lines += [el("line", x1=0, y1=y, x2=c, y2=y) for y in range(1, r)]
        parts.append(el("g", "".join(lines), class_="cells"))
    found, total = tiles(region, model, env)
    parts.append(el("g", "".join(el("g", title(label) + "".join(sym_rect(g, env) for g in rects))
                                 for label, rects in found), class_="tiles"))
    p = value(panel, env) or r
    if constant and p < r:   # where one index of the leading dimensions ends and the next starts
        parts.append(el("g", "".join(el("line", x1=0, y1=y, x2=c, y2=y) for y in range(p, r, p)), class_="panels"))
    chosen = box_rects(region.offsets, region.extents, region.shape, env)
    parts.append(el("g", "".join(sym_rect(g, env) for g in chosen), class_="sel"))
    return Grid(el("svg", "".join(parts), class_=f"grid {role}", width=width, height=height,
                   viewBox=f"0 0 {c} {r}", preserveAspectRatio="none",
                   data_vb=json.dumps([sym_json(cols), sym_json(rows)]), data_tiles=total,
                   data_drawn=len(found)), width, height)


def shape_text(shape: List[Sym]) -> str:
    return "[" + ", ".join(d.to_c() for d in shape) + "]"


def region_caption(region: ir.Region) -> str:
    b = region.buffer
    name = b.source_name or b.name
    view = f" viewed as {shape_text(region.view)}" if region.view is not None else ""
    return f"{name}: {b.storage} {b.elem} {shape_text(b.shape)}{view}"


def box_html(region: ir.Region, model: FunctionModel, env: Env) -> str:
    """The region's offsets and extents, as written and as values."""
    def seq(what: str, syms: List[Sym]) -> str:
        values = "[" + ", ".join(sym_text(s, env, class_="v") for s in syms) + "]"
        if all(s.is_const for s in syms):
            return f"{what} {values}"
        shown = "[" + ", ".join(model.show(s) for s in syms) + "]"
        return f"{what} " + el("span", text(shown), class_="sym") + " = " + values
    return el("div", seq("offsets", region.offsets) + el("br") + seq("extents", region.extents), class_="box")


def region_figure(region: ir.Region, model: FunctionModel, env: Env, role: str, name: str, scale: float) -> str:
    """A card's figure of one side of a move: caption, grid, box."""
    grid = grid_svg(region, model, env, role, scale)
    return el("figure", el("figcaption", el("b", name) + " " + text(region_caption(region)))
              + el("div", grid.markup, class_="gridwrap") + box_html(region, model, env), class_=role)


def statement_svg(copy: Copy, model: FunctionModel, env: Env) -> str:
    """A standalone picture of one copy for documents: its line, source and destination."""
    scale = common_scale([copy.src, copy.dst], env)
    grids = [grid_svg(copy.src, model, env, "src", scale), grid_svg(copy.dst, model, env, "dst", scale)]
    pad, top, gap = 16.0, 64.0, 64.0
    where = ", ".join(f"{v.label}={env.get(v.name)}" for v in source_vars(copy, model))
    lines = [f"{copy.stmt.loc.file}:{copy.stmt.loc.line}: {model.line_text(copy.stmt)}",
             f"{copy.label}, the chunk of instance {where or '(every instance)'}; "
             "faint: the chunks of the other instances"]
    captions = [f"{role} {region_caption(r)}" for r, role in ((copy.src, "source"), (copy.dst, "destination"))]
    width = max(pad * 2 + grids[0].width + gap + grids[1].width, pad * 2 + max(len(s) for s in lines) * 8.5,
                pad * 2 + gap + sum(max(g.width, len(c) * 7.5) for g, c in zip(grids, captions)))
    height = top + max(g.height for g in grids) + 24.0
    head = [el("text", text(lines[0]), x=pad, y=22, class_="head"),
            el("text", text(lines[1]), x=pad, y=42, class_="sub")]
    body = []
    x = pad
    for g, caption in zip(grids, captions):
        body.append(el("text", text(caption), x=x, y=top - 6, class_="cap"))
        body.append(g.markup.replace("<svg ", f'<svg x="{x}" y="{top}" ', 1))
        x += max(g.width, len(caption) * 7.5) + gap
    arrow_x = pad + max(grids[0].width, len(captions[0]) * 7.5) + 8
    body.append(el("path", d=f"M{arrow_x} {top + 20} h{gap - 20} m-8 -6 l8 6 l-8 6", class_="arrow"))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + el("svg", el("style", STATIC_STYLE) + "".join(head + body), xmlns="http://www.w3.org/2000/svg",
                 width=width, height=height, viewBox=f"0 0 {width} {height}", class_="stmt") + "\n")


def _names(copy: Copy) -> set:
    return set().union(*(s.variables() for r in (copy.src, copy.dst) for s in r.offsets + r.extents))


# colours of the grids, shared by the page's stylesheet and the static SVG
GRID_STYLE = """
.grid rect, .grid line { vector-effect: non-scaling-stroke; }
.grid .bg { fill: #f7f8fa; stroke: #8a94a6; stroke-width: 1; }
.grid .cells line { stroke: #e3e6ec; stroke-width: 0.5; }
.grid .panels line { stroke: #334155; stroke-width: 2; }
.grid .tiles rect { fill: none; stroke: #b8c2d3; stroke-width: 1; }
.grid.src .tiles rect { fill: rgba(59, 130, 246, 0.06); }
.grid.dst .tiles rect { fill: rgba(234, 88, 12, 0.06); }
.grid.src .sel rect { fill: rgba(37, 99, 235, 0.55); stroke: #1d4ed8; stroke-width: 2; }
.grid.dst .sel rect { fill: rgba(234, 88, 12, 0.55); stroke: #c2410c; stroke-width: 2; }
"""
STATIC_STYLE = GRID_STYLE + """
text { font-family: ui-monospace, Menlo, Consolas, monospace; fill: #1f2937; }
.head { font-size: 14px; font-weight: bold; } .sub, .cap { font-size: 12px; fill: #4b5563; }
.arrow { fill: none; stroke: #4b5563; stroke-width: 2; }
"""


def source_vars(copy: Copy, model: FunctionModel) -> List[Var]:
    """The instance indices that select this copy's chunks."""
    names = _names(copy)
    return [v for v in model.vars if v.kind in ("parallel", "loop") and v.name in names]


def count_of(v: Var, env: Env) -> Optional[int]:
    return len(_indices(v, env)) if v.hi is not None else None
