"""The barrier of a synchronous `inthreads` block (analysis/inthreads.py) on the factor
target, a mixin of the entry point's emitter (factor.EntryEmitter).

The levels a barrier spans run their instances on threads of the core
(``run_concurrently``, as for events); the barrier is two words on the stack of the
level-2 instance's caller, which the runtime's ``barrier`` service counts arrivals in
(runtime/croktile_factor.h). An instance that waits longer than
CROKTILE_EVENT_TIMEOUT_MS fails with the block's line, as on the cpu target.
"""
from __future__ import annotations

from typing import Dict

from ... import ir
from ...codegen.cxx import At
from ...analysis.inthreads import barrier_wait_message, inthreads_barriers, level_barriers
from ...codegen.kernel_emitter import dev_expr


class FactorBarriers:
    fn: ir.Function

    def barrier_setup(self) -> None:
        self.barriers = inthreads_barriers(self.fn)
        self.barrier_of: Dict[int, str] = {}
        self.barrier_count: Dict[str, str] = {}

    def declare_barriers(self, s: ir.Parallel, depth: int) -> None:
        """The barriers of the blocks inside the level-2 `s`, before its instances start."""
        declare, of = level_barriers(s, self.barriers, len(self.barrier_of))
        for name, levels in declare:
            self.w(depth, f"unsigned {name}[2] = {{0u, 0u}};")
            self.barrier_count[name] = " * ".join(f"({dev_expr(p.count)})" for p in levels)
        self.barrier_of.update(of)

    def arrive(self, s: ir.InThreads, name: str, depth: int) -> None:
        self.timed_wait(f"barrier(croktile_core, {name}, {self.barrier_count[name]})", s, barrier_wait_message(),
                        depth)   # (targets/factor/events.py)

    def s_InThreads(self, s: ir.InThreads, at: At) -> None:
        name = self.barrier_of.get(id(s))
        if name and self.barriers[id(s)].before:
            self.arrive(s, name, at.depth)
        self.s_If(s, at)
        if name:
            self.arrive(s, name, at.depth)
