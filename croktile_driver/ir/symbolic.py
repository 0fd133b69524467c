"""Symbolic integers: shapes, bounds and index values of tileflow code.

A ``Sym`` is a polynomial with integer coefficients over atoms. An atom is a
variable (a runtime int, a symbolic dimension, a loop index) or an operation that
is not polynomial (``/``, ``%``, comparisons, ...) kept as a node. Polynomials are
kept canonical, so ``a*2 + b == b + 2*a`` is proved by subtraction: this is how sema
decides "provably equal", "provably different" and "needs a runtime check".
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Dict, Iterable, Iterator, Optional, Tuple


INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1   # tileflow's int is 32-bit (spec 2, "Scalar Types")


def fits_int(value: "Sym") -> bool:
    """False only for a constant outside the range of a 32-bit int."""
    return not value.is_const or INT_MIN <= value.value <= INT_MAX


def _shl(a: int, b: int) -> int:
    """`a << b` as C++ defines it (C++20, and gcc before): a result that fits in 32 bits
    wraps into the sign bit (`1 << 31` is INT_MIN); one that does not stays out of range
    for sema to report as an overflow."""
    v = a << b
    return v - 2 ** 32 if INT_MAX < v < 2 ** 32 else v


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a: int, b: int) -> int:
    return a - _c_div(a, b) * b


_FOLD = {
    "/": _c_div, "%": _c_mod,
    "<<": _shl, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
    "!": lambda a: int(not a), "~": lambda a: ~a,
    "?:": lambda c, a, b: a if c else b,
    "min": min, "max": max,
}


class Atom:
    """A variable, or an operation node that the polynomial form cannot absorb."""

    __slots__ = ("op", "args", "name", "key")

    def __init__(self, op: str, args: Tuple["Sym", ...] = (), name: Optional[str] = None):
        self.op = op
        self.args = args
        self.name = name
        if op == "var":
            self.key = name
        else:
            self.key = op + "(" + ",".join(a.key() for a in args) + ")"

    def __eq__(self, other):
        return isinstance(other, Atom) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __lt__(self, other):
        return self.key < other.key


Monomial = Tuple[Atom, ...]


class Sym:
    """An integer-valued expression in canonical polynomial form."""

    __slots__ = ("terms",)

    def __init__(self, terms: Dict[Monomial, int]):
        self.terms = {m: c for m, c in terms.items() if c != 0}

    # -- construction ----------------------------------------------------------
    @staticmethod
    def const(value: int) -> "Sym":
        return Sym({(): int(value)})

    @staticmethod
    def var(name: str) -> "Sym":
        return Sym({(Atom("var", name=name),): 1})

    @staticmethod
    def lift(value) -> "Sym":
        if isinstance(value, Sym):
            return value
        if isinstance(value, bool):
            return Sym.const(int(value))
        if isinstance(value, int):
            return Sym.const(value)
        raise TypeError(value)

    @staticmethod
    def _node(op: str, *args: "Sym") -> "Sym":
        return Sym({(Atom(op, tuple(args)),): 1})

    # -- queries -------------------------------------------------------------
    @property
    def is_const(self) -> bool:
        return not self.terms or (len(self.terms) == 1 and () in self.terms)

    @property
    def value(self) -> int:
        assert self.is_const
        return self.terms.get((), 0)

    def key(self) -> str:
        if self.is_const:
            return str(self.value)
        parts = []
        for mono in sorted(self.terms, key=lambda m: [a.key for a in m]):
            coeff = self.terms[mono]
            factors = [a.key for a in mono]
            if coeff != 1 or not factors:
                factors.insert(0, str(coeff))
            parts.append("*".join(factors))
        return "+".join(parts)

    def atoms(self) -> Iterable[Atom]:
        """Every variable atom this expression depends on."""
        for mono in self.terms:
            for atom in mono:
                if atom.op == "var":
                    yield atom
                else:
                    for arg in atom.args:
                        yield from arg.atoms()

    def variables(self) -> set:
        return {a.name for a in self.atoms()}

    def __eq__(self, other):
        return isinstance(other, Sym) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return f"Sym({self.to_c()})"

    # -- arithmetic ------------------------------------------------------------
    def __add__(self, other) -> "Sym":
        other = Sym.lift(other)
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + c
        return Sym(terms)

    __radd__ = __add__

    def __neg__(self) -> "Sym":
        return Sym({m: -c for m, c in self.terms.items()})

    def __sub__(self, other) -> "Sym":
        return self + (-Sym.lift(other))

    def __rsub__(self, other) -> "Sym":
        return Sym.lift(other) - self

    def __mul__(self, other) -> "Sym":
        other = Sym.lift(other)
        terms: Dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Sym(terms)

    __rmul__ = __mul__

    def exact_div(self, other: "Sym") -> Optional["Sym"]:
        """self / other when it divides every term exactly, else None."""
        other = Sym.lift(other)
        if len(other.terms) != 1:
            return Sym.const(1) if self == other and not other.is_const else None
        (dmono, dcoeff), = other.terms.items()
        out: Dict[Monomial, int] = {}
        for mono, coeff in self.terms.items():
            if coeff % dcoeff:
                return None
            rest = list(mono)
            for atom in dmono:
                if atom not in rest:
                    return None
                rest.remove(atom)
            out[tuple(rest)] = coeff // dcoeff
        return Sym(out)

    def op(self, op: str, *others) -> "Sym":
        """A non-polynomial operation, folded when its operands are constant."""
        args = (self,) + tuple(Sym.lift(o) for o in others)
        if all(a.is_const for a in args):
            vals = [a.value for a in args]
            if op in ("/", "%") and vals[1] == 0:
                return Sym._node(op, *args)
            if op in ("<<", ">>") and not 0 <= vals[1] < 64:
                return Sym._node(op, *args)  # undefined in C++; sema reports it
            return Sym.const(_FOLD[op](*vals))
        if op in ("&&", "||") and any(a.is_const for a in args):
            return _logic_fold(op, *args)
        if op == "?:" and (self.is_const or args[1] == args[2]):   # `0 ? a : b` (a macro's choice)
            return args[1] if args[1] == args[2] or self.value else args[2]
        if op == "/":
            q = self.exact_div(args[1])
            if q is not None:
                return q
        if op == "%" and self.exact_div(args[1]) is not None:
            return Sym.const(0)
        if op in ("==", "<=", ">=") and self == args[1]:
            return Sym.const(1)
        if op in ("!=", "<", ">") and self == args[1]:
            return Sym.const(0)
        return Sym._node(op, *args)

    def floordiv(self, other) -> "Sym":
        return self.op("/", other)

    def mod(self, other) -> "Sym":
        return self.op("%", other)

    def substitute(self, mapping: Dict[str, "Sym"]) -> "Sym":
        out = Sym.const(0)
        for mono, coeff in self.terms.items():
            term = Sym.const(coeff)
            for atom in mono:
                if atom.op == "var":
                    term = term * mapping.get(atom.name, Sym({(atom,): 1}))
                else:
                    new_args = [a.substitute(mapping) for a in atom.args]
                    term = term * new_args[0].op(atom.op, *new_args[1:])
            out = out + term
        return out

    # -- printing --------------------------------------------------------------
    def to_c(self, name: Callable[[str], str] = lambda n: n) -> str:
        """C/C++ expression text; ``name`` maps variable names to generated identifiers."""
        if self.is_const:
            return str(self.value)
        parts = []
        for mono in sorted(self.terms, key=lambda m: (len(m) == 0, [a.key for a in m])):
            coeff = self.terms[mono]
            factors = [_atom_c(a, name) for a in mono]
            if not factors:
                text = str(abs(coeff))
            elif abs(coeff) == 1:
                text = "*".join(factors)
            else:
                text = "*".join([str(abs(coeff))] + factors)
            sign = "-" if coeff < 0 else "+"
            parts.append((sign, text))
        out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        for sign, text in parts[1:]:
            out += f" {sign} {text}"
        return out if len(parts) == 1 else f"({out})"


_TRUTH_OPS = ("==", "!=", "<", ">", "<=", ">=", "&&", "||", "!")


def _logic_fold(op: str, a: Sym, b: Sym) -> Sym:
    """`x && 1` is x, `x && 0` is 0 (and `||` alike), as a truth value: 0 or 1."""
    const, other = (a, b) if a.is_const else (b, a)
    if bool(const.value) == (op == "||"):
        return Sym.const(int(op == "||"))
    if len(other.terms) == 1 and not other.is_const:
        (mono, coeff), = other.terms.items()
        if coeff == 1 and len(mono) == 1 and mono[0].op in _TRUTH_OPS:
            return other
    return Sym._node("!=", other, Sym.const(0))


def _operand_c(value: Sym, name: Callable[[str], str]) -> str:
    """An operator's operand: a product or a negated term in parentheses, since `M % 2*k`
    is `(M % 2)*k` in C (a sum is parenthesized by ``to_c`` already)."""
    text = value.to_c(name)
    if len(value.terms) == 1 and not value.is_const:
        (mono, coeff), = value.terms.items()
        if coeff != 1 or len(mono) > 1:
            return f"({text})"
    return text


# How the C text of some operation atoms is written instead: a hook takes the atom and the
# variable naming and returns its text, or None for the usual one. A context variable, so
# that compiles running in threads of one process (croktile.autotune's builds, the compile
# server) each see only their own.
AtomHook = Callable[[Atom, Callable[[str], str]], Optional[str]]
_ATOM_HOOK: ContextVar[Optional[AtomHook]] = ContextVar("croktile_atom_hook", default=None)


@contextmanager
def atoms_written_by(hook: AtomHook) -> Iterator[None]:
    """While the block runs, ``to_c`` asks ``hook`` for each operation atom's text first (a
    kernel names the values that are the same for all its threads, targets/cuda/launch_invariants.py)."""
    token = _ATOM_HOOK.set(hook)
    try:
        yield
    finally:
        _ATOM_HOOK.reset(token)


def _atom_c(atom: Atom, name: Callable[[str], str]) -> str:
    if atom.op == "var":
        return name(atom.name)
    hook = _ATOM_HOOK.get()
    if hook is not None:
        text = hook(atom, name)
        if text is not None:
            return text
    if atom.op == "?:" or atom.op in ("min", "max"):
        args = [a.to_c(name) for a in atom.args]
    else:
        args = [_operand_c(a, name) for a in atom.args]
    if atom.op in ("!", "~"):
        return f"({atom.op}{args[0]})"
    if atom.op == "?:":
        return f"({args[0]} ? {args[1]} : {args[2]})"
    if atom.op in ("min", "max"):
        return f"std::{atom.op}<long long>({args[0]}, {args[1]})"
    return f"({args[0]} {atom.op} {args[1]})"


def prove_equal(a: Sym, b: Sym) -> Optional[bool]:
    """True/False when decidable at compile time, None when only a runtime check can tell."""
    diff = a - b
    if diff.is_const:
        return diff.value == 0
    return None


def prove_divisible(a: Sym, b: Sym) -> Optional[bool]:
    if b.is_const and b.value == 0:
        return False
    if a.is_const and b.is_const:
        return a.value % b.value == 0
    if a.exact_div(b) is not None:
        return True
    return None
