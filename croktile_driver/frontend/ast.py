"""AST of tileflow code. Every node carries ``loc``, the user's file, line and column.

Nodes are plain dataclasses; ``children()`` lists the child nodes in source order so
generic walkers (dumping, the mutation tests' sanity checks) need no per-node code.
"""
from __future__ import annotations

from dataclasses import field, fields
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..diagnostics import Loc
from ..ir.dataclass import dataclass


_FIELD_NAMES: Dict[type, Tuple[str, ...]] = {}   # node class -> its fields but loc, in order


@dataclass(eq=False)
class Node:
    loc: Loc

    def children(self) -> Iterator["Node"]:
        names = _FIELD_NAMES.get(type(self))
        if names is None:   # fields() builds its tuple anew on each call
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self) if f.name != "loc")
        for name in names:
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, Node):
                        yield item

    def dump(self, indent: int = 0) -> str:
        out = []
        stack = [(self, indent)]  # iterative: deeply nested expressions must not overflow
        while stack:
            node, depth = stack.pop()
            attrs = []
            for f in fields(node):
                value = getattr(node, f.name)
                if f.name == "loc" or isinstance(value, Node) or (
                        isinstance(value, list) and value and isinstance(value[0], Node)):
                    continue
                attrs.append(f"{f.name}={value!r}")
            line = "  " * depth + f"{type(node).__name__} <{node.loc.line}:{node.loc.col}>"
            if attrs:
                line += " " + " ".join(attrs)
            out.append(line)
            stack.extend(reversed([(child, depth + 1) for child in node.children()]))
        return "\n".join(out)


# -- expressions -------------------------------------------------------------
@dataclass(eq=False)
class Name(Node):
    name: str
    first_value: bool = False   # a `with` variable read before its foreach on purpose (pipelined_loops.py)


@dataclass(eq=False)
class IntLit(Node):
    value: int
    parenthesized: bool = False  # `(0)` inside `sp [...]` names dimension 0 of sp
    problem: Optional[str] = None  # why this C++ constant is no tileflow 'int' (lexer.IntConst)


@dataclass(eq=False)
class FloatLit(Node):
    text: str


@dataclass(eq=False)
class BoolLit(Node):
    value: bool


@dataclass(eq=False)
class StringLit(Node):
    """`"text"` as written (quotes and escapes kept): only `print`, `println` and `assert` take one."""
    text: str


@dataclass(eq=False)
class Wildcard(Node):
    """`_` in a chunkat index list: the whole dimension."""


@dataclass(eq=False)
class AnyDim(Node):
    """`?` in a parameter's shape, `s32 [6, ?, 128] x`: a dimension known at run time."""


@dataclass(eq=False)
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(eq=False)
class UnOp(Node):
    op: str
    operand: Node


@dataclass(eq=False)
class Ternary(Node):
    cond: Node
    then: Node
    other: Node


@dataclass(eq=False)
class UpperBound(Node):
    """`#p`: the upper bound of a bounded integer or ituple."""
    operand: Node


@dataclass(eq=False)
class SizeOf(Node):
    """`|x|`: the element count of spanned data or an mdspan."""
    operand: Node


@dataclass(eq=False)
class Member(Node):
    """`x.span`, `x.data`, `x.chunkat` (the call part is a Call around it)."""
    base: Node
    name: str


@dataclass(eq=False)
class Call(Node):
    """`f(args)` in an expression: `sp(0)`, `x.span(1)`, `x.chunkat(p, _)`; `x.view(16, 8 : 12, 3)`
    gives strides after the ':'."""
    func: Node
    args: List[Node]
    strides: Optional[List[Node]] = None


@dataclass(eq=False)
class SpanLit(Node):
    """`[a, 3, b.span]`: dimensions, where an mdspan item contributes all of its own."""
    items: List[Node]


@dataclass(eq=False)
class SpanDerive(Node):
    """`sp [1, (0)/2, (1)/4]`: a new mdspan whose `(i)` items name dimensions of sp."""
    base: Node
    items: List[Node]


@dataclass(eq=False)
class TupleLit(Node):
    items: List[Node]


@dataclass(eq=False)
class TupleDerive(Node):
    """`t {(2), (0)}`: a new ituple of the named elements of t."""
    base: Node
    items: List[Node]


@dataclass(eq=False)
class DmaCopy(Node):
    op: str               # "copy", "pad", "transp"
    is_async: bool
    src: Node
    dst: Node             # StorageRef, a Name, a chunkat Call or a `select(...)` Call
    config: Optional[List[Node]] = None   # `dma.pad<{..}, {..}, {..}, v>`, `dma.transp<1, 0>`
    sparse: Optional[tuple] = None        # `dma.copy.sp<2:4>`: (n, m)
    after: List[Node] = field(default_factory=list)   # `... after f, g`: copies it follows
    engine: str = "dma"                   # "tma": the copy engine of `tma.copy`
    swizzle: Optional[Node] = None        # `.swiz<128>`: the destination's swizzle in bytes


@dataclass(eq=False)
class DmaAny(Node):
    """`f = dma.any;`: a future that stands for no copy yet (a multi-buffering prologue)."""


@dataclass(eq=False)
class StorageRef(Node):
    storage: str


@dataclass(eq=False)
class MmaOp(Node):
    """`mma.fill.f32 0`, `mma.load.swiz<128> x.chunkat(i, k)`, `mma.row.col c, a, b`,
    `mma.row.row.sp c, a, b, e`, `mma.store c, out.chunkat(i, j)`: the words after
    `mma.` (`words`), an optional `<N>` (`config`) and the operands."""
    words: List[str]
    args: List[Node]
    config: Optional[int] = None
    word_locs: List[Any] = field(default_factory=list, repr=False)


@dataclass(eq=False)
class FragDecl(Node):
    """`frag.s32 mc[1][2] {0};`: an array of accumulator fragments filled with a value."""
    elem: Optional[str]
    name: "Name"
    dims: List[Node]
    value: Node


# -- types -------------------------------------------------------------------
@dataclass(eq=False)
class TypeSpec(Node):
    """`int`, `bool`, `float`, `void`, `auto`, or a spanned type `s32 [..]`."""
    kind: str                      # int, bool, float, void, auto, spanned, elem, stream
    name: str                      # spelling, e.g. "int", "double", "s32"
    shape: Optional[Node] = None   # SpanLit for spanned types
    rank: Optional[Node] = None    # `mdspan<N>`: rank only


# -- statements --------------------------------------------------------------
@dataclass(eq=False)
class Block(Node):
    stmts: List[Node]


@dataclass(eq=False)
class Declarator(Node):
    """One name of a data declaration: `x`, `x[2][3]` (an array of buffers), `x{0}` (filled)."""
    name: str
    array: List[Node]
    init: Optional[Node]

    @property
    def ident(self) -> "Name":
        return Name(self.loc, self.name)


@dataclass(eq=False)
class DataDecl(Node):
    storage: Optional[str]
    type: TypeSpec
    names: List[Declarator]


@dataclass(eq=False)
class ScalarDecl(Node):
    type: Optional[TypeSpec]       # None: `mutable a = 3;` takes the initialiser's type
    name: Name
    init: Optional[Node]
    mutable: bool = False


@dataclass(eq=False)
class IfStmt(Node):
    cond: Node
    then: Node
    other: Optional[Node]


@dataclass(eq=False)
class WhileStmt(Node):
    cond: Node
    body: Node


@dataclass(eq=False)
class BreakStmt(Node):
    pass


@dataclass(eq=False)
class ContinueStmt(Node):
    pass


@dataclass(eq=False)
class PrintStmt(Node):
    """`print(...)` / `println(...)` (at run time) and `print!` / `println!` (at compile time)."""
    newline: bool
    static: bool
    args: List[Node]


@dataclass(eq=False)
class SpanDef(Node):
    """`[mdspan[<N>]] name : expr;`"""
    name: Name
    rank: Optional[Node]
    annotated: bool
    value: Node


@dataclass(eq=False)
class TupleDef(Node):
    """`ituple[<N>] name = {..};` (value None: `ituple name;`, an error)."""
    name: Name
    value: Optional[Node]
    rank: Optional[Node] = None


@dataclass(eq=False)
class Assign(Node):
    """`name = expr;`: defines `name` when it is new, else assigns it."""
    name: Name
    value: Node


@dataclass(eq=False)
class ElemAssign(Node):
    """`x.at(i, j) = v;` and `+=`, `-=`, ...: a store into one element of spanned data."""
    target: Node
    op: str
    value: Node


@dataclass(eq=False)
class ExprStmt(Node):
    expr: Node


@dataclass(eq=False)
class CallStmt(Node):
    func: Name
    template_args: Optional[List[Node]]
    args: List[Node]


@dataclass(eq=False)
class WaitStmt(Node):
    futures: List[Node]     # futures (names), events and event elements (`e[1]`)


@dataclass(eq=False)
class EventDecl(Node):
    """`shared event e, f[4][2];`: events of a storage level, single or in arrays."""
    storage: Optional[str]
    names: List[Name]
    dims: List[List[Node]]  # per name: its array dimensions ([] for one event)


@dataclass(eq=False)
class TriggerStmt(Node):
    """`trigger e, f[1];`: sets events (every one of an array or sub-array named)."""
    events: List[Node]


@dataclass(eq=False)
class ReturnStmt(Node):
    value: Optional[Node]


@dataclass(eq=False)
class ParallelStmt(Node):
    """One level of `parallel`: `p by n`, `by n` (no name), `{x, y} by [a, b]` or
    `p = {x, y} by [a, b]`, with an optional level annotation (`: block`, `: group-4`,
    `: group`, `: thread`); `parallel p by 2, q by 4` nests two of them."""
    var: Optional[Name]
    count: Node
    body: Block
    elements: Optional[List[Name]] = None
    anno: Optional[Name] = None
    is_async: bool = False
    async_loc: Any = field(default=None, repr=False)


@dataclass(eq=False)
class InThreadsStmt(Node):
    """`inthreads (pred) BODY`: only the instances where pred holds run the body."""
    cond: Node
    body: Block
    is_async: bool = False


@dataclass(eq=False)
class Binding(Node):
    """One `with` binding: `i in ub`, `{x, y} in ub` or `idx = {x, y} in ub`."""
    name: Optional[Name]
    elements: Optional[List[Name]]
    bounds: Node


@dataclass(eq=False)
class WhereBind(Node):
    left: Name
    right: Name


@dataclass(eq=False)
class WithStmt(Node):
    bindings: List[Binding]
    wheres: List[WhereBind]
    body: Block


@dataclass(eq=False)
class LoopRange(Node):
    """One iteration variable of `foreach`: `y`, or `y(lower:upper:step)` (a range
    expression: start at lower, stop at the bound plus upper, step by step; None where
    a field is left out)."""
    name: Name
    lower: Optional[Node] = None
    upper: Optional[Node] = None
    step: Optional[Node] = None
    ranged: bool = False


@dataclass(eq=False)
class ForeachStmt(Node):
    ranges: List[LoopRange]
    cond: Optional[Node]
    body: Block
    stages: Optional[Node] = None   # `foreach k : pipelined(S)`: S (frontend/pipelined_loops.py)
    refill: str = "start"           # `pipelined(S, end)`: where later steps' copies are issued


@dataclass(eq=False)
class EmptyStmt(Node):
    pass


@dataclass(eq=False)
class Param(Node):
    type: TypeSpec
    name: Name
    storage: Optional[str] = None     # 'global': the caller passes device memory


@dataclass(eq=False)
class CoFunction(Node):
    ret: TypeSpec
    name: Name
    params: List[Param]
    body: Optional[Block]      # None: a prototype (only its head is checked)
    text_range: Any = field(default=None, repr=False)
    made_up_names: Set[str] = field(default_factory=set, repr=False)   # the frontend's, not the user's


def walk(node: Node) -> Iterator[Node]:
    """Pre-order walk of a subtree."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(list(cur.children())))
