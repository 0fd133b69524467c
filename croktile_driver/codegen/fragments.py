"""Tensor-core statements as calls of the runtime's fragment API (croktile_mma.h).

The C++ targets write the same calls: on cuda a fragment is the registers of one warp
in the instruction's layout, on cpu the whole tile; the header says how each is
computed. A chunk reaches the runtime as a pointer to its first element and the
element strides of its two dimensions, so row- and column-major operands, global
and shared data, are one call.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from .. import ir
from ..analysis.memo import per_function
from ..ir.symbolic import Sym
from .cxx import At, elem_ctype
from .rows import RowWriter, row_refs


def frag_type(f: ir.Frag) -> str:
    elem = "uint32_t" if f.role == "e" else elem_ctype(f.elem)
    if f.role == "r":   # a row vector (codegen/rows.py)
        return f"{api(f)}::rowvec<{f.rows}>"
    if f.engine is ir.MmaEngine.WGMMA:   # a warp group's accumulator, or an operand read from shared memory
        if f.role == "c":
            return f"croktile::wgmma::acc<{elem}, {f.rows}, {f.cols}>"
        if f.converted:   # an A operand in registers, converted from an accumulator
            return f"croktile::wgmma::areg<{elem}, {f.rows}, {f.cols}>"
        rows, cols = f.chunk
        return f"croktile::wgmma::tile<{elem}, {rows}, {cols}, {f.loads[0].swizzle}>"
    m, n, k = f.inst
    return f"croktile::mma::frag<{elem}, {f.rows}, {f.cols}, croktile::mma::role::{f.role}, {m}, {n}, {k}>"


def api(f: ir.Frag) -> str:
    """The runtime namespace of a fragment's operations."""
    return "croktile::wgmma" if f.engine is ir.MmaEngine.WGMMA else "croktile::mma"


def is_view(f: ir.Frag) -> bool:
    """A warp group's operand: a view of shared memory, made where it is loaded."""
    return f.engine is ir.MmaEngine.WGMMA and f.role in ("a", "b") and not f.converted


def region_strides(region: ir.Region) -> List[Sym]:
    """Element strides of each dimension of the region's box."""
    if region.strides is not None:
        return list(region.strides)
    out, stride = [], Sym.const(1)
    for d in reversed(region.shape):
        out.insert(0, stride)
        stride = stride * d
    return out


def chunk_access(region: ir.Region, transposed: bool, expr) -> tuple:
    """(first element's offset, s0, s1) of a 2-D chunk (leading dimensions of extent 1 dropped)."""
    s = region_strides(region)[-2:]
    if transposed:
        s = s[::-1]
    return expr(region.flat_start()), expr(s[0]), expr(s[1])


def edge_extents(region: ir.Region, transposed: bool, expr) -> Optional[Tuple[str, str]]:
    """(rows, columns) of a partial 2-D chunk that lie in its data, in the order of
    ``chunk_access``'s strides; None for a whole tile (its loads and stores need no test)."""
    rank = len(region.extents)
    if not (region.crosses(rank - 2) or region.crosses(rank - 1)):
        return None
    rows, cols = expr(region.valid_extent(rank - 2)), expr(region.valid_extent(rank - 1))
    return (cols, rows) if transposed else (rows, cols)


@per_function
def swizzled_buffers(fn: ir.Function) -> Dict[str, int]:
    """Shared buffers that a `.swiz<N>` copy writes: on cuda they hold the N-byte swizzled
    layout, which every tensor-core read of them follows (buffer name -> N)."""
    return {s.dst.buffer.name: s.swizzle for s in ir.walk(fn.body)
            if isinstance(s, ir.Dma) and s.swizzle and s.dst.buffer.storage == "shared"}


def uses_mma(fn: ir.Function) -> bool:
    return bool(fn.frags)


@per_function
def replication(fn: ir.Function) -> Dict[str, ir.Parallel]:
    """Fragments that an inner level (of several instances) uses: on a target that runs
    those instances one after the other in one thread (cpu), each instance needs its own
    copy (on a GPU each warp has its own registers). Maps the fragment's name to that
    level; block_shared.py may split one level into several parts, which keep its
    variable, so copies are indexed by the variable wherever a part of it runs."""
    out: Dict[str, ir.Parallel] = {}

    def visit(stmts: List[ir.Stmt], stack: List[ir.Parallel]):
        for s in stmts:
            inner = next((p for p in stack if p.level == 2), None)
            if inner is not None and not (inner.count.is_const and inner.count.value == 1):
                for ref in refs_of(s, declared=True):
                    if not is_view(ref.frag):   # a view is made where it is used, in the instance
                        out.setdefault(ref.frag.name, inner)
            if isinstance(s, ir.Parallel):
                visit(s.body, stack + [s])
            elif getattr(s, "body", None):
                visit(s.body, stack)
    visit(fn.body, [])
    return out


def declared_in(stmts: List[ir.Stmt]) -> List[ir.Frag]:
    """The fragments whose declaring statement is among these (at any depth), in order."""
    return [s.ref.frag for s in ir.walk(stmts) if isinstance(s, (ir.MmaFill, ir.MmaLoad, ir.FragOp)) and s.declare]


def refs_of(s: ir.Stmt, declared: bool = False) -> List[ir.FragRef]:
    """The fragments a statement uses (and, with `declared`, the one it declares)."""
    if isinstance(s, (ir.MmaFill, ir.MmaLoad, ir.MmaStore, ir.FragUpdate)):
        return [] if getattr(s, "declare", False) and not declared else [s.ref]
    if isinstance(s, ir.MmaMul):
        return [r for r in (s.c, s.a, s.b, s.e) if r is not None]
    if isinstance(s, ir.FragOp):
        return ([] if s.declare and not declared else [s.ref]) + row_refs(s)
    return []


class FragmentWriter(RowWriter):
    """Mixed into a target's statement emitter; it needs `w`, `ptr`, `expr`, `elements`
    and `fn`, and keeps the stack of parallel levels it is inside. Its visitors take `at`
    as every emitter's do, and leave a kernel's barrier state as it was (they return
    None): a kernel emitter that needs a barrier before one overrides it."""

    replicated: Dict[str, ir.Parallel]
    level_stack: List[ir.Parallel]
    index_type = "long long"

    def frag_setup(self, copies: Dict[str, ir.Parallel]) -> None:
        """`copies`: the fragments of which each instance of a level has its own copy
        (replication(), where one thread runs the instances), by name."""
        self.replicated = copies
        self.swizzled = swizzled_buffers(self.fn)
        self.level_stack = []

    def running_instance(self) -> Optional[ir.Parallel]:
        """The inner level whose instance the code now runs: a replicated fragment's copy
        is indexed by its variable (any inner level of the block that uses the fragment
        has as many instances as the one replication() found)."""
        return next((p for p in reversed(self.level_stack) if p.level == 2), None)

    def frag_ref(self, ref: ir.FragRef) -> str:
        f = ref.frag
        text = f.name
        if self.replicated.get(f.name) is not None:
            now = self.running_instance()
            text += f"[{now.var}]" if now is not None else "[0]"
        return text + "".join(f"[{self.expr(i)}]" for i in ref.index)

    def declare_frags(self, stmts: List[ir.Stmt], depth: int) -> None:
        """Every fragment of a launch is declared at its start: the statement that makes
        one may sit in a part of a level that block_shared.py split from the parts that
        use it, and registers live as long as the thread anyway."""
        for f in declared_in(stmts):
            if not is_view(f):
                self.frag_declare(f, depth)

    def frag_declare(self, f: ir.Frag, depth: int) -> None:
        inner = self.replicated.get(f.name)
        dims = ([self.expr(inner.count)] if inner is not None else []) + [str(d) for d in f.dims]
        self.w(depth, f"{frag_type(f)} {f.name}{''.join(f'[{d}]' for d in dims)};")

    def each_fragment(self, ref: ir.FragRef, depth: int, call: Callable[[str], str]) -> None:
        """The statement `call(F)` for each fragment F a declaration names: every element of
        an array, and every instance's copy of a replicated fragment unless the
        declaration runs inside one instance."""
        f = ref.frag
        inner = self.replicated.get(f.name)
        base = f.name
        every = inner is not None
        now = self.running_instance()
        if every and now is not None:
            base, every = f"{f.name}[{now.var}]", False
        count = 1
        for d in f.dims:
            count *= d
        if not every and not f.dims:
            self.w(depth, call(base))
            return
        total = f"{count} * ({self.expr(inner.count)})" if every else str(count)
        first = f"(&{base}{'[0]' * (len(f.dims) + every)})"
        self.w(depth, f"for ({self.index_type} croktile_f = 0; croktile_f < {total}; ++croktile_f) "
                      + call(f"{first}[croktile_f]"))

    def fill_value(self, f: ir.Frag, value) -> str:
        if isinstance(value, ir.EExpr):
            return self.elements().value(value)
        return repr(value) if isinstance(value, int) else str(value)

    def wgmma_async(self) -> bool:
        """Whether a warp group's multiplies are issued without waiting in the kernel's fast
        instance (cuda, where copy-engine loads feed them; the generic instance and the
        portable targets finish each multiply before going on)."""
        return False

    def settle(self, ref: ir.FragRef, depth: int) -> None:
        """A warp group's accumulator is the tensor cores' until its multiplies complete:
        they are issued without waiting (s_MmaMul), so other accesses wait first (and the
        compiler may not move reads of its registers above the wait)."""
        f = ref.frag
        if f.engine is ir.MmaEngine.WGMMA and f.role == "c":
            if ref.index or self.replicated.get(f.name) is not None:
                self.w(depth, "croktile::wgmma::wait<0>();")
            else:
                self.w(depth, f"croktile::wgmma::settle({self.frag_ref(ref)});")

    def s_MmaFill(self, s: ir.MmaFill, at: At) -> None:
        f = s.ref.frag
        if not s.declare:
            self.settle(s.ref, at.depth)
        if s.declare:
            value = self.fill_value(f, s.value)
            self.each_fragment(s.ref, at.depth, lambda frag: f"{api(f)}::fill({frag}, {value});")
        else:
            self.w(at.depth, f"{api(f)}::fill({self.frag_ref(s.ref)}, {self.fill_value(f, s.value)});")

    def s_MmaLoad(self, s: ir.MmaLoad, at: At) -> None:
        off, s0, s1 = chunk_access(s.src, s.transposed, self.expr)
        ptr = self.ptr(s.src.buffer) + ("" if off == "0" else f" + ({off})")
        f = s.ref.frag
        if is_view(f):
            decl = f"{frag_type(f)} " if s.declare else ""
            self.w(at.depth, f"{decl}{self.frag_ref(s.ref)} = croktile::wgmma::smem({ptr});")
            return
        edge = edge_extents(s.src, s.transposed, self.expr)
        if edge is not None:   # a partial tile of global data (never swizzled: sema)
            self.w(at.depth, f"croktile::mma::load_edge({self.frag_ref(s.ref)}, {ptr}, {s0}, {s1}, {edge[0]}, {edge[1]});")
            return
        sw = self.swizzled.get(s.src.buffer.name)
        load = f"load_swizzled<{sw}>" if sw else "load"
        self.w(at.depth, f"croktile::mma::{load}({self.frag_ref(s.ref)}, {ptr}, {s0}, {s1});")

    def s_MmaStore(self, s: ir.MmaStore, at: At) -> None:
        off, s0, s1 = chunk_access(s.dst, False, self.expr)
        ptr = self.ptr(s.dst.buffer) + ("" if off == "0" else f" + ({off})")
        self.settle(s.ref, at.depth)
        edge = edge_extents(s.dst, False, self.expr)
        if edge is not None:
            self.w(at.depth, f"{api(s.ref.frag)}::store_edge({self.frag_ref(s.ref)}, {ptr}, {s0}, {s1}, {edge[0]}, "
                             f"{edge[1]});")
            return
        self.w(at.depth, f"{api(s.ref.frag)}::store({self.frag_ref(s.ref)}, {ptr}, {s0}, {s1});")

    def s_MmaMul(self, s: ir.MmaMul, at: At) -> None:
        depth = at.depth
        c, a, b = (self.frag_ref(r) for r in (s.c, s.a, s.b))
        if s.e is not None:
            self.w(depth, f"croktile::mma::mma_sp({c}, {a}, {b}, {self.frag_ref(s.e)});")
        elif s.c.frag.engine is ir.MmaEngine.WGMMA and self.wgmma_async():
            # issued; completed where the accumulator is next touched (settle) or at a barrier
            mma = "mma_nmajor" if s.layout == "row.col" else "mma"
            self.w(depth, f"if constexpr (CroktileFast) croktile::wgmma::{mma}_async({c}, {a}, {b});")
            self.w(depth, f"else croktile::wgmma::{mma}({c}, {a}, {b});")
        elif s.c.frag.engine is ir.MmaEngine.WGMMA and s.layout == "row.col":
            self.w(depth, f"croktile::wgmma::mma_nmajor({c}, {a}, {b});")
        else:
            self.w(depth, f"{api(s.c.frag)}::mma({c}, {a}, {b});")

    def s_FragUpdate(self, s: ir.FragUpdate, at: At) -> None:
        ctype = elem_ctype(s.ref.frag.elem)
        value = self.elements().value(s.value)
        self.settle(s.ref, at.depth)
        self.w(at.depth, f"{{ const auto croktile_v = {value}; {api(s.ref.frag)}::for_each({self.frag_ref(s.ref)}, "
                         f"[&]({ctype}& x) {{ x = ({ctype})(x {s.op} croktile_v); }}); }}")
