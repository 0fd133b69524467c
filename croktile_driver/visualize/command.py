"""``--visualize=DIR`` and ``--visualize-stmt=LINE``: the frontend (as ``-fsyntax-only``;
no target compiler runs), then the pages or the picture of one statement.

A program with errors still gets its pages (exit status 1): the functions that checked
are drawn, those that did not list their diagnostics. A file without a ``__co__``
function is no program: an error and no page.
"""
from __future__ import annotations

import os
import re
import sys
from typing import Dict, List, Optional

from ..driver.atomic import write_atomic, write_stdout
from ..diagnostics import Diagnostics, Loc, source_lines
from ..driver.jobs import output_stem
from ..compiler import check_source
from ..frontend.pipeline import TranslationUnit
from ..driver.inputs import frontend_options, read_source
from ..driver.options import ParsedArgs
from .grids import statement_svg
from .model import FunctionModel
from .page import Diag, Entry, Target, failed_page, function_page, index_page


def parse_values(spec: Optional[str]) -> Dict[str, int]:
    """``--visualize-values=M=128,p=2``: sizes and indices of the first drawing."""
    out: Dict[str, int] = {}
    for item in filter(None, (spec or "").split(",")):
        name, eq, val = item.partition("=")
        named = re.fullmatch(r"[A-Za-z_]\w*(\(\d+\))?", name.strip())   # index(0): an element of an i-tuple
        if not eq or not named or not re.fullmatch(r"-?\d+", val.strip()):
            raise ValueError(f"--visualize-values takes NAME=INTEGER pairs separated by commas, not '{item}'")
        out[name.strip()] = int(val)
    return out


def visualize(args: ParsedArgs, diag: Diagnostics, target: Target, toolchain) -> int:
    try:
        overrides = parse_values(args.visualize_values)
        line = _stmt_line(args.visualize_stmt)
    except ValueError as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    if len(args.inputs) != 1:
        print("croktilec: error: --visualize and --visualize-stmt draw one input file", file=sys.stderr)
        return 1
    path = args.inputs[0]
    text = read_source(path, diag)
    if text is None:
        return 1
    tu = check_source(text, path, diag, toolchain, frontend_options(args))
    if not any(s.kind == "co" for s in tu.segments):
        if not diag.errors:
            diag.error(None, f"{path}: no __co__ function to draw")
        return 1
    source = source_lines(text)
    models = _models(tu, source, overrides, path)
    if args.visualize:
        try:
            os.makedirs(args.visualize, exist_ok=True)
        except OSError as exc:
            print(f"croktilec: error: cannot write '{args.visualize}': {exc.strerror}", file=sys.stderr)
            return 1
        _write_pages(args.visualize, tu, models, list(diag.records), source, target)
    if line is not None:
        failed = any(s.loc.line <= line <= s.end_loc.line for s in tu.segments if s.kind == "co"
                     and not any(s.loc.line <= m.fn.loc.line <= s.end_loc.line for m in models))
        return _write_statement(args, path, line, models, source, diag, failed) or (1 if diag.errors else 0)
    return 1 if diag.errors else 0


def _stmt_line(spec: Optional[str]) -> Optional[int]:
    if spec is None:
        return None
    if not re.fullmatch(r"\d+", spec) or int(spec) < 1:
        raise ValueError(f"--visualize-stmt takes a line number, not '{spec}'")
    return int(spec)


def _models(tu: TranslationUnit, source: List[str], overrides: Dict[str, int], path: str) -> List[FunctionModel]:
    asts = {(f.name.name, f.loc.line): f for f in tu.functions}
    out = []
    for fn in tu.module.functions if tu.module is not None else []:
        ast_fn = next((a for (name, _), a in asts.items() if name == fn.name and a.loc.line <= fn.loc.line), None)
        out.append(FunctionModel(fn, ast_fn, source if fn.loc.file == path else [], overrides))
    return out


def _page_name(name: str, used: set) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "function"
    page, n = f"{base}.html", 1
    while page in used or page == "index.html":
        n += 1
        page = f"{base}-{n}.html"
    used.add(page)
    return page


def _write_pages(folder: str, tu: TranslationUnit, models: List[FunctionModel], diags: List[Diag],
                 source: List[str], target: Target) -> None:
    used: set = set()
    entries: List[Entry] = []
    for seg in (s for s in tu.segments if s.kind == "co"):
        mine = [d for d in diags if d[1] is not None and d[1].file == seg.loc.file
                and seg.loc.line <= d[1].line <= seg.end_loc.line]
        errors = sum(1 for d in mine if d[0] == "error")
        model = next((m for m in models if m.fn.loc.file == seg.loc.file
                      and seg.loc.line <= m.fn.loc.line <= seg.end_loc.line), None)
        name = seg.name or f"line {seg.loc.line}"
        page = _page_name(name, used)
        if model is not None:
            html = function_page(model, target, mine)
            copies = len(model.copies)
        else:
            html = failed_page(name, seg.loc, mine, source, seg.end_loc.line)
            copies = 0
        write_atomic(os.path.join(folder, page), html)
        entries.append(Entry(name, page, seg.loc.line, model is not None and errors == 0, copies, errors))
    write_atomic(os.path.join(folder, "index.html"), index_page(tu.filename, entries, diags, source, target))


def _write_statement(args: ParsedArgs, path: str, line: int, models: List[FunctionModel], source: List[str],
                     diag: Diagnostics, failed: bool) -> int:
    """The picture of the copy at ``line``; ``failed``: the line is in a function that did
    not check (its errors, already reported, say why there is no picture)."""
    found = [(m, c) for m in models for c in m.copies if c.stmt.loc.line == line and c.stmt.loc.file == path]
    if not found:
        if failed:
            return 1
        lines = sorted({c.stmt.loc.line for m in models for c in m.copies if c.stmt.loc.file == path})
        where = (f" (copies are at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})"
                 if lines else " (this file has none)")
        shown = source[line - 1] if line <= len(source) else ""
        diag.error(Loc(path, line, len(shown) - len(shown.lstrip()) + 1),
                   f"no copy statement at line {line} to draw{where}")
        return 1
    model, copy = found[0]
    svg = statement_svg(copy, model, model.env)
    out = args.output or f"{output_stem(path)}.L{line}.svg"
    if out.endswith(".png"):
        print(f"croktilec: error: --visualize-stmt writes SVG; name the output '.svg', not '{out}'", file=sys.stderr)
        return 1
    if out == "-":
        write_stdout(svg)
    else:
        write_atomic(out, svg)
    return 0
