"""Which `inthreads` blocks end in a barrier of the instances they are a branch of.

"All threads are forced synchronized after the `inthreads` block" (the reference's
thread-masking.md): a block that only some instances of a level run (`inthreads (q == 0)
{ tma.copy ... }`) typically fills data that the other instances read next. So an
outermost `inthreads` that is not `.async` ends with a barrier of every instance of the
levels inside the launch down to its own (CUDA: `__syncthreads()`); `.async` blocks are
ordered by events instead. The barrier is left out where no other instance can see what
the block does (it writes only the instance's own data), which keeps levels whose blocks
are plain masks running as loops on the cpu target.

Inside a loop, the block of the next iteration could overwrite what the other instances
still read from this one (the reference leaves that race): there it also starts with a
barrier, unless the levels use events (a program that orders its instances with events
could deadlock on a barrier it did not write).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Set, Tuple

from .. import ir
from ..cstrings import c_string
from .events import TIMEOUT_ENV
from .memo import per_function


@dataclass
class Barrier:
    levels: List[ir.Parallel]   # the levels below the launch whose instances it spans, outermost first
    before: bool                # also one where the block starts


@per_function
def inthreads_barriers(fn: ir.Function) -> Dict[int, Barrier]:
    """id of each `ir.InThreads` that needs a barrier -> its barrier."""
    out: Dict[int, Barrier] = {}
    # each level's facts, found at its first block: walking the level again at each block
    # made a level of n blocks cost O(n^2)
    uses_events: Dict[int, bool] = {}
    own_data: Dict[int, Set[int]] = {}

    def visit(stmts: List[ir.Stmt], stack: List[ir.Parallel], in_loop: bool, inside: bool) -> None:
        for s in stmts:
            if isinstance(s, ir.InThreads) and not inside and not s.is_async and len(stack) > 1 \
                    and _shares_writes(s, _own_data(stack[-1], own_data)):
                level = stack[1]
                if id(level) not in uses_events:
                    uses_events[id(level)] = any(isinstance(x, (ir.EventWait, ir.Trigger)) for x in ir.walk(level.body))
                out[id(s)] = Barrier(stack[1:], in_loop and not uses_events[id(level)])
            if isinstance(s, ir.Parallel):
                visit(s.body, stack + [s], False, inside)
            elif getattr(s, "body", None):
                visit(s.body, stack, in_loop or isinstance(s, ir.Loop), inside or isinstance(s, ir.InThreads))

    visit(fn.body, [], False, False)
    return out


def barrier_levels(barriers: Dict[int, Barrier]) -> Set[int]:
    """The ids of the levels whose instances meet at a barrier: they run concurrently."""
    return {id(p) for b in barriers.values() for p in b.levels}


def level_barriers(s: ir.Parallel, barriers: Dict[int, Barrier],
                   first: int) -> Tuple[List[Tuple[str, List[ir.Parallel]]], Dict[int, str]]:
    """The barriers of the `inthreads` blocks inside the level-2 `s`: one for each depth
    of level they sit in, spanning the instances of the levels from `s` down to it.
    Returns (name, levels) of each to declare where `s` starts (names numbered from
    `first`) and the name of each block's barrier by the block's id."""
    declared: Dict[int, str] = {}
    out: List[Tuple[str, List[ir.Parallel]]] = []
    of: Dict[int, str] = {}
    for x in ir.walk(s.body):
        levels = barriers[id(x)].levels if id(x) in barriers else None
        if levels is None or levels[0] is not s:
            continue
        if len(levels) not in declared:
            declared[len(levels)] = f"croktile_barrier{first + len(of)}"
            out.append((declared[len(levels)], levels))
        of[id(x)] = declared[len(levels)]
    return out, of


def _own_data(level: ir.Parallel, known: Dict[int, Set[int]]) -> Set[int]:
    """The ids of the buffers of an instance of `level` itself (its level's and those of
    levels inside), kept in `known` by the level's id."""
    if id(level) not in known:
        known[id(level)] = {id(b) for p in [level] + [x for x in ir.walk(level.body) if isinstance(x, ir.Parallel)]
                            for b in p.buffers if b.storage == "local"}
    return known[id(level)]


def _shares_writes(block: ir.InThreads, own: Set[int]) -> bool:
    """Whether the block may write data that another instance of its level can read: any
    buffer but the instance's own (`own`, their ids)."""
    return any(id(b) not in own for s in ir.walk(block.body) for b in ir.stmt_writes(s))


def barrier_wait_message() -> str:
    """A run-time check's message for a barrier that some instance never reached ({0}: the
    milliseconds waited)."""
    return c_string("not every instance reached the barrier of this 'inthreads' block within {0} ms (deadlock? "
                    "blocks that wait on each other's events must be 'inthreads.async'; or an instance left "
                    f"its loop early; {TIMEOUT_ENV} sets the time)")


def refuse_barriers(module: ir.Module, diag, target: str) -> None:
    """Targets that run a block's inner instances one after another (factor, opencl) have
    no barrier for an `inthreads` block yet: an error at each block that needs one, where
    a run would compute with data the block has not written yet."""
    for fn in module.functions if module is not None else []:
        barriers = inthreads_barriers(fn)
        for s in ir.walk(fn.body):
            if isinstance(s, ir.InThreads) and id(s) in barriers:
                diag.error(s.loc, f"this 'inthreads' block writes data that the other instances of its level read "
                                  f"after it, so it ends in a barrier of those instances, which the {target} target "
                                  "does not generate yet (the cpu and cuda targets do)")
