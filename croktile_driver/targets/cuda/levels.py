"""The cuda target's rules on annotated parallel levels (the threads of a block): see
ir/levels.py for the levels themselves."""
from __future__ import annotations

from typing import Optional

from ... import ir
from ...ir.levels import WIDTH, thread_levels, threads_of


def check_cuda_levels(module: ir.Module, diag) -> None:
    """What level annotations need of a cuda block: nesting and thread counts."""
    for fn in module.functions:
        for par in ir.walk(fn.body):
            if isinstance(par, ir.Parallel):
                _check_level(par, diag)


def _check_level(node: ir.Parallel, diag) -> None:
    if node.kind == "group-4":
        for inner in thread_levels(node):
            if inner.kind == "group":
                diag.error(inner.loc, "a 'group' level directly inside a 'group-4' level is not supported on "
                                      "target 'cuda'")
    if node.kind in ("group", "group-4"):
        need = WIDTH[node.kind]
        for inner in thread_levels(node):
            if inner.kind not in (None, "thread"):
                continue
            if inner.count.is_const and inner.count.value % need:
                diag.error(inner.loc, f"the threads of a '{node.kind}' level must number a multiple of "
                                      f"{need} on target 'cuda', not {inner.count.value}")
    seen: Optional[tuple] = None
    for inner in thread_levels(node):
        width = threads_of(inner)
        if width is None or not width.is_const:
            continue
        if seen is not None and seen[0] != width.value:
            diag.error(inner.loc, f"the inner 'parallel' levels of one block must use the same number of "
                                  f"threads on target 'cuda': this one uses {width.value}, an earlier one {seen[0]}")
            diag.note(seen[1], f"this level uses {seen[0]} threads")
            break
        seen = seen or (width.value, inner.loc)
