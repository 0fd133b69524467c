"""Runs the frontend stages on one source file: preprocess, split, parse, check+lower."""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple

from ..diagnostics import Diagnostics, Loc
from . import ast as A
from .. import ir
from .preprocess import preprocess_with_columns
from .pipelined_loops import lower_pipelined_loops
from .splitter import Segment, split


@dataclass
class TranslationUnit:
    filename: str
    preprocessed: str
    segments: List[Segment]
    functions: List[A.CoFunction] = field(default_factory=list)
    module: Optional[ir.Module] = None
    macros: List[str] = field(default_factory=list)   # the command line's -D names (codegen/macro_guard.py)


def run_frontend(text: str, filename: str, diag: Diagnostics, *,
                 defines: List[Tuple[str, Optional[str]]] = (), undefines: List[str] = (),
                 include_dirs: List[str] = (), stop_after: str = "ir") -> TranslationUnit:
    """Stops early (with what it has) once errors are reported in a stage."""
    diag.add_source(filename, text)
    pre, colmap = preprocess_with_columns(text, filename, diag, list(defines), list(undefines),
                                          list(include_dirs))
    tu = TranslationUnit(filename, pre, [], macros=[name for name, _ in defines])
    if diag.errors or stop_after == "preprocess":
        return tu
    tu.segments = split(pre, filename, diag, colmap)
    unknown = _unknown_macros_in_co(tu.segments)
    if unknown and not diag.errors:
        # only croktilec reads a __co__ function: a conditional there on a macro that no
        # -D or #define gives is decided as gcc decides it (undefined), not passed through
        # for the C++ compiler as in host code
        tu.preprocessed, colmap = preprocess_with_columns(
            text, filename, diag, list(defines), list(undefines) + unknown, list(include_dirs))
        tu.segments = split(tu.preprocessed, filename, diag, colmap)
    if stop_after == "split":
        return tu
    # after a splitter error (a stray '}', an unterminated function) the functions it did
    # find are still parsed and checked: their errors usually show the cause
    # prototypes too: only their heads are checked (a malformed one is an error at its token)
    co_segments = [s for s in tu.segments if s.kind in ("co", "co_decl") and s.brackets_match]
    check = stop_after != "parse"
    # every __co__ name (definitions and prototypes) is known before the first check, so
    # a call to a later one is caught; each function is then parsed and checked in turn,
    # so diagnostics come out in source order
    names = {s.name for s in tu.segments if s.kind in ("co", "co_decl") and s.name}
    lowered: list = []
    if co_segments:
        with _collector_paused():
            _parse_and_check(tu, co_segments, diag, names, check, colmap, lowered)
    if not check:
        return tu
    tu.module = ir.Module(lowered)
    return tu


_CONDITIONAL_LINE = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b(.*)$", re.M)
_NOT_MACROS = {"defined", "if", "ifdef", "ifndef", "elif"}


def _unknown_macros_in_co(segments: List[Segment]) -> List[str]:
    """The macros of the conditionals that the preprocessor passed through (it knew none of
    them) inside __co__ functions."""
    names = set()
    for seg in segments:
        if seg.kind == "co":
            for m in _CONDITIONAL_LINE.finditer(seg.text):
                names |= set(re.findall(r"[A-Za-z_]\w*", m[1])) - _NOT_MACROS
    return sorted(names)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Parsing and checking allocate a large tree that lives until the end; the cyclic
    garbage collector's full passes over it, more of them as it grows, made a function of
    100k statements superlinear (a third of the time at 80k statements). What is garbage
    is freed by reference counting, or by the first collection after the pause."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse_and_check(tu: TranslationUnit, co_segments: List[Segment], diag: Diagnostics, names: set,
                     check: bool, colmap, lowered: list) -> None:
    """Parses each __co__ function and (with ``check``) checks and lowers it, in source order."""
    from .parser import CroktileParser  # the tables load only when there is tileflow code
    parser = CroktileParser(diag)
    parser.lexer.colmap = colmap
    if check:
        from .sema.checker import check_function
    seen = {}
    for seg in co_segments:
        before = diag.errors
        end = seg.end_loc
        if colmap is not None:  # only reported ("expected '}' at end of input"): the user's column
            end = Loc(end.file, end.line, colmap(end.file, end.line, end.col))
        fn = parser.parse(seg.text, seg.loc.file, seg.loc.line, seg.loc.col, end, prototype=seg.kind == "co_decl")
        if fn is None or fn.body is None:
            continue
        fn.parsed_cleanly = diag.errors == before
        tu.functions.append(fn)
        if not check:
            continue
        names.add(fn.name.name)
        if fn.name.name in seen:
            diag.error(fn.name.loc, f"redefinition of __co__ function '{fn.name.name}'")
            diag.note(seen[fn.name.name], "previous definition is here")
        seen[fn.name.name] = fn.name.loc
        if not fn.parsed_cleanly:
            continue  # its syntax errors are reported; checking a partial tree only adds noise
        lower_pipelined_loops(fn, diag)
        if diag.errors != before:
            continue
        result = check_function(fn, diag, names)
        if result is not None:
            lowered.append(result)
