"""Runs the frontend stages on one source file: preprocess, split, parse, check+lower."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from ..diagnostics import Diagnostics
from . import ast as A
from . import ir
from .preprocess import preprocess
from .splitter import Segment, split


@dataclass
class TranslationUnit:
    filename: str
    preprocessed: str
    segments: List[Segment]
    functions: List[A.CoFunction] = field(default_factory=list)
    module: Optional[ir.Module] = None


def run_frontend(text: str, filename: str, diag: Diagnostics, *,
                 defines: List[Tuple[str, Optional[str]]] = (), undefines: List[str] = (),
                 include_dirs: List[str] = (), stop_after: str = "ir") -> TranslationUnit:
    """Stops early (with what it has) once errors are reported in a stage."""
    diag.add_source(filename, text)
    pre = preprocess(text, filename, diag, list(defines), list(undefines), list(include_dirs))
    tu = TranslationUnit(filename, pre, [])
    if diag.errors or stop_after == "preprocess":
        return tu
    tu.segments = split(pre, filename, diag)
    if diag.errors or stop_after == "split":
        return tu
    co_segments = [s for s in tu.segments if s.kind == "co"]
    if co_segments:
        from .parser import TileflowParser  # the tables load only when there is tileflow code
        parser = TileflowParser(diag)
        for seg in co_segments:
            before = diag.errors
            fn = parser.parse(seg.text, seg.loc.file, seg.loc.line, seg.loc.col, seg.end_loc)
            if fn is not None:
                fn.parsed_cleanly = diag.errors == before
                tu.functions.append(fn)
    if stop_after == "parse":
        return tu
    from .sema import check_function
    names = {f.name.name for f in tu.functions}
    seen = {}
    for fn in tu.functions:
        if fn.name.name in seen:
            diag.error(fn.name.loc, f"redefinition of __co__ function '{fn.name.name}'")
            diag.note(seen[fn.name.name], "previous definition is here")
        seen[fn.name.name] = fn.name.loc
    lowered = []
    for fn in tu.functions:
        if not fn.parsed_cleanly:
            continue  # its syntax errors are reported; checking a partial tree only adds noise
        result = check_function(fn, diag, names)
        if result is not None:
            lowered.append(result)
    tu.module = ir.Module(lowered)
    return tu
