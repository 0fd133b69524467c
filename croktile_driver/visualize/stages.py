"""The stages of a pipelined loop over its first iterations: a loop whose asynchronous
copies fill buffers that rotate (``rotate(a0, a1, a_next)``, ``swap``: the IR's ``Swap``
chain, also what a pipelined-loop construct lowers to). The loop is run here, statement by
statement, for the page's sizes: which buffer each load fills (the step it loads: its
source offset over its extent along the dimension the loop moves), when each ``wait``
completes it, when the step's data is read (an mma.load, a copy or a call), and when the rotation moves the names on.

Rows are the buffers (the storage, named for the name it has when the loop starts); a
column is a phase (consecutive statements of one kind: loads, waits, reads, rotation)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .. import ir
from ..ir.symbolic import Sym
from ..frontend.pipelined_loops import buffer_label
from .model import Env, FunctionModel, buffer_name, shown_name, value
from .sizes import choose, conjuncts, size_checks
from .svg import el, text, title

MAX_ITERATIONS = 4
COL_W, ROW_H, LEFT, TOP = 46.0, 24.0, 150.0, 44.0


@dataclass
class Bar:
    slot: int
    step: str
    kind: str            # flight (issued, not yet waited), ready (waited, read until the end)
    start: int
    end: int


@dataclass
class Pipeline:
    loop: ir.Loop
    slots: List[ir.Buffer]                       # the storage, by the name it starts with
    rings: List[List[int]]                       # slots that rotate together
    phases: List[Tuple[str, str]] = field(default_factory=list)   # (iteration, kind) per column
    bars: List[Bar] = field(default_factory=list)
    events: List[str] = field(default_factory=list)
    iterations: int = 0
    trips: Optional[int] = None
    env: Env = field(default_factory=dict)
    note: str = ""


def pipelines(model: FunctionModel) -> List[Pipeline]:
    out = []
    for body in _bodies(model.fn.body):
        for i, s in enumerate(body):
            if isinstance(s, ir.Loop):
                swaps = [x for x in s.body if isinstance(x, ir.Swap)]
                if swaps:
                    p = _simulate(model, s, body[:i], swaps)
                    if p is not None:
                        out.append(p)
    return out


def _bodies(stmts: List[ir.Stmt]):
    yield stmts
    for s in stmts:
        if getattr(s, "body", None):
            yield from _bodies(s.body)


def _rings(swaps: List[ir.Swap]) -> List[List[ir.Buffer]]:
    rings: List[List[ir.Buffer]] = []
    for sw in swaps:
        mine = [r for r in rings if sw.a in r or sw.b in r]
        merged = [b for r in mine for b in r]
        for b in (sw.a, sw.b):
            if b not in merged:
                merged.append(b)
        rings = [r for r in rings if r not in mine] + [merged]
    return rings


def _trips(loop: ir.Loop, env: Env) -> Optional[int]:
    lo, hi, step = (value(x, env) for x in (loop.start, loop.count, loop.step))
    if None in (lo, hi, step) or step < 1:
        return None
    return max(0, -(-(hi - lo) // step))


def _drawn_env(model: FunctionModel, loop: ir.Loop, want: int) -> Tuple[Env, str]:
    """The page's sizes, or, where the loop has too few iterations to show the pipeline
    fill, run and drain, the smallest sizes that give it ``want`` and still pass the
    function's checks (sizes.py's choice, with that one more condition)."""
    env = model.env
    trips = _trips(loop, env)
    step = value(loop.step, env)
    if trips is None or trips >= want or step is None:
        return env, ""
    sizes = [v for v in model.vars if v.kind in ("size", "scalar")]
    checks = size_checks(model.fn, {n for v in sizes for n in [v.name] + v.aliases})
    parts = [p for c in checks for p in conjuncts(c.cond)]
    parts.append((loop.count - loop.start).op(">=", Sym.const(want * step)))
    given = {v.name: env[v.name] for v in model.vars}
    trial = model.evaluate(choose(parts, [[v.name] + v.aliases for v in sizes], given, model.evaluate))
    if (_trips(loop, trial) or 0) < want:
        return env, ""
    changed = ", ".join(f"{v.label} = {trial[v.name]}" for v in sizes if trial[v.name] != env[v.name])
    return trial, (f"drawn for {changed} ({_trips(loop, trial)} iterations): the page's sizes give "
                   f"{trips}, too few to show the pipeline fill, run and drain")


def _simulate(model: FunctionModel, loop: ir.Loop, before: List[ir.Stmt], swaps: List[ir.Swap]) -> Optional[Pipeline]:
    rings = _rings(swaps)
    slots = [b for r in rings for b in r]
    loads_in = [s for s in ir.walk(loop.body) if isinstance(s, ir.Dma) and s.is_async and s.dst.buffer in slots]
    if not loads_in:
        return None
    # (a pipelined loop's prologue issues each step under `if (step < #k)`)
    prologue = [s for s in ir.walk(before) if isinstance(s, ir.Dma) and s.is_async and s.dst.buffer in slots]
    futures = {s.future: s.dst.buffer for s in prologue + loads_in if s.future}
    env, note = _drawn_env(model, loop, max(len(r) for r in rings) + 1)
    trips = _trips(loop, env)
    p = Pipeline(loop, slots, [[slots.index(b) for b in r] for r in rings], trips=trips, env=env, note=note)
    p.iterations = min(trips if trips is not None else MAX_ITERATIONS, MAX_ITERATIONS)
    state = _State(p, {b: i for i, b in enumerate(slots)}, futures, _moving_dim(loop, loads_in))
    state.run(before, env, "before")
    start = value(loop.start, env) or 0
    step = value(loop.step, env) or 1
    for n in range(p.iterations):
        k = start + n * step
        state.run(loop.body, {**env, loop.var: k}, f"{shown_name(loop.var)}={k}")
    state.close()
    return p


def _moving_dim(loop: ir.Loop, loads: List[ir.Dma]) -> Optional[int]:
    """The source dimension the loop's loads move along."""
    return next((d for s in loads for d, o in enumerate(s.src.offsets) if loop.var in o.variables()), None)


def _reads(s: ir.Stmt) -> set:
    """The buffers a statement reads: a copy's or mma.load's source, a call's data."""
    if isinstance(s, ir.Call):
        return {a.region.buffer for a in s.args if a.region is not None}
    src = getattr(s, "src", None)
    return {src.buffer} if isinstance(src, ir.Region) else set()


class _State:
    """The run: which storage each name reaches, the open bars, the phases."""

    def __init__(self, p: Pipeline, where: Dict[ir.Buffer, int], futures: Dict[str, ir.Buffer], dim: Optional[int]):
        self.p, self.where, self.futures, self.dim = p, where, futures, dim
        self.open: Dict[int, Bar] = {}

    def phase(self, iteration: str, kind: str) -> int:
        if not self.p.phases or self.p.phases[-1] != (iteration, kind):
            self.p.phases.append((iteration, kind))
        return len(self.p.phases) - 1

    def step(self, s: ir.Dma, env: Env) -> str:
        if self.dim is not None:
            off, ext = value(s.src.offsets[self.dim], env), value(s.src.extents[self.dim], env)
            if off is not None and ext:
                return str(off // ext)
        return f"L{s.loc.line}"

    def run(self, stmts: List[ir.Stmt], env: Env, iteration: str) -> None:
        for s in stmts:
            if isinstance(s, ir.If):
                if value(s.cond, env) != 0:
                    self.run(s.body, env, iteration)
            elif isinstance(s, (ir.Loop, ir.Parallel)):
                self.run(s.body, env, iteration)
            elif isinstance(s, ir.Dma) and s.is_async and s.dst.buffer in self.where:
                t, slot = self.phase(iteration, "load"), self.where[s.dst.buffer]
                self.end(slot, t)
                step = self.step(s, env)
                self.open[slot] = Bar(slot, step, "flight", t, t + 1)
                self.p.events.append(f"{iteration}: {buffer_label(s.future) if s.future else buffer_name(s.dst.buffer)} = load of step {step} "
                                     f"into buffer {self.name(slot)}")
            elif isinstance(s, ir.Wait):
                for f in s.futures:
                    buf = self.futures.get(f)
                    if buf is None:
                        continue
                    t, slot = self.phase(iteration, "wait"), self.where[buf]
                    bar = self.open.get(slot)
                    if bar is not None and bar.kind == "flight":
                        bar.end = t + 1
                        self.p.bars.append(bar)
                        self.open[slot] = Bar(slot, bar.step, "ready", t + 1, t + 1)
                        self.p.events.append(f"{iteration}: wait {buffer_label(f)} completes step {bar.step} "
                                             f"in buffer {self.name(slot)}")
            elif _reads(s) & set(self.where):
                t = self.phase(iteration, "read")
                for buf in _reads(s) & set(self.where):
                    bar = self.open.get(self.where[buf])
                    if bar is not None and bar.kind == "ready":
                        bar.end = max(bar.end, t + 1)
            elif isinstance(s, ir.Swap) and s.a in self.where and s.b in self.where:
                self.phase(iteration, "rotate")
                self.where[s.a], self.where[s.b] = self.where[s.b], self.where[s.a]

    def end(self, slot: int, t: int) -> None:
        bar = self.open.pop(slot, None)
        if bar is not None and bar.end > bar.start:
            self.p.bars.append(bar)

    def close(self) -> None:
        for slot in list(self.open):
            self.end(slot, len(self.p.phases))

    def name(self, slot: int) -> str:
        b = self.p.slots[slot]
        return buffer_name(b)


KIND_TEXT = {"load": "load", "wait": "wait", "read": "read", "rotate": "rotate"}


def timeline_svg(p: Pipeline) -> str:
    cols = len(p.phases)
    rows = [i for r in p.rings for i in r]
    width = LEFT + cols * COL_W + 10
    height = TOP + len(rows) * ROW_H + len(p.rings) * 6 + 10
    parts, y_of, y = [], {}, TOP
    for r in p.rings:
        for i in r:
            y_of[i] = y
            b = p.slots[i]
            parts.append(el("text", text(f"{buffer_name(b)}'s buffer"), x=LEFT - 8, y=y + ROW_H - 8,
                            class_="slot"))
            parts.append(el("line", x1=LEFT, y1=y + ROW_H, x2=width - 10, y2=y + ROW_H, class_="lane"))
            y += ROW_H
        y += 6
    prev = None
    for c, (iteration, kind) in enumerate(p.phases):
        x = LEFT + c * COL_W
        if iteration != prev:
            parts.append(el("text", text(iteration), x=x + 4, y=14, class_="iter"))
            parts.append(el("line", x1=x, y1=4, x2=x, y2=height - 6, class_="iter-line"))
            prev = iteration
        parts.append(el("text", KIND_TEXT[kind], x=x + COL_W / 2, y=32, class_=f"kind {kind}"))
    for bar in p.bars:
        x, w = LEFT + bar.start * COL_W + 2, max((bar.end - bar.start) * COL_W - 4, 6)
        tip = (f"step {bar.step}: " + ("in flight (issued, not yet waited)" if bar.kind == "flight"
                                       else "complete (waited), until the statements that read it have run"))
        parts.append(el("g", el("rect", title(tip), x=x, y=y_of[bar.slot] + 3, width=w, height=ROW_H - 6, rx=4)
                        + el("text", text(f"step {bar.step}"), x=x + 6, y=y_of[bar.slot] + ROW_H - 8),
                        class_=f"bar {bar.kind}", data_slot=bar.slot, data_step=bar.step,
                        data_start=bar.start, data_end=bar.end))
    return el("svg", "".join(parts), class_="stages", width=width, height=height, viewBox=f"0 0 {width} {height}")


def section(model: FunctionModel) -> str:
    out = []
    for p in pipelines(model):
        loop = p.loop
        rings = "; ".join(" → ".join(buffer_name(p.slots[i]) for i in r) for r in p.rings)
        head = el("h3", el("span", f"L{loop.loc.line}", class_="ln") + " " + el("code", text(model.line_text(loop))))
        shown = f"the first {p.iterations} of {p.trips} iterations" if p.trips is not None else \
            f"the first {p.iterations} iterations"
        sub = el("p", text(f"{shown}; buffers that rotate: {rings} · light: a load in flight (issued, not yet "
                           "waited); strong: waited, until the statements that read it have run"), class_="sub")
        note = el("p", text(p.note), class_="sub note") if p.note else ""
        events = el("ol", "".join(el("li", text(e)) for e in p.events), class_="events")
        out.append(el("article", head + sub + note + el("div", timeline_svg(p), class_="stagewrap")
                      + el("details", el("summary", "the run, statement by statement") + events),
                      class_="card stages", id=f"stages-{loop.sid}"))
    return "".join(out)


STYLE = """
.stages text { font-size: 11px; fill: #0f172a; }
.stages .slot { text-anchor: end; font-family: ui-monospace, Menlo, monospace; }
.stages .iter { font-weight: 600; } .stages .kind { text-anchor: middle; fill: #64748b; font-size: 10.5px; }
.stages .lane { stroke: #e2e8f0; } .stages .iter-line { stroke: #cbd5e1; stroke-dasharray: 3 3; }
.stages .bar.flight rect { fill: #dbeafe; stroke: #3b82f6; stroke-dasharray: 4 2; }
.stages .bar.ready rect { fill: #3b82f6; } .stages .bar.ready text { fill: #fff; }
.stagewrap { overflow-x: auto; }
.events { font-size: 12px; color: #334155; }
"""
