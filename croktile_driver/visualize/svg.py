"""Writing SVG and HTML markup: escaping, elements, and symbolic attributes that the page's
script re-evaluates (``data-g`` geometry, ``data-e`` text) when the reader changes a value."""
from __future__ import annotations

import json
from html import escape
from typing import Dict, List, Optional

from ..ir.symbolic import Sym
from .model import Env, sym_json, value


def attrs(**kw) -> str:
    """` name="value"` pairs; a trailing `_` is dropped (class_), `_` inside becomes `-`."""
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        name = k.rstrip("_").replace("_", "-")
        if isinstance(v, float):
            v = f"{v:.2f}".rstrip("0").rstrip(".")
        out.append(f' {name}="{escape(str(v), quote=True)}"')
    return "".join(out)


VOID = ("input", "br")   # HTML elements without an end tag


def el(tag: str, body: str = "", **kw) -> str:
    return f"<{tag}{attrs(**kw)}>" if tag in VOID else f"<{tag}{attrs(**kw)}>{body}</{tag}>"


def text(s: str) -> str:
    return escape(s, quote=False)


def shown(v: Optional[int]) -> str:
    return "?" if v is None else str(v)


def sym_text(s: Sym, env: Env, tag: str = "span", **kw) -> str:
    """A symbolic value as text: its current value, re-evaluated by the page's script."""
    return el(tag, text(shown(value(s, env))), data_e=json.dumps(sym_json(s)), **kw)


def sym_rect(geom: List[Sym], env: Env, **kw) -> str:
    """A rectangle whose x, y, width and height are symbolic (in element units)."""
    x, y, w, h = (value(g, env) for g in geom)
    return el("rect", "", x=x or 0, y=y or 0, width=max(w or 0, 0), height=max(h or 0, 0),
              data_g=json.dumps([sym_json(g) for g in geom]), **kw)


def title(s: str) -> str:
    return el("title", text(s))


def data_json(obj: Dict) -> str:
    """JSON for an inline <script type="application/json">: no '</' can end the element."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")
