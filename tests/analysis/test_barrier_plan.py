"""The barrier planner the device targets share (analysis/barriers.py): which steps of a
group's outer level need a barrier first, and how states join where paths meet.

The opencl target's policy (``coarse``) must place its barriers exactly where its own
planner did before the two targets shared one: a number (0 nothing since the last
barrier, 1 work-item 0 alone, 2 the group) and the buffers its cooperative copies had
touched, forgotten at every merge and body entry. That planner is kept here as a model
and compared on random programs, barrier by barrier and loop emission by loop emission
(a loop body emitted once more would number its labels differently)."""
import random

from croktile_driver.analysis.barriers import (
    COOPERATIVE,
    EMPTY,
    EVERYTHING,
    MASKED,
    NOTHING,
    BarrierPlanner,
    State,
    conflict,
)


def keys(*names):
    return frozenset(("buffer", n, 0) for n in names)


def test_byte_ranges_conflict_where_they_overlap():
    assert conflict(frozenset({("arena", 0, 64)}), frozenset({("arena", 32, 96)}))
    assert not conflict(frozenset({("arena", 0, 64)}), frozenset({("arena", 64, 128)}))
    assert conflict(frozenset({("tc", 0, 64)}), frozenset({("arena", 16, 32)}))
    assert not conflict(frozenset({("arena", 0, 64)}), keys("A"))
    assert conflict(keys("A", "B"), keys("B")) and not conflict(keys("A"), keys("B"))
    assert conflict(EVERYTHING, keys("A")) and not conflict(EVERYTHING, NOTHING)


def test_the_one_thread_needs_no_barrier_after_its_own_accesses():
    plan = BarrierPlanner()
    after_store = plan.record(EMPTY, MASKED, NOTHING, keys("A"))
    assert not plan.needs(after_store, MASKED, keys("A"), keys("A"))
    assert plan.needs(after_store, COOPERATIVE, keys("A"), NOTHING)      # the others read it
    assert not plan.needs(after_store, COOPERATIVE, keys("B"), keys("C"))
    after_copy = plan.record(EMPTY, COOPERATIVE, keys("g"), keys("A"))
    assert plan.needs(after_copy, MASKED, keys("A"), NOTHING)            # thread 0 reads others' bytes
    assert not plan.needs(after_copy, COOPERATIVE, keys("g"), keys("B"))  # two tiles, one after the other
    assert plan.needs(after_copy, COOPERATIVE, keys("g"), keys("A"))      # overwrites what others wrote


def test_step_writes_the_barrier_and_starts_over():
    written = []
    state = BarrierPlanner().step(State(NOTHING, keys("A"), NOTHING, NOTHING), COOPERATIVE, keys("A"), keys("B"),
                                  written.append, 3)
    assert written == [3]
    assert state == State(keys("A"), keys("B"), NOTHING, NOTHING)


def test_the_coarse_policy_keeps_only_who_worked():
    fine, coarse = BarrierPlanner(), BarrierPlanner(coarse=True)
    copied = State(keys("g"), keys("A"), NOTHING, NOTHING)
    assert fine.enter(copied) is copied
    assert coarse.enter(copied) == State(EVERYTHING, EVERYTHING, EVERYTHING, EVERYTHING)
    assert coarse.join(EMPTY, State(NOTHING, NOTHING, keys("A"), NOTHING)) == \
        State(NOTHING, NOTHING, EVERYTHING, EVERYTHING)
    assert coarse.join(EMPTY, EMPTY) == EMPTY
    assert fine.join(copied, State(keys("B"), NOTHING, NOTHING, NOTHING)) == \
        State(keys("g", "B"), keys("A"), NOTHING, NOTHING)


# -- the former opencl planner, as a model -----------------------------------------------

def _program(depth=0):
    out = []
    for _ in range(random.randint(0, 5)):
        r = random.random()
        if r < 0.35:
            out.append(("copy", random.choice("gABC"), random.choice("gABC")))
        elif r < 0.5:
            out.append(("step", random.choice([MASKED, COOPERATIVE])))
        elif r < 0.55:
            out.append(("level",))       # an inner parallel: the work-items may touch anything
        elif r < 0.63:
            out.append(("barrier",))     # a wait, an inthreads block's barrier
        elif depth < 3 and r < 0.8:
            out.append(("if", _program(depth + 1)))
        elif depth < 3:
            out.append(("loop", _program(depth + 1)))
    return out


class _Before:
    def __init__(self):
        self.trace, self.since, self.emissions = [], (set(), set()), 0

    def before(self, state, kind, copy):
        if state == 0:
            self.since = (set(), set())
        elif state == 2 or (state == 1 and kind == 2):
            independent = (state == 2 and copy is not None and self.since is not None
                           and not (copy[0] & self.since[1]) and not (copy[1] & (self.since[0] | self.since[1])))
            if not independent:
                self.trace.append("barrier")
                state, self.since = 0, (set(), set())
        if kind == 2:
            self.since = None if copy is None or self.since is None else \
                (self.since[0] | copy[0], self.since[1] | copy[1])
        return max(state, kind)

    def stmts(self, body, state):
        if state:
            self.since = None
        for s in body:
            self.trace.append(s[0])
            if s[0] == "copy":
                state = self.before(state, 2, ({s[1]}, {s[2]}))
            elif s[0] == "step":
                state = self.before(state, s[1], None)
            elif s[0] == "level":
                if state:
                    self.trace.append("barrier")
                self.since, state = None, 2
            elif s[0] == "barrier":
                self.trace.append("barrier")
                state = 0
            elif s[0] == "if":
                state = max(state, self.stmts(s[1], state))
                self.since = None
            else:
                mark, entry = len(self.trace), state
                while True:
                    self.emissions += 1
                    joined = max(entry, self.stmts(s[1], entry))
                    if joined == entry:
                        break
                    del self.trace[mark:]
                    entry = joined
                state, self.since = joined, None
        return state


class _Now:
    plan = BarrierPlanner(coarse=True)

    def __init__(self):
        self.trace, self.emissions = [], 0

    def barrier(self, depth):
        self.trace.append("barrier")

    def stmts(self, body, state):
        state = self.plan.enter(state)
        for s in body:
            self.trace.append(s[0])
            if s[0] == "copy":
                state = self.plan.step(state, COOPERATIVE, keys(s[1]), keys(s[2]), self.barrier, 0)
            elif s[0] == "step":
                state = self.plan.step(state, s[1], EVERYTHING, EVERYTHING, self.barrier, 0)
            elif s[0] == "level":
                state = self.plan.step(state, COOPERATIVE, EVERYTHING, EVERYTHING, self.barrier, 0)
            elif s[0] == "barrier":
                self.barrier(0)
                state = EMPTY
            elif s[0] == "if":
                state = self.plan.join(state, self.stmts(s[1], state))
            else:
                mark, entry = len(self.trace), self.plan.enter(state)
                while True:
                    self.emissions += 1
                    joined = self.plan.join(entry, self.stmts(s[1], entry))
                    if joined == entry:
                        break
                    del self.trace[mark:]
                    entry = joined
                state = joined
        return state


def test_the_coarse_policy_places_the_barriers_the_opencl_planner_did():
    random.seed(34)
    for _ in range(3000):
        program = _program()
        before, now = _Before(), _Now()
        before.stmts(program, 0)
        now.stmts(program, EMPTY)
        assert now.trace == before.trace, program
        assert now.emissions == before.emissions, program
