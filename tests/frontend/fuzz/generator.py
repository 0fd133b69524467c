"""Grammar-based generator of random, well-formed Croktile programs (deterministic per seed).

``generate(seed)`` writes one ``.co.cpp`` file: a ``__co__`` function built from the
spec's constructs (shaped, symbolic and rank-only parameters, every element type,
nested ``parallel``, ``with``/``where``, ``foreach`` with and without ``if`` masks,
``chunkat``, ``dma.copy`` / ``.async`` / ``wait`` / ``swap``, ``local``/``shared``/global
data, mdspans and i-tuples with their arithmetic, ``.span``, ``.data``, ``|x|``, ``#p``,
``call`` of device functions with and without template arguments, scalars, ``return``)
plus a ``__device__`` definition for every called function, with the signature the call
needs, so that the file also compiles.

The generator tracks what sema tracks (scopes, shapes and their divisibility, bounds,
which ``with`` variables a ``foreach`` iterates, which asynchronous copies are still
pending, 32-bit ranges of constants), so every program is type- and shape-correct by
construction: the frontend must accept it without an error.

``generate_runnable(seed)`` writes a smaller, complete program (device functions in
``__cok__ { extern "C" ... }``, a host ``main``) that builds for the cpu, opencl and factor
targets; its tiling, copies and kernels are drawn at random, and ``expected`` holds the
result a Python model of the program computes, element by element.

``FEATURES`` switches constructs off where a target cannot express them (templates in
OpenCL C) or while a finding of /work/briefs/fuzz_findings.md is open: the generator
then avoids the construct until the switch is flipped back on.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

# Switchable constructs (True: generated). See the module docstring.
FEATURES = {
    # `sp / {2, 2}`, `x.span + {1, 2}`: i-tuple literals as operands (issue #11)
    "inline_ituple_operands": True,
    # `#define` constants used in tileflow code
    "macros": True,
    # `call k<4, 2>(...)` of function templates (not in OpenCL C)
    "templates": True,
}

ELEM_TYPES = ["s32", "f32", "u8", "s8", "u16", "s16", "u32", "f16", "bf16"]
ELEM_CTYPES = {
    "s8": "int8_t", "s16": "int16_t", "s32": "int32_t", "u8": "uint8_t", "u16": "uint16_t",
    "u32": "uint32_t", "f16": "croktile::f16", "bf16": "croktile::bf16", "f32": "float",
}
FLOAT_PARAM_TYPES = {"float": "float", "double": "double"}
NICE = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]
MAX_CONST = 1 << 20      # |constants| stay far inside 32 bits, whatever is folded from them


# ---------------------------------------------------------------------------
# What the generator knows about the program so far
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Dim:
    """One dimension: its text (valid anywhere in the function) and value when known."""
    text: str
    value: Optional[int]

    @staticmethod
    def const(v: int) -> "Dim":
        return Dim(str(v), v)

    def divided(self, bound: "Dim") -> "Dim":
        if self.value is not None and bound.value is not None:
            return Dim.const(self.value // bound.value)
        return Dim(f"({self.text}) / ({bound.text})", None)

    def divisible_by(self, bound: "Dim") -> bool:
        """False only when provably not divisible (unknown: a runtime check, accepted)."""
        if self.value is not None and bound.value is not None:
            return self.value % bound.value == 0
        return True


def same_dims(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and all(x.text == y.text for x, y in zip(a, b))


@dataclass
class Data:
    name: str                  # how it is written: `x`, `f.data`
    elem: str
    storage: str               # global, local, shared
    dims: List[Dim]
    buffer: object             # identity of the buffer, for pending copies
    level: int
    whole: bool = True         # a named buffer or a future's data (not a chunk)
    swappable: bool = False    # a future of a copy into local/shared


@dataclass
class IntVar:
    name: str
    value: Optional[int]
    level: int
    mutable: bool
    is_bool: bool = False


@dataclass
class Bounded:
    """A parallel variable, a `with` element, or a bounded i-tuple from `with`."""
    name: str
    origin: str                # parallel, elem, tuple
    atoms: List[List[str]]     # one cell per element, shared with where-aliases
    bounds: List[Dim]


@dataclass
class Future:
    name: str
    data: Data
    is_async: bool


@dataclass
class Expr:
    text: str
    value: Optional[int]       # the constant value, when the frontend can fold it
    mag: int                   # a bound on |value| for the folded parts


@dataclass
class Scope:
    names: Dict[str, object] = field(default_factory=dict)


class Ctx:
    """Scopes and the state sema tracks: level, iterated atoms, pending buffers."""

    def __init__(self):
        self.scopes: List[Scope] = [Scope()]
        self.level = 0
        self.iterating: set = set()
        self.pending: Dict[object, Tuple[str, int]] = {}   # buffer -> (future, block issued in)
        self.blocks: List[int] = [0]

    def push(self):
        self.scopes.append(Scope())

    def pop(self):
        self.scopes.pop()

    def add(self, name: str, entity) -> None:
        self.scopes[-1].names[name] = entity

    def visible(self, kind) -> list:
        seen, out = set(), []
        for scope in reversed(self.scopes):
            for name, ent in scope.names.items():
                if name not in seen:
                    seen.add(name)
                    if isinstance(ent, kind):
                        out.append(ent)
        return out

    def readable(self, d: Data) -> bool:
        return d.buffer not in self.pending


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

class Generator:
    def __init__(self, seed, features: Optional[Dict[str, bool]] = None, cok: bool = False):
        self.cok = cok   # device functions in `__cok__ { extern "C" ... }` (opencl, factor)
        self.rng = random.Random(f"croktile-fuzz:{seed}")
        self.features = dict(FEATURES, **(features or {}))
        self.counter = 0
        self.immutable_only = False   # i-tuples and shapes may not read a mutable scalar
        self.devices: List[str] = []
        self.macros: List[Tuple[str, int]] = []
        self.lines: List[str] = []
        self.ctx = Ctx()
        self.stmt_budget = 0
        self.params_dims: Dict[str, List[Dim]] = {}
        self.int_params: List[str] = []
        self.depth = 0     # indentation: blocks open around the next line
        self.inject: Optional[str] = None   # the error still to be put in (see generate())

    # -- small helpers ---------------------------------------------------------
    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def sp(self) -> str:
        """Optional space: whitespace variations around operators."""
        return self.rng.choice([" ", " ", " ", ""])

    def emit(self, line: str) -> None:
        indent = self.rng.choice(["  ", "  ", "  ", "\t", "    "]) * (self.depth + 1)
        if " " in line and self.chance(0.02) and INJECTED not in line:   # a backslash-newline splice
            cut = self.rng.choice([i for i, ch in enumerate(line) if ch == " "])
            line = line[:cut] + " \\\n" + indent + "    " + line[cut + 1:]
        if self.chance(0.01):
            self.lines.append("#if 0\n" + indent + "not tileflow code: } ) @ $ 'x\n#endif")
        if self.chance(0.06):
            line += self.rng.choice(["  // note", " /* c */", "\t// x: [1, 2] { }", " // wait f;"])
        if self.chance(0.04):
            self.lines.append("")
        if self.chance(0.03):
            self.lines.append(indent + "/* a comment\n" + indent + "   over two lines */")
        self.lines.append(indent + line)

    # -- integer and boolean expressions -----------------------------------------
    def int_leaves(self, const_only: bool) -> List[Expr]:
        ctx = self.ctx
        out = [Expr(str(v), v, v) for v in (self.rng.randrange(0, 10), self.rng.randrange(1, 65))]
        if self.chance(0.1):
            v = self.rng.randrange(1, 256)
            out.append(Expr(self.rng.choice([hex(v), f"0{v:o}" if v > 7 else str(v)]), v, v))
        for name, v in self.macros:
            out.append(Expr(name, v, v))
        for var in ctx.visible(IntVar):
            if var.is_bool:
                continue
            if var.value is not None and not var.mutable:
                out.append(Expr(var.name, var.value, abs(var.value)))
            elif not const_only and not (var.mutable and self.immutable_only):
                out.append(Expr(var.name, None, 1))
        for b in ctx.visible(Bounded):
            known = [d.value for d in b.bounds]
            if len(b.bounds) == 1:
                if known[0] is not None:
                    out.append(Expr(f"#{b.name}", known[0], known[0]))
                elif not const_only:
                    out.append(Expr(f"#{b.name}", None, 1))
            if not const_only and b.origin == "parallel":
                out.append(Expr(b.name, None, known[0] or 1))
            # `with i in [4]` binds a one-element i-tuple: usable as its integer
            if not const_only and b.origin == "elem" and b.atoms[0][0] in ctx.iterating:
                out.append(Expr(b.name, None, known[0] or 1))
        for s in ctx.visible(SpanVar):
            i = self.rng.randrange(len(s.dims))
            d = s.dims[i]
            if d.value is not None or not const_only:
                out.append(Expr(f"{s.name}({i})", d.value, abs(d.value or 1)))
            total = _product(s.dims)
            if total is not None and 0 < total < MAX_CONST:
                out.append(Expr(f"|{s.name}|", total, total))
        for t in ctx.visible(TupleVar):
            i = self.rng.randrange(len(t.items))
            v = t.items[i]
            if v is not None or not const_only:
                out.append(Expr(f"{t.name}({i})", v, abs(v or 1)))
        for d in ctx.visible(Data):
            if not self.data_dims_known(d, const_only):
                continue
            i = self.rng.randrange(len(d.dims))
            v = d.dims[i].value
            out.append(Expr(f"{self.span_ref(d)}({i})", v, abs(v or 1)))
            total = _product(d.dims)
            if total is not None and total < MAX_CONST:
                whole = d.name if ctx.readable(d) and self.chance(0.5) else self.span_ref(d)
                out.append(Expr(f"|{whole}|", total, total))
        return out

    def span_ref(self, d: Data) -> str:
        """`x.span`; for a future's data `f.span`, or `f.data.span` once it may be read."""
        if d.name.endswith(".data") and (not self.ctx.readable(d) or self.chance(0.5)):
            return d.name[: -len(".data")] + ".span"
        return d.name + ".span"

    @staticmethod
    def data_dims_known(d: Data, const_only: bool) -> bool:
        return not const_only or all(x.value is not None for x in d.dims)

    def gen_int(self, depth: int = 2, const_only: bool = False, positive: bool = False) -> Expr:
        for _ in range(20):
            e = self._gen_int(depth, const_only)
            if e.mag >= MAX_CONST:
                continue
            if positive and not (e.value is not None and e.value > 0):
                continue
            return e
        v = self.rng.randrange(1, 9)
        return Expr(str(v), v, v)

    def _gen_int(self, depth: int, const_only: bool) -> Expr:
        leaves = self.int_leaves(const_only)
        if depth <= 0 or self.chance(0.4):
            return self.rng.choice(leaves)
        kind = self.rng.random()
        if kind < 0.1:
            e = self._gen_int(depth - 1, const_only)
            op = self.rng.choice(["-", "+", "~"])
            if op == "~":
                return Expr(f"~({e.text})", None if e.value is None else ~e.value, e.mag + 1)
            val = None if e.value is None else (-e.value if op == "-" else e.value)
            return Expr(f"{op}({e.text})", val, e.mag)
        if kind < 0.17:
            c = self.gen_bool(depth - 1, const_only)
            a, b = self._gen_int(depth - 1, const_only), self._gen_int(depth - 1, const_only)
            val = None if c.value is None or a.value is None or b.value is None else (a.value if c.value else b.value)
            return Expr(f"({c.text}{self.sp()}?{self.sp()}{a.text}{self.sp()}:{self.sp()}{b.text})", val,
                        max(a.mag, b.mag))
        a = self._gen_int(depth - 1, const_only)
        op = self.rng.choice(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "+", "*"])
        spaced = op == "|"   # `a||x||` would lex as `||`: `|x|` needs a space beside `|`
        if op in ("/", "%"):
            v = self.rng.randrange(1, 10)
            b = Expr(str(v), v, v)
        elif op in ("<<", ">>"):
            v = self.rng.randrange(0, 8)
            b = Expr(str(v), v, v)
            if op == "<<" and (a.value is None or a.value < 0 or a.mag > MAX_CONST >> 8):
                op = ">>"
        else:
            b = self._gen_int(depth - 1, const_only)
        if op in (">>",) and a.value is not None and a.value < 0:
            op = "+"
        if op in ("&", "|", "^") and ((a.value is not None and a.value < 0) or (b.value is not None and b.value < 0)):
            op = "+"
        val = _fold(op, a.value, b.value)
        if op == "*":
            mag = a.mag * b.mag
        elif op == "<<":
            mag = a.mag << b.value
        else:
            mag = a.mag + b.mag
        if op in ("&", "|", "^"):
            mag = max(a.mag, b.mag) * 2
        # `a+-b` and `a - -b` are fine, but keep `++`/`--` (C's increment tokens) out
        spaced = spaced or b.text[:1] in "+-" or a.text[-1:] in "+-"
        s = " " if spaced else self.sp()
        if self.chance(0.02):
            s = " /* c */ "
        return Expr(f"({a.text}{s}{op}{s}{b.text})", val, mag)

    def gen_bool(self, depth: int = 2, const_only: bool = False) -> Expr:
        r = self.rng.random()
        bools = [v for v in self.ctx.visible(IntVar) if v.is_bool
                 and not (const_only and (v.mutable or v.value is None))
                 and not (v.mutable and self.immutable_only)]
        if r < 0.08:
            v = self.chance(0.5)
            return Expr("true" if v else "false", int(v), 1)
        if r < 0.15 and bools:
            b = self.rng.choice(bools)
            return Expr(b.name, None if b.mutable else b.value, 1)
        if r < 0.3 and depth > 0:
            a, b = self.gen_bool(depth - 1, const_only), self.gen_bool(depth - 1, const_only)
            op = self.rng.choice(["&&", "||"])
            return Expr(f"({a.text} {op} {b.text})", _fold(op, a.value, b.value), 1)
        if r < 0.36 and depth > 0:
            a = self.gen_bool(depth - 1, const_only)
            return Expr(f"!({a.text})", None if a.value is None else int(not a.value), 1)
        a, b = self.gen_int(max(depth - 1, 0), const_only), self.gen_int(max(depth - 1, 0), const_only)
        op = self.rng.choice(["==", "!=", "<", ">", "<=", ">="])
        return Expr(f"{a.text}{self.sp()}{op}{self.sp()}{b.text}", _fold(op, a.value, b.value), 1)

    def gen_cond(self) -> Expr:
        """A mask for `foreach ... if`: mostly about parallel and loop indices (spec 4)."""
        ctx = self.ctx
        idx = [b for b in ctx.visible(Bounded)
               if b.origin == "parallel" or (b.origin == "elem" and b.atoms[0][0] in ctx.iterating)]
        if idx and self.chance(0.7):
            b = self.rng.choice(idx)
            ub = b.bounds[0].value or 2
            return Expr(f"{b.name} {self.rng.choice(['==', '<', '!=', '>='])} {self.rng.randrange(ub)}", None, 1)
        return self.gen_bool(2)

    # -- mdspans and i-tuples ------------------------------------------------------
    def gen_const_tuple(self, n: int, lo: int = 1, hi: int = 5) -> Tuple[str, List[int]]:
        vals = [self.rng.randrange(lo, hi) for _ in range(n)]
        return "{" + ", ".join(map(str, vals)) + "}", vals

    def gen_span(self) -> Tuple[str, List[Dim]]:
        """An mdspan expression with positive dimensions (usable as a data shape)."""
        saved, self.immutable_only = self.immutable_only, True
        try:
            return self._gen_span()
        finally:
            self.immutable_only = saved

    def _gen_span(self) -> Tuple[str, List[Dim]]:
        ctx = self.ctx
        spans = ctx.visible(SpanVar)
        datas = ctx.visible(Data)
        r = self.rng.random()
        if r < 0.3 or not (spans or datas):
            n = self.rng.randrange(1, 4)
            items, dims = [], []
            for _ in range(n):
                if self.chance(0.15) and self.params_dims:
                    pname = self.rng.choice(sorted(self.params_dims))
                    d = self.rng.choice(self.params_dims[pname])
                    items.append(d.text)
                    dims.append(d)
                    continue
                e = self.gen_int(1, const_only=True, positive=True)
                if e.value > 64:
                    v = self.rng.choice(NICE)
                    e = Expr(str(v), v, v)
                items.append(e.text)
                dims.append(Dim.const(e.value))  # its text may name a variable of this scope only
            return "[" + ", ".join(items) + "]", dims
        base_text, base_dims = None, None
        if spans and (not datas or self.chance(0.5)):
            s = self.rng.choice(spans)
            base_text, base_dims = s.name, s.dims
        else:
            d = self.rng.choice(datas)
            base_text, base_dims = self.span_ref(d), d.dims
        r = self.rng.random()
        if r < 0.3:
            return base_text, list(base_dims)
        if r < 0.55:
            # divide by a tuple of divisors of the known dimensions
            divs = []
            for d in base_dims:
                if d.value is None:
                    divs.append(1)
                else:
                    divs.append(self.rng.choice([k for k in range(1, 5) if d.value % k == 0]))
            dims = [Dim.const(d.value // k) if d.value is not None else (d if k == 1 else d.divided(Dim.const(k)))
                    for d, k in zip(base_dims, divs)]
            tup = "{" + ", ".join(map(str, divs)) + "}"
            if self.features["inline_ituple_operands"] and self.chance(0.6):
                return f"{base_text}{self.sp()}/{self.sp()}{tup}", dims
            tname = self.fresh("t")
            self.emit(f"{tname} = {tup};" if self.chance(0.5) else f"ituple {tname} = {tup};")
            ctx.add(tname, TupleVar(tname, divs))
            return f"{base_text} / {tname}", dims
        if r < 0.7:
            tup, vals = self.gen_const_tuple(len(base_dims), 0, 4)
            op = self.rng.choice(["+", "*"])
            dims = [Dim.const(_fold(op, d.value, v)) if d.value is not None else Dim(f"({d.text}) {op} {v}", None)
                    for d, v in zip(base_dims, vals)]
            if op == "*" and 0 in vals:
                op, dims = "+", [Dim.const(d.value + v) if d.value is not None else Dim(f"({d.text}) + {v}", None)
                                 for d, v in zip(base_dims, vals)]
            if self.features["inline_ituple_operands"] and self.chance(0.6):
                return f"{base_text} {op} {tup}", dims
            tname = self.fresh("t")
            self.emit(f"ituple {tname} = {tup};")
            ctx.add(tname, TupleVar(tname, vals))
            return f"{base_text} {op} {tname}", dims
        if r < 0.85:
            # the derive sugar: sp [(1), (0) / k, 3]
            items, dims = [], []
            for _ in range(self.rng.randrange(1, 4)):
                i = self.rng.randrange(len(base_dims))
                d = base_dims[i]
                if d.value is not None and self.chance(0.5):
                    k = self.rng.choice([k for k in range(1, 5) if d.value % k == 0])
                    items.append(f"({i}) / {k}")
                    dims.append(Dim.const(d.value // k))
                elif self.chance(0.7):
                    items.append(f"({i})")
                    dims.append(d)
                else:
                    v = self.rng.choice(NICE)
                    items.append(str(v))
                    dims.append(Dim.const(v))
            return f"{base_text} [{', '.join(items)}]", dims
        # concatenation: [sp, 4]
        v = self.rng.choice(NICE[:6])
        if self.chance(0.5):
            return f"[{base_text}, {v}]", list(base_dims) + [Dim.const(v)]
        return f"[{v}, {base_text}]", [Dim.const(v)] + list(base_dims)

    # -- chunkat ---------------------------------------------------------------------
    def index_candidates(self, dims: List[Dim], i: int, runnable: bool = False) -> List[Tuple[str, List[Dim]]]:
        """Ways to cover dims[i:] with one chunkat index: (text, bounds of what it covers)."""
        ctx = self.ctx
        out = [("_", [None])]
        for b in ctx.visible(Bounded):
            n = len(b.bounds)
            if i + n > len(dims):
                continue
            if not all(dims[i + j].divisible_by(b.bounds[j]) for j in range(n)):
                continue
            out.append((b.name, list(b.bounds)))
            out.append((b.name, list(b.bounds)))
            if b.origin == "elem" and b.atoms[0][0] in ctx.iterating and b.bounds[0].value:
                shift = self.rng.randrange(1, 4)
                out.append((f"({b.name}{self.sp()}+{self.sp()}{shift}){self.sp()}%{self.sp()}#{b.name}",
                            list(b.bounds)))
        return out

    def gen_chunk(self, d: Data) -> Tuple[str, List[Dim]]:
        """`d.chunkat(...)` over indices that cover its rank, with its chunk's extents."""
        parts, extents, i = [], [], 0
        while i < len(d.dims):
            text, bounds = self.rng.choice(self.index_candidates(d.dims, i))
            parts.append(text)
            for b in bounds:
                extents.append(d.dims[i] if b is None else d.dims[i].divided(b))
                i += 1
        return f"{d.name}.chunkat({', '.join(parts)})", extents

    # -- statements ---------------------------------------------------------------------
    def block(self, body, *, scope: bool = True) -> None:
        """`{ ... }` around what `body` emits; waits what it left pending."""
        if scope:
            self.ctx.push()
        self.depth += 1
        self.counter += 1
        self.ctx.blocks.append(self.counter)
        try:
            body()
            self.wait_all()
        finally:
            self.ctx.blocks.pop()
            self.depth -= 1
            if scope:
                self.ctx.pop()

    def issue(self, buffer, future: str) -> None:
        self.ctx.pending[buffer] = (future, self.ctx.blocks[-1])

    def wait_all(self) -> None:
        """Waits the copies issued in this block (a wait elsewhere may be masked or skipped)."""
        here = self.ctx.blocks[-1]
        names = sorted({n for n, b in self.ctx.pending.values() if b == here})
        if names:
            self.emit(f"wait {', '.join(names)};" if self.chance(0.8) else f"wait {','.join(names)} ;")
            for buf in [buf for buf, (n, b) in self.ctx.pending.items() if b == here]:
                del self.ctx.pending[buf]

    def statements(self, n: int) -> None:
        for _ in range(n):
            if self.stmt_budget <= 0:
                break
            self.stmt_budget -= 1
            if self.inject and self.ctx.level > 0 and INJECTIONS[self.inject][1] == "parallel" \
                    and self.chance(0.3):
                self.injected()
            self.statement()
            if self.ctx.pending and self.chance(0.35):
                self.wait_all()

    def statement(self) -> None:
        ctx = self.ctx
        host = ctx.level == 0
        options = [
            (3, self.s_int), (1, self.s_bool), (2, self.s_span), (1, self.s_tuple), (1, self.s_empty),
            (3, self.s_with), (1, self.s_block),
        ]
        if host:
            options += [(2, self.s_global_data), (3, self.s_parallel), (1, self.s_host_copy)]
        else:
            options += [(3, self.s_local_data), (6, self.s_load), (3, self.s_store), (4, self.s_call),
                        (2, self.s_parallel if ctx.level < 3 else self.s_load), (2, self.s_double_buffer)]
        options.append((1, self.s_assign))
        weights = [w for w, _ in options]
        self.rng.choices([f for _, f in options], weights)[0]()

    def injected(self) -> None:
        """Emits the error this program is made to have (``self.inject``), marked
        ``INJECTED``; inside a ``parallel`` of its own where it needs one."""
        kind, self.inject = self.inject, None
        needs_parallel = INJECTIONS[kind][1] != "host"
        wrap = needs_parallel and self.ctx.level == 0
        pars = [b.name for b in self.ctx.visible(Bounded) if b.origin == "parallel"]
        if wrap:
            pars = [self.fresh("p")]
            self.emit(f"parallel {pars[0]} by 2 {{")
            self.depth += 1
        n = self.fresh("inj")
        mark = f"  {INJECTED}"
        if kind == "call_outside_parallel":
            self.devices.append(('extern "C" ' if self.cok else "__device__ ") + f"void {n}(int a) {{}}")
            self.emit(f"call {n}(1);{mark}")
        elif kind == "local_at_host":
            self.emit(f"local s32 [4] {n};{mark}")
        elif kind == "redefinition":
            self.emit(f"int {n} = 1;")
            self.emit(f"int {n} = 2;{mark}")
        elif kind == "wait_sync":
            self.emit(f"local s32 [8] {n}_src;")
            self.emit(f"{n} = dma.copy {n}_src => local;")
            self.emit(f"wait {n};{mark}")
        elif kind == "read_before_wait":
            self.devices.append(('extern "C" ' if self.cok else "__device__ ") + f"void {n}_k(int* a) {{}}")
            self.emit(f"local s32 [8] {n}_src;")
            self.emit(f"{n} = dma.copy.async {n}_src => local;")
            self.emit(f"call {n}_k({n}.data);{mark}")
            self.emit(f"wait {n};")
        elif kind == "constant_overflow":
            self.emit(f"int {n} = 65536 * 65536;{mark}")
        elif kind == "wait_masked":
            # the wait runs only where the mask holds: elsewhere the copy may be in flight
            self.devices.append(('extern "C" ' if self.cok else "__device__ ") + f"void {n}_k(int* a) {{}}")
            self.emit(f"with {n}_q in [1] {{")
            self.emit(f"  local s32 [8] {n}_src;")
            self.emit(f"  {n} = dma.copy.async {n}_src => local;")
            self.emit(f"  foreach {n}_q if ({self.rng.choice(pars)} == 0) {{ wait {n}; }}")
            self.emit(f"  call {n}_k({n}.data);{mark}")
            self.emit("}")
        elif kind == "not_divisible":
            par = self.rng.choice([b for b in self.ctx.visible(Bounded) if b.origin == "parallel"]
                                  or [None])
            if par is None or not (par.bounds[0].value or 0) > 1:
                inner = self.fresh("p")
                self.emit(f"parallel {inner} by 3 {{")
                self.emit(f"  local s32 [4] {n};")
                self.emit(f"  {n}_f = dma.copy {n}.chunkat({inner}) => local;{mark}")
                self.emit("}")
            else:
                b = par.bounds[0].value
                self.emit(f"local s32 [{b + 1}] {n};")
                self.emit(f"{n}_f = dma.copy {n}.chunkat({par.name}) => local;{mark}")
        else:
            raise ValueError(kind)
        if wrap:
            self.depth -= 1
            self.emit("}")

    def s_empty(self) -> None:
        self.emit(";")

    def s_block(self) -> None:
        self.emit("{")
        self.block(lambda: self.statements(self.rng.randrange(1, 3)))
        self.emit("}")

    def outer_names(self, kind, pred) -> List[str]:
        """Names of kind visible from an enclosing scope only (a new declaration shadows them)."""
        current = self.ctx.scopes[-1].names
        return sorted(e.name for e in self.ctx.visible(kind) if e.name not in current and pred(e)
                      and e.name not in self.params_dims and e.name not in self.int_params)

    def s_int(self) -> None:
        shadow = self.outer_names(IntVar, lambda v: v.mutable and not v.is_bool)
        if shadow and self.chance(0.15):
            # an inner `int x` hides an outer one (both runtime values: sema treats a name
            # declared twice as assigned)
            name = self.rng.choice(shadow)
            self.emit(f"mutable int {name} = {self.gen_int(2).text};")
            self.ctx.add(name, IntVar(name, None, self.ctx.level, True))
            return
        name = self.fresh("n")
        e = self.gen_int(2)
        mutable = self.chance(0.3)
        form = self.rng.random()
        if mutable and form < 0.3:
            self.emit(f"int {name};")
            value = None
        elif form < 0.6 and not mutable:
            self.emit(f"{name} = {e.text};")
            value = e.value
        else:
            word = "mutable int" if mutable else "int"   # only a mutable may be assigned later
            self.emit(f"{word} {name}{self.sp()}={self.sp()}{e.text};")
            value = e.value
        self.ctx.add(name, IntVar(name, None if mutable else value, self.ctx.level, mutable))

    def s_bool(self) -> None:
        name = self.fresh("b")
        e = self.gen_bool(2)
        self.emit(f"mutable bool {name} = {e.text};")
        self.ctx.add(name, IntVar(name, e.value, self.ctx.level, True, is_bool=True))

    def s_assign(self) -> None:
        targets = [v for v in self.ctx.visible(IntVar) if v.mutable and v.level == self.ctx.level]
        if not targets:
            return self.s_int()
        v = self.rng.choice(targets)
        e = self.gen_bool(1) if v.is_bool else self.gen_int(2)
        self.emit(f"{v.name} = {e.text};")

    def s_span(self) -> None:
        text, dims = self.gen_span()
        name = self.fresh("sp")
        form = self.rng.random()
        if form < 0.15 and text.startswith("["):
            self.emit(f"mdspan {name} : {text};")
        elif form < 0.3 and text.startswith("["):
            self.emit(f"mdspan<{len(dims)}> {name} : {text};")
        else:
            self.emit(f"{name}{self.sp()}:{self.sp()}{text};")
        self.ctx.add(name, SpanVar(name, dims))

    def s_tuple(self) -> None:
        name = self.fresh("t")
        n = self.rng.randrange(1, 5)
        items, vals = [], []
        self.immutable_only = True
        for _ in range(n):
            e = self.gen_int(1)
            items.append(e.text)
            vals.append(e.value)
        self.immutable_only = False
        text = "{" + ", ".join(items) + "}"
        self.emit(f"ituple {name} = {text};" if self.chance(0.5) else f"{name} = {text};")
        self.ctx.add(name, TupleVar(name, vals))
        if self.chance(0.3) and all(v is not None for v in vals):
            # i-tuple arithmetic: t2 = t * {..} or t + 1
            name2 = self.fresh("t")
            k = self.rng.randrange(0, 4)
            if self.features["inline_ituple_operands"] and self.chance(0.5):
                tup, ks = self.gen_const_tuple(n, 0, 4)
                self.emit(f"{name2} = {name} + {tup};")
                result = [a + b for a, b in zip(vals, ks)]
            else:
                self.emit(f"{name2} = {name} * {k};")
                result = [a * k for a in vals]
            # arithmetic on a one-element i-tuple is arithmetic on its integer
            self.ctx.add(name2, TupleVar(name2, result) if n > 1
                         else IntVar(name2, result[0], self.ctx.level, False))

    def data_shape(self) -> Tuple[str, List[Dim]]:
        text, dims = self.gen_span()
        if all(d.value is None or 0 < d.value <= 64 for d in dims) and (_product(dims) or 1) <= 4096:
            is_list = text.startswith("[") and text.endswith("]") and text.count("[") == 1
            return (text if is_list else f"[{text}]"), dims  # `[sp / t]`: an mdspan in a list
        n = self.rng.randrange(1, 4)
        dims = [Dim.const(self.rng.choice(NICE[:8])) for _ in range(n)]
        return "[" + ", ".join(d.text for d in dims) + "]", dims

    def s_global_data(self) -> None:
        text, dims = self.data_shape()
        elem = self.rng.choice(ELEM_TYPES)
        names = [self.fresh("g") for _ in range(self.rng.choice([1, 1, 1, 2]))]
        qual = self.rng.choice(["", "", "global "])
        self.emit(f"{qual}{elem} {text} {', '.join(names)};")
        for n in names:
            self.ctx.add(n, Data(n, elem, "global", dims, object(), 0))

    def s_local_data(self) -> None:
        text, dims = self.data_shape()
        elem = self.rng.choice(ELEM_TYPES)
        storage = self.rng.choice(["local", "shared"])
        names = [self.fresh("l") for _ in range(self.rng.choice([1, 1, 2]))]
        shadow = self.outer_names(Data, lambda d: "." not in d.name)
        if shadow and self.chance(0.1):
            names[0] = self.rng.choice(shadow)   # hides data of an enclosing scope
        self.emit(f"{storage} {elem} {text} {', '.join(names)};")
        for n in names:
            self.ctx.add(n, Data(n, elem, storage, dims, object(), self.ctx.level))

    def readable_data(self) -> List[Data]:
        return [d for d in self.ctx.visible(Data) if self.ctx.readable(d)]

    def source(self) -> Optional[Tuple[str, Data, List[Dim]]]:
        """A copy source: a chunk of readable data, the data itself, or a future's data."""
        datas = self.readable_data()
        if not datas:
            return None
        d = self.rng.choice(datas)
        if self.chance(0.75):
            text, extents = self.gen_chunk(d)
            return text, d, extents
        return d.name, d, list(d.dims)

    def dma_word(self) -> Tuple[str, bool]:
        is_async = self.chance(0.35)
        return ("dma.copy.async" if is_async else "dma.copy"), is_async

    def s_load(self) -> None:
        """`f = dma.copy[.async] SRC => local|shared;`"""
        got = self.source()
        if got is None:
            return self.s_local_data()
        text, d, extents = got
        word, is_async = self.dma_word()
        storage = self.rng.choice(["local", "local", "shared"])
        name = self.fresh("fu")
        self.emit(f"{name} = {word} {text} => {storage};")
        buf = object()
        data = Data(f"{name}.data", d.elem, storage, extents, buf, self.ctx.level, swappable=True)
        self.ctx.add(name, Future(name, data, is_async))
        self.ctx.add(name + ".data", data)
        if is_async:
            self.issue(buf, name)

    def destinations(self, elem: str, extents: List[Dim]) -> List[Tuple[str, Data]]:
        """Named destinations of the same element type and (textually) the same shape."""
        out = []
        for d in self.readable_data():
            if d.elem != elem or d.name.endswith(".data") and self.chance(0.5):
                continue
            if d.storage == "global" and d.name in self.params_dims and self.chance(0.7):
                continue  # writing into an input: allowed, but rare
            if same_dims(d.dims, extents):
                out.append((d.name, d))
            for _ in range(4):
                text, ext = self.gen_chunk(d)
                if same_dims(ext, extents):
                    out.append((text, d))
                    break
        return out

    def s_store(self) -> None:
        """`dma.copy[.async] SRC => DST;` into named data or a chunk of it."""
        got = self.source()
        if got is None:
            return self.s_local_data()
        text, d, extents = got
        dsts = [x for x in self.destinations(d.elem, extents) if x[1].buffer is not d.buffer]
        if not dsts:
            if self.ctx.level == 0 or not all(x.value is None or x.value > 0 for x in extents):
                return
            # make one: `local s32 [SRC.span] y;`
            name = self.fresh("l")
            storage = self.rng.choice(["local", "shared"])
            self.emit(f"{storage} {d.elem} [{text}.span] {name};")
            dst = Data(name, d.elem, storage, extents, object(), self.ctx.level)
            self.ctx.add(name, dst)
            dsts = [(name, dst)]
        dtext, dst = self.rng.choice(dsts)
        word, is_async = self.dma_word()
        if is_async:
            fname = self.fresh("fu")
            self.emit(f"{fname} = {word} {text} => {dtext};")
            self.ctx.add(fname, Future(fname, Data(f"{fname}.data", dst.elem, dst.storage, extents, dst.buffer,
                                                   self.ctx.level), True))
            self.issue(dst.buffer, fname)
        elif self.chance(0.5):
            self.emit(f"{word} {text} => {dtext};")
        else:
            fname = self.fresh("fu")
            self.emit(f"{fname} = {word} {text} => {dtext};")
            self.ctx.add(fname, Future(fname, Data(f"{fname}.data", dst.elem, dst.storage, extents, dst.buffer,
                                                   self.ctx.level), False))

    def s_host_copy(self) -> None:
        got = self.source()
        if got is None:
            return self.s_global_data()
        text, d, extents = got
        if self.chance(0.5):
            return self.s_store()
        name = self.fresh("fu")
        word, is_async = self.dma_word()
        self.emit(f"{name} = {word} {text} => global;")
        buf = object()
        data = Data(f"{name}.data", d.elem, "global", extents, buf, 0)
        self.ctx.add(name, Future(name, data, is_async))
        self.ctx.add(name + ".data", data)
        if is_async:
            self.issue(buf, name)

    def s_call(self) -> None:
        ctx = self.ctx
        name = self.fresh("k")
        params, args = [], []
        targs = []
        if self.chance(0.3) and self.features["templates"]:
            for _ in range(self.rng.randrange(0, 4)):
                targs.append(self.gen_int(1, const_only=True).text)
        for i in range(self.rng.randrange(0, 5)):
            r = self.rng.random()
            datas = [d for d in self.readable_data()]
            if r < 0.45 and datas:
                d = self.rng.choice(datas)
                text = d.name
                if d.name.endswith(".data") and self.chance(0.3):
                    text = d.name[: -len(".data")]
                elif not d.name.endswith(".data") and self.chance(0.2):
                    text = d.name + ".data"
                args.append(text)
                params.append(f"void* a{i}" if self.cok else f"{ELEM_CTYPES[d.elem]}* a{i}")
            elif r < 0.75:
                args.append(self.gen_int(2).text)
                params.append(f"int a{i}")
            elif r < 0.82:
                args.append(self.gen_bool(1).text)
                params.append(f"bool a{i}")
            else:
                floats = [v for v in ctx.visible(FloatParam)]
                if floats and self.chance(0.5):
                    f = self.rng.choice(floats)
                    args.append(f.name)
                    params.append(f"{f.ctype} a{i}")
                else:
                    args.append(self.rng.choice(["3.14", "0.5f", "1e3", "2.0"]))
                    params.append(f"double a{i}")
        tmpl = ""
        if targs or (self.chance(0.05) and self.features["templates"] and not self.cok):
            tmpl = "<" + ", ".join(targs) + ">"
            header = "template <" + ", ".join(f"int T{j}" for j in range(len(targs))) + ">\n" \
                if targs else "template <typename... T>\n"
        else:
            header = ""
        linkage = "__device__ " if not self.cok else ("" if header else 'extern "C" ')
        self.devices.append(f"{header}{linkage}void {name}({', '.join(params)}) {{}}")
        self.emit(f"call {name}{tmpl}{self.sp()}({', '.join(args)});")

    def s_parallel(self) -> None:
        ctx = self.ctx
        name = self.fresh("p")
        r = self.rng.random()
        ints = [v for v in ctx.visible(IntVar) if not v.is_bool and v.level == 0 and v.name in self.int_params]
        if r < 0.1 and ints:
            v = self.rng.choice(ints)
            count, bound = v.name, Dim(v.name, None)
        elif r < 0.6:
            c = self.rng.choice([1, 2, 2, 3, 4, 4, 6, 8])
            count, bound = str(c), Dim.const(c)
        else:
            e = self.gen_int(1, const_only=True, positive=True)
            if e.value > 16:
                e = Expr("4", 4, 4)
            count, bound = e.text, Dim.const(e.value)
        self.emit(f"parallel {name} by {count} {{")
        ctx.level += 1
        saved_iter = ctx.iterating
        ctx.iterating = set(ctx.iterating)

        def body():
            ctx.add(name, Bounded(name, "parallel", [[name]], [bound]))
            self.statements(self.rng.randrange(1, 6))
        try:
            self.block(body)
        finally:
            ctx.level -= 1
            ctx.iterating = saved_iter
        self.emit("}")

    def gen_bound(self) -> Tuple[str, Dim]:
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.08 and self.int_params:
            n = self.rng.choice(self.int_params)
            return n, Dim(n, None)
        dims_known = [d.value for data in ctx.visible(Data) for d in data.dims if d.value]
        if r < 0.6 and dims_known:
            v = self.rng.choice(dims_known)
            b = self.rng.choice([k for k in range(1, min(v, 16) + 1) if v % k == 0])
            return str(b), Dim.const(b)
        b = self.rng.choice([1, 2, 3, 4, 8])
        return str(b), Dim.const(b)

    def s_with(self) -> None:
        ctx = self.ctx
        ctx.push()
        bindings, entities = [], []
        elems: List[Bounded] = []
        for _ in range(self.rng.choice([1, 1, 2, 2, 3])):
            r = self.rng.random()
            if r < 0.3:
                n = self.fresh("i")
                text, b = self.gen_bound()
                form = self.rng.choice([f"[{text}]", f"[{text}]", text])
                bindings.append(f"{n} in {form}")
                ent = Bounded(n, "elem", [[n]], [b])  # a one-element i-tuple, usable as its integer
                ctx.add(n, ent)
                elems.append(ent)
            else:
                k = self.rng.choice([1, 2, 2, 3])
                bounds = [self.gen_bound() for _ in range(k)]
                span_text = "[" + ", ".join(t for t, _ in bounds) + "]"
                spans = [s for s in ctx.visible(SpanVar) if all(d.value and d.value <= 16 for d in s.dims)]
                tuples = [b for b in ctx.visible(Bounded) if b.origin == "tuple" and len(b.bounds) > 1
                          and all(d.value for d in b.bounds)]
                if spans and self.chance(0.2):
                    s = self.rng.choice(spans)
                    span_text, bounds = s.name, [(d.text, d) for d in s.dims]
                    k = len(bounds)
                elif tuples and self.chance(0.15):
                    t = self.rng.choice(tuples)    # `#idx`: the mdspan of idx's bounds
                    span_text, bounds = f"#{t.name}", [(d.text, d) for d in t.bounds]
                    k = len(bounds)
                elem_names = [self.fresh("x") for _ in range(k)]
                cells = [[n] for n in elem_names]
                form = self.rng.random()
                if form < 0.35:
                    tname = self.fresh("idx")
                    bindings.append(f"{tname} in {span_text}")
                    ent = Bounded(tname, "tuple", [[f"{tname}_{j}"] for j in range(k)], [b for _, b in bounds])
                    ctx.add(tname, ent)
                    continue
                if form < 0.7:
                    bindings.append("{" + ", ".join(elem_names) + "} in " + span_text)
                    tuple_ent = None
                else:
                    tname = self.fresh("idx")
                    bindings.append(f"{tname} = {{{', '.join(elem_names)}}} in {span_text}")
                    tuple_ent = Bounded(tname, "tuple", cells, [b for _, b in bounds])
                for n, cell, (_, b) in zip(elem_names, cells, bounds):
                    ent = Bounded(n, "elem", [cell], [b])
                    ctx.add(n, ent)
                    elems.append(ent)
                if tuple_ent is not None:
                    ctx.add(tuple_ent.name, tuple_ent)
        wheres = []
        if len(elems) >= 2 and self.chance(0.3):
            a, b = self.rng.sample(elems, 2)
            if a.bounds[0].text == b.bounds[0].text and a.atoms[0] is not b.atoms[0]:
                wheres.append(f"{a.name} <-> {b.name}")
                # a now names b's index: share the cell (tuples holding a see it too)
                a.atoms[0][0] = b.atoms[0][0]
        head = "with " + ", ".join(bindings)
        if wheres:
            head += ("\n" + "  " * (self.depth + 1) if self.chance(0.3) else " ") + "where " + ", ".join(wheres)
        self.emit(head + " {")

        def body():
            for _ in range(self.rng.randrange(1, 4)):
                if self.stmt_budget <= 0:
                    break
                if self.chance(0.6):
                    self.s_foreach()
                else:
                    self.stmt_budget -= 1
                    self.statement()
        try:
            self.block(body, scope=False)
        finally:
            ctx.pop()
        self.emit("}")

    def s_foreach(self) -> None:
        ctx = self.ctx
        cands = [b for b in ctx.visible(Bounded)
                 if b.origin != "parallel" and not any(c[0] in ctx.iterating for c in b.atoms)]
        if not cands:
            self.stmt_budget -= 1
            return self.statement()
        chosen = self.rng.sample(cands, min(len(cands), self.rng.choice([1, 1, 2])))
        atoms = set()
        names = []
        for b in chosen:
            cell_atoms = {c[0] for c in b.atoms}
            names.append(b.name)
            atoms |= cell_atoms
        cond = ""
        masked = self.chance(0.25)
        if masked:
            cond = f" if ({self.gen_cond().text})"
        self.emit(f"foreach {', '.join(names)}{cond} {{")
        saved = ctx.iterating
        ctx.iterating = saved | atoms
        try:
            self.block(lambda: self.statements(self.rng.randrange(1, 5)))
        finally:
            ctx.iterating = saved
        self.emit("}")

    def s_double_buffer(self) -> None:
        """The pipeline of samples/double_buffer.co.cpp: prefetch, wait, use, swap."""
        ctx = self.ctx
        datas = [d for d in self.readable_data() if all(x.value is not None for x in d.dims)
                 and not d.name.endswith(".data")]
        if not datas:
            return self.s_load()
        d = self.rng.choice(datas)
        # one dimension divided by a fresh with variable k; the others '_' or a parallel index
        i = self.rng.randrange(len(d.dims))
        divs = [b for b in range(2, 9) if d.dims[i].value % b == 0]
        if not divs:
            return self.s_load()
        kb = self.rng.choice(divs)
        k = self.fresh("k")
        pars = [b for b in ctx.visible(Bounded) if b.origin == "parallel"]
        idx, extents = [], []
        for j, dim in enumerate(d.dims):
            if j == i:
                idx.append(None)
                extents.append(Dim.const(dim.value // kb))
                continue
            ok = [p for p in pars if p.bounds[0].value and dim.value % p.bounds[0].value == 0]
            if ok and self.chance(0.5):
                p = self.rng.choice(ok)
                idx.append(p.name)
                extents.append(Dim.const(dim.value // p.bounds[0].value))
            else:
                idx.append("_")
                extents.append(dim)

        def chunk(at: str) -> str:
            return f"{d.name}.chunkat({', '.join(at if x is None else x for x in idx)})"
        storage = self.rng.choice(["local", "shared"])
        cur, nxt = self.fresh("cur"), self.fresh("nxt")
        self.emit(f"with {k} in [{kb}] {{")
        self.depth += 1
        ctx.push()
        kent = Bounded(k, "elem", [[k]], [Dim.const(kb)])
        ctx.add(k, kent)
        self.emit(f"{cur} = dma.copy.async {chunk(k)} => {storage};")
        self.emit(f"foreach {k} {{")
        self.depth += 1
        ctx.push()
        saved = ctx.iterating
        ctx.iterating = saved | {k}
        self.counter += 1
        ctx.blocks.append(self.counter)
        self.emit(f"{nxt} = dma.copy.async {chunk(f'({k} + 1) % #{k}')} => {storage};")
        self.emit(f"wait {cur};")
        buf = object()
        cdata = Data(f"{cur}.data", d.elem, storage, extents, buf, ctx.level)
        ctx.add(cur, Future(cur, cdata, True))
        ctx.add(cur + ".data", cdata)
        saved_budget, self.stmt_budget = self.stmt_budget, min(self.stmt_budget, 2)
        for _ in range(self.rng.randrange(1, 3)):
            self.rng.choice([self.s_call, self.s_store, self.s_int])()
        self.stmt_budget = saved_budget
        self.wait_all()
        ctx.blocks.pop()
        self.emit(f"swap({cur}, {nxt});" if self.chance(0.8) else f"swap({cur},{nxt});")
        ctx.iterating = saved
        ctx.pop()
        self.depth -= 1
        self.emit("}")
        self.emit(f"wait {cur};")
        ctx.pop()
        self.depth -= 1
        self.emit("}")

    # -- the function ----------------------------------------------------------------------
    def params(self) -> List[str]:
        out = []
        sym_names = iter(["M", "N", "K", "L"])
        symbolic: List[str] = []
        for j in range(self.rng.randrange(0, 5)):
            r = self.rng.random()
            name = f"in{j}"
            elem = self.rng.choice(ELEM_TYPES)
            if r < 0.45:
                dims = [Dim.const(self.rng.choice(NICE)) for _ in range(self.rng.randrange(1, 4))]
                out.append(f"{elem} [{', '.join(d.text for d in dims)}] {name}")
            elif r < 0.6:
                dims = []
                items = []
                for _ in range(self.rng.randrange(1, 3)):
                    if symbolic and self.chance(0.4):
                        s = self.rng.choice(symbolic)
                        if self.chance(0.3):
                            items.append(f"2 * {s}")
                            dims.append(Dim(f"2 * {s}", None))
                        else:
                            items.append(s)
                            dims.append(Dim(s, None))
                        continue
                    s = next(sym_names, None)
                    if s is None:
                        v = self.rng.choice(NICE)
                        items.append(str(v))
                        dims.append(Dim.const(v))
                        continue
                    symbolic.append(s)
                    self.ctx.add(s, IntVar(s, None, 0, False))
                    items.append(s)
                    dims.append(Dim(s, None))
                out.append(f"{elem} [{', '.join(items)}] {name}")
            elif r < 0.68:
                rank = self.rng.randrange(1, 4)
                dims = [Dim(f"{name}.span({i})", None) for i in range(rank)]
                out.append(f"{elem} mdspan<{rank}> {name}")
            elif r < 0.85:
                out.append(f"int {name}")
                self.ctx.add(name, IntVar(name, None, 0, False))
                self.int_params.append(name)
                continue
            elif r < 0.92:
                out.append(f"bool {name}")
                self.ctx.add(name, IntVar(name, None, 0, False, is_bool=True))
                continue
            else:
                ty = self.rng.choice(sorted(FLOAT_PARAM_TYPES))
                out.append(f"{ty} {name}")
                self.ctx.add(name, FloatParam(name, FLOAT_PARAM_TYPES[ty]))
                continue
            self.params_dims[name] = dims
            self.ctx.add(name, Data(name, elem, "global", dims, object(), 0))
        return out

    def function(self) -> str:
        self.ctx = Ctx()
        self.params_dims, self.int_params = {}, []
        name = self.fresh("co_fn")
        params = self.params()
        self.stmt_budget = self.rng.randrange(4, 28)
        body_start = len(self.lines)
        inject_at = self.rng.randrange(self.stmt_budget + 1)
        while self.stmt_budget > 0 or self.inject:
            if self.inject and self.stmt_budget <= inject_at:
                self.injected()
                continue
            self.stmt_budget -= 1
            self.statement()
        self.wait_all()
        ret, ret_stmt = self.return_of()
        if ret_stmt:
            self.emit(ret_stmt)
        body = self.lines[body_start:]
        del self.lines[body_start:]
        head = f"__co__ {ret} {name}({', '.join(params)})"
        proto = head + ";\n" if self.chance(0.1) else ""
        brace = " {" if self.chance(0.8) else "\n{"
        text = proto + head + brace + "\n" + "\n".join(body) + "\n}\n"
        if self.chance(0.05):
            text = f"namespace gen{self.counter} {{\n{text}}}  // namespace\n"
        return text

    def return_of(self) -> Tuple[str, str]:
        ctx = self.ctx
        r = self.rng.random()
        datas = [d for d in self.readable_data() if d.storage == "global"
                 and not any(x.text.startswith(f"{d.name}.span") for x in d.dims)]
        if r < 0.55 and datas:
            d = self.rng.choice(datas)
            form = self.rng.random()
            if form < 0.15:
                ret = "auto"
            elif form < 0.3:
                ret = f"{d.elem} mdspan<{len(d.dims)}>"
            else:
                ret = f"{d.elem} [{', '.join(x.text for x in d.dims)}]"
            value = d.name
            if value.endswith(".data") and self.chance(0.5):
                value = value[: -len(".data")]   # the future itself
            return ret, f"return {value};"
        if r < 0.75:
            if self.chance(0.5):
                return "int", f"return {self.gen_int(2).text};"
            return "bool", f"return {self.gen_bool(2).text};"
        if r < 0.85:
            return "auto", f"return {self.gen_int(1).text};"
        return "void", "return;" if self.chance(0.3) else ""

    def program(self) -> str:
        macro_text = ""
        if self.features["macros"] and self.chance(0.2):
            for _ in range(self.rng.randrange(1, 3)):
                name = f"GEN_C{len(self.macros)}"
                v = self.rng.choice(NICE)
                self.macros.append((name, v))
                macro_text += f"#define {name} {v}\n"
        fn = "\n".join(self.function() for _ in range(self.rng.choice([1, 1, 1, 1, 2])))
        head = "// generated by tests/frontend/fuzz/generator.py\n#include <cstdint>\n" + macro_text
        devices = "\n".join(self.devices)
        if self.cok:
            devices = "__cok__ {\n" + devices + "\n}  // __cok__"
        text = head + devices + "\n\n" + fn
        return text.replace("\n", "\r\n") if self.chance(0.05) else text  # DOS line ends


@dataclass
class SpanVar:
    name: str
    dims: List[Dim]


@dataclass
class TupleVar:
    name: str
    items: List[Optional[int]]


@dataclass
class FloatParam:
    name: str
    ctype: str


def _product(dims: Sequence[Dim]) -> Optional[int]:
    total = 1
    for d in dims:
        if d.value is None:
            return None
        total *= d.value
    return total


def _fold(op: str, a: Optional[int], b: Optional[int]) -> Optional[int]:
    """C semantics of the folded constant, or None when either side is unknown."""
    if a is None or b is None:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return a - q * b
    if op == "<<":
        return a << b
    if op == ">>":
        return a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op in ("==", "!=", "<", ">", "<=", ">="):
        return int(eval(f"{a} {op} {b}"))  # noqa: S307 -- two ints
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    raise ValueError(op)


def generate(seed, features: Optional[Dict[str, bool]] = None, cok: bool = False,
             inject: Optional[str] = None) -> str:
    """The text of generated program number ``seed`` (a ``.co.cpp`` file); with ``cok`` the
    device functions are in a ``__cok__`` block, as the opencl and factor targets need. With
    ``inject`` (a key of ``INJECTIONS``) the program has exactly that one error, on the line
    marked ``INJECTED``."""
    gen = Generator(seed, features, cok)
    gen.inject = inject
    return gen.program()


INJECTED = "/* injected error */"
# kind: (the error message must contain this, where it goes: "host" (level 0), "parallel"
# (any statement inside one), "top" (a `parallel` of its own at host level, outside loops))
INJECTIONS = {
    "call_outside_parallel": ("can only be called inside 'parallel'", "host"),
    "local_at_host": ("can only be declared inside a 'parallel' block", "host"),
    "redefinition": ("redefinition of", "host"),
    "wait_sync": ("cannot wait on", "parallel"),
    "read_before_wait": ("is read before 'wait", "parallel"),
    "not_divisible": ("is not divisible by the bound of", "parallel"),
    "constant_overflow": ("integer overflow in constant expression", "host"),
    # in a loop the copy would also reach the next iteration: a second error
    "wait_masked": ("is read before 'wait", "top"),
}


# ---------------------------------------------------------------------------
# Runnable programs with a Python model of their result
# ---------------------------------------------------------------------------

@dataclass
class Runnable:
    """One generated `__co__` function that runs, and what it must compute."""
    seed: object
    name: str
    co_text: str           # the __co__ function
    device_text: str       # its device functions (extern "C", for the __cok__ block)
    host_text: str         # a host block that calls it and prints "name: v0 v1 ..."
    expected: List[int]    # the model's result, row-major
    bad_call: Optional[str] = None   # the label main prints for a call that must throw


def _input_values(which: int, count: int) -> List[int]:
    """The host's input data (the same formula is printed into main)."""
    return [(i * (7 + 2 * which) + 3 * which + 1) % 23 - 11 for i in range(count)]


def _input_formula(which: int) -> str:
    return f"(int)((i * {7 + 2 * which} + {3 * which + 1}) % 23) - 11"


class RunnableGenerator:
    """Builds a map over tiles of one or two inputs, then maybe a masked second pass.

    Every index variable tiles exactly one dimension, so each element belongs to exactly
    one chunk and the chunk coordinates of an element give the values of the variables
    when it was written: that is what the model evaluates.
    """

    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(f"croktile-run:{seed}")
        self.name = f"run{seed}"

    def pick(self, seq):
        return self.rng.choice(seq)

    def build(self) -> Runnable:
        rng, n = self.rng, self.name
        rank = self.pick([1, 2, 2, 3])
        # the tilers: parallel levels and `with` variables, each for one dimension
        levels = self.pick([1, 1, 2])
        slots = ["p0"] + (["p1"] if levels == 2 else []) + [f"w{j}" for j in range(self.pick([0, 1, 1, 2]))]
        slots = slots[:rank] if len(slots) > rank else slots
        double = self.pick([False, False, True]) and any(s.startswith("w") for s in slots)
        if double:  # one `with` variable, the one whose tiles are double-buffered
            slots = [s for s in slots if s.startswith("p")] + [s for s in slots if s.startswith("w")][:1]
        dim_of = {}
        free = list(range(rank))
        rng.shuffle(free)
        for s in slots:
            dim_of[s] = free.pop()
        bound = {s: self.pick([1, 2, 3, 4] if s.startswith("w") else [1, 2, 4]) for s in slots}
        dims = []
        for d in range(rank):
            owner = next((s for s in slots if dim_of[s] == d), None)
            dims.append((bound[owner] if owner else 1) * self.pick([1, 2, 3, 4, 8]))
        var = {s: f"{s}_{n}" for s in slots}
        withs = [s for s in slots if s.startswith("w")]
        pars = [s for s in slots if s.startswith("p")]
        symbolic = self.pick([False, False, True])
        two_inputs = self.pick([True, False])
        elem, ctype = self.pick([("s32", "int"), ("s32", "int"), ("f32", "float")])  # f32: exact small integers
        scalar = self.pick([True, False])
        a, b, c = self.pick([1, 2, 3, -1]), self.pick([0, 1, 5, -7]), self.pick([1, 2, -1])
        storage = "shared" if levels == 1 and self.pick([True, False]) else "local"
        rotate = self.pick([None] + withs) if not double else None
        shift = self.pick([1, 2]) if rotate else 0
        alias = self.pick([None, None] + withs) if not double else None

        owners = [next((s for s in slots if dim_of[s] == d), None) for d in range(rank)]
        # `x.chunkat(p, _).chunkat(_, w)`: the chunk of a chunk is the same chunk
        chained = any(o and o[0] == "p" for o in owners) and any(o and o[0] == "w" for o in owners) \
            and self.pick([False, False, True])

        def chunk(data: str, text: str) -> str:
            items = [t.strip() for t in _split_top(text)]
            if not chained:
                return f"{data}.chunkat({text})"
            first = [t if o and o[0] == "p" else "_" for t, o in zip(items, owners)]
            second = [t if o and o[0] == "w" else "_" for t, o in zip(items, owners)]
            return f"{data}.chunkat({', '.join(first)}).chunkat({', '.join(second)})"

        def idx(rot: bool, load: bool = False):
            items = []
            for d in range(rank):
                owner = owners[d]
                if owner is None:
                    items.append("_")
                elif rot and owner == rotate:
                    items.append(f"({var[owner]} + {shift}) % #{var[owner]}")
                elif load and owner == alias:
                    items.append(f"{var[owner]}_al")
                else:
                    items.append(var[owner])
            return ", ".join(items)

        ins = ["in0"] + (["in1"] if two_inputs else [])
        shape_text = ", ".join(str(d) for d in dims)
        if symbolic:
            syms = [f"D{d}_{n}" for d in range(rank)]
            params = [f"{elem} [{', '.join(syms)}] {x}" for x in ins]
            ret = f"{elem} [in0.span]"
        else:
            params = [f"{elem} [{shape_text}] {x}" for x in ins]
            ret = f"{elem} [{shape_text}]"
        if scalar:
            params.append("int s")
        kmap, kadd = f"kmap_{n}", f"kadd_{n}"
        coef = "s" if scalar else str(a)
        lines = [f"__co__ {ret} {n}({', '.join(params)}) {{", f"  {elem} [in0.span] out;"]
        depth = 1

        def w(line):
            lines.append("  " * depth + line)

        # a loop of launches: `with`/`foreach` at host level around the `parallel`s
        launch_loop = bool(withs) and not double and self.pick([False, False, False, True])

        def open_with():
            nonlocal depth
            binds = []
            if len(withs) == 2 and self.pick([True, False]):
                binds.append(f"{{{var[withs[0]]}, {var[withs[1]]}}} in [{bound[withs[0]]}, {bound[withs[1]]}]")
            else:
                binds += [f"{var[s]} in [{bound[s]}]" for s in withs]
            where = ""
            if alias:
                binds.append(f"{var[alias]}_al in [{bound[alias]}]")
                where = f" where {var[alias]}_al <-> {var[alias]}"
            w(f"with {', '.join(binds)}{where} {{")
            depth += 1

        if launch_loop:
            open_with()
            w(f"foreach {', '.join(var[s] for s in withs)} {{")
            depth += 1
        # the inner threads fill a `shared` tile of the outer instance, which the outer
        # level stores after the inner `parallel` (its end is a barrier)
        gather = len(pars) == 2 and not withs and self.pick([True, False])

        def only(slot: str) -> str:
            return ", ".join(var[slot] if o == slot else "_" for o in owners)

        for p in pars:
            w(f"parallel {var[p]} by {bound[p]} {{")
            depth += 1
            if gather and p == "p0":
                w(f"shared {elem} [in0.chunkat({only('p0')}).span] acc;")
        if withs and not launch_loop:
            open_with()
        loads = []
        if double:
            k = withs[0]
            for x in ins:
                w(f"cur_{x} = dma.copy.async {chunk(x, idx(False))} => {storage};")
            w(f"foreach {var[k]} {{")
            depth += 1
            for x in ins:
                nxt = idx(False).replace(var[k], f"({var[k]} + 1) % #{var[k]}", 1)
                w(f"nxt_{x} = dma.copy.async {chunk(x, nxt)} => {storage};")
            w(f"wait {', '.join(f'cur_{x}' for x in ins)};")
            loads = [f"cur_{x}" for x in ins]
        else:
            if withs and not launch_loop:
                w(f"foreach {', '.join(var[s] for s in withs)} {{")
                depth += 1
            is_async = self.pick([True, False])
            for x in ins:
                w(f"l_{x} = dma.copy{'.async' if is_async else ''} {chunk(x, idx(False, load=True))} => {storage};")
            if is_async:
                w(f"wait {', '.join(f'l_{x}' for x in ins)};")
            loads = [f"l_{x}" for x in ins]
        w(f"local {elem} [{loads[0]}.span] r;")
        args = ", ".join(f"{l}.data" for l in loads)
        w(f"call {kmap}({args}, r, |r.span|, {coef}, {b});")
        store_async = self.pick([True, False])
        dest = f"acc.chunkat({only('p1')})" if gather else chunk("out", idx(True))
        if store_async:
            w(f"st = dma.copy.async r => {dest};")
            w("wait st;")
        else:
            w(f"dma.copy r => {dest};")
        if double:
            for x in ins:
                w(f"swap(cur_{x}, nxt_{x});")
            depth -= 1
            w("}")
            w(f"wait {', '.join(f'cur_{x}' for x in ins)};")
        elif withs and not launch_loop:
            depth -= 1
            w("}")
        # a masked second pass over the same tiles: out += c where the mask holds
        mask = None
        if withs and not launch_loop and self.pick([True, False]):
            # the condition is evaluated once, before the loop (spec 4 masks the loop as a
            # whole): about the parallel indices, not the loop's own variables
            s1, s2 = self.pick(pars), self.pick(pars)
            k1 = self.rng.randrange(bound[s1])
            form = self.pick(["eq", "lt", "ne", "sum"] if s1 != s2 else ["eq", "lt"])
            text = {"eq": f"{var[s1]} == {k1}", "lt": f"{var[s1]} < {k1 + 1}", "ne": f"{var[s1]} != {var[s2]}",
                    "sum": f"({var[s1]} + {var[s2]}) % 2 == 0"}[form]
            mask = (form, s1, s2, k1)
            w(f"foreach {', '.join(var[s] for s in withs)} if ({text}) {{")
            depth += 1
            w(f"t = dma.copy out.chunkat({idx(False)}) => local;")
            w(f"call {kadd}(t.data, |t.span|, {c});")
            w(f"dma.copy t.data => out.chunkat({idx(False)});")
            depth -= 1
            w("}")
        if withs and not launch_loop:
            depth -= 1
            w("}")
        # outer-level code beside the inner `parallel` runs once per outer instance (spec 4's
        # implicit masking), after every inner thread has finished (a barrier)
        outer_add = 0
        if len(pars) == 2:
            depth -= 1
            w("}")
            if gather:
                w(f"dma.copy acc => out.chunkat({only('p0')});")
            if not launch_loop and self.pick([True, False]):   # (in a loop of launches it would add up)
                outer_add = self.pick([3, -2, 10])
                whole = ", ".join(var["p0"] if dim_of["p0"] == d else "_" for d in range(rank))
                w(f"o = dma.copy out.chunkat({whole}) => local;")
                w(f"call {kadd}(o.data, |o.span|, {outer_add});")
                w(f"dma.copy o.data => out.chunkat({whole});")
        while depth > 1:
            depth -= 1
            w("}")
        w("return out;")
        lines.append("}")
        co_text = "\n".join(lines) + "\n"

        ins_n = len(ins)
        device = (f'extern "C" void {kmap}(' + "".join(f"{ctype}* x{j}, " for j in range(ins_n))
                  + f"{ctype}* y, int n, int a, int b) {{\n  for (int i = 0; i < n; ++i) y[i] = "
                  + " + ".join(f"x{j}[i] * {'a' if j == 0 else str(j + 1)}" for j in range(ins_n)) + " + b;\n}\n"
                  + f'extern "C" void {kadd}({ctype}* x, int n, int c) {{\n  for (int i = 0; i < n; ++i) x[i] += c;\n}}\n')
        count = 1
        for d in dims:
            count *= d
        host = [f"  {{  // {n}"]
        for j, x in enumerate(ins):
            host.append(f"    std::vector<{ctype}> {x}_{n}({count});")
            host.append(f"    for (int i = 0; i < {count}; ++i) {x}_{n}[i] = {_input_formula(j)};")
        views = ", ".join(f"choreo::make_spanview<{rank}>({x}_{n}.data(), {{{shape_text}}})" for x in ins)
        host.append(f"    auto res = {n}({views}{', ' + str(a) if scalar else ''});")
        host.append(f'    std::cout << "{n}:";')
        host.append(f"    for (int i = 0; i < {count}; ++i) std::cout << ' ' << res.data()[i];")
        host.append("    std::cout << '\\n';")
        host.append("  }")
        bad_check = None
        tiled = [s for s in slots if bound[s] > 1]
        if symbolic and tiled:
            # called with a dimension its tiling does not divide: a runtime check must throw
            d = dim_of[self.pick(tiled)]
            bad_dims = [x + 1 if j == d else x for j, x in enumerate(dims)]
            bad_count = 1
            for x in bad_dims:
                bad_count *= x
            bad_views = ", ".join(f"choreo::make_spanview<{rank}>(bad_{n}.data(), {{{', '.join(map(str, bad_dims))}}})"
                                  for _ in ins)
            host += [f"  try {{  // {n}: dimension {d} is {bad_dims[d]}",
                     f"    std::vector<{ctype}> bad_{n}({bad_count}, 1);",
                     f"    auto res = {n}({bad_views}{', ' + str(a) if scalar else ''});",
                     f'    std::cout << "{n}_bad: no error\\n";',
                     "  } catch (const croktile::runtime_error&) {",
                     f'    std::cout << "{n}_bad: runtime_error\\n";',
                     "  }"]
            bad_check = f"{n}_bad"

        # the model
        data = [_input_values(j, count) for j in range(ins_n)]
        extent = {s: dims[dim_of[s]] // bound[s] for s in slots}
        expected = []
        for flat in range(count):
            multi, rest = [], flat
            for d in reversed(dims):
                multi.append(rest % d)
                rest //= d
            multi.reverse()
            src = list(multi)
            if rotate:
                d, e = dim_of[rotate], extent[rotate]
                src[d] = ((multi[d] // e - shift) % bound[rotate]) * e + multi[d] % e
            sflat = 0
            for d, v in zip(dims, src):
                sflat = sflat * d + v
            value = data[0][sflat] * a + sum(data[j][sflat] * (j + 1) for j in range(1, ins_n)) + b
            if mask:
                form, s1, s2, k1 = mask
                v1, v2 = multi[dim_of[s1]] // extent[s1], multi[dim_of[s2]] // extent[s2]
                hit = {"eq": v1 == k1, "lt": v1 < k1 + 1, "ne": v1 != v2, "sum": (v1 + v2) % 2 == 0}[form]
                value += c if hit else 0
            expected.append(value + outer_add)
        return Runnable(self.seed, n, co_text, device, "\n".join(host), expected, bad_check)


def _split_top(text: str) -> List[str]:
    """``a, (b + 1) % #b`` -> the comma-separated items outside parentheses."""
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    return items + [cur]


def runnable_function(seed) -> Runnable:
    return RunnableGenerator(seed).build()


def runnable_file(programs: Sequence[Runnable]) -> str:
    """One `.co.cpp` with every program's device functions, functions and calls from main."""
    return ("// generated by tests/frontend/fuzz/generator.py (runnable programs)\n#include <iostream>\n#include <vector>\n\n"
            "__cok__ {\n" + "".join(p.device_text for p in programs) + "}  // __cok__\n\n"
            + "\n".join(p.co_text for p in programs)
            + "\nint main() {\n" + "\n".join(p.host_text for p in programs) + "\n  return 0;\n}\n")


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="Print a generated Croktile program.")
    ap.add_argument("seed")
    ap.add_argument("--cok", action="store_true", help="device functions in a __cok__ block")
    ap.add_argument("--runnable", action="store_true", help="a complete program with main")
    ap.add_argument("--feature", action="append", default=[], metavar="NAME=0|1",
                    help="switch a FEATURES entry")
    ap.add_argument("--inject", choices=sorted(INJECTIONS), help="put this one error in")
    args = ap.parse_args(argv)
    seed = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    if args.runnable:
        print(runnable_file([runnable_function(seed)]), end="")
        return 0
    features = {k: v == "1" for k, v in (f.split("=", 1) for f in args.feature)}
    print(generate(seed, features, cok=args.cok, inject=args.inject), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
