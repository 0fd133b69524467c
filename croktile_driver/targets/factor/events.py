"""Events on the factor target (ir/nodes.py ``Event``), a mixin of the entry point's
emitter (factor.EntryEmitter).

An event is an array of flags on the instance's stack; the runtime sets them
(``trigger``) and takes them back (``wait_event``, with the time bound and the report of
the cpu target). The instances of an inner level that wait on each other (or meet at the
barrier of an `inthreads` block) run on threads of the core (``run_concurrently``,
runtime/croktile_factor.h) instead of the core's loop.
`global` events are refused, as on cuda: the host would have to hand them to the launch.
"""
from __future__ import annotations

from typing import Dict, Set

from ... import ir
from ...analysis.events import concurrent_levels, wait_message, wait_where
from ...analysis.memo import per_function
from ...analysis.inthreads import barrier_levels
from ...codegen.cxx import At
from ...codegen.kernel_emitter import dev_expr


def check_factor_events(module: ir.Module, diag) -> None:
    for fn in module.functions:
        for s in fn.walk():
            if isinstance(s, ir.EventDecl) and s.event.storage == "global":
                diag.error(s.event.loc, "'global' events are not supported on target 'factor' yet; use 'shared' "
                                        "events between the instances of a core")


class FactorEvents:
    fn: ir.Function
    _concurrent: Set[int]
    barriers: Dict[int, object]

    def is_concurrent(self, s: ir.Parallel) -> bool:
        if not hasattr(self, "_concurrent"):
            self._concurrent = per_function(concurrent_levels)(self.fn) | barrier_levels(self.barriers)   # (barriers.py)
        return id(s) in self._concurrent

    def concurrent_level(self, s: ir.Parallel, depth: int) -> None:
        """The level's instances, each a call of one lambda on a thread of its own."""
        body = f"{s.var}__instance"
        self.w(depth, f"auto {body} = [&](long long {s.var}) {{")
        self.instance(s, depth + 1)
        self.w(depth, "};")
        self.w(depth, f"croktile_rt->run_concurrently(croktile_core, {dev_expr(s.count)}, "
                      f"[](void* croktile_ctx, long long croktile_i) {{ (*static_cast<decltype({body})*>(croktile_ctx))"
                      f"(croktile_i); }}, &{body});")

    def thread_array(self, b: ir.Buffer, depth: int) -> None:
        """A `local` buffer of an instance that runs on a thread of its own: on that
        thread's stack (the core's local scratchpad is one for all its threads)."""
        count = 1
        for d in b.shape:
            if not d.is_const:
                self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be a constant where the "
                                       "instances of its level run on threads of their own on target 'factor' "
                                       "(they wait on each other's events or meet at an 'inthreads' barrier)")
                return
            count *= d.value
        ctype = ir.ELEM_CTYPES[b.elem]   # (bytes: f16 and bf16 are declared, not defined, here)
        self.w(depth, f"alignas(16) unsigned char {b.name}[{count * b.elem_bytes}];")
        self.w(depth, f"{ctype}* {self.ptr(b)} = ({ctype}*){b.name};")

    def s_EventDecl(self, s: ir.EventDecl, at: At) -> None:
        self.w(at.depth, f"unsigned {s.event.name}[{s.event.count}] = {{0}};")

    def s_Trigger(self, s: ir.Trigger, at: At) -> None:
        for ref in s.events:
            self.w(at.depth, f"croktile_rt->trigger(croktile_core, {ref.event.name} + ({dev_expr(ref.first())}), "
                             f"{ref.count});")

    def s_EventWait(self, s: ir.EventWait, at: At) -> None:
        for ref in s.events:
            self.timed_wait(f"wait_event(croktile_core, {ref.event.name} + ({dev_expr(ref.first())}), {ref.count})",
                            s, wait_message(ref), at.depth)

    def timed_wait(self, call: str, s: ir.Stmt, message: str, depth: int) -> None:
        """A runtime service that returns the milliseconds it waited in vain (or 0): a
        failure at the statement's line after that long."""
        self.w(depth, "{")
        self.w(depth + 1, f"const long long croktile_v[] = {{croktile_rt->{call}}};")
        self.w(depth + 1, f"if (croktile_v[0] != 0) {{ croktile_rt->fail(croktile_core, {wait_where(s)}, {message}, 1, "
                          "croktile_v); return; }")
        self.w(depth, "}")
