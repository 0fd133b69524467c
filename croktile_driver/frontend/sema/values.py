"""What a tileflow expression evaluates to during checking, and how messages name it.

Each class is one kind of value the language has: scalars, mdspans, ituples
(bounded or not), spanned data (a whole buffer or a chunk of one) and DMA futures.
The end of the module is what every checker needs to word and place a message: the
kind of a value (``kind_name``, ``article``), where an expression starts
(``start_loc``) and the operator classes.
"""
from __future__ import annotations

from dataclasses import field
from typing import List, Optional

from .. import ast as A
from ... import ir
from ...diagnostics import Loc
from ...ir.symbolic import Sym
from ...ir.dataclass import dataclass


class Value:
    kind = "value"


@dataclass
class VError(Value):
    """A value whose error has been reported; it silences follow-on errors."""
    kind = "error"


@dataclass
class VInt(Value):
    sym: Sym
    bound: Optional[Sym] = None      # set for bounded integers
    origin: str = ""                  # "parallel" / "with" for bounded ones
    derived: bool = False             # `k + 1`: keeps k's bound, needs a range check
    limit: Optional[Sym] = None       # inside `if (i < n)`: n, for the checks of its tiles (not #i)
    kind = "int"


@dataclass
class VBool(Value):
    sym: Sym
    kind = "bool"


@dataclass
class VFloat(Value):
    text: str
    kind = "float"


@dataclass
class VExpr(Value):
    """A value computed at run time from data elements or floating-point numbers
    (`a.at(i) * 2.0`): an ir.EExpr tree, stored into an element by `x.at(j) = ...`."""
    expr: ir.EExpr

    @property
    def kind(self) -> str:
        reads = any(isinstance(x, ir.ERead) for x in ir.e_walk(self.expr))
        return "element value" if reads else "floating-point value"


@dataclass
class VSpan(Value):
    dims: List[Sym]
    kind = "mdspan"


@dataclass
class VTuple(Value):
    items: List[Sym]
    bounds: Optional[List[Sym]] = None
    origin: str = ""
    kind = "ituple"


@dataclass
class Future:
    name: str                         # IR name
    user_name: str
    region: Optional[ir.Region]       # None: a `dma.any` that no copy has been assigned to yet
    elem: Optional[str]
    is_async: bool
    loc: object
    placeholder: bool = False         # defined by `dma.any`
    candidates: Optional[List["Future"]] = None   # `select(k, f, g)`: the futures it may be
    used: bool = False                # a `dma.any` that is waited, swapped or selected
    # `dma.any` only (dma.py): whether a copy has been assigned to it; the buffer it
    # gets once its type is inferred from a `swap`/`select` partner, and where it is defined
    assigned: bool = True
    shell: Optional[object] = None
    any_level: int = 0
    any_parallel: Optional[object] = None


@dataclass
class Tile:
    """`x.chunk(f)`, `x.subspan(s)`, `x.view(s)`: tiles of `extents` over `region`, which a
    following `.at(...)` (`.from(...)` for a view) places."""
    region: ir.Region
    extents: List[Sym]
    kind: str                         # chunk, subspan, modspan, view
    steps: Optional[List[Sym]] = None  # `.at(i)` starts at i * step (default: the extents)


@dataclass
class VData(Value):
    region: ir.Region
    elem: str
    future: Optional[Future] = None   # set when reached through `f.data`
    tile: Optional[Tile] = None       # the tiling that `.at(...)` may still move
    kind = "spanned data"

    @property
    def is_chunk(self) -> bool:
        return not self.region.is_whole


@dataclass
class VPacked(Value):
    """`x.chunkat(p, q).span_as(s)` of elements that are not contiguous: only a copy's
    source, which packs them row-major into a destination of shape ``dims``."""
    data: VData
    dims: List[Sym]
    kind = "non-contiguous data reshaped by 'span_as'"


@dataclass
class VArray(Value):
    """`local s32 [8] t[2];`: an array of buffers of one shape (items: VData or VArray)."""
    items: List[Value]
    elem: str
    dims: List[Sym]
    kind = "array of buffers"


@dataclass
class VFuture(Value):
    future: Future
    kind = "future"


@dataclass
class VMethod(Value):
    """`x.chunkat` / `x.span` before their argument list."""
    base: Value
    name: str
    kind = "member function"


@dataclass
class VWild(Value):
    kind = "'_'"


@dataclass
class VVoid(Value):
    kind = "void"


@dataclass
class Symbol:
    name: str
    kind: str                         # int, bool, float, mdspan, ituple, bounded, data, future
    value: Value
    loc: object
    ir_name: str = ""
    atoms: List[str] = field(default_factory=list)   # bounded: the index variables
    origin: str = ""                  # bounded: parallel / with
    mutable: bool = False             # int/bool: may be assigned (`mutable`, or declared without a value)


# The language rule for one-element ituples (`with i in [4]` binds one): wherever an
# integer is expected, a one-element ituple is its integer, keeping its bound. Every
# check that expects an integer (every checker) reads its operand through `scalar`.
def is_single(v: Value) -> bool:
    return isinstance(v, VTuple) and len(v.items) == 1


def as_int(t: VTuple) -> VInt:
    """A one-element ituple used as an integer keeps its bound."""
    return VInt(t.items[0], t.bounds[0] if t.bounds else None, t.origin)


def scalar(v: Value) -> Value:
    return as_int(v) if is_single(v) else v


def kind_name(v: Value) -> str:
    """The kind of a value for messages; an ituple says how long it is (only a
    one-element ituple is an integer, so the length is what the user must see)."""
    if isinstance(v, VTuple):
        return f"ituple of {len(v.items)} element{'s' if len(v.items) != 1 else ''}"
    return v.kind


# -- messages: the words and places --------------------------------------------------------
COMPARE = {"==", "!=", "<", ">", "<=", ">="}
LOGICAL = {"&&", "||"}


def article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def start_loc(node: A.Node) -> Loc:
    """Where an expression starts: `a` in `a.chunkat(p, _)` (a Member's own loc is its name)."""
    while True:
        if isinstance(node, A.Call):
            node = node.func
        elif isinstance(node, (A.Member, A.SpanDerive)):
            node = node.base
        elif isinstance(node, (A.BinOp, A.Ternary)):
            nxt = node.left if isinstance(node, A.BinOp) else node.cond
            if (nxt.loc.line, nxt.loc.col) > (node.loc.line, node.loc.col):
                return node.loc
            node = nxt
        else:
            return node.loc
