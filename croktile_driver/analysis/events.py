"""What every target needs to know of a function's events (ir/nodes.py ``Event``):
which `parallel` levels must run their instances concurrently, and the text of a wait's
run-time report.

An event declared at one level is shared by the instances of every level inside it; where
those instances trigger or wait on it, one may wait for another, so a target that runs
instances one after another (a loop) would block forever: such levels run as threads
(cpu, factor) or are real hardware threads already (cuda, opencl).
"""
from __future__ import annotations

from typing import List, Set

from .. import ir
from ..cstrings import c_string

TIMEOUT_ENV = "CROKTILE_EVENT_TIMEOUT_MS"


def concurrent_levels(fn: ir.Function) -> Set[int]:
    """The ids of the ``ir.Parallel`` statements whose instances share an event they
    trigger or wait on."""
    out: Set[int] = set()
    declared_at = {}

    def visit(stmts: List[ir.Stmt], stack: List[ir.Parallel]) -> None:
        for s in stmts:
            if isinstance(s, ir.EventDecl):
                declared_at[s.event.name] = len(stack)
            elif isinstance(s, (ir.Trigger, ir.EventWait)):
                for ref in s.events:
                    out.update(id(p) for p in stack[declared_at[ref.event.name]:])
            if isinstance(s, ir.Parallel):
                visit(s.body, stack + [s])
            elif getattr(s, "body", None):
                visit(s.body, stack)

    visit(fn.body, [])
    return out


def wait_where(s: ir.Stmt) -> str:
    """The C string literal of a wait's (or barrier's) place, `file:line:col`."""
    return c_string(f"{s.loc.file}:{s.loc.line}:{s.loc.col}")


def wait_message_text(ref: ir.EventRef) -> str:
    """A run-time check's message (runtime/croktile_check.h) for a wait that timed out;
    {0} is the time waited in milliseconds."""
    return f"wait on event '{ref.text()}' did not end within {{0}} ms (deadlock? {TIMEOUT_ENV} sets the time)"


def wait_message(ref: ir.EventRef) -> str:
    return c_string(wait_message_text(ref))
