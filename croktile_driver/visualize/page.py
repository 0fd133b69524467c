"""One self-contained HTML page per function, and the index: the nesting, a card per copy
(source and destination grids) and per tensor-core statement, the fragments' owners, the
swizzled tiles, the stages of pipelined loops, the memory plan, the diagnostics; the inputs that set
the instance and the sizes, and the script that re-evaluates the pictures (``script.py``)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..diagnostics import Loc
from .. import ir
from ..ir.symbolic import Sym
from . import fragments, memory, stages, swizzle, tensor
from .grids import GRID_STYLE, common_scale, count_of, region_figure, tiles
from .model import Copy, Env, FunctionModel, sym_json, value
from .nesting import Nesting, copy_anchor
from .script import SCRIPT
from .sizes import size_checks
from .svg import data_json, el, sym_text, text

Diag = Tuple[str, Optional[Loc], str]    # (kind, loc, message)


@dataclass
class Target:
    """The target drawn for and what is in force there: the profile, and the options
    (cuda's ``-arch``) that override part of it, as the toolchain says."""
    name: str          # cpu, cuda, opencl, factor
    profile: dict
    toolchain: Optional[object] = None   # driver.toolchain.ToolChain; None: a target without a generator

    def limits(self) -> dict:
        return self.toolchain.limits() if self.toolchain else dict(self.profile.get("limits", {}))

    def limit_name(self, key: str) -> str:
        """Where limits()[key] comes from: "limits.shared_bytes of 'cuda-sm80'", "-arch=sm_90a"."""
        by = self.toolchain.limit_set_by(key) if self.toolchain else None
        return by or f"limits.{key} of '{self.profile.get('name', self.name)}'"

    def setting(self) -> str:
        """As the header names it: "profile 'cuda-sm80', -arch=sm_90a"."""
        return self.toolchain.setting() if self.toolchain else f"profile '{self.profile.get('name', self.name)}'"


def _document(title: str, body: str, data: Optional[dict] = None) -> str:
    script = ""
    if data is not None:
        script = (el("script", data_json(data), type="application/json", id="model")
                  + el("script", SCRIPT))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{text(title)}</title>" + el("style", STYLE + GRID_STYLE + TENSOR_STYLE) + "</head>"
            f"<body>{body}{script}</body></html>\n")


def _diagnostics_html(diags: List[Diag], source: List[str]) -> str:
    if not diags:
        return ""
    items = []
    for kind, loc, msg in diags:
        where = f"{loc.file}:{loc.line}:{loc.col}: " if loc else "croktilec: "
        quoted = ""
        if loc and 1 <= loc.line <= len(source):
            quoted = el("pre", text(source[loc.line - 1]) + "\n" + " " * max(loc.col - 1, 0) + "^")
        items.append(el("li", el("span", text(where)) + el("b", text(kind + ": "), class_=kind) + text(msg) + quoted,
                        class_=f"diag {kind}", data_line=loc.line if loc else None))
    return el("section", el("h2", "Diagnostics") + el("ul", "".join(items), class_="diags"), id="diagnostics")


def _controls(model: FunctionModel, env: Env) -> str:
    instance, sizes = [], []
    for v in model.vars:
        if v.kind in ("parallel", "loop"):
            lo, hi = value(v.lo, env), value(v.hi, env) if v.hi is not None else None
            step = value(v.step, env) or 1
            instance.append(el("label", el("span", text(v.label), class_="name")
                               + el("input", type="range", data_var=v.name, min=lo or 0,
                                    max=max((hi or 1) - 1, lo or 0), step=step, value=env[v.name],
                                    data_lo=json.dumps(sym_json(v.lo)), data_hi=json.dumps(sym_json(v.hi)))
                               + el("output", str(env[v.name])) + el("small", text(v.note)), class_="slider"))
        else:
            sizes.append(el("label", el("span", text(v.label), class_="name")
                            + el("input", type="number", data_var=v.name, value=env[v.name], step=1)
                            + el("small", text(v.note)), class_="size"))
    out = [el("h2", "Instance")]
    out.append("".join(instance) if instance else el("p", "no parallel levels or loops", class_="none"))
    if sizes:
        out.append(el("h2", "Sizes") + "".join(sizes))
        out.append(el("ul", "", class_="checks", id="checks"))
    out.append(el("p", el("span", "", class_="sw src") + " source chunk "
                  + el("span", "", class_="sw dst") + " destination chunk "
                  + el("span", "", class_="sw tile") + " chunks of the other instances", class_="legend"))
    return el("aside", "".join(out), id="controls")


def _copy_card(copy: Copy, model: FunctionModel, env: Env) -> str:
    s = copy.stmt
    masks = copy.placed.masks
    found, _ = tiles(copy.src, model, env)
    figs = []
    scale = common_scale([copy.src, copy.dst], env)
    for region, role, name in ((copy.src, "src", "source"), (copy.dst, "dst", "destination")):
        figs.append(region_figure(region, model, env, role, name, scale))
    names = {n for r in (copy.src, copy.dst) for x in r.offsets + r.extents for n in x.variables()}
    picked = [v for v in model.vars if v.kind in ("parallel", "loop") and v.name in names]
    inst = ", ".join(f"{text(v.label)}={sym_text(Sym.var(v.name), env)}" for v in picked)
    total = 1
    for v in picked:
        total *= count_of(v, env) or 1
    line = model.line_text(s)
    aliases = [w for w in model.wheres if re.search(rf"\b{re.escape(w.left)}\b", line)]
    notes = "".join(el("p", text(f"where {w.left} <-> {w.right} (line {w.line}): {w.left} is {w.right} here"),
                       class_="where") for w in aliases)
    head = el("h3", el("span", f"L{s.loc.line}", class_="ln") + " " + el("code", text(line)))
    which = f" · the chunk of instance {inst}" if inst else " · the same chunk for every instance"
    sub = el("p", text(copy.label) + which
             + f" · {total} instance{'s' if total != 1 else ''}"
             + (f" ({len(found)} distinct source chunks)" if 1 < len(found) < total else "")
             + swizzle.link(getattr(s, "swizzle", 0)), class_="sub")
    masked = el("p", "masked for this instance (spec 4): " + el("span", "", class_="why") + " does not hold",
                class_="masked-note")
    mask_data = json.dumps([[sym_json(m.cond), model.show(m.cond)] for m in masks])
    return el("article", head + sub + masked + notes + el("div", figs[0] + el("div", "→", class_="arrow") + figs[1],
                                                           class_="pair"),
              class_="card copy", id=copy_anchor(s), data_mask=mask_data)


def _memory_html(model: FunctionModel, env: Env, target: Target) -> str:
    levels = memory.plan_levels(model.fn, target, env)
    if not levels:
        return el("p", "no buffers", class_="none")
    axis = memory.Axis.of(model.fn)
    out = []
    for lv in levels:
        used = ""
        if lv.limit:
            pct = 100.0 * lv.planned / lv.limit
            used = (f" · limit {lv.limit} B ({text(lv.limit_name)}): {pct:.1f}% used"
                    + el("span", el("span", "", style=f"width:{min(pct, 100):.1f}%"),
                         class_="gauge" + (" over" if pct > 100 else "")))
        head = el("h3", text(lv.title)) + el(
            "p", f"plan {lv.planned} B" + _runtime_text(lv) + f" · peak live {lv.live_peak} B" + _caller_text(lv)
            + used
            + (el("br") + el("small", text(lv.note)) if lv.note else ""), class_="sub")
        out.append(el("div", head + memory.timeline_svg(lv, env, axis) + memory.table_html(lv, env, axis),
                      class_=f"card level {lv.storage}", data_storage=lv.storage))
    return "".join(out)


def _runtime_text(lv: memory.Level) -> str:
    drawn = [r.drawn[1] for r in lv.rows if r.drawn and not r.caller]
    return f" + run-time sized buffers ({sum(drawn)} B for the first drawing's sizes)" if drawn else ""


def _caller_text(lv: memory.Level) -> str:
    """The parameters, which the caller allocates: beside the plan, never in it."""
    params = [r for r in lv.rows if r.caller]
    if not params:
        return ""
    sizes = [r.size if r.size is not None else (r.drawn[1] if r.drawn else None) for r in params]
    total = f" ({sum(sizes)} B)" if None not in sizes else ""
    return f" · {len(params)} parameter{'s' if len(params) != 1 else ''}{total}: the caller's buffers, not planned"


def _moves(model: FunctionModel, env: Env) -> str:
    """A card per copy and per mma.load / mma.store, in the order of the source."""
    cards = [(c.stmt.sid, _copy_card(c, model, env)) for c in model.copies]
    cards += [(p.stmt.sid, tensor.card(p, model, env)) for p in model.tensor
              if isinstance(p.stmt, (ir.MmaLoad, ir.MmaStore))]
    return "".join(c for _, c in sorted(cards, key=lambda x: x[0])) or el("p", "no copy statements", class_="none")


def _tensor_sections(model: FunctionModel, env: Env) -> str:
    """The multiplies and fills, who holds each fragment, the swizzled tiles, the pipelines."""
    ops = "".join(tensor.card(p, model, env) for p in model.tensor
                  if isinstance(p.stmt, (ir.MmaFill, ir.MmaMul)))
    out = []
    if ops:
        out.append(el("section", el("h2", "Tensor cores") + ops, id="tensor-cores"))
    owners = fragments.section(tensor.frags(model))
    if owners:
        out.append(el("section", el("h2", "Fragment ownership") + owners, id="ownership"))
    swizzled = swizzle.section(model.fn)
    if swizzled:
        out.append(el("section", el("h2", "Swizzled shared tiles") + swizzled, id="swizzle"))
    runs = stages.section(model)
    if runs:
        out.append(el("section", el("h2", "Pipeline stages") + runs, id="stages"))
    return "".join(out)


def function_page(model: FunctionModel, target: Target, diags: List[Diag]) -> str:
    fn, env = model.fn, model.env
    meta = (f"{text(fn.loc.file)}:{fn.loc.line} · target {text(target.name)} ({text(target.setting())}) · "
            + el("a", "all functions", href="index.html"))
    header = el("header", el("h1", el("code", text(fn.name))) + el("p", meta, class_="meta"))
    main = (_diagnostics_html(diags, model.source)
            + el("section", el("h2", "Parallel levels and loops") + Nesting(model, env).svg(), id="nesting")
            + el("section", el("h2", "Data movement") + _moves(model, env), id="copies")
            + _tensor_sections(model, env)
            + el("section", el("h2", "Memory plan") + _memory_html(model, env, target), id="memory"))
    sizes = {n for v in model.vars if v.kind in ("size", "scalar") for n in [v.name] + v.aliases}
    checks = [[sym_json(s.cond), s.message.replace("{0}", "…").replace("{1}", "…")] for s in size_checks(fn, sizes)]
    data = {"aliases": [[a, v.name] for v in model.vars for a in v.aliases],
            "derived": [[n, sym_json(s)] for n, s in model.derived], "checks": checks}
    body = header + el("div", _controls(model, env) + el("main", main), class_="layout")
    return _document(f"{fn.name} — croktile", body, data)


def failed_page(name: str, loc: Loc, diags: List[Diag], source: List[str], end_line: int) -> str:
    """A function that does not check: its diagnostics and its source, the lines marked."""
    marked = {d[1].line for d in diags if d[1] is not None and d[0] == "error"}
    rows = "".join(el("div", el("span", str(n), class_="ln") + text(source[n - 1]) if n <= len(source) else "",
                      class_="src-line" + (" bad" if n in marked else ""))
                   for n in range(loc.line, min(end_line, len(source)) + 1))
    meta = (f"{text(loc.file)}:{loc.line} · does not check: nothing to draw · "
            + el("a", "all functions", href="index.html"))
    header = el("header", el("h1", el("code", text(name))) + el("p", meta, class_="meta"))
    main = _diagnostics_html(diags, source) + el("section", el("h2", "Source") + el("div", rows, class_="source"))
    return _document(f"{name} — croktile", header + el("main", main, class_="single"))


@dataclass
class Entry:
    name: str
    page: str
    line: int
    ok: bool
    copies: int
    errors: int


def index_page(filename: str, entries: List[Entry], diags: List[Diag], source: List[str], target: Target) -> str:
    rows = "".join(el("tr", el("td", el("a", el("code", text(e.name)), href=e.page)) + el("td", str(e.line))
                      + el("td", "checked" if e.ok else f"{e.errors} error{'s' if e.errors != 1 else ''}",
                           class_="ok" if e.ok else "bad") + el("td", str(e.copies)))
                   for e in entries)
    table = el("table", el("tr", "".join(el("th", h) for h in ("__co__ function", "line", "status", "copies"))) + rows,
               class_="index")
    header = el("header", el("h1", el("code", text(filename))) + el(
        "p", f"pictures of the tiling · target {text(target.name)} ({text(target.setting())})", class_="meta"))
    return _document(f"{filename} — croktile", header + el("main", el("section", table)
                                                          + _diagnostics_html(diags, source), class_="single"))


TENSOR_STYLE = tensor.STYLE + fragments.STYLE + swizzle.STYLE + stages.STYLE
STYLE = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937;
       background: #eef1f5; }
code, pre, .ln, .nesting text, .box, output { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
header { background: #1e293b; color: #f8fafc; padding: 14px 24px; }
header h1 { margin: 0; font-size: 22px; } header .meta { margin: 4px 0 0; color: #cbd5e1; }
header a { color: #93c5fd; }
.layout { display: flex; align-items: flex-start; gap: 20px; padding: 20px 24px; }
aside#controls { position: sticky; top: 12px; width: 250px; flex: none; background: #fff; border-radius: 10px;
                 padding: 12px 16px; box-shadow: 0 1px 3px rgba(15, 23, 42, .12); }
aside h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: #64748b; margin: 10px 0 6px; }
aside label { display: grid; grid-template-columns: 64px 1fr 30px; align-items: center; gap: 6px; margin: 6px 0; }
aside label small { grid-column: 2 / 4; color: #94a3b8; margin-top: -6px; font-size: 11px; }
aside label.size { grid-template-columns: 80px 1fr; } aside label.size small { grid-column: 2; }
aside .name { font-weight: 600; font-family: ui-monospace, Menlo, monospace; overflow: hidden; text-overflow: ellipsis; }
aside input[type=number] { width: 100%; padding: 2px 4px; }
aside output { text-align: right; font-weight: 600; }
.legend { font-size: 12px; color: #475569; margin-top: 14px; }
.sw { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-left: 4px; }
.sw.src { background: rgba(37, 99, 235, .7); } .sw.dst { background: rgba(234, 88, 12, .7); }
.sw.tile { background: #fff; border: 1px solid #b8c2d3; }
.checks { padding-left: 16px; color: #b91c1c; font-size: 12px; }
main { flex: 1; min-width: 0; } main.single { padding: 20px 24px; max-width: 1100px; }
section { margin-bottom: 26px; }
section h2 { font-size: 17px; margin: 0 0 10px; color: #0f172a; }
.card { background: #fff; border-radius: 10px; padding: 12px 16px; margin-bottom: 14px;
        box-shadow: 0 1px 3px rgba(15, 23, 42, .12); }
.card h3 { margin: 0 0 4px; font-size: 15px; font-weight: 600; }
.card h3 code { background: #f1f5f9; padding: 1px 6px; border-radius: 4px; }
.ln { color: #64748b; font-size: 12px; }
.sub { margin: 0 0 8px; color: #475569; font-size: 13px; }
.pair { display: flex; align-items: center; gap: 16px; overflow-x: auto; }
.pair figure { margin: 0; } .pair figcaption { font-size: 13px; margin-bottom: 4px; }
.pair .arrow { font-size: 28px; color: #64748b; }
.gridwrap { display: inline-block; background: #fff; padding: 2px; }
.gridwrap svg { display: block; }
.box { font-size: 12px; color: #334155; margin-top: 4px; } .box .sym { color: #64748b; } .box .v { font-weight: 700; }
.masked-note { display: none; margin: 0 0 8px; padding: 4px 8px; background: #fef3c7; color: #92400e;
               border-radius: 6px; font-size: 13px; }
.card.masked .masked-note { display: block; }
.card.masked .grid .sel rect { fill: rgba(148, 163, 184, .35); stroke: #64748b; stroke-dasharray: 4 3; }
.where { color: #6d28d9; font-size: 13px; margin: 0 0 6px; }
.nesting { background: #fff; border-radius: 10px; box-shadow: 0 1px 3px rgba(15, 23, 42, .12); max-width: 100%; height: auto; }
.nesting .fn { fill: #fff; stroke: #cbd5e1; }
.nesting text { font-size: 12.5px; fill: #1f2937; }
.nesting .kw { font-weight: 700; }
.nesting .scope { stroke-width: 1.2; }
.nesting .par.level1 { fill: #eff6ff; stroke: #3b82f6; }
.nesting .par.level2 { fill: #ecfdf5; stroke: #10b981; }
.nesting .par.level3 { fill: #fefce8; stroke: #ca8a04; }
.nesting .loop { fill: rgba(241, 245, 249, .8); stroke: #94a3b8; }
.nesting .mask { fill: rgba(254, 243, 199, .6); stroke: #d97706; stroke-dasharray: 5 3; }
.nesting .scope-head { font-weight: 600; }
.nesting .count { text-anchor: end; fill: #475569; font-size: 12px; }
.nesting .ln { fill: #94a3b8; font-size: 11px; }
.nesting .copy { fill: #1d4ed8; } .nesting a:hover .copy { text-decoration: underline; }
.nesting .implicit { text-anchor: end; fill: #b45309; font-size: 11.5px; }
.nesting .where { fill: #6d28d9; }
.timeline { display: block; max-width: 100%; height: auto; }
.timeline .plot { fill: #f8fafc; stroke: #cbd5e1; }
.timeline .buf { stroke: #fff; stroke-width: 1; }
.timeline .c0 { fill: #60a5fa; } .timeline .c1 { fill: #f59e0b; } .timeline .c2 { fill: #34d399; }
.timeline .c3 { fill: #f472b6; } .timeline .c4 { fill: #a78bfa; } .timeline .c5 { fill: #fb7185; }
.timeline .c6 { fill: #2dd4bf; } .timeline .c7 { fill: #facc15; }
.timeline .runtime { fill-opacity: .55; stroke: #334155; stroke-dasharray: 3 2; }
.timeline .param { fill: #cbd5e1; fill-opacity: .6; stroke: #475569; stroke-dasharray: 6 3; }
.timeline .tick-mark { stroke: #94a3b8; }
.timeline .buf-label { font-size: 11px; fill: #0f172a; }
.timeline .peak { stroke: #0f172a; stroke-dasharray: 4 3; }
.timeline .limit { stroke: #dc2626; stroke-width: 2; }
.timeline .limit-label { fill: #dc2626; font-size: 11px; text-anchor: end; }
.timeline .axis { font-size: 10.5px; text-anchor: end; fill: #475569; }
.timeline .tick { font-size: 10px; fill: #64748b; text-anchor: middle; }
.gauge { display: inline-block; width: 120px; height: 8px; background: #e2e8f0; border-radius: 4px; margin-left: 8px;
         vertical-align: middle; overflow: hidden; }
.gauge span { display: block; height: 100%; background: #22c55e; } .gauge.over span { background: #dc2626; }
table { border-collapse: collapse; font-size: 12.5px; margin-top: 8px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #e2e8f0; }
table.plan td:nth-child(-n+2) { text-align: right; font-family: ui-monospace, Menlo, monospace; }
.diags { list-style: none; padding: 0; }
.diag { background: #fff; border-left: 4px solid #dc2626; padding: 6px 10px; margin-bottom: 8px; border-radius: 4px; }
.diag.warning { border-color: #d97706; } .diag.note { border-color: #64748b; }
.diag b.error { color: #dc2626; } .diag b.warning { color: #d97706; } .diag pre { margin: 4px 0 0; }
.source { background: #fff; border-radius: 8px; padding: 8px 0; font-family: ui-monospace, Menlo, monospace;
          font-size: 12.5px; white-space: pre; overflow-x: auto; }
.src-line .ln { display: inline-block; width: 48px; text-align: right; padding-right: 10px; }
.src-line.bad { background: #fee2e2; }
table.index { background: #fff; border-radius: 8px; } table.index td, table.index th { padding: 6px 14px; }
td.ok { color: #15803d; } td.bad { color: #dc2626; }
.none { color: #64748b; }
"""
