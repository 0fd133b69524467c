"""The state that every checker of one ``__co__`` function shares, and its helpers.

The checkers (expressions.py, statements.py and the form checkers) are separate
objects; what they all read and write while walking one function is here, in one
``CheckContext`` declared field by field: the diagnostics, the scopes of names, the
buffers and parallel levels being built, the run-time checks waiting for their
statement, the events for the read-before-wait analysis (pending.py). Its methods
only touch that state (report, name, declare, record a check); none of them checks a
construct. State that only one checker needs is declared in that checker.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import field
from typing import Callable, Dict, Iterator, List, Optional, Set

from .. import ast as A
from ... import ir
from ...diagnostics import Diagnostics, Loc
from ...ir.dataclass import dataclass
from ...ir.symbolic import INT_MAX, INT_MIN, Sym, fits_int, prove_equal
from . import pending as P
from ..reserved_names import reserved_reason
from .values import Symbol, VBool, VData, VError, VInt, VSpan, VTuple, Value


# The checks a form checker calls back (it gets them as bound methods of the checker that
# makes it, which it cannot import: that module imports it).
ExprCheck = Callable[[A.Node], Value]               # ExpressionChecker.expr and others of its kind
BlockCheck = Callable[[A.Block], List[ir.Stmt]]     # StatementChecker.scoped_block
StmtsCheck = Callable[[List[A.Node]], List[ir.Stmt]]   # StatementChecker.block_stmts


def shape_text(dims: List[Sym]) -> str:
    return "[" + ", ".join(d.to_c() for d in dims) + "]"


class Scope:
    """The names one block defines; a name not found here is looked up outward."""

    def __init__(self, parent: Optional["Scope"]):
        self.parent = parent
        self.names: Dict[str, Symbol] = {}

    def lookup(self, name: str) -> Optional[Symbol]:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


@dataclass(eq=False)
class CheckContext:
    """What the checkers of one function share while they walk it."""

    fn: A.CoFunction                 # the function being checked
    diag: Diagnostics                # where every error, warning and note goes
    co_functions: Set[str]           # the names of the translation unit's __co__ functions
    scope: Scope = field(default_factory=lambda: Scope(None))   # the innermost block's names
    used_names: Set[str] = field(default_factory=set)   # IR names given so far (``unique``)
    last_suffix: Dict[str, int] = field(default_factory=dict)   # the last `_N` ``unique`` gave each name
    made_up_names: Set[str] = field(default_factory=set)   # declared by the checker, not written by the user
    buffers: List[ir.Buffer] = field(default_factory=list)   # every buffer of the function
    level: int = 0                   # how many 'parallel' levels enclose the statement (0: host code)
    max_level: int = 0               # the deepest level so far
    parallel_stack: List[ir.Parallel] = field(default_factory=list)   # the enclosing levels, outermost first
    parallel_atoms: Set[str] = field(default_factory=set)   # index variables of parallel levels
    inthreads_depth: int = 0         # how many 'inthreads' blocks enclose the statement
    iterating: Set[str] = field(default_factory=set)   # loop variables of the enclosing 'foreach'es
    wide_atoms: Set[str] = field(default_factory=set)   # loop variables whose range may leave their bound
    flow: List[object] = field(default_factory=list)   # events for the read-before-wait analysis (pending.py)
    # the host-level statement's hoisted checks (run before the launch); None inside 'parallel'
    check_sink: Optional[List[ir.Stmt]] = None
    host_vars: Set[str] = field(default_factory=set)   # names known on the host (before a launch)
    # bound by an argument's shape (never negative): IR name -> (param, dim)
    shape_vars: Dict[str, tuple] = field(default_factory=dict)
    prefix: List[ir.Stmt] = field(default_factory=list)   # checks and definitions the statement needs first
    guards: List[Sym] = field(default_factory=list)   # what must hold for the expression being checked to run
    arm_guards: List[Sym] = field(default_factory=list)   # those of the guards that are `if` arms (in_arm)
    # enclosing loops and parallels ("loop" / "parallel"), for `break`/`continue`
    jump_scopes: List[str] = field(default_factory=list)
    mutable_vars: Dict[str, str] = field(default_factory=dict)   # IR name -> user name of scalars that may change
    scalar_elems: Dict[str, Optional[str]] = field(default_factory=dict)   # IR name -> narrower storage type
    float_params: Dict[str, str] = field(default_factory=dict)   # name -> storage type (f32, f64, f16, bf16)
    unsupported: List[tuple] = field(default_factory=list)   # (loc, message): checked, no target has code for it
    # the declared return: (kind, elem, shape, type spec); a rank-only data return takes the shape returned
    ret: tuple = ("void", None, None, None)
    returned: bool = False           # a 'return' statement was seen
    auto_ret: tuple = ("void", None, None)   # (kind, elem, shape) an 'auto' function returns

    # -- reporting, naming, declaring --------------------------------------------------
    def error(self, loc: Loc, msg: str) -> VError:
        """Reports an error; the VError it gives silences follow-on errors."""
        self.diag.error(loc, msg)
        return VError()

    def unique(self, name: str) -> str:
        """``name``, or ``name_1``, ``name_2``...: an IR name not given before (the count
        goes on from the last one given, so n declarations of one name cost O(n))."""
        base = name
        if name in self.used_names:
            n = self.last_suffix.get(base, 0)
            while name in self.used_names:
                n += 1
                name = f"{base}_{n}"
            self.last_suffix[base] = n
        self.used_names.add(name)
        return name

    def reject_reserved(self, name: A.Name, function: bool = False) -> None:
        """An error at a user's name that the runtime or the generated code reserves (frontend/reserved_names.py)."""
        why = reserved_reason(name.name, function)
        if why is not None:
            self.error(name.loc, f"the name '{name.name}' is reserved: {why}")

    def declare(self, name: A.Name, sym: Symbol) -> None:
        if name.name not in self.made_up_names:
            self.reject_reserved(name)
        prev = self.scope.names.get(name.name)
        if prev is not None:
            if prev.kind == "mdspan":
                self.error(name.loc, f"mdspan '{name.name}' is already defined; an mdspan can be defined only once")
            else:
                self.error(name.loc, f"redefinition of '{name.name}'")
            self.diag.note(prev.loc, "previous definition is here")
            return
        if name.name in self.co_functions:
            self.diag.warning(name.loc, f"'{name.name}' shadows the __co__ function of the same name")
        self.scope.names[name.name] = sym
        if self.level == 0:
            if sym.ir_name:
                self.host_vars.add(sym.ir_name)

    @contextmanager
    def construct(self, kind: str, loc: Loc, masked: bool = False) -> Iterator[None]:
        """Records the events of a control-flow construct's body under it (pending.Construct)."""
        outer, self.flow = self.flow, []
        try:
            yield
        finally:
            body, self.flow = self.flow, outer
            self.flow.append(P.Construct(kind, loc, body, masked))

    def push(self) -> None:
        self.scope = Scope(self.scope)

    def pop(self) -> None:
        self.scope = self.scope.parent

    def new_buffer(self, name: str, elem: str, storage: str, shape: List[Sym], loc: Loc,
                   origin: str, user_name: str) -> ir.Buffer:
        buf = ir.Buffer(self.unique(name), elem, storage, shape, self.level, loc, origin, user_name)
        self.buffers.append(buf)
        if self.parallel_stack:
            self.parallel_stack[-1].buffers.append(buf)
        return buf

    # -- run-time checks -----------------------------------------------------------------
    def runtime_check(self, loc: Loc, cond: Sym, message: str, values: List[Sym]) -> List[ir.Stmt]:
        """A check that cannot be proved now; hoisted before the launch when possible. Under
        a guard it holds vacuously where the guard is false, so hoisting it is still right."""
        hoisted = self.guarded_condition(cond, self.guards)
        if self.check_sink is not None and hoisted.variables() <= self.host_vars:
            if not any(isinstance(c, ir.Check) and c.cond == hoisted and c.message == message
                       for c in self.check_sink):
                self.check_sink.append(ir.Check(loc, hoisted, message, values))
            return []
        # in place, inside the `if` arms that guard it: only the expressions' own guards
        inner = [g for g in self.guards if not any(g is a for a in self.arm_guards)]
        return [ir.Check(loc, self.guarded_condition(cond, inner), message, values)]

    @staticmethod
    def guarded_condition(cond: Sym, guards: List[Sym]) -> Sym:
        for guard in guards:
            cond = guard.op("!").op("||", cond)
        return cond

    @contextmanager
    def in_arm(self, cond: Sym) -> Iterator[None]:
        """The body of an `if` arm: its statements' checks are placed inside it, where
        ``cond`` holds; a check hoisted before the launch still takes it."""
        self.guards.append(cond)
        self.arm_guards.append(cond)
        try:
            yield
        finally:
            self.guards.pop()
            self.arm_guards.pop()

    @contextmanager
    def guarded(self, cond: Optional[Sym]) -> Iterator[None]:
        """Expressions checked inside run only where ``cond`` holds (a '?:' branch, the right
        side of '&&' and '||', a 'foreach ... if' body): their checks must not fire elsewhere."""
        if cond is not None:
            self.guards.append(cond)
        try:
            yield
        finally:
            if cond is not None:
                self.guards.pop()

    def divisor_check(self, loc: Loc, dividend: Sym, divisor: Sym) -> None:
        """Operands known only at run time: C++ traps (SIGFPE) on a divisor of 0, and on
        INT_MIN / -1, whose quotient does not fit in 'int'."""
        if not divisor.is_const:
            self.pending_checks(self.runtime_check(loc, divisor.op("!=", 0), "division by zero", []))
        maybe_int_min = not self.never_negative(dividend) and not (dividend.is_const and dividend.value != INT_MIN)
        if maybe_int_min and (not divisor.is_const or divisor.value == -1):
            self.pending_checks(self.runtime_check(
                loc, dividend.op("!=", INT_MIN).op("||", divisor.op("!=", -1)),
                f"integer overflow: {INT_MIN} / -1 is outside the range of 'int'", []))

    def pending_checks(self, checks: List[ir.Stmt]) -> None:
        """Checks that could not be hoisted run just before the statement that needs them."""
        self.prefix.extend(checks)

    def never_negative(self, d: Sym) -> bool:
        """A sum of products of argument dimensions (or of their quotients by positive
        constants, as in a chunk's 'M / 4'), with positive coefficients."""
        def atom_ok(a) -> bool:
            if a.op == "var":
                return a.name in self.shape_vars
            num, den = (a.args + (None,))[:2]
            return a.op in ("/", "%") and den.is_const and den.value > 0 and self.never_negative(num)
        return all(coeff > 0 and all(atom_ok(a) for a in mono) for mono, coeff in d.terms.items())

    def int32(self, loc: Loc, text: str, value: VInt) -> Value:
        """Tileflow's int is 32-bit (spec 2, "Scalar Types"): an operation whose operands
        are known and whose result is outside that range is an error at the operation,
        not a value that a target compiler would truncate or reject elsewhere."""
        if fits_int(value.sym):
            return value
        return self.error(loc, f"integer overflow in constant expression: '{text}' is {value.sym.value}, "
                               f"outside the range of 'int' ({INT_MIN} to {INT_MAX})")

    def mutable_in(self, value: Value) -> Optional[str]:
        """The user's name of a mutable scalar that ``value`` reads, if any: shapes, bounds
        and i-tuples are computed once, so they may not follow a value that can change."""
        syms = [value.sym] if isinstance(value, (VInt, VBool)) else \
            value.dims if isinstance(value, VSpan) else value.items if isinstance(value, VTuple) else []
        for sym in syms:
            for var in sorted(sym.variables()):
                if var in self.mutable_vars:
                    return self.mutable_vars[var]
        return None

    def reject_mutable(self, value: Value, loc: Loc, what: str) -> Value:
        name = self.mutable_in(value)
        if name is None:
            return value
        return self.error(loc, f"{what} cannot use the mutable value '{name}': it is computed once, "
                               "and a mutable may change")

    def check_readable(self, value: VData, loc: Loc, access: str = "read") -> None:
        """An async copy's destination may not be read (or written) before its `wait`:
        recorded here, decided by the dataflow of pending.py once the function is complete.
        Data reached through `f.data` was recorded where `.data` was read."""
        if value.future is None:
            self.flow.append(P.Access(value.region.buffer, loc, access))

    def take_prefix(self) -> List[ir.Stmt]:
        out, self.prefix = self.prefix, []
        return out

    def require_positive(self, loc: Loc, value: Sym, known: str, unknown: str) -> List[ir.Stmt]:
        """A count or bound: an error (`known`) when it is a constant <= 0, else a run-time
        check (`unknown`); `{0}` in either message is the value."""
        if not value.is_const:
            return self.runtime_check(loc, value.op(">", 0), unknown, [value])
        if value.value <= 0:
            self.error(loc, known.format(value.value))
        return []

    def shape_match(self, loc: Loc, have: List[Sym], want: List[Sym], what: str, against: str) -> List[ir.Stmt]:
        """Equal shapes: an error when provably different, a runtime check when unknown."""
        if len(have) != len(want):
            self.error(loc, f"{what} has shape {shape_text(have)}, but {against} has shape {shape_text(want)} "
                            f"(rank {len(have)} vs {len(want)})")
            return []
        checks: List[ir.Stmt] = []
        for i, (h, w) in enumerate(zip(have, want)):
            same = prove_equal(h, w)
            if same is False:
                self.error(loc, f"{what} has shape {shape_text(have)}, but {against} has shape {shape_text(want)}")
                return []
            if same is None:
                checks += self.runtime_check(loc, h.op("==", w),
                                             f"dimension {i} of {what} is {{0}}, but {against} needs {{1}}", [h, w])
        return checks
