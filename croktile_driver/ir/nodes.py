"""The target-neutral tileflow IR that every code generator reads.

A ``Function`` is host-level statements; ``Parallel`` statements nest launch levels
(level 1 is the launch, level 2 the threads of one instance). Buffers carry their
storage class, element type, symbolic shape and live range; DMA moves a box of one
buffer into a box of another; shapes stay symbolic where the source is, and
``Check`` statements hold what only a runtime test can prove.
"""
from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Iterator, List, Optional

from ..diagnostics import Loc
from .enums import CopyEngine, DmaOp, MmaEngine, RowOp
from .symbolic import Sym
from .dataclass import dataclass

if TYPE_CHECKING:
    from .mma_forms import Form

ELEM_CTYPES = {
    "s8": "int8_t", "s16": "int16_t", "s32": "int32_t", "s64": "int64_t",
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "f16": "croktile::f16", "bf16": "croktile::bf16", "f32": "float", "f64": "double",
}
# The narrow types are runtime storage structs of one byte each (sub-byte values are not
# packed): runtime/croktile_minifloat.h.
NARROW_ELEMS = ("f8_e4m3", "f8_e5m2", "f6_e2m3", "f6_e3m2", "f4_e2m1",
                "s6", "u6", "s4", "u4", "s2", "u2", "u1", "bin1")
ELEM_CTYPES.update({e: f"croktile::{e}" for e in NARROW_ELEMS})
ELEM_BYTES = {"s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
              "s64": 8, "u64": 8, "f64": 8, **{e: 1 for e in NARROW_ELEMS}}
# element types that are structs of the runtime (not C scalar types)
STRUCT_ELEMS = ("f16", "bf16") + NARROW_ELEMS


def _syms(dims: List[Sym]) -> str:
    return "[" + ", ".join(d.to_c() for d in dims) + "]"


@dataclass(eq=False)
class Buffer:
    name: str                 # unique identifier within the function
    elem: str                 # s32, f16, ...
    storage: str              # global, shared, local
    shape: List[Sym]
    level: int                # 0: host level (global data); n: declared inside parallel level n
    loc: Loc
    origin: str               # param, decl, dma
    source_name: str = ""     # the user's name, for messages
    first_use: int = -1       # statement ids of the live range
    last_use: int = -1
    # `select(k, a, b, ...)`: (selector, candidate regions); such a buffer has no storage
    # and never reaches a code generator (sema_dma.expand_aliases rewrites its uses)
    alias: Optional[tuple] = None
    align: int = 16           # bytes; a swizzled shared buffer needs 8 of its rows (cuda)
    # elements the storage holds at most, where the size is known only at run time but a
    # stated bound limits it (analysis/bounds.py): the targets allocate this many statically
    capacity: Optional[int] = None

    @property
    def elem_bytes(self) -> int:
        return ELEM_BYTES[self.elem]

    def describe(self) -> str:
        return f"{self.storage} {self.elem} {_syms(self.shape)} {self.name}"


@dataclass(eq=False)
class Region:
    """A box in a buffer: per dimension an offset and an extent (row-major buffer)."""
    buffer: Buffer
    offsets: List[Sym]
    extents: List[Sym]
    view: Optional[List[Sym]] = None   # `span_as`: the row-major shape the box lies in
    strides: Optional[List[Sym]] = None  # `view(s : strides)`: element (i) is at base + sum(i_d * strides_d)
    base: Optional[Sym] = None
    # a partial tile (`.subspan(s).at(i)` past the end of its data): per dimension, the end
    # of the data it lies in (exclusive, in the coordinates of ``shape``); its elements at or
    # past it read as zeros and are not written (docs/language/spans.md). None: a whole tile.
    limits: Optional[List[Sym]] = None

    @property
    def partial(self) -> bool:
        return self.limits is not None

    def moved(self, offsets: List[Sym], extents: List[Sym]) -> "Region":
        """Another box in the same coordinates (a chunk of this region's view)."""
        return Region(self.buffer, offsets, extents, self.view, self.strides, self.base, self.limits)

    def crosses(self, d: int) -> bool:
        """Whether dimension ``d`` of a partial tile may cross its data's end (not provably inside)."""
        if self.limits is None:
            return False
        room = self.limits[d] - self.offsets[d] - self.extents[d]
        return not (room.is_const and room.value >= 0)

    def inside(self, d: int, index: Sym) -> Sym:
        """Whether element ``index`` of the box's dimension ``d`` lies in the data."""
        return (self.offsets[d] + index).op("<", self.limits[d])

    def valid_extent(self, d: int) -> Sym:
        """How many elements of the box's dimension ``d`` lie in the data: its extent for a
        whole tile (at least 1 for a partial one, which starts inside its data)."""
        if not self.crosses(d):
            return self.extents[d]
        room = self.limits[d] - self.offsets[d]
        return room.op("<", self.extents[d]).op("?:", room, self.extents[d])

    def flat_start(self) -> Sym:
        """The element offset of the box's first element in its buffer."""
        if self.strides is not None:
            total = self.base
            for o, s in zip(self.offsets, self.strides):
                total = total + o * s
            return total
        total, stride = Sym.const(0), Sym.const(1)
        for o, d in zip(reversed(self.offsets), reversed(self.shape)):
            total = total + o * stride
            stride = stride * d
        return total

    @property
    def shape(self) -> List[Sym]:
        """The row-major shape that offsets and extents refer to: the buffer's, or a view's."""
        return self.buffer.shape if self.view is None else self.view

    @property
    def is_whole(self) -> bool:
        return self.view is None and self.strides is None and all(o.is_const and o.value == 0 for o in self.offsets) and \
            all(e == d for e, d in zip(self.extents, self.buffer.shape))

    def describe(self) -> str:
        if self.is_whole:
            return self.buffer.name
        view = f", view={_syms(self.view)}" if self.view is not None else ""
        if self.strides is not None:
            view += f", base={self.base.to_c()}, strides={_syms(self.strides)}"
        edge = ", partial" if self.partial else ""
        return f"{self.buffer.name}{{off={_syms(self.offsets)}, ext={_syms(self.extents)}{view}{edge}}}"


@dataclass(eq=False)
class Stmt:
    loc: Loc
    sid: int = field(default=-1, init=False)


@dataclass(eq=False)
class Parallel(Stmt):
    var: str
    count: Sym
    level: int
    body: List[Stmt]
    buffers: List[Buffer] = field(default_factory=list)
    kind: Optional[str] = None   # level annotation: block, group-4, group, thread (levels.py)


@dataclass(eq=False)
class Loop(Stmt):
    """`for (var = start; var < count; var += step)`: `count` is the exclusive end."""
    var: str
    count: Sym
    body: List[Stmt]
    start: Sym = field(default_factory=lambda: Sym.const(0))
    step: Sym = field(default_factory=lambda: Sym.const(1))

    @property
    def may_skip(self) -> bool:
        """Whether the body may run no time at all (a range that starts past 0)."""
        return not (self.start.is_const and self.start.value == 0)


@dataclass(eq=False)
class If(Stmt):
    cond: Sym
    body: List[Stmt]


@dataclass(eq=False)
class InThreads(If):
    """`inthreads[.async] (pred)`: a branch on the instance indices, generated as an If;
    nothing waits at its end on any target, so `.async` changes nothing yet."""
    is_async: bool = False


@dataclass(eq=False)
class Break(Stmt):
    """Leaves the innermost `foreach` loop (never crosses a `parallel`)."""


@dataclass(eq=False)
class Continue(Stmt):
    """Goes on with the next iteration of the innermost `foreach` loop."""


@dataclass(eq=False)
class PrintItem:
    kind: str                  # text (a C string literal as written), int, bool, float
    text: str = ""
    value: Optional[Sym] = None
    expr: Optional["EExpr"] = None   # float: the floating-point value (printed as C's "%f")


@dataclass(eq=False)
class Print(Stmt):
    """`print(...)` / `println(...)`: written to stdout when it runs (inside `parallel`, by
    each instance of the innermost level; beside an inner level, by its thread 0)."""
    items: List[PrintItem]
    newline: bool


@dataclass(eq=False)
class ScalarDef(Stmt):
    """A scalar variable. `ctype` is what it is computed in: int and bool (held as the
    target's 64-bit integer and bool), float or double. A run-time floating-point value
    (`expr`, an element expression) replaces `value`; `elem` is the declared storage type
    when it is narrower than `ctype` (f16, bf16, s8, u16, ...): the value is rounded or
    wrapped to it (scalars.py)."""
    name: str
    ctype: str               # int, bool, float, double
    value: Optional[Sym]
    expr: Optional["EExpr"] = None
    elem: Optional[str] = None


@dataclass(eq=False)
class Assign(Stmt):
    """`name = value` (or `expr`, converted to `ctype` through `elem` as ScalarDef's)."""
    name: str
    value: Optional[Sym]
    expr: Optional["EExpr"] = None
    ctype: str = "int"
    elem: Optional[str] = None


@dataclass(eq=False)
class Alloc(Stmt):
    """A buffer comes into scope here, its elements unset (analysis/fills.py adds the
    zero ``Fill`` that declared data needs where it may be read unwritten)."""
    buffer: Buffer


@dataclass(eq=False)
class Fill(Stmt):
    """`local s32 [8] t{-1};`: every element of a new buffer takes one value (``implicit``:
    the zeros of declared data that may be read before it is written, analysis/fills.py)."""
    buffer: Buffer
    value: object                      # an int or a float, converted as C converts it
    implicit: bool = False


@dataclass(eq=False)
class Dma(Stmt):
    src: Region
    dst: Region
    is_async: bool
    future: Optional[str]
    op: DmaOp = DmaOp.COPY                 # TRANSP, PAD: the destination is the source rearranged
    perm: Optional[List[int]] = None       # transp: destination dimension i is source dimension perm[i]
    pad: Optional[tuple] = None            # pad: (low, high, mid: List[Sym], value: Sym or float text)
    swizzle: int = 0                       # `.swiz<N>`: the destination in N-byte swizzled rows (cuda)
    engine: CopyEngine = CopyEngine.DMA    # TMA: `tma.copy`

    def __post_init__(self) -> None:
        self.op, self.engine = DmaOp(self.op), CopyEngine(self.engine)   # the frontend's words

    @property
    def element_wise(self) -> bool:
        """Whether the copy is written as element loops (codegen/dma_loops.py) rather than
        box copies: a transpose, a pad, or a copy from or to a partial tile."""
        return self.op is not DmaOp.COPY or self.src.partial or self.dst.partial


@dataclass(eq=False)
class Frag:
    """A tensor-core fragment: a tile held in registers by the threads of one warp (or
    warp group, ``engine is MmaEngine.WGMMA``). Sema learns its role, shape and instruction from
    the `mma` operations that use it, after the statements that declare it were made,
    so the code generators read these fields only once the whole function is checked."""
    name: str
    elem: Optional[str]               # element type (None until an mma names it)
    level: int                        # the parallel level that declares it
    loc: Loc
    role: Optional[str] = None        # "a" (M x K), "b" (K x N), "c" (M x N), "e" (sparse metadata)
    rows: Optional[int] = None        # the logical tile: rows x cols for its role
    cols: Optional[int] = None
    inst: Optional[tuple] = None      # (m, n, k) of the chosen instruction
    sparse: bool = False
    engine: MmaEngine = MmaEngine.SYNC   # SYNC: mma.sync per warp; WGMMA: a warp group
    dims: List[int] = field(default_factory=list)   # `frag mc[2][4]`: an array of fragments
    chunk: Optional[tuple] = None     # the loaded chunk's (rows, cols) in memory order
    loads: List["MmaLoad"] = field(default_factory=list, repr=False)
    converted: bool = False           # an A operand made by `mma.cvt` from an accumulator's registers
    of: Optional["Frag"] = None       # a row vector (role "r"): the accumulator whose rows it holds

    def __setattr__(self, name: str, value) -> None:
        # sema sets the engine once an mma names it, from the word or the enum
        object.__setattr__(self, name, MmaEngine(value) if name == "engine" else value)

    def describe(self) -> str:
        shape = f"[{self.rows}, {self.cols}]" if self.rows is not None else "[?]"
        inst = "m{}n{}k{}".format(*self.inst) if self.inst else "?"
        arr = "".join(f"[{d}]" for d in self.dims)
        return f"frag.{self.role or '?'} {self.elem or '?'} {shape} {self.name}{arr} ({self.engine} {inst})"


@dataclass(eq=False)
class FragRef:
    """One fragment, or one element of a fragment array (`mc[0][i]`)."""
    frag: Frag
    index: List[Sym] = field(default_factory=list)

    def describe(self) -> str:
        return self.frag.name + "".join(f"[{i.to_c()}]" for i in self.index)


@dataclass(eq=False)
class MmaFill(Stmt):
    """A fragment (every element of a fragment array) takes one value; ``declare``: it
    comes into scope here."""
    ref: FragRef
    value: object                     # an int or float constant, or an EExpr
    declare: bool = False


@dataclass(eq=False)
class MmaLoad(Stmt):
    """`x = mma.load chunk`: element (i, j) of the fragment's chunk-shaped tile is read;
    ``transposed`` (decided by the mma that uses it) swaps the chunk's two dimensions."""
    ref: FragRef
    src: Region
    declare: bool = False
    swizzle: int = 0
    transposed: bool = False


@dataclass(eq=False)
class MmaStore(Stmt):
    ref: FragRef
    dst: Region


@dataclass(eq=False)
class MmaMul(Stmt):
    """`mma.row.col c, a, b` (c += a * b); `e` is the metadata of a sparse `a`."""
    c: FragRef
    a: FragRef
    b: FragRef
    layout: str                       # "row.col", "row.row", ...
    e: Optional[FragRef] = None
    form: Optional["Form"] = None     # a warp's instruction (mma_forms.py; sema checked that one exists);
                                      # None for a warp group's (wgmma: the accumulator's inst)


@dataclass(eq=False)
class FragUpdate(Stmt):
    """`mc += bias;`: every element of the fragment combined with a value."""
    ref: FragRef
    op: str                           # "+", "-", "*", "/"
    value: "EExpr"


@dataclass(eq=False)
class FragOp(Stmt):
    """A row operation (frontend/sema/mma/rows.py): `op` on the accumulator or row vector `ref`
    with `args` (fragment refs, row vectors, and values: constants or EExprs):
    "fill" r = v; "max" r = max(r, row max of x); "sum" r += row sum of x; "scale" /
    "div" x *= / /= v per row; "exp" x = exp(scale * (x - m)) per row; "causal" elements
    above the diagonal (column > row, with offsets) = -inf; "cols" the columns from n on = -inf;
    "cvt" ref = x as an A operand."""
    op: RowOp
    ref: FragRef
    args: list
    declare: bool = False

    def __post_init__(self) -> None:
        self.op = RowOp(self.op)   # the frontend's word


@dataclass(eq=False)
class Swap(Stmt):
    """Two buffers exchange their storage: what was in `a` is now reached through `b`."""
    a: Buffer
    b: Buffer


@dataclass(eq=False)
class Wait(Stmt):
    futures: List[str]


@dataclass(eq=False)
class Event:
    """An event or array of events (events.md): one flag per element, per instance of the
    level it is declared at (`level` 0: a global event, one for the whole call)."""
    name: str                 # unique within the function
    source_name: str
    storage: str              # global, shared, local
    dims: List[int]           # [] for one event
    level: int
    loc: Loc

    @property
    def count(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n


@dataclass(eq=False)
class EventRef:
    """`e`, `e[i]`, `e[i][j]`: the `count` consecutive flags from flat element `first`."""
    event: Event
    index: List[Sym] = field(default_factory=list)
    loc: Optional[Loc] = None   # where it is written (a diagnostic about one of several)

    def first(self) -> Sym:
        total = Sym.const(0)
        for i, d in enumerate(self.event.dims):
            total = total * Sym.const(d) + (self.index[i] if i < len(self.index) else Sym.const(0))
        return total

    @property
    def count(self) -> int:
        n = 1
        for d in self.event.dims[len(self.index):]:
            n *= d
        return n

    def text(self) -> str:
        return self.event.source_name + "".join(f"[{i.to_c()}]" for i in self.index)


@dataclass(eq=False)
class EventDecl(Stmt):
    """Its flags, unset, for each instance of its level."""
    event: Event


@dataclass(eq=False)
class Trigger(Stmt):
    """Sets each referenced flag."""
    events: List[EventRef]


@dataclass(eq=False)
class EventWait(Stmt):
    """Blocks until each referenced flag is set, then unsets it (a wait consumes)."""
    events: List[EventRef]


@dataclass(eq=False)
class CallArg:
    kind: str                              # data, int, bool, float, stream
    region: Optional[Region] = None        # data: pointer to the region's first element
    value: Optional[Sym] = None            # int / bool
    text: Optional[str] = None             # float: a literal or a parameter name
    expr: Optional["EExpr"] = None         # float: a value computed in tileflow code (instead of text)


@dataclass(eq=False)
class Call(Stmt):
    func: str
    template_args: Optional[List[Sym]]
    args: List[CallArg]
    result: Optional[str] = None           # `mutable int a = call f(...);`: the scalar that takes its value
    result_ctype: str = "int"              # ... and what it is computed in (int, bool, float, double)


# -- element values: what `x.at(i)` reads and computes (issue #13) -----------------------
# A value computed at run time from data elements and floating-point numbers, which a
# symbolic integer (Sym) cannot hold. Each node has a computation type `ctype`: 'bool',
# 'int', 'uint', 'long', 'ulong', 'float' or 'double' (C's usual arithmetic conversions
# decide it; the storage types f16, bf16, f8..f4 are computed as float, the narrow
# integers as int); generators spell it in the target's C dialect (codegen/element_writer.py).
ELEM_COMPUTE = {"s8": "int", "s16": "int", "s32": "int", "u8": "int", "u16": "int", "u32": "uint",
                "s64": "long", "u64": "ulong", "f16": "float", "bf16": "float", "f32": "float",
                "f64": "double"}


def elem_compute(elem: str) -> str:
    """The type an element of `elem` is computed in (the narrow types: by their name)."""
    if elem in ELEM_COMPUTE:
        return ELEM_COMPUTE[elem]
    return "float" if elem.startswith(("f", "bf", "tf")) else "int"


@dataclass(eq=False)
class EExpr:
    ctype: str


@dataclass(eq=False)
class ERead(EExpr):
    """One element: `buffer` at per-dimension `index` (absolute in the buffer, or in the
    row-major `view` a `span_as` gives it)."""
    buffer: Buffer
    index: List[Sym]
    view: Optional[List[Sym]] = None

    @property
    def shape(self) -> List[Sym]:
        return self.buffer.shape if self.view is None else self.view


@dataclass(eq=False)
class EInt(EExpr):
    """A tileflow integer or boolean (a symbolic value) inside an element expression."""
    value: Sym


@dataclass(eq=False)
class ENum(EExpr):
    """A floating-point literal, as written without its suffix (computed as float)."""
    text: str


@dataclass(eq=False)
class EVar(EExpr):
    """A named floating-point value: a parameter (`decl`: its C type, e.g. double)."""
    name: str
    decl: str = "float"


@dataclass(eq=False)
class EUn(EExpr):
    op: str
    operand: EExpr


@dataclass(eq=False)
class EBin(EExpr):
    op: str
    left: EExpr
    right: EExpr


@dataclass(eq=False)
class ECond(EExpr):
    cond: EExpr
    then: EExpr
    other: EExpr


def e_children(e: EExpr) -> List[EExpr]:
    if isinstance(e, EUn):
        return [e.operand]
    if isinstance(e, EBin):
        return [e.left, e.right]
    if isinstance(e, ECond):
        return [e.cond, e.then, e.other]
    return []


def e_walk(e: EExpr) -> Iterator[EExpr]:
    stack = [e]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(e_children(cur))


@dataclass(eq=False)
class Store(Stmt):
    """`x.at(i) = value`: one element of `buffer` (compound assignments are lowered to a
    read in `value`); the value converts to the element type."""
    buffer: Buffer
    index: List[Sym]
    value: EExpr
    view: Optional[List[Sym]] = None   # as ERead's

    @property
    def shape(self) -> List[Sym]:
        return self.buffer.shape if self.view is None else self.view

    def reads(self) -> List[ERead]:
        return [e for e in e_walk(self.value) if isinstance(e, ERead)]

    def syms(self) -> List[Sym]:
        out = list(self.index)
        for e in e_walk(self.value):
            if isinstance(e, ERead):
                out += e.index
            elif isinstance(e, EInt):
                out.append(e.value)
        return out


def stmt_eexprs(s: Stmt) -> List[EExpr]:
    """The element expressions a statement computes (reads of data, floating-point values)."""
    if isinstance(s, Store):
        return [s.value]
    if isinstance(s, (ScalarDef, Assign)):
        return [s.expr] if s.expr is not None else []
    if isinstance(s, Print):
        return [i.expr for i in s.items if i.expr is not None]
    if isinstance(s, Call):
        return [a.expr for a in s.args if a.expr is not None]
    if isinstance(s, Return) and s.expr is not None:
        return [s.expr]
    if isinstance(s, FragUpdate) or (isinstance(s, MmaFill) and isinstance(s.value, EExpr)):
        return [s.value]
    if isinstance(s, FragOp):
        return [a for a in s.args if isinstance(a, EExpr)]
    return []


def stmt_reads(s: Stmt) -> List[ERead]:
    """The data elements a statement's element expressions read."""
    return [e for x in stmt_eexprs(s) for e in e_walk(x) if isinstance(e, ERead)]


def stmt_writes(s: Stmt) -> List[Buffer]:
    """The buffers a statement may write (a call: any buffer it is handed)."""
    if isinstance(s, Dma):
        return [s.dst.buffer]
    if isinstance(s, (Store, Fill)):
        return [s.buffer]
    if isinstance(s, MmaStore):
        return [s.dst.buffer]
    if isinstance(s, Swap):
        return [s.a, s.b]
    if isinstance(s, Call):
        return [a.region.buffer for a in s.args if a.region is not None]
    return []


def e_text(e: EExpr) -> str:
    """An element expression for --dump-ir."""
    if isinstance(e, ERead):
        return f"{e.buffer.name}[{', '.join(i.to_c() for i in e.index)}]"
    if isinstance(e, EInt):
        return e.value.to_c()
    if isinstance(e, ENum):
        return e.text
    if isinstance(e, EVar):
        return e.name
    if isinstance(e, EUn):
        return f"({e.op}{e_text(e.operand)})"
    if isinstance(e, EBin):
        return f"({e_text(e.left)} {e.op} {e_text(e.right)})"
    return f"({e_text(e.cond)} ? {e_text(e.then)} : {e_text(e.other)})"


@dataclass(eq=False)
class Return(Stmt):
    buffer: Optional[Buffer] = None
    value: Optional[Sym] = None
    expr: Optional[EExpr] = None           # a floating-point value (the function returns float or double)


@dataclass(eq=False)
class Check(Stmt):
    """A runtime check: ``cond`` must hold, else ``message`` with ``values`` filled in."""
    cond: Sym
    message: str                           # with {0}, {1}, ... for values
    values: List[Sym] = field(default_factory=list)


@dataclass(eq=False)
class Param:
    name: str
    kind: str                              # data, int, bool, float
    loc: Loc
    elem: Optional[str] = None
    rank: int = 0
    buffer: Optional[Buffer] = None
    ctype: Optional[str] = None            # float parameters: the host's C++ type (float, croktile::f16, ...)
    compute: Optional[str] = None          # ... and what kernels take it as (float, double)
    device: bool = False                   # declared 'global': the host form's view is device memory


@dataclass(eq=False)
class DimBinding:
    """A symbolic dimension takes its value from a parameter's shape on entry."""
    symbol: str
    param: str
    dim: int


@dataclass(eq=False)
class Function:
    name: str
    loc: Loc
    params: List[Param]
    ret_kind: str                          # void, int, bool, float, double, data
    ret_elem: Optional[str]
    ret_shape: Optional[List[Sym]]
    bindings: List[DimBinding]
    body: List[Stmt]
    buffers: List[Buffer]
    max_level: int = 0
    unsupported: list = field(default_factory=list)   # (loc, message): checked constructs no target generates
    frags: List[Frag] = field(default_factory=list)   # tensor-core fragments
    implicit_fills: list = field(default_factory=list)  # (buffer, fills.NeedsFill): zero fills it needs

    def walk(self) -> Iterator[Stmt]:
        yield from walk(self.body)


def walk(stmts: List[Stmt]) -> Iterator[Stmt]:
    for s in stmts:
        yield s
        body = getattr(s, "body", None)
        if body:
            yield from walk(body)


@dataclass(eq=False)
class Module:
    functions: List[Function]


def number_and_live_ranges(fn: Function) -> None:
    """Numbers statements in execution order and computes each buffer's live range."""
    counter = [0]

    def touch(buf: Buffer, sid: int):
        if buf.first_use < 0:
            buf.first_use = sid
        buf.last_use = max(buf.last_use, sid)

    def visit(stmts: List[Stmt]):
        for s in stmts:
            s.sid = counter[0]
            counter[0] += 1
            if isinstance(s, (Alloc, Fill)):
                touch(s.buffer, s.sid)
            elif isinstance(s, Dma):
                touch(s.src.buffer, s.sid)
                touch(s.dst.buffer, s.sid)
            elif isinstance(s, Call):
                for a in s.args:
                    if a.region is not None:
                        touch(a.region.buffer, s.sid)
            elif isinstance(s, Swap):
                touch(s.a, s.sid)
                touch(s.b, s.sid)
            elif isinstance(s, Store):
                touch(s.buffer, s.sid)
            elif isinstance(s, MmaLoad):
                touch(s.src.buffer, s.sid)
            elif isinstance(s, MmaStore):
                touch(s.dst.buffer, s.sid)
            elif isinstance(s, Return) and s.buffer is not None:
                touch(s.buffer, s.sid)
            for r in stmt_reads(s):
                touch(r.buffer, s.sid)
            body = getattr(s, "body", None)
            if body:
                start = counter[0]
                visit(body)
                if isinstance(s, Loop) or (isinstance(s, Parallel) and s.level >= 2):
                    # a buffer used in a loop body lives across all its iterations; one used
                    # by an inner level across all its instances (they run at once)
                    for b in fn.buffers:
                        if start <= b.first_use < counter[0] or start <= b.last_use < counter[0]:
                            b.first_use = min(b.first_use, s.sid)
                            b.last_use = max(b.last_use, counter[0] - 1)
    visit(fn.body)
    # `swap` exchanges storage: whatever a buffer of a swap group is used for later may be
    # any member's storage, so the members live as long as the group (memory reuse)
    group: dict = {}
    for s in walk(fn.body):
        if isinstance(s, Swap):
            merged = group.get(id(s.a), [s.a]) + [b for b in group.get(id(s.b), [s.b])
                                                  if all(b is not x for x in group.get(id(s.a), [s.a]))]
            for b in merged:
                group[id(b)] = merged
    for members in {id(g): g for g in group.values()}.values():
        used = [b for b in members if b.first_use >= 0]
        if used:
            first, last = min(b.first_use for b in used), max(b.last_use for b in used)
            for b in members:
                b.first_use, b.last_use = first, last


def dump(fn: Function) -> str:
    """A readable listing of the IR, for --dump-ir."""
    out = []
    ps = []
    for p in fn.params:
        if p.kind == "data":
            ps.append(f"{p.elem} {_syms(p.buffer.shape)} {p.name}")
        else:
            ps.append(f"{p.ctype or p.kind} {p.name}")
    ret = fn.ret_kind if fn.ret_kind != "data" else f"{fn.ret_elem} {_syms(fn.ret_shape)}"
    out.append(f"func {fn.name}({', '.join(ps)}) -> {ret}   // {fn.loc}")
    for b in fn.bindings:
        out.append(f"  bind {b.symbol} = {b.param}.shape[{b.dim}]")
    for b in fn.buffers:
        out.append(f"  buffer {b.describe()} level={b.level} live=[{b.first_use},{b.last_use}] ({b.origin})")

    def stmt_lines(stmts: List[Stmt], ind: int):
        pad = "  " * ind
        for s in stmts:
            tag = f"{s.sid:3d}" if s.sid >= 0 else "   "
            if isinstance(s, Parallel):
                anno = f" : {s.kind}" if s.kind else ""
                out.append(f"{tag}{pad}parallel {s.var} by {s.count.to_c()}{anno}  // level {s.level}")
                stmt_lines(s.body, ind + 1)
            elif isinstance(s, Loop):
                step = "" if s.step == Sym.const(1) else f" step {s.step.to_c()}"
                out.append(f"{tag}{pad}for {s.var} in [{s.start.to_c()}, {s.count.to_c()}){step}")
                stmt_lines(s.body, ind + 1)
            elif isinstance(s, If):
                word = ("inthreads.async" if s.is_async else "inthreads") if isinstance(s, InThreads) else "if"
                out.append(f"{tag}{pad}{word} ({s.cond.to_c()})")
                stmt_lines(s.body, ind + 1)
            elif isinstance(s, ScalarDef):
                init = f" = {e_text(s.expr)}" if s.expr is not None else \
                    f" = {s.value.to_c()}" if s.value is not None else ""
                as_elem = f" (as {s.elem})" if s.elem else ""
                out.append(f"{tag}{pad}{s.ctype} {s.name}{init}{as_elem}")
            elif isinstance(s, Assign):
                value = e_text(s.expr) if s.expr is not None else s.value.to_c()
                out.append(f"{tag}{pad}{s.name} = {value}")
            elif isinstance(s, Alloc):
                out.append(f"{tag}{pad}alloc {s.buffer.describe()}")
            elif isinstance(s, Fill):
                why = " (implicit)" if s.implicit else ""
                out.append(f"{tag}{pad}fill {s.buffer.name} with {s.value!r}{why}")
            elif isinstance(s, Dma):
                kind = "dma.copy.async" if s.is_async else "dma.copy"
                fut = f"{s.future} = " if s.future else ""
                out.append(f"{tag}{pad}{fut}{kind} {s.src.describe()} => {s.dst.describe()}")
            elif isinstance(s, MmaFill):
                what = f"frag {s.ref.frag.describe()} = " if s.declare else f"{s.ref.describe()} = "
                out.append(f"{tag}{pad}{what}mma.fill {s.value if not isinstance(s.value, EExpr) else e_text(s.value)}")
            elif isinstance(s, MmaLoad):
                what = f"frag {s.ref.frag.describe()}" if s.declare else s.ref.describe()
                t = ".trans" if s.transposed else ""
                out.append(f"{tag}{pad}{what} = mma.load{t} {s.src.describe()}")
            elif isinstance(s, MmaStore):
                out.append(f"{tag}{pad}mma.store {s.ref.describe()} => {s.dst.describe()}")
            elif isinstance(s, MmaMul):
                sp = f", {s.e.describe()}" if s.e is not None else ""
                out.append(f"{tag}{pad}mma.{s.layout} {s.c.describe()}, {s.a.describe()}, {s.b.describe()}{sp}")
            elif isinstance(s, FragUpdate):
                out.append(f"{tag}{pad}{s.ref.describe()} {s.op}= {e_text(s.value)}")
            elif isinstance(s, Store):
                out.append(f"{tag}{pad}{s.buffer.name}[{', '.join(i.to_c() for i in s.index)}] = {e_text(s.value)}")
            elif isinstance(s, Wait):
                out.append(f"{tag}{pad}wait {', '.join(s.futures)}")
            elif isinstance(s, EventDecl):
                dims = "".join(f"[{d}]" for d in s.event.dims)
                out.append(f"{tag}{pad}{s.event.storage} event {s.event.name}{dims}")
            elif isinstance(s, (Trigger, EventWait)):
                verb = "trigger" if isinstance(s, Trigger) else "wait"
                out.append(f"{tag}{pad}{verb} {', '.join(r.text() for r in s.events)}")
            elif isinstance(s, Swap):
                out.append(f"{tag}{pad}swap {s.a.name}, {s.b.name}")
            elif isinstance(s, Call):
                targs = "" if s.template_args is None else "<" + ", ".join(t.to_c() for t in s.template_args) + ">"
                args = []
                for a in s.args:
                    if a.kind == "data":
                        args.append(f"&{a.region.describe()}")
                    elif a.kind == "float":
                        args.append(a.text if a.expr is None else e_text(a.expr))
                    else:
                        args.append(a.value.to_c())
                res = f"{s.result} = " if s.result else ""
                out.append(f"{tag}{pad}{res}call {s.func}{targs}({', '.join(args)})")
            elif isinstance(s, Return):
                what = s.buffer.name if s.buffer else (s.value.to_c() if s.value is not None else
                                                       e_text(s.expr) if s.expr is not None else "")
                out.append(f"{tag}{pad}return {what}")
            elif isinstance(s, Check):
                out.append(f"{tag}{pad}check {s.cond.to_c()}  // {s.message}")
            elif isinstance(s, (Break, Continue)):
                out.append(f"{tag}{pad}{type(s).__name__.lower()}")
            elif isinstance(s, Print):
                items = ", ".join(i.text if i.kind == "text" else e_text(i.expr) if i.expr is not None
                                  else i.value.to_c() for i in s.items)
                out.append(f"{tag}{pad}{'println' if s.newline else 'print'}({items})")
    stmt_lines(fn.body, 1)
    return "\n".join(out)


# what `from croktile_driver import ir` offers (ir/__init__.py): the nodes and their helpers
__all__ = [
    "CopyEngine", "DmaOp", "MmaEngine", "RowOp",
    "ELEM_CTYPES", "NARROW_ELEMS", "ELEM_BYTES", "STRUCT_ELEMS", "Buffer", "Region", "Stmt",
    "Parallel", "Loop", "If", "InThreads", "Break", "Continue", "PrintItem", "Print",
    "ScalarDef", "Assign", "Alloc", "Fill", "Dma", "Frag", "FragRef", "MmaFill", "MmaLoad",
    "MmaStore", "MmaMul", "FragUpdate", "FragOp", "Swap", "Wait", "Event", "EventRef",
    "EventDecl", "Trigger", "EventWait", "CallArg", "Call", "ELEM_COMPUTE", "elem_compute",
    "EExpr", "ERead", "EInt", "ENum", "EVar", "EUn", "EBin", "ECond", "e_children", "e_walk",
    "Store", "stmt_eexprs", "stmt_reads", "stmt_writes", "e_text", "Return", "Check", "Param",
    "DimBinding", "Function", "walk", "Module", "number_and_live_ranges", "dump",
]
