"""Events on the opencl target (ir/nodes.py ``Event``), a mixin of the kernel emitter
(opencl.KernelEmitter).

A `shared` event of the launch's level is an array of flags in the work-group's
``__local`` memory; an event of an inner instance is a private array. OpenCL promises no
progress to a work-item that spins on another of its group (PoCL on a CPU runs a group's
work-items one after another between barriers), so a level whose instances wait on each
other's events (events.concurrent_levels) runs as *resumable instances*: a work-item each
(targets/opencl/barriers.py), and the instance's code is a `switch` on where it stopped. Rounds
separated by work-group barriers run every unfinished instance from where it stopped
until it finishes or meets a wait whose flag is not set; a round in which no instance
takes a flag or finishes is a deadlock (nothing else can set a flag), reported as a
runtime check at the line of each instance's wait, never a hang. The variables of such a
level (loop indices, scalars, private events) are declared before its rounds, so a
resumed instance finds them as it left them.

Elsewhere a wait has nobody to wait for (the launch's level runs beside its finished
inner instances, as if on work-item 0; an instance's own events): it takes its flags or
fails at once. Refused with the line: `global` events (work-groups are not promised to
run at once, as on cuda), waiting instances of a level inside a work-item (its loop), a
barrier or a tensor-core load among resumable instances (not supported yet).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ... import ir
from ...analysis.barriers import COOPERATIVE, EMPTY, MASKED, State
from ...ir.symbolic import Sym
from ...analysis.events import concurrent_levels
from ...analysis.memo import per_function
from ...codegen.cxx import At
from ...codegen.kernel_emitter import dev_expr, same_level
from ...analysis.inthreads import inthreads_barriers

FENCE = "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"


def check_opencl_events(module: ir.Module, diag) -> None:
    for fn in module.functions:
        concurrent = concurrent_levels(fn)
        barriers = inthreads_barriers(fn)
        for s in fn.walk():
            if isinstance(s, ir.EventDecl) and s.event.storage == "global":
                diag.error(s.event.loc, "'global' events are not supported on target 'opencl' (work-groups are not "
                                        "promised to run at once); use 'shared' events between the work-items of a "
                                        "work-group")
            elif isinstance(s, ir.Parallel) and id(s) in concurrent and s.level > 2:
                diag.error(s.loc, "the instances of this 'parallel' wait on each other's events, but on target "
                                  "'opencl' the instances of a level inside a work-item run one after another")
            elif isinstance(s, ir.Parallel) and id(s) in concurrent and s.level == 2:
                for x in ir.walk(s.body):
                    if id(x) in barriers:
                        diag.error(x.loc, "this 'inthreads' block ends in a barrier of instances that wait on each "
                                          "other's events: on target 'opencl' they run as resumable instances, which "
                                          "have no such barrier yet (make the block 'inthreads.async' and order it "
                                          "with events)")
                    elif isinstance(x, ir.MmaLoad):
                        diag.error(x.loc, "tensor-core loads among instances that wait on each other's events are not "
                                          "supported on target 'opencl' yet")


class OpenclEvents:
    """Needs of the kernel emitter: w, lines, par, fn, inner, group, host, label_count,
    end_label, setup_buffers, stmts, check_fail_call."""

    def events_setup(self) -> None:
        concurrent = per_function(concurrent_levels)(self.fn)   # the function's, once for all its kernels
        self.resumable_levels = [p for p in self.inner if id(p) in concurrent]
        self.resumable = False          # emitting the body of a resumable level
        self.hoisted: Dict[str, str] = {}
        self.in_run = False             # inside statements that a resuming instance skips
        self.points: Dict[int, List[int]] = {}   # id(wait) -> its resume points (one a reference)
        self.group_events = [s.event for s in ir.walk([self.par]) if isinstance(s, ir.EventDecl)
                             and s.event.level <= 1]

    def event_declarations(self, depth: int) -> None:
        """The launch level's events, in the work-group's memory (declared at kernel scope)."""
        for ev in self.group_events:
            self.w(depth, f"__local unsigned int {ev.name}[{ev.count}];")
        if self.resumable_levels:
            self.w(depth, "__local int croktile_sched[2];   // unfinished instances, instances that moved on")

    def is_group_event(self, ev: ir.Event) -> bool:
        return ev.level <= 1

    def hoist(self, decl: str, name: str) -> None:
        self.hoisted.setdefault(name, decl)

    def on_item0(self, level: int, text: str) -> str:
        return f"if (croktile_lid == 0) {{ {text} }}" if self.group and level == 1 else text

    @staticmethod
    def flag(ref: ir.EventRef, i: str) -> str:
        first = ref.first()
        base = "" if first.is_const and first.value == 0 else f"({dev_expr(first)}) + "
        return f"{ref.event.name}[{base}{i}]"

    def take(self, ref: ir.EventRef, i: str) -> str:
        """An expression: the flag's value, which it leaves unset."""
        if self.is_group_event(ref.event):
            return f"atomic_xchg(&{self.flag(ref, i)}, 0u)"
        return f"croktile_take_private(&{self.flag(ref, i)})"

    # -- statements ------------------------------------------------------------------
    def s_EventDecl(self, s: ir.EventDecl, at: At) -> Optional[State]:
        depth = at.depth
        ev = s.event
        if self.is_group_event(ev):   # (a loop's earlier iteration may still use the flags)
            state = self.before(at, COOPERATIVE)
            start, step = ("croktile_lid", "croktile_lsize") if self.group else ("0", "1")
            self.w(depth, f"for (long croktile_i = {start}; croktile_i < {ev.count}; croktile_i += {step}) "
                          f"{ev.name}[croktile_i] = 0u;")
            return state
        if self.resumable:
            self.hoist(f"unsigned int {ev.name}[{ev.count}];", ev.name)
        else:
            self.w(depth, f"unsigned int {ev.name}[{ev.count}];")
        self.w(depth, f"for (int croktile_i = 0; croktile_i < {ev.count}; ++croktile_i) {ev.name}[croktile_i] = 0u;")
        return None

    def s_Trigger(self, s: ir.Trigger, at: At) -> State:
        state = self.before(at, MASKED)
        sets = []
        for ref in s.events:
            op = "atomic_xchg(&{0}, 1u);" if self.is_group_event(ref.event) else "{0} = 1u;"
            sets.append(f"for (int croktile_i = 0; croktile_i < {ref.count}; ++croktile_i) "
                        + op.format(self.flag(ref, "croktile_i")))
        self.w(at.depth, self.on_item0(at.level, f"{FENCE} {' '.join(sets)}"))
        return state

    def immediate_wait(self, s: ir.EventWait, at: At) -> State:
        depth, level = at.depth, at.level
        state = self.before(at, MASKED)
        for ref in s.events:   # nobody else can set the flags: take them or fail at once
            body = (f"int croktile_ok = 1; for (int croktile_i = 0; croktile_i < {ref.count}; ++croktile_i) "
                    f"if ({self.take(ref, 'croktile_i')} == 0u) croktile_ok = 0; "
                    f"if (!croktile_ok) {self.check_fail_call(self.deadlock(s, ref))} {FENCE}")
            self.w(depth, self.on_item0(level, body) if self.group and level == 1 else f"{{ {body} }}")
        return state

    def deadlock(self, s: ir.EventWait, ref: ir.EventRef) -> ir.Check:
        return ir.Check(s.loc, Sym.const(0), f"wait on event '{ref.text()}' cannot end: no instance that is still "
                                             "running can trigger it (deadlock)", [])

    # -- variables a resumed instance must find again --------------------------------
    def s_ScalarDef(self, s: ir.ScalarDef, at: At) -> Optional[State]:
        state = super().s_ScalarDef(s, at)
        if self.resumable:
            text = self.lines[-1].strip()
            decl, _, value = text.partition(" = ")
            self.hoist(decl + ";", s.name)
            self.lines[-1] = "  " * at.depth + f"{s.name} = {value}"
        return state

    # -- statements around a wait: replayed to the wait where the instance resumes ---
    def resumable_stmts(self, stmts: List[ir.Stmt], at: At) -> State:
        """Statements of a resumable level: those without a wait run unless the instance is
        resuming (it ran them before it stopped); the others are entered when the wait it
        resumes at is inside them (opencl.KernelEmitter.stmts calls this)."""
        run: List[ir.Stmt] = []

        def flush() -> None:
            if run:
                self.w(at.depth, "if (!croktile_resuming) {")
                self.in_run = True
                self.each_stmt(run, at.inner())
                self.in_run = False
                self.w(at.depth, "}")
                run.clear()

        for s in stmts:
            if self.points_in(s):
                flush()
                self.each_stmt([s], at)
            else:
                run.append(s)
        flush()
        return at.state

    def points_in(self, s: ir.Stmt) -> List[int]:
        """The resume points (waits) inside `s`, not counting deeper levels."""
        if isinstance(s, ir.EventWait):
            return self.points.get(id(s), [])
        if isinstance(s, ir.Parallel):
            return []
        return [k for x in getattr(s, "body", None) or [] for k in self.points_in(x)]

    def resuming_at(self, points: List[int]) -> str:
        return " || ".join(f"croktile_pc == {k}" for k in points)

    def s_EventWait(self, s: ir.EventWait, at: At) -> Optional[State]:
        if not self.resumable:
            return self.immediate_wait(s, at)
        depth = at.depth
        for k, ref in zip(self.points[id(s)], s.events):
            self.w(depth, f"if (!croktile_resuming || croktile_pc == {k}) {{")
            self.w(depth + 1, "croktile_resuming = 0;")
            self.w(depth + 1, f"while (croktile_got < {ref.count}) {{")
            self.w(depth + 2, f"if ({self.take(ref, 'croktile_got')} == 0u) {{ croktile_pc = {k}; "
                              f"goto {self.yield_label}; }}")
            self.w(depth + 2, "++croktile_got; croktile_moved = 1;")
            self.w(depth + 1, "}")
            self.w(depth + 1, f"croktile_got = 0; {FENCE}")
            self.w(depth, "}")
        return None

    def s_If(self, s: ir.If, at: At) -> Optional[State]:
        points = self.points_in(s) if self.resumable and not self.in_run else []
        if not points:
            return super().s_If(s, at)
        self.w(at.depth, f"if (croktile_resuming ? ({self.resuming_at(points)}) : ({dev_expr(s.cond)})) {{")
        self.stmts(s.body, at.inner())
        self.w(at.depth, "}")
        return None

    def s_Loop(self, s: ir.Loop, at: At) -> Optional[State]:
        points = self.points_in(s) if self.resumable and not self.in_run else []
        if not points:
            return super().s_Loop(s, at)
        depth = at.depth
        v = s.var   # resuming inside: the iteration it stopped in, whose condition held
        self.hoist(f"{self.index_type} {v};", v)
        step = f"++{v}" if s.step.is_const and s.step.value == 1 else f"{v} += {dev_expr(s.step)}"
        self.w(depth, f"if (!croktile_resuming || {self.resuming_at(points)})")
        self.w(depth + 1, f"for ({v} = croktile_resuming ? {v} : {dev_expr(s.start)}; "
                          f"croktile_resuming || {v} < {dev_expr(s.count)}; {step}) {{")
        self.stmts(s.body, At(depth + 2, at.level, at.state))
        self.w(depth + 1, "}")
        return None

    # -- the level -------------------------------------------------------------------
    def resumable_level(self, s: ir.Parallel, depth: int) -> None:
        """The instances of `s`, a work-item each, in rounds until all have finished."""
        n = self.label_count
        self.label_count += 1
        self.yield_label = f"croktile_yield{n}"
        self.points = {}
        waits = []
        for x in same_level(s.body):
            if isinstance(x, ir.EventWait):
                self.points[id(x)] = [len(waits) + i + 1 for i in range(len(x.events))]
                waits += [(x, ref) for ref in x.events]
        d = depth
        self.w(d, f"{{ const long {s.var} = croktile_lid;   // a resumable instance (targets/opencl/events.py)")
        self.setup_buffers(s, d + 1)
        at = len(self.lines)
        self.w(d + 1, "int croktile_pc = 0, croktile_run = 1, croktile_moved = 0, croktile_resuming = 0;   "
                      "// the wait it resumes at (0: the start; -1: done)")
        self.w(d + 1, "long croktile_got = 0;   // the flags of that wait it has taken")
        self.w(d + 1, "while (croktile_run) {")
        self.barrier(d + 2)
        self.w(d + 2, "if (croktile_lid == 0) { croktile_sched[0] = 0; croktile_sched[1] = 0; }")
        self.barrier(d + 2)
        self.w(d + 2, "if (croktile_pc >= 0) {")
        self.w(d + 3, "croktile_moved = croktile_pc == 0;")
        self.w(d + 3, "croktile_resuming = croktile_pc > 0;")
        saved = (self.end_label, self.resumable, self.hoisted)
        self.end_label = f"croktile_end{n}"
        self.resumable, self.hoisted = True, {}
        self.stmts(s.body, At(d + 3, 2, EMPTY))
        hoisted = self.hoisted
        self.w(d + 3, f"{self.end_label}:;")
        self.end_label, self.resumable, self.hoisted = saved
        self.w(d + 3, "croktile_pc = -1;")
        self.w(d + 3, f"{self.yield_label}:;")
        self.w(d + 3, "if (croktile_moved || croktile_pc < 0) atomic_inc(&croktile_sched[1]);")
        self.w(d + 3, "if (croktile_pc >= 0) atomic_inc(&croktile_sched[0]);")
        self.w(d + 2, "}")
        self.barrier(d + 2)
        self.w(d + 2, "croktile_run = croktile_sched[0] != 0 && croktile_sched[1] != 0;")
        self.w(d + 2, "if (croktile_sched[0] != 0 && croktile_sched[1] == 0) {   // every unfinished instance waits")
        for k, (wait, ref) in enumerate(waits, 1):
            self.w(d + 3, f"if (croktile_pc == {k}) {self.check_fail_call(self.deadlock(wait, ref))}")
        self.w(d + 2, "}")
        self.w(d + 1, "}")
        self.w(d, "}")
        self.lines[at:at] = ["  " * (d + 1) + decl for decl in hoisted.values()]

