"""Element statements (`x.at(i) = ...`, ir.Store) as C, C++ or OpenCL C text.

One writer for every target; a dialect says how element types are spelled and how the
storage types (f16, bf16, the 8/6/4-bit floats and the narrow integers, structs of the
runtime) are read and written:

* ``cxx`` (cpu, cuda): the runtime's structs convert to and from float (the narrow
  integers to and from int) themselves (runtime/croktile.h, also in device code);
* ``opencl``: they are bits (``unsigned short``, ``unsigned char``), converted by the
  prelude's ``croktile_<type>_to_float`` / ``croktile_float_to_<type>``;
* ``factor``: the device module declares f16 and bf16 without defining them: their
  elements are read and written as ``uint16_t`` bits through the same functions
  (runtime/croktile_factor.h); the 8/6/4-bit floats and narrow integers are defined
  there (croktile_minifloat.h) and convert themselves, as on ``cxx``.

A store of an element of the same type is a copy of its bits (every type, every target).
Where a dialect has no conversion (the narrow integers on opencl) computing with such
elements is an error at the statement. Every
conversion rounds to nearest even, the same bits on every target. Arithmetic follows C:
integers of 32 bits and less are computed as ``int`` (u32 as ``unsigned``), 64-bit ones
as ``long long``, floating point as ``float`` (f64 as ``double``); integer overflow and
division by zero are undefined, as in C. One exception, as in the reference (whose 6- and
4-bit floats are CUTLASS types with arithmetic in their own type): `+ - * /` of two
elements of the same 6- or 4-bit float type rounds its result to that type, so that
`f32` storage of `a + b` holds what `f4_e2m1(a + b)` holds.
"""
from __future__ import annotations

from typing import Callable, Optional

from .. import ir
from ..ir.symbolic import Sym

CTYPE = {"cxx": {"bool": "bool", "int": "int", "uint": "unsigned int", "long": "long long",
                 "ulong": "unsigned long long", "float": "float", "double": "double"},
         "opencl": {"bool": "bool", "int": "int", "uint": "uint", "long": "long", "ulong": "ulong",
                    "float": "float", "double": "double"}}
CTYPE["factor"] = CTYPE["cxx"]
BITS16 = ("f16", "bf16")      # storage types held as 16 bits
ROUNDED_ARITHMETIC = ("f6_e2m3", "f6_e3m2", "f4_e2m1")   # `a + b` of two of these is one of them


def _is_struct(elem: str) -> bool:
    return elem in ir.STRUCT_ELEMS


def linear(index, shape) -> Sym:
    """Row-major element offset of `index` in an array of `shape`."""
    total, stride = Sym.const(0), Sym.const(1)
    for i, d in zip(reversed(index), reversed(shape)):
        total = total + i * stride
        stride = stride * d
    return total


class ElementWriter:
    """Writes element expressions for one emitter: ``ptr(buffer)`` names a buffer's
    pointer, ``expr(sym)`` writes a symbolic integer, ``elem_ctype(elem)`` a C type;
    ``unsupported(elem)`` is told of an element type the dialect cannot compute with."""

    def __init__(self, dialect: str, ptr: Callable[[ir.Buffer], str], expr: Callable[[Sym], str],
                 elem_ctype: Callable[[str], str], unsupported: Optional[Callable[[str], None]] = None):
        self.dialect = dialect
        self.ptr = ptr
        self.expr = expr
        self.elem_ctype = elem_ctype
        self.unsupported = unsupported or (lambda elem: None)

    def slot(self, buf: ir.Buffer, index, shape) -> str:
        """The element's lvalue, in its storage type (16-bit types as their bits on factor)."""
        at = self.expr(linear(index, shape))
        if self.dialect == "factor" and buf.elem in BITS16:
            return f"((uint16_t*){self.ptr(buf)})[{at}]"
        return f"{self.ptr(buf)}[{at}]"

    def converts_itself(self, elem: str) -> bool:
        """Whether the element type is a struct of the runtime that converts to and from
        its compute type in this dialect's code."""
        return _is_struct(elem) and (self.dialect == "cxx" or (self.dialect == "factor" and elem not in BITS16))

    def convertible(self, elem: str) -> bool:
        if not _is_struct(elem) or self.converts_itself(elem) or elem in BITS16:
            return True
        if self.dialect == "opencl" and ir.elem_compute(elem) == "float":
            return True
        self.unsupported(elem)
        return False

    def read(self, e: ir.ERead) -> str:
        raw = self.slot(e.buffer, e.index, e.shape)
        elem = e.buffer.elem
        if not _is_struct(elem) or not self.convertible(elem):
            return raw
        if self.converts_itself(elem):
            return f"(({CTYPE['cxx'][e.ctype]}){raw})"
        return f"croktile_{elem}_to_float({raw})"

    def value(self, e: ir.EExpr) -> str:
        if isinstance(e, ir.ERead):
            return self.read(e)
        if isinstance(e, ir.EInt):
            return str(e.value.value) if e.value.is_const else f"((int)({self.expr(e.value)}))"
        if isinstance(e, ir.ENum):
            return f"{number(e.text)}f" if e.ctype == "float" else number(e.text)
        if isinstance(e, ir.EVar):
            return f"(({CTYPE[self.dialect][e.ctype]}){e.name})"
        if isinstance(e, ir.EUn):
            return f"({e.op}{self.value(e.operand)})"
        if isinstance(e, ir.EBin):
            text = f"({self.value(e.left)} {e.op} {self.value(e.right)})"
            elem = rounded_elem(e)
            return f"croktile_{elem}_to_float(croktile_float_to_{elem}((float){text}))" if elem else text
        return f"({self.value(e.cond)} ? {self.value(e.then)} : {self.value(e.other)})"

    def scalar(self, ctype: str, elem: Optional[str], e: Optional[ir.EExpr], sym: Optional[Sym] = None) -> str:
        """The value of a scalar variable computed in `ctype` (int and bool: the target's
        integer), given as an element expression `e` or a symbolic integer `sym`, converted
        through its narrower storage type `elem`: f16/bf16 round to nearest even, s8 s16 u8
        u16 wrap."""
        text = self.value(e) if e is not None else f"({self.expr(sym)})"
        if (elem in BITS16 and self.dialect == "cxx") or (elem in ir.NARROW_ELEMS and self.dialect == "factor"):
            compute = CTYPE["cxx"][ir.elem_compute(elem)]
            return f"(({compute})croktile::{elem}(({compute}){text}))"
        if elem is not None and elem != "f32" and ir.elem_compute(elem) == "float":   # f16, bf16, 8/6/4-bit floats
            return f"croktile_{elem}_to_float(croktile_float_to_{elem}((float){text}))"
        if elem in NARROW_INT_CTYPES[self.dialect]:
            return f"((int)({NARROW_INT_CTYPES[self.dialect][elem]}){text})"
        if e is None:
            return text
        return f"(({CTYPE[self.dialect][ctype]}){text})"

    def store(self, s: ir.Store) -> str:
        buf = s.buffer
        lhs = self.slot(buf, s.index, s.shape)
        v = s.value
        if isinstance(v, ir.ERead) and v.buffer.elem == buf.elem:   # a copy: the bits as they are
            return f"{lhs} = {self.slot(v.buffer, v.index, v.shape)};"
        text = self.value(v)
        elem = buf.elem
        if _is_struct(elem):
            compute = CTYPE["cxx"][ir.elem_compute(elem)]
            if not self.convertible(elem):
                return f"{lhs} = {text};"
            if self.converts_itself(elem):
                return f"{lhs} = {self.elem_ctype(elem)}(({compute}){text});"
            return f"{lhs} = croktile_float_to_{elem}((float){text});"
        return f"{lhs} = ({self.elem_ctype(elem)}){text};"


def rounded_elem(e: ir.EExpr) -> Optional[str]:
    """The 6- or 4-bit float type a value has (ROUNDED_ARITHMETIC): an element of it, or
    arithmetic on two values of it; None for any other value."""
    if isinstance(e, ir.ERead):
        return e.buffer.elem if e.buffer.elem in ROUNDED_ARITHMETIC else None
    if isinstance(e, ir.EBin) and e.op in "+-*/":
        left = rounded_elem(e.left)
        return left if left is not None and left == rounded_elem(e.right) else None
    return None


NARROW_INT_CTYPES = {"cxx": {"s8": "int8_t", "s16": "int16_t", "u8": "uint8_t", "u16": "uint16_t"},
                     "opencl": {"s8": "char", "s16": "short", "u8": "uchar", "u16": "ushort"}}
NARROW_INT_CTYPES["factor"] = NARROW_INT_CTYPES["cxx"]


def number(text: str) -> str:
    """A double literal as C reads it (`1.` and `1e3` are; `1` alone would be an int)."""
    return text if any(c in text for c in ".eE") else text + ".0"


def float_names(stmts) -> list:
    """Floating-point values (parameters, scalars) that statements read: a kernel takes
    those defined outside it."""
    names = []
    for s in stmts:
        if isinstance(s, ir.Call):
            names += [a.text for a in s.args if a.kind == "float" and a.text and a.text not in names]
        for x in ir.stmt_eexprs(s):
            for e in ir.e_walk(x):
                if isinstance(e, ir.EVar) and e.name not in names:
                    names.append(e.name)
    return names


def float_values(fn: ir.Function) -> dict:
    """Floating-point values a kernel may take from the host, name -> the C type it is
    computed in: the float parameters and the host-level floating-point scalars."""
    out = {p.name: p.compute or "float" for p in fn.params if p.kind == "float"}

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ir.ScalarDef) and s.ctype in ("float", "double"):
                out[s.name] = s.ctype
            if not isinstance(s, ir.Parallel) and getattr(s, "body", None):
                visit(s.body)
    visit(fn.body)
    return out
