"""The memory plan of a function per storage level, as the selected target lays it out,
and its picture: a timeline of buffers (x: statements in execution order, labelled by
their source lines; y: bytes).

The planner is the targets' own: ``memplan.plan_arena`` (first fit by live range, what
``--memory-report`` prints for cuda: every buffer of a block in its shared arena; for the
other targets the same planner per declared storage) and, for factor, its scratchpad
placement (``factor.plan_slots``/``place_static``, again its ``--memory-report``).
Global data is drawn with the same planner, as if in one pool, though each is its own
allocation; the parameters are the caller's buffers, in no plan: drawn above the pool,
live for the whole function.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..diagnostics import Diagnostics
from .. import ir
from ..ir.symbolic import Sym
from ..analysis.memplan import align_up, plan_arena, static_bytes, wait_extensions
from .model import Env, value
from .svg import el, sym_text, text, title

if TYPE_CHECKING:
    from .page import Target

WIDTH, HEIGHT, LEFT, BOTTOM = 720.0, 184.0, 70.0, 38.0


@dataclass
class Row:
    buffer: ir.Buffer
    first: int
    last: int
    size: Optional[int]          # bytes; None: known only at run time
    offset: Optional[int]
    drawn: Optional[Tuple[int, int]] = None   # run-time sized: (offset, bytes) for the page's sizes
    caller: bool = False         # a parameter: the caller's buffer, live throughout, in no plan

    @property
    def bytes_sym(self) -> Sym:
        total = Sym.const(self.buffer.elem_bytes)
        for d in self.buffer.shape:
            total = total * d
        return total


@dataclass
class Level:
    title: str                   # "shared arena of one block", ...
    storage: str                 # global, shared, local
    rows: List[Row] = field(default_factory=list)
    limit: Optional[int] = None
    limit_name: str = ""
    note: str = ""
    end: Optional[int] = None    # the bytes the target's placement reports, where it is not plan_arena's

    @property
    def planned(self) -> int:
        """The bytes the plan takes (offsets are aligned: the end of the last slot)."""
        if self.end is not None:
            return self.end
        return max([r.offset + align_up(r.size) for r in self.rows if r.offset is not None and r.size], default=0)

    @property
    def live_peak(self) -> int:
        """The most bytes of the plan live at one statement."""
        rows = [r for r in self.rows if not r.caller]
        points = {r.first for r in rows}
        return max([sum(r.size for r in rows if r.size and r.first <= p <= r.last) for p in points], default=0)


@dataclass
class Axis:
    """The timelines' x axis: a column per statement in execution order (the planner's
    live ranges are in statements), labelled by source line, each line once."""
    span: int                    # the last statement id
    lines: Dict[int, int]        # statement id -> source line
    ticks: List[Tuple[int, int]]  # (statement id, line): where a line's statements start

    @classmethod
    def of(cls, fn: ir.Function) -> "Axis":
        stmts = list(fn.walk())
        lines = {s.sid: s.loc.line for s in stmts}
        # a line is labelled at its first statement; the checks of a launch's sizes, made
        # before it (at the lines of the statements they guard), label no line
        first: Dict[int, int] = {}
        for s in stmts:
            if not isinstance(s, ir.Check):
                first.setdefault(s.loc.line, s.sid)
        for s in stmts:
            first.setdefault(s.loc.line, s.sid)
        ticks = sorted((sid, line) for line, sid in first.items())
        return cls(max(lines, default=0), lines, ticks)

    def live(self, r: Row) -> Tuple[int, int]:
        """The source lines of a live range's first and last statements."""
        a, b = self.lines.get(r.first, 0), self.lines.get(r.last, 0)
        return min(a, b), max(a, b)

    def live_text(self, r: Row) -> str:
        a, b = self.live(r)
        return f"L{a}" if a == b else f"L{a}\u2013L{b}"


def _arena(title: str, storage: str, buffers: List[ir.Buffer], extend: Dict[str, int], limit: Optional[int],
           limit_name: str, note: str = "") -> Level:
    plan = plan_arena(buffers, extend)
    rows = [Row(s.buffer, s.first, s.last, s.size, s.offset) for s in plan.slots]
    return Level(title, storage, rows, limit, limit_name, note)


def _place_runtime(level: Level, env: Env) -> None:
    """Run-time sized buffers follow the planned part one after another (as cuda lays
    them out), then the caller's buffers: drawn for the sizes of the page's first drawing."""
    end = level.planned
    for r in [r for r in level.rows if not r.caller] + [r for r in level.rows if r.caller]:
        if r.size is None or r.caller:
            size = r.size if r.size is not None else value(r.bytes_sym, env)
            if size is None:
                continue
            r.drawn = (end, size)
            end += align_up(size)


def _launches(fn: ir.Function) -> List[ir.Parallel]:
    return [s for s in ir.walk(fn.body) if isinstance(s, ir.Parallel) and s.level == 1]


def plan_levels(fn: ir.Function, drawn_for: "Target", env: Env) -> List[Level]:
    """``drawn_for``: page.Target, whose limits are those in force (an -arch's included)."""
    target, limits, name = drawn_for.name, drawn_for.limits(), drawn_for.profile.get("name", drawn_for.name)
    data = [b for b in fn.buffers if b.storage == "global" and b.alias is None]
    pool = _arena("global data", "global", [b for b in data if b.origin != "param"], {}, None, "",
                  "each is its own allocation; drawn as if in one pool, and above it the parameters: "
                  "the caller's buffers, live for the whole function")
    last = max((s.sid for s in fn.walk()), default=0)
    pool.rows += [Row(b, 0, last, static_bytes(b), None, caller=True) for b in data if b.origin == "param"]
    levels = [pool]
    for k, par in enumerate(_launches(fn)):
        stmts = list(ir.walk([par]))
        extend = wait_extensions(stmts)
        inner = [b for s in stmts if isinstance(s, ir.Parallel) and s.level >= 2 for b in s.buffers]
        where = f"launch {k} (line {par.loc.line}, parallel {par.var})"
        if target == "cuda":
            levels.append(_arena(f"{where}: shared arena of one block", "shared", list(par.buffers), extend,
                                 limits.get("shared_bytes"), drawn_for.limit_name("shared_bytes"),
                                 "cuda keeps every buffer of the launch level in the block's shared arena"))
            levels.append(_arena(f"{where}: data of one thread", "local", inner, extend, None, ""))
        elif target == "factor":
            levels.extend(_factor(par, where, limits, name))
        else:
            mine = list(par.buffers) + inner
            for storage in ("shared", "local"):
                key = f"{storage}_bytes"
                levels.append(_arena(f"{where}: {storage} data", storage,
                                     [b for b in mine if b.storage == storage], extend, limits.get(key),
                                     drawn_for.limit_name(key) if key in limits else ""))
    levels = [lv for lv in levels if lv.rows]
    for lv in levels:
        _place_runtime(lv, env)
    return levels


def _factor(par: ir.Parallel, where: str, limits: dict, profile: str) -> List[Level]:
    from ..targets.factor import place_static, plan_slots
    slots = plan_slots(par)
    if not all(isinstance(limits.get(k), int) for k in ("local_bytes", "shared_bytes")):
        return []
    ends = place_static(slots, limits, profile, Diagnostics(stream=io.StringIO()))
    out = []
    for pad in ("shared", "local"):
        rows = [Row(s.buffer, s.buffer.first_use, s.buffer.last_use,
                    s.total.value if s.total.is_const else None, s.offset) for s in slots if s.pad == pad]
        out.append(Level(f"{where}: {pad} scratchpad", pad, rows, limits[f"{pad}_bytes"],
                         f"limits.{pad}_bytes of '{profile}'", "factor places buffers one after another",
                         ends[pad]))
    return out


def timeline_svg(level: Level, env: Env, axis: Axis) -> str:
    """Buffers as boxes: live range across, offset and size up; the peak and the limit."""
    span = axis.span
    boxes = [(r, r.offset, r.size) if r.offset is not None else (r, *r.drawn) for r in level.rows
             if (r.offset is not None and r.size) or r.drawn]
    top_bytes = max([level.planned, 1] + [o + s for _, o, s in boxes])
    show_limit = level.limit is not None and level.limit <= top_bytes * 1.6
    if show_limit:
        top_bytes = max(top_bytes, level.limit) * 1.05
    plot_w = WIDTH - LEFT - 20
    sx = plot_w / (span + 1)
    sy = (HEIGHT - BOTTOM - 10) / top_bytes
    base = HEIGHT - BOTTOM
    parts = [el("rect", x=LEFT, y=10, width=plot_w, height=base - 10, class_="plot")]
    for i, (r, offset, size) in enumerate(boxes):
        x, w = LEFT + r.first * sx, max((r.last - r.first + 1) * sx, 2.0)
        y, h = base - (offset + size) * sy, max(size * sy, 1.5)
        name = r.buffer.source_name or r.buffer.name
        shape = f"{r.buffer.storage} {r.buffer.elem} [{', '.join(d.to_c() for d in r.buffer.shape)}]"
        a, b = axis.live(r)
        lines = f"line {a}" if a == b else f"lines {a} to {b}"
        sized = "" if r.size is not None else " (sized at run time: for the first drawing's sizes)"
        if r.caller:
            tip = f"{name}: parameter, the caller's buffer: {shape}, {size} bytes{sized}, live for the whole function"
            cls = "buf param"
        else:
            tip = f"{name}: {shape}, {size} bytes at offset {offset}{sized}, live over {lines}"
            cls = f"buf c{i % 8}" + ("" if r.offset is not None else " runtime")
        parts.append(el("rect", title(tip), x=x, y=y, width=w, height=h, class_=cls, data_buffer=name))
        label = f"{name} (parameter)" if r.caller else name
        if h >= 12 and w >= len(label) * 6.5 + 8:
            parts.append(el("text", text(label), x=x + 4, y=y + min(h / 2 + 4, 14), class_="buf-label"))
    peak_y = base - level.planned * sy
    parts.append(el("line", x1=LEFT, y1=peak_y, x2=LEFT + plot_w, y2=peak_y, class_="peak"))
    parts.append(el("text", text(f"{level.planned} B"), x=LEFT - 4, y=peak_y + 4, class_="axis peak-label"))
    parts.append(el("text", "0", x=LEFT - 4, y=base + 4, class_="axis"))
    if show_limit:
        ly = base - level.limit * sy
        parts.append(el("line", x1=LEFT, y1=ly, x2=LEFT + plot_w, y2=ly, class_="limit"))
        parts.append(el("text", text(f"limit {level.limit} B"), x=LEFT + plot_w - 4, y=ly - 4, class_="limit-label"))
    right = None   # where the last label drawn ends: labels that would overlap it are left out
    for k, (sid, line) in enumerate(axis.ticks):
        # a line's label is centred over its statements (up to the next line's first)
        end = axis.ticks[k + 1][0] if k + 1 < len(axis.ticks) else span + 1
        label = f"L{line}"
        x, half = LEFT + (sid + max(end, sid + 1)) / 2 * sx, len(label) * 3.2
        if right is not None and x - half < right + 4:
            continue
        right = x + half
        parts.append(el("line", x1=LEFT + sid * sx, y1=base, x2=LEFT + sid * sx, y2=base + 4, class_="tick-mark"))
        parts.append(el("text", title(f"line {line}") + text(label), x=x, y=base + 16, class_="tick",
                        data_line=line))
    parts.append(el("text", "statements in execution order, by source line →", x=LEFT + plot_w, y=base + 32,
                    class_="axis"))
    return el("svg", "".join(parts), class_="timeline", width=WIDTH, height=HEIGHT, viewBox=f"0 0 {WIDTH} {HEIGHT}")


def table_html(level: Level, env: Env, axis: Axis) -> str:
    """The plan as a table: offset, bytes, the source lines the buffer is live over, the buffer."""
    head = "".join(el("th", h) for h in ("offset", "bytes", "live", "buffer"))
    rows = []
    for r in sorted(level.rows, key=lambda r: (r.caller, r.offset is None, r.offset or 0, r.first)):
        b = r.buffer
        size = text(str(r.size)) if r.size is not None else sym_text(r.bytes_sym, env) + " (run time)"
        offset = "caller's" if r.caller else "run time" if r.offset is None else str(r.offset)
        live = "whole function" if r.caller else text(axis.live_text(r))
        what = " parameter" if r.caller else ""
        rows.append(el("tr", el("td", offset) + el("td", size) + el("td", live)
                       + el("td", text(f"{b.source_name or b.name} ({b.storage} {b.elem} "
                                       f"[{', '.join(d.to_c() for d in b.shape)}]{what})")),
                       class_="param" if r.caller else None))
    return el("table", el("tr", head) + "".join(rows), class_="plan")

