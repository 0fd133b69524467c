"""opencl target: tensor-core statements (`mma.*`) as OpenCL C loops.

OpenCL C has no templates, so the portable fragments of runtime/croktile_mma.h are
written out here, with the same arithmetic: a fragment is a private array holding the
whole tile (row-major; one copy per inner instance, as on cpu: codegen/fragments.py's FragmentWriter
keeps that book), each element held as a value of its element type in float (double for
f64, int for the integers), rounded to that type where it is set; float a and b operands
are tf32. A multiply sums each instruction's k-slice of exact products in float (double,
or long for integers), adds it to the accumulator and rounds to its type, per
instruction, as the C++ does; contraction into fma is off in those loops, so the sums
round alike. A warp group's operands (wgmma) are pointers into shared memory, read
where they are multiplied (float ones truncated to tf32, as wgmma reads them).

Outer-level statements of a group kernel run on every work-item (each has its own
fragments), except a store into memory, which work-item 0 does.
"""
from __future__ import annotations

from typing import Dict, Optional, Set, Tuple

from ... import ir
from ...analysis.barriers import COOPERATIVE, MASKED, State
from ...analysis.memo import per_function
from ...codegen.element_writer import BITS16
from ...codegen.cxx import At
from ...codegen.kernel_emitter import dev_expr
from ...codegen.fragments import (
    FragmentWriter,
    chunk_access,
    declared_in,
    edge_extents,
    is_view,
    refs_of,
    replication,
    uses_mma,
)

# The narrow integers and their OpenCL C types (a value wraps to them).
INT_TYPES = {"s8": "char", "u8": "unsigned char", "s16": "short", "u16": "unsigned short", "s32": "int",
             "u32": "unsigned int"}

# Added to the device program of a module that uses tensor-core statements.
PRELUDE = r"""// tensor-core fragments (targets/opencl/mma.py): a float operand as tf32, rounded to
// nearest with ties away from zero as cvt.rna.tf32.f32 does (runtime/croktile_mma_warp.h)
static inline float croktile_round_tf32(float x) {
  unsigned int u = as_uint(x);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return as_float(u);
}
"""


def private_copies(fn: ir.Function, one_each=()) -> Dict[str, ir.Parallel]:
    """The fragments that each instance of an inner level needs a copy of (as on cpu,
    codegen/fragments.py's replication), less those that live inside one instance: declared and used
    only in one part of the level, they are set before they are read each time a
    work-item runs an instance of it; and less those whose every level is in `one_each`
    (a work-item per instance: its private copy is the instance's)."""
    out = dict(replication(fn))
    parts = _parts_using(fn)
    exact = {id(p) for p in one_each}
    for name in list(out):
        using = [k for k in parts.get(name, ()) if k is not None]
        if using and all(k in exact for k in using):
            del out[name]
    for name, using in parts.items():
        if len(using) == 1 and None not in using and name in _declared_in_parts(fn):
            out.pop(name, None)
    return out


@per_function
def _parts_using(fn: ir.Function) -> Dict[str, Set[Optional[int]]]:
    """Each fragment's name -> the ids of the level-2 `parallel`s (parts of levels) whose
    statements use or declare it, None for statements outside every one. One walk of the
    function (a walk of it for each part, and for each kernel, was O(n^2) and more)."""
    out: Dict[str, Set[Optional[int]]] = {}

    def visit(stmts, part: Optional[int]) -> None:
        for s in stmts:
            for r in refs_of(s, declared=True):
                out.setdefault(r.frag.name, set()).add(part)
            if getattr(s, "body", None):
                visit(s.body, id(s) if isinstance(s, ir.Parallel) and s.level == 2 else part)
    visit(fn.body, None)
    return out


@per_function
def _declared_in_parts(fn: ir.Function) -> Set[str]:
    """The fragments declared inside a level-2 `parallel`."""
    return {f.name for p in ir.walk(fn.body) if isinstance(p, ir.Parallel) and p.level == 2
            for f in declared_in(p.body)}


def check_opencl_mma(module: ir.Module, diag) -> None:
    """Fragments that fit private arrays: a copy per instance of an inner level needs a
    constant count of them (sema checked that an instruction computes each multiply)."""
    for fn in module.functions:
        first = next((s for s in ir.walk(fn.body) if isinstance(s, ir.FragOp)), None)
        if first is not None:   # (one error per function: the others would say the same)
            diag.error(first.loc, "on target 'opencl' the row operations (mma.row.*, mma.exp, mma.mask.causal, "
                                  "mma.cvt) are not supported yet; the cpu, factor and cuda targets run them")
        frags = {f.name: f for f in fn.frags}
        for name, inner in private_copies(fn).items():
            if not inner.count.is_const:
                f = frags[name]
                diag.error(f.loc, f"on target 'opencl' fragment '{f.name}' needs a copy for each instance of "
                                  f"'{inner.var}', so their count must be a constant")


def needs_prelude(module: ir.Module) -> bool:
    return any(uses_mma(fn) for fn in module.functions)


def value_type(f: ir.Frag) -> str:
    """The OpenCL C type a fragment's elements are held in."""
    if f.role == "e" or f.elem == "u32":
        return "unsigned int"
    if f.elem == "f64":
        return "double"
    return "int" if f.elem in INT_TYPES else "float"


def sum_type(elem: str) -> str:
    """The type one instruction sums its k-slice in (croktile_mma_warp.h, sum_t)."""
    return "long" if elem in INT_TYPES else "double" if elem == "f64" else "float"


def rounded(f: ir.Frag, text: str, tf32: bool = True) -> str:
    """`text` as the fragment holds it: rounded to its element type (tf32 for a float
    operand where it is loaded or filled), in its value type."""
    elem = f.elem
    if f.role == "e":
        return f"(unsigned int)({text})"
    if elem == "f64":
        return f"(double)({text})"
    if elem == "f32":
        return f"croktile_round_tf32((float)({text}))" if tf32 and f.role in ("a", "b") else f"(float)({text})"
    if elem in INT_TYPES:
        return f"({value_type(f)})({INT_TYPES[elem]})({text})"
    return f"croktile_{elem}_to_float(croktile_float_to_{elem}((float)({text})))"


def stored_value(elem: str, lvalue: str) -> str:
    """An element of memory (16- and 8-bit floats are bits there) as a number."""
    if elem in BITS16 or (elem in ir.NARROW_ELEMS and ir.elem_compute(elem) == "float"):
        return f"croktile_{elem}_to_float({lvalue})"
    return lvalue


def storage(elem: str, ctype: str, text: str) -> str:
    """A number as an element of memory of `elem` (its OpenCL C type `ctype`)."""
    if elem in BITS16 or (elem in ir.NARROW_ELEMS and ir.elem_compute(elem) == "float"):
        return f"croktile_float_to_{elem}((float)({text}))"
    return f"({ctype})({text})"


class OpenclFragments(FragmentWriter):
    """Mixed into the opencl kernel emitter (which gives `w`, `ptr`, `ctype`, `qual`,
    `outer`, `before`, `elements`, `diag`); statements take and return its barrier state."""

    expr = staticmethod(dev_expr)

    def frag_declare(self, f: ir.Frag, depth: int) -> None:
        inner = self.replicated.get(f.name)
        dims = [str(d) for d in f.dims]
        if inner is not None:   # (a constant: check_opencl_mma)
            dims.insert(0, str(inner.count.value))
        self.w(depth, f"{value_type(f)} {f.name}{''.join(f'[{d}]' for d in dims)}[{f.rows * f.cols}];")

    def elements_loop(self, f: ir.Frag, body: str) -> str:
        """`body` for each element `croktile_x` of a fragment, row `croktile_i`, column `croktile_j`."""
        return (f"for (int croktile_i = 0; croktile_i < {f.rows}; ++croktile_i) "
                f"for (int croktile_j = 0; croktile_j < {f.cols}; ++croktile_j) "
                f"{{ const int croktile_x = croktile_i * {f.cols} + croktile_j; {body} }}")

    # -- statements ------------------------------------------------------------------
    def s_MmaFill(self, s: ir.MmaFill, at: At) -> None:
        f = s.ref.frag
        value = rounded(f, self.fill_value(f, s.value))

        def fill(frag: str) -> str:
            return (f"{{ const {value_type(f)} croktile_v = {value}; for (int croktile_x = 0; "
                    f"croktile_x < {f.rows * f.cols}; ++croktile_x) {frag}[croktile_x] = croktile_v; }}")
        if s.declare:
            self.each_fragment(s.ref, at.depth, fill)
        else:
            self.w(at.depth, fill(self.frag_ref(s.ref)))

    def s_MmaLoad(self, s: ir.MmaLoad, at: At) -> Optional[State]:
        depth, state = at.depth, None
        if self.outer(at.level):   # every work-item reads: after what others wrote
            state = self.before(at, COOPERATIVE)
        off, s0, s1 = chunk_access(s.src, s.transposed, self.expr)
        buf = s.src.buffer
        ptr = self.ptr(buf) + ("" if off == "0" else f" + ({off})")
        f = s.ref.frag
        name = self.frag_ref(s.ref)
        if is_view(f):
            decl = (f"{self.qual(buf)} const {self.ctype(buf)}* ", "long ") if s.declare else ("", "")
            self.w(depth, f"{decl[0]}{name} = {ptr}; {decl[1]}{name}__s0 = {s0}, {name}__s1 = {s1};")
            return state
        element = f"croktile_p[croktile_i * ({s0}) + croktile_j * ({s1})]"
        edge = edge_extents(s.src, s.transposed, self.expr)
        if edge is not None:   # a partial tile: zeros past its data
            element = f"(croktile_i < ({edge[0]}) && croktile_j < ({edge[1]}) ? {element} : 0)"
        self.w(depth, f"{{ {self.qual(buf)} const {self.ctype(buf)}* croktile_p = {ptr}; "
                      + self.elements_loop(f, f"{name}[croktile_x] = {rounded(f, stored_value(buf.elem, element))};")
                      + " }")
        return state

    def s_MmaStore(self, s: ir.MmaStore, at: At) -> Optional[State]:
        depth, state = at.depth, None
        off, s0, s1 = chunk_access(s.dst, False, self.expr)
        buf = s.dst.buffer
        ptr = self.ptr(buf) + ("" if off == "0" else f" + ({off})")
        f = s.ref.frag
        name = self.frag_ref(s.ref)
        guard = ""
        if self.outer(at.level):   # one work-item writes (all hold the same fragment)
            state = self.before(at, MASKED)
            guard = "if (croktile_lid == 0) "
        element = "croktile_p[croktile_i * ({}) + croktile_j * ({})]".format(s0, s1)
        value = storage(buf.elem, self.ctype(buf), name + '[croktile_x]')
        edge = edge_extents(s.dst, False, self.expr)
        inside = "" if edge is None else f"if (croktile_i < ({edge[0]}) && croktile_j < ({edge[1]})) "
        self.w(depth, f"{guard}{{ {self.qual(buf)} {self.ctype(buf)}* croktile_p = {ptr}; "
                      + self.elements_loop(f, f"{inside}{element} = {value};") + " }")
        return state

    def s_FragUpdate(self, s: ir.FragUpdate, at: At) -> None:
        f = s.ref.frag
        value = self.elements().value(s.value)
        name = self.frag_ref(s.ref)
        self.w(at.depth, f"{{ for (int croktile_x = 0; croktile_x < {f.rows * f.cols}; ++croktile_x) "
                         f"{name}[croktile_x] = {rounded(f, f'{name}[croktile_x] {s.op} {value}', tf32=False)}; }}")

    def s_MmaMul(self, s: ir.MmaMul, at: At) -> None:
        depth = at.depth
        c = s.c.frag
        if c.engine is ir.MmaEngine.WGMMA:
            k, product = self.wgmma_product(s)
        else:
            k, product = self.mma_product(s)
        acc = f"{self.frag_ref(s.c)}[croktile_i * {c.cols} + croktile_j]"
        S = sum_type(c.elem)
        if S == "long":
            add = f"(int)(unsigned int)((long){acc} + croktile_s)"
        else:
            add = rounded(c, f"({S}){acc} + croktile_s")
        self.w(depth, "{")
        if S != "long":
            self.w(depth + 1, "#pragma OPENCL FP_CONTRACT OFF")
        self.w(depth + 1, f"for (int croktile_i = 0; croktile_i < {c.rows}; ++croktile_i) "
                          f"for (int croktile_j = 0; croktile_j < {c.cols}; ++croktile_j) "
                          f"for (int croktile_k0 = 0; croktile_k0 < {k[0]}; croktile_k0 += {k[1]}) {{")
        self.w(depth + 2, f"{S} croktile_s = 0;")
        self.w(depth + 2, f"for (int croktile_k = croktile_k0; croktile_k < croktile_k0 + {k[1]}; ++croktile_k) "
                          f"{{ {product} }}")
        self.w(depth + 2, f"{acc} = {add};")
        self.w(depth + 1, "}")
        self.w(depth, "}")

    def mma_product(self, s: ir.MmaMul) -> Tuple[Tuple[int, int], str]:
        """(K, instruction k) and the statement adding a(i, k) * b(k, j) to croktile_s."""
        a, b, c = s.a.frag, s.b.frag, s.c.frag
        S = sum_type(c.elem)
        ik = c.inst[2]
        bk = f"({S}){self.frag_ref(s.b)}[croktile_k * {b.cols} + croktile_j]"
        if s.e is None:
            ak = f"({S}){self.frag_ref(s.a)}[croktile_i * {a.cols} + croktile_k]"
            return (b.rows, ik), f"croktile_s += {ak} * {bk};"
        # 2:4 sparse: a holds the kept 2 of each group of 4 along k; the metadata (2 bits
        # each, `words` u32 per row and instruction) says which (croktile_mma_warp_portable.h)
        words = ik // 32 if ik >= 64 else 1
        e = s.e.frag
        ak = (f"const int croktile_ki = croktile_k / {ik}, croktile_kk = croktile_k % {ik}, "
              f"croktile_g = croktile_kk / 4; {S} croktile_a = 0; "
              f"for (int croktile_h = 0; croktile_h < 2; ++croktile_h) {{ "
              f"const int croktile_bit = 4 * croktile_g + 2 * croktile_h; "
              f"const unsigned int croktile_w = {self.frag_ref(s.e)}[croktile_i * {e.cols} + croktile_ki * {words} "
              f"+ croktile_bit / 32]; "
              f"if (4 * croktile_g + (int)((croktile_w >> (croktile_bit % 32)) & 3u) == croktile_kk) "
              f"croktile_a += ({S}){self.frag_ref(s.a)}[croktile_i * {a.cols} + croktile_ki * {ik // 2} "
              f"+ 2 * croktile_g + croktile_h]; }} ")
        return (b.rows, ik), ak + f"croktile_s += croktile_a * {bk};"

    def wgmma_product(self, s: ir.MmaMul) -> Tuple[Tuple[int, int], str]:
        """A warp group's: a and b are views of memory, whose strides (s0, s1) step along
        (m, k) and (k, n) whatever the layout (the load of b swapped them where it is N x K)."""
        a, b, c = s.a.frag, s.b.frag, s.c.frag
        S = sum_type(c.elem)
        A, B = self.frag_ref(s.a), self.frag_ref(s.b)

        def operand(frag: ir.Frag, ref: str, i: str, k: str) -> str:
            x = stored_value(frag.elem, f"{ref}[{i} * {ref}__s0 + {k} * {ref}__s1]")
            if frag.elem == "f32":   # tf32 as wgmma reads it: the low 13 mantissa bits ignored
                x = f"as_float(as_uint({x}) & 0xffffe000u)"
            return f"({S}){x}"
        a_ik, b_kj = operand(a, A, "croktile_i", "croktile_k"), operand(b, B, "croktile_k", "croktile_j")
        return (a.chunk[1], c.inst[2]), f"croktile_s += {a_ik} * {b_kj};"   # (inst: wgmma's 64 x N x k)
