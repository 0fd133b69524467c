"""The reference compiler's level annotations on `parallel` (`: block`, `: group-4`,
`: group`, `: thread`) and the rules its documentation states for them.

A level annotation names the hardware level a `parallel` maps to on cuda: the grid, a
warp group (128 threads), a warp (32 threads) or threads. One rule is a language rule,
checked on every target:

- inner levels are finer than outer ones (block, group-4, group, thread in that order).

The other rules are about the threads of a cuda block, so they hold for the cuda target
only (`check_cuda_levels`; the reference checks them in its GPU back end too); on the
other targets the levels are loops and any count works:

- a `group` directly inside a `group-4` is not supported;
- the threads under a `group` level number a multiple of 32, under a `group-4` a multiple
  of 128 (a level without inner thread levels has one warp / one warp group);
- the annotated levels directly inside one level use the same number of threads.
"""
from __future__ import annotations

from typing import List, Optional

from . import nodes as ir
from .symbolic import Sym

KINDS = ("block", "group-4", "group", "thread")
ORDER = {k: i for i, k in enumerate(KINDS)}
# threads one instance of a level spans when nothing inside it says otherwise
WIDTH = {"group-4": 128, "group": 32, "thread": 1}


def thread_levels(par: ir.Parallel) -> List[ir.Parallel]:
    """The levels directly inside ``par`` (not inside those)."""
    out: List[ir.Parallel] = []
    stack = list(par.body)
    while stack:
        s = stack.pop(0)
        if isinstance(s, ir.Parallel):
            out.append(s)
        elif getattr(s, "body", None):
            stack[:0] = s.body
    return out


def threads_of(par: ir.Parallel) -> Optional[Sym]:
    """The threads that all instances of a sub-block level span on cuda, or None
    for a level that is not annotated as one."""
    if par.kind not in WIDTH:
        return None
    inner = [p for p in thread_levels(par) if p.kind in (None, "thread")]
    per = inner[0].count if inner and par.kind != "thread" else Sym.const(WIDTH[par.kind])
    return par.count * per


