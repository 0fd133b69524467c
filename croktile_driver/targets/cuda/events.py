"""Events on the cuda target (ir/nodes.py ``Event``): flags in memory of the event's
storage level, set by `trigger` and consumed by `wait` with atomic exchanges
(runtime/croktile_cuda_events.h).

A `shared` event is an array of flags in the block's shared memory: the block's threads
(the instances of the level inside it, each on a thread of its own) trigger and wait on
it; a `local` event is an array in the thread's registers, for the thread alone. A wait
spins with a bound (``CROKTILE_EVENT_TIMEOUT_MS``, 10 s unless the build defines
another) and then fails as a runtime check with its line, so a deadlock ends the kernel.
`global` events, which would order blocks that CUDA does not promise to run at once,
are refused (``check_cuda_events``). Statements of the block's own level are those of
thread 0 between two barriers.
"""
from __future__ import annotations

from typing import Optional

from ... import ir
from ...ir.symbolic import Sym
from ...analysis.barriers import EMPTY, State
from ...analysis.events import concurrent_levels, wait_message_text
from ...codegen.cxx import At
from ...codegen.kernel_emitter import dev_expr

TIMEOUT_MACRO = "CROKTILE_EVENT_TIMEOUT_MS"


def check_cuda_events(module: ir.Module, diag, max_threads: int) -> None:
    """What the cuda target cannot run: global events, and instances that wait on each
    other without a thread each (levels inside a thread's level are its loops)."""
    for fn in module.functions:
        concurrent = concurrent_levels(fn)
        for s in fn.walk():
            if isinstance(s, ir.EventDecl) and s.event.storage == "global":
                diag.error(s.event.loc, "'global' events are not supported on target 'cuda' (blocks are not "
                                        "promised to run at once); use 'shared' events between the threads of a block")
            elif isinstance(s, ir.Parallel) and id(s) in concurrent and s.level > 2:
                diag.error(s.loc, "the instances of this 'parallel' wait on each other's events, but on target "
                                  "'cuda' the instances of a level inside a thread run one after another")
            elif isinstance(s, ir.Parallel) and id(s) in concurrent and s.kind is None and \
                    not (s.count.is_const and s.count.value <= max_threads):
                diag.error(s.loc, f"the instances of this 'parallel' wait on each other's events, so on target "
                                  f"'cuda' each needs a thread of its own: at most {max_threads}, a constant")


class CudaEvents:
    """A mixin of cuda.KernelEmitter."""

    def s_EventDecl(self, s: ir.EventDecl, at: At) -> Optional[State]:
        depth = at.depth
        ev = s.event
        if ev.storage == "local" or at.level > 1:
            self.w(depth, f"unsigned {ev.name}[{ev.count}] = {{}};   // local event")
            return None
        self.barrier(depth)   # (a loop's earlier iteration may still use the flags)
        self.w(depth, f"__shared__ unsigned {ev.name}[{ev.count}];   // shared event")
        self.w(depth, f"if (croktile_tid == 0) for (int croktile_i = 0; croktile_i < {ev.count}; ++croktile_i) "
                      f"{ev.name}[croktile_i] = 0u;")
        self.barrier(depth)
        return EMPTY

    def s_Trigger(self, s: ir.Trigger, at: At) -> Optional[State]:
        depth, level = at.depth, at.level
        if level == 1:   # after all the block did before it
            self.barrier(depth)
        for ref in s.events:
            call = f"croktile::cuda::{self.event_kind(ref, level)}trigger({self.event_ptr(ref)}, {ref.count});"
            self.w(depth, f"if (croktile_tid == 0) {call}" if level == 1 else call)
        return EMPTY if level == 1 else None

    def s_EventWait(self, s: ir.EventWait, at: At) -> Optional[State]:
        depth, level = at.depth, at.level
        if level == 1:
            self.barrier(depth)
        for ref in s.events:
            ok = f"croktile_waited{self.label_count}"
            self.label_count += 1
            call = f"croktile::cuda::{self.event_kind(ref, level)}wait({self.event_ptr(ref)}, {ref.count})"
            self.w(depth, "{   // (a scope of its own: a failed check's goto may not pass its declaration)")
            self.w(depth + 1, f"const bool {ok} = " + (f"croktile_tid != 0 || {call};" if level == 1 else f"{call};"))
            failed = ir.Check(s.loc, Sym.var(ok), wait_message_text(ref), [Sym.var(TIMEOUT_MACRO)])
            self.s_Check(failed, at.inner())
            self.w(depth, "}")
        if level == 1:   # the whole block goes on after the wait
            self.barrier(depth)
            return EMPTY
        return None

    @staticmethod
    def event_ptr(ref: ir.EventRef) -> str:
        first = ref.first()
        return ref.event.name if first.is_const and first.value == 0 else f"{ref.event.name} + ({dev_expr(first)})"

    @staticmethod
    def event_kind(ref: ir.EventRef, level: int) -> str:
        """Shared flags are exchanged atomically; a thread's own (local) flags are plain."""
        return "local_" if ref.event.storage == "local" or ref.event.level > 1 else ""
