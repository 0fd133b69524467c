"""The first sizes of a page: values for the symbolic sizes that pass the function's own
checks (its `assert`s, the shapes its parameters must agree on), so that the first
drawing shows instances rather than empty levels.

A size's candidates are its default and the multiples of the constants its checks name
(``M % 1024 == 0`` offers 1024, 2048, ...; ``K >= 192`` offers 192); sizes are chosen one
at a time, the smallest candidate that passes every check whose sizes are all chosen. If
the choice still fails a check, the defaults stand (the page lists what fails).
"""
from __future__ import annotations

from typing import Callable, Iterable, List, Set

from .. import ir
from ..ir.symbolic import Sym

MULTIPLES = 16        # k * c for k up to this, per constant c
LARGEST = 1 << 20     # no size above this is offered


def size_checks(fn: ir.Function, sizes: Set[str]) -> List[ir.Check]:
    """The run-time checks that depend on nothing but the sizes (the page lists them)."""
    return [s for s in fn.walk() if isinstance(s, ir.Check) and s.cond.variables()
            and s.cond.variables() <= sizes]


def conjuncts(s: Sym) -> List[Sym]:
    """``a && b && c`` as [a, b, c]: each part may be met by a different size."""
    if len(s.terms) == 1:
        (mono, coeff), = s.terms.items()
        if coeff == 1 and len(mono) == 1 and mono[0].op == "&&":
            return [p for a in mono[0].args for p in conjuncts(a)]
    return [s]


def constants(s: Sym) -> Iterable[int]:
    for mono, coeff in s.terms.items():
        yield abs(coeff)
        for atom in mono:
            for arg in atom.args:
                yield from constants(arg)


def choose(parts: List[Sym], free: List[List[str]], given: dict,
           evaluate: Callable[[dict], dict]) -> dict:
    """Values for the sizes ``free`` (each a list of the names of one size, its own first)
    that make every part true; ``given`` holds the other values. The defaults where none do."""
    found = {c for p in parts for c in constants(p) if 2 <= c <= LARGEST}
    # cdiv(K, 64) is (K + 63) / 64: 63 is no size a tile divides
    consts = sorted(c for c in found if c + 1 not in found)
    env = dict(given)
    unset = {n for names in free for n in names}
    chosen: Set[str] = set(given) - unset

    def holds(p: Sym, values: dict) -> bool:
        return _value(p, evaluate(values)) != 0

    for names in free:
        mine = set(names)
        known = chosen | mine
        derived = set(evaluate(env)) - set(env) - (unset - known)   # not the aliases of sizes still unset
        relevant = [p for p in parts if p.variables() & mine and p.variables() <= known | derived]
        offered = {k * c for c in consts for k in range(1, MULTIPLES + 1)} | {env[n] for n in chosen if n in env}
        for value in [env[names[0]]] + sorted(v for v in offered if 0 < v <= LARGEST):
            trial = {**env, **{n: value for n in names}}
            if all(holds(p, trial) for p in relevant):
                env = trial
                break
        chosen |= mine
    if all(holds(p, env) for p in parts):
        return env
    return dict(given)


def _value(s: Sym, env: dict):
    """1 where ``s`` holds, 0 where it fails, None (counted as holding) where unknown."""
    folded = s.substitute({k: Sym.const(v) for k, v in env.items() if k in s.variables()})
    if not folded.is_const:
        return None
    return folded.value
