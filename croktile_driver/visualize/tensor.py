"""A card per tensor-core statement: ``mma.load`` (the chunk it reads into which fragment),
``mma.store`` (the fragment into which chunk), ``mma.fill``, and the multiply
(``mma.row.row`` / ``mma.row.col``: m x n x k, the operand and accumulator types, the
instruction and how many of them one statement issues)."""
from __future__ import annotations

import json
from typing import List

from .. import ir
from ..ir.symbolic import Sym
from . import fragments, swizzle
from .grids import common_scale, region_figure
from .model import Env, FunctionModel, Placed, sym_json
from .nesting import mma_anchor
from .svg import el, sym_text, text


def label(s: ir.Stmt) -> str:
    """The statement's operation as written: mma.load.swiz<128>, mma.row.row, ..."""
    if isinstance(s, ir.MmaLoad):
        return "mma.load" + (f".swiz<{s.swizzle}>" if s.swizzle else "")
    if isinstance(s, ir.MmaStore):
        return "mma.store"
    if isinstance(s, ir.MmaFill):
        return "mma.fill"
    return f"mma.{s.layout}"


def _frag_box(ref: ir.FragRef) -> str:
    f = ref.frag
    link = el("a", "who holds it", href=f"#{fragments.anchor(f)}") if fragments.held(f) else ""
    return el("figure", el("figcaption", el("b", "fragment") + " " + el("code", text(ref.describe())))
              + el("div", text(fragments.describe(f)) + el("br") + text(fragments.who(f))
                   + (el("br") + link if link else ""), class_="fragbox"), class_="frag")


def _instance(regions: List[ir.Region], model: FunctionModel, env: Env) -> str:
    names = {n for r in regions for x in r.offsets + r.extents for n in x.variables()}
    picked = [v for v in model.vars if v.kind in ("parallel", "loop") and v.name in names]
    inst = ", ".join(f"{text(v.label)}={sym_text(Sym.var(v.name), env)}" for v in picked)
    return f" · the chunk of instance {inst}" if inst else ""


def instructions(s: ir.MmaMul) -> str:
    """m x n x k of the multiply and the instructions it takes."""
    a, b, c = s.a.frag, s.b.frag, s.c.frag
    if None in (c.rows, c.cols, a.cols):
        return ""
    k = b.rows if b.rows is not None else a.cols
    out = f"{c.rows} x {c.cols} x {k}: A {a.elem} [{a.rows}, {a.cols}] · B {b.elem} [{b.rows}, {b.cols}]"
    out += f" · accumulator {c.elem} [{c.rows}, {c.cols}]"
    shape = c.inst if c.engine == ir.MmaEngine.WGMMA else ((s.form.m, s.form.n, s.form.k) if s.form else c.inst)
    if shape:
        m, n, kk = shape
        count = (c.rows // m) * (c.cols // n) * max(k // kk, 1)
        name = "wgmma" if c.engine == ir.MmaEngine.WGMMA else "mma.sync"
        out += f" · {count} {name} m{m}n{n}k{kk} instruction{'s' if count != 1 else ''}"
        if s.form is not None and c.engine != ir.MmaEngine.WGMMA:
            out += f" ({s.form.ptx})"
    return out


def card(p: Placed, model: FunctionModel, env: Env) -> str:
    s = p.stmt
    line = model.line_text(s)
    head = el("h3", el("span", f"L{s.loc.line}", class_="ln") + " " + el("code", text(line)))
    body, what, where = "", label(s), ""
    if isinstance(s, ir.MmaLoad):
        scale = common_scale([s.src], env)
        what += (" (transposed: the chunk's rows are the fragment's columns)" if s.transposed else "")
        body = el("div", region_figure(s.src, model, env, "src", "source", scale)
                  + el("div", "→", class_="arrow") + _frag_box(s.ref), class_="pair")
        where = _instance([s.src], model, env)
    elif isinstance(s, ir.MmaStore):
        scale = common_scale([s.dst], env)
        body = el("div", _frag_box(s.ref) + el("div", "→", class_="arrow")
                  + region_figure(s.dst, model, env, "dst", "destination", scale), class_="pair")
        where = _instance([s.dst], model, env)
    elif isinstance(s, ir.MmaFill):
        value = s.value if isinstance(s.value, (int, float)) else getattr(s.value, "text", "a value")
        what += f" · every element of {s.ref.describe()} = {value}"
        body = el("div", _frag_box(s.ref), class_="pair")
    else:
        what += " · c += a × b: " + instructions(s)
        body = el("div", "".join(_frag_box(r) for r in (s.a, s.b, s.c)), class_="pair")
    sub = el("p", text(what) + where + swizzle.link(getattr(s, "swizzle", 0)), class_="sub")
    masked = el("p", "masked for this instance (spec 4): " + el("span", "", class_="why") + " does not hold",
                class_="masked-note")
    mask_data = json.dumps([[sym_json(m.cond), model.show(m.cond)] for m in p.masks])
    return el("article", head + sub + masked + body, class_=f"card mma {type(s).__name__.lower()}",
              id=mma_anchor(s), data_mask=mask_data)


def frags(model: FunctionModel) -> List[ir.Frag]:
    """The function's fragments, in the order their statements name them."""
    out: List[ir.Frag] = []
    for p in model.tensor:
        s = p.stmt
        refs = [s.a, s.b, s.c] if isinstance(s, ir.MmaMul) else [s.ref]
        for r in refs:
            if r.frag not in out:
                out.append(r.frag)
    return out


STYLE = """
.fragbox { font-size: 12px; background: #f5f3ff; border: 1px solid #c4b5fd; border-radius: 6px; padding: 6px 10px;
           max-width: 360px; }
.pair figure.frag figcaption { font-size: 13px; margin-bottom: 4px; }
"""
