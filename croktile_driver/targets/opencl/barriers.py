"""The barrier of a synchronous `inthreads` block (analysis/inthreads.py) on the opencl
target, a mixin of the kernel emitter (opencl.KernelEmitter).

The instances that meet at the barrier are the work-items of one work-group: a level-2
`parallel` whose instances must run concurrently (a barrier, or events: targets/opencl/events.py)
gets a work-group of exactly its count, one instance per work-item (the host refuses a
device that allows fewer), instead of the loop over instances that other levels get.
The block's barrier is then OpenCL's work-group barrier, which every work-item reaches:
the level's control flow around it may not depend on the instance (checked here).

What cannot be supported: a barrier among the instances of a level inside a work-item
(they are the work-item's loop), two such levels of different counts in one kernel, and
a block inside control flow that differs between the instances.
"""
from __future__ import annotations

from typing import Dict, List, Set

from ... import ir
from ...analysis.barriers import EMPTY, State
from ...codegen.cxx import At
from ...analysis.inthreads import Barrier, inthreads_barriers

BARRIER = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"


def check_opencl_barriers(module: ir.Module, diag) -> None:
    """Errors, with the block's line, for the barriers a work-group cannot have."""
    for fn in module.functions:
        barriers = inthreads_barriers(fn)

        def visit(stmts: List[ir.Stmt], names: Set[str], varying: Set[str]) -> None:
            """`names`: the values that differ between instances; `varying`: those the
            control flow around `stmts` depends on."""
            for s in stmts:
                b = barriers.get(id(s))
                if b is not None and len(b.levels) > 1:
                    levels = " and ".join(f"'{p.var}'" for p in b.levels)
                    diag.error(s.loc, f"this 'inthreads' block ends in a barrier of the instances of {levels}; on "
                                      "target 'opencl' only the instances of one level, the work-items of a "
                                      f"work-group, can meet at a barrier (those of '{b.levels[-1].var}' are a loop "
                                      "inside a work-item)")
                elif b is not None and varying:
                    diag.error(s.loc, "this 'inthreads' block ends in a barrier of its level's instances, but it "
                                      f"sits in control flow that depends on {', '.join(sorted(varying))}: on target "
                                      "'opencl' every work-item of the group must reach the barrier")
                if isinstance(s, (ir.ScalarDef, ir.Assign)) and \
                        (s.value is None or s.value.variables() & names):
                    names.add(s.name)   # (an element expression may read data that differs)
                if isinstance(s, ir.Parallel):
                    visit(s.body, names | ({s.var} if s.level > 1 else set()), set())
                elif isinstance(s, ir.InThreads):
                    continue   # (blocks inside a block have no barrier)
                elif isinstance(s, ir.If):
                    visit(s.body, names, varying | (s.cond.variables() & names))
                elif isinstance(s, ir.Loop):
                    bounds = s.count.variables() | s.start.variables() | s.step.variables()
                    visit(s.body, names, varying | (bounds & names))
                elif getattr(s, "body", None):
                    visit(s.body, names, varying)

        visit(fn.body, set(), set())


def check_exact_counts(levels: List[ir.Parallel], diag) -> None:
    """One work-group size for the kernel: every level that needs a work-item per instance
    has the same count."""
    for p in levels[1:]:
        if p.count.to_c() != levels[0].count.to_c():
            diag.error(p.loc, f"the instances of '{p.var}' and of '{levels[0].var}' (line {levels[0].loc.line}) must "
                              "run concurrently (barriers or events), so on target 'opencl' each is a work-item of "
                              "the work-group, which needs as many instances in both")


# The most work-items a kernel asks for when it maps instances to work-items one to one
# without needing to (every GPU and PoCL allow 256 in a work-group).
UNIFORM_MAX = 256


def uniform_count(inner: List[ir.Parallel]) -> bool:
    """Whether the inner levels all have one constant count (at most UNIFORM_MAX): then
    each instance is a work-item, with no test of the work-item's index around the
    kernel's barriers. (A loop `for (q = lid; q < n; q += size)` starts with such a test,
    which a compiler may hoist out of an enclosing loop that holds barriers, putting them
    under a condition that differs between work-items: PoCL's work-group builder fails
    on that with "region_entry_barrier != NULL".)"""
    values = {p.count.value if p.count.is_const else None for p in inner}
    return len(values) == 1 and None not in values and 0 < min(values) <= UNIFORM_MAX


class OpenclBarriers:
    """Gives `self.barriers` (the kernel's blocks that end in a barrier), and how a
    barrier is spelled (where the group needs one otherwise: analysis/barriers.py)."""
    fn: ir.Function
    par: ir.Parallel

    def barrier_setup(self) -> None:
        inside = {id(s) for s in ir.walk([self.par])}
        self.barriers: Dict[int, Barrier] = {k: b for k, b in inthreads_barriers(self.fn).items() if k in inside}

    def barrier(self, depth: int) -> None:
        """A work-group barrier; none where the group is one work-item (then the kernel has
        no barrier at all, and PoCL no parallel regions to form: its builder has aborted
        on nested loops of barriers around a one-work-item level, run_group4)."""
        if not self.single:
            self.w(depth, BARRIER)

    def barrier_level_ids(self) -> Set[int]:
        return {id(b.levels[0]) for b in self.barriers.values()}

    def s_InThreads(self, s: ir.InThreads, at: At) -> State:
        b = self.barriers.get(id(s))
        if b is None:
            return self.s_If(s, at)
        if b.before:
            self.barrier(at.depth)
        self.s_If(s, at)
        self.barrier(at.depth)
        return EMPTY
