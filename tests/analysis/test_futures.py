"""What each `wait` finds of its futures (analysis/futures.py on the walk of analysis/flow.py):
the futures complete already (a target's wait of them does nothing), those in flight on
some paths only, and the cp.async groups a wait may leave in flight.

Random programs of copies, waits, swaps, `if`s and loops (with `break`) are run by a
small interpreter along random paths, and every answer is checked against what each run
had in flight at the wait."""
import random

from croktile_driver import ir
from croktile_driver.analysis.futures import plan_waits
from croktile_driver.diagnostics import Loc
from croktile_driver.ir.symbolic import Sym

LOC = Loc("t.co.cpp", 1, 1)
NAMES = ("a", "b", "c")
BUFFERS = {f: ir.Buffer(f + "_buf", "f32", "shared", [Sym.const(4)], 1, LOC, "decl") for f in NAMES}


def _copy(future: str, is_async: bool = True) -> ir.Dma:
    region = ir.Region(BUFFERS[future], [Sym.const(0)], [Sym.const(4)])
    return ir.Dma(LOC, region, region, is_async=is_async, future=future)


def _wait(*futures: str) -> ir.Wait:
    return ir.Wait(LOC, list(futures))


def _loop(count: int, body, start: int = 0) -> ir.Loop:
    return ir.Loop(LOC, "i", Sym.const(count), body, Sym.const(start))


def test_a_wait_leaves_the_later_prefetch_in_flight():
    wait = _wait("a")
    body = [_copy("a"), _copy("b"), wait]
    assert plan_waits(body, {"a", "b"}).keep == {id(wait): 1}
    last = _wait("b")
    assert plan_waits(body + [last], {"a", "b"}).keep[id(last)] == 0


def test_a_future_waited_twice_is_complete_the_second_time():
    first, second = _wait("a"), _wait("a")
    plan = plan_waits([_copy("a"), first, second])
    assert plan.complete(first) == set() and plan.unsure(first) == set()
    assert plan.complete(second) == {"a"}


def test_a_wait_in_every_iteration_finds_the_copy_before_the_loop_in_flight_the_first_time_only():
    inner, after = _wait("a"), _wait("a")
    plan = plan_waits([_copy("a"), _loop(4, [inner]), after])
    assert plan.unsure(inner) == {"a"}
    assert plan.complete(after) == {"a"}
    # a loop that may run no iteration leaves the copy in flight on one path
    plan = plan_waits([_copy("a"), _loop(4, [inner], start=1), after])
    assert plan.unsure(after) == {"a"}


def test_if_else_joins_its_two_arms():
    t = Sym.var("t")
    after = _wait("a")
    both = [_copy("a"), ir.If(LOC, t, [_wait("a")]), ir.If(LOC, t.op("!"), [_wait("a")]), after]
    assert plan_waits(both).complete(after) == {"a"}
    one = [_copy("a"), ir.If(LOC, t, [_wait("a")]), after]
    assert plan_waits(one).unsure(after) == {"a"}


def test_a_future_never_issued_is_complete():
    wait = _wait("a")
    assert plan_waits([wait, _copy("a")]).complete(wait) == {"a"}


# -- random programs against an interpreter ---------------------------------------------

def _program(rng: random.Random, depth: int = 0, in_loop: bool = False):
    out = []
    for _ in range(rng.randint(1, 5)):
        k = rng.random()
        if k < 0.3:
            out.append(_copy(rng.choice(NAMES), is_async=rng.random() < 0.85))
        elif k < 0.6:
            out.append(_wait(*rng.sample(NAMES, rng.randint(1, 2))))
        elif k < 0.7:
            a, b = rng.sample(NAMES, 2)
            out.append(ir.Swap(LOC, BUFFERS[a], BUFFERS[b]))
        elif k < 0.8 and depth < 3:
            t = Sym.var(f"t{rng.randint(0, 9)}")
            out.append(ir.If(LOC, t, _program(rng, depth + 1, in_loop)))
            if rng.random() < 0.5:
                out.append(ir.If(LOC, t.op("!"), _program(rng, depth + 1, in_loop)))
        elif k < 0.9 and depth < 3:
            count = rng.randint(1, 3)
            out.append(_loop(count, _program(rng, depth + 1, True), start=rng.choice((0, 0, count - 1))))
        elif in_loop:
            out.append(ir.Break(LOC) if rng.random() < 0.5 else ir.Continue(LOC))
    return out


class _Jump(Exception):
    def __init__(self, kind):
        self.kind = kind


class _Run:
    """One execution along random paths: the copies in flight in issue order (by number)
    and the copy each future names."""

    def __init__(self, rng: random.Random, plan, ordered):
        self.rng, self.plan, self.ordered = rng, plan, ordered
        self.flight, self.names, self.issued = [], {}, 0

    def block(self, stmts):
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, ir.If):
                taken = self.rng.random() < 0.5
                if taken:
                    self.block(s.body)
                nxt = stmts[i + 1] if i + 1 < len(stmts) else None
                if isinstance(nxt, ir.If) and nxt.cond.key() == s.cond.op("!").key():   # its `else`
                    if not taken:
                        self.block(nxt.body)
                    i += 1
            elif isinstance(s, ir.Loop):
                runs = s.count.value if not s.may_skip else self.rng.choice((0, s.count.value - s.start.value))
                for _ in range(runs):
                    try:
                        self.block(s.body)
                    except _Jump as j:
                        if j.kind == "break":
                            break
            elif isinstance(s, (ir.Break, ir.Continue)):
                raise _Jump("break" if isinstance(s, ir.Break) else "continue")
            elif isinstance(s, ir.Dma):
                self.issued += 1
                if s.is_async:
                    self.flight.append(self.issued)
                self.names[s.future] = self.issued
            elif isinstance(s, ir.Wait):
                self.check(s)
                for f in s.futures:
                    if self.names.get(f) in self.flight:
                        self.flight.remove(self.names[f])
            elif isinstance(s, ir.Swap):
                a, b = s.a.name[0], s.b.name[0]
                self.names[a], self.names[b] = self.names.get(b), self.names.get(a)
            i += 1

    def check(self, wait):
        flying = {f for f in wait.futures if self.names.get(f) in self.flight}
        complete, unsure = self.plan.complete(wait), self.plan.unsure(wait)
        assert not flying & complete, (wait.futures, flying, complete)
        assert set(wait.futures) - complete - unsure <= flying, (wait.futures, flying, unsure)
        if self.ordered and flying:   # cp.async.wait_group<keep> leaves the newest `keep` in flight
            newest = max(self.flight.index(self.names[f]) for f in flying)
            assert self.plan.keep.get(id(wait), 0) <= len(self.flight) - newest - 1


def test_random_programs_agree_with_their_runs():
    rng = random.Random(7)
    for _ in range(400):
        program = _program(rng)
        ordered = set(NAMES) if rng.random() < 0.5 else set()   # (a kernel's swap groups are whole)
        plan = plan_waits(program, ordered)
        for _ in range(20):
            run = _Run(rng, plan, ordered)
            try:
                run.block(program)
            except _Jump:
                pass
