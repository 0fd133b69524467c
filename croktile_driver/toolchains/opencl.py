"""opencl target: one ``.co.cpp`` becomes a host C++ program and an OpenCL C device program.

Device program (``.cl``, OpenCL C 1.2, embedded in the host binary as a string):
  * a prelude (fixed-width integer names, the runtime-check hook),
  * the user's ``__cok__ { }`` code, with ``extern "C"`` removed (OpenCL C has no
    linkage specifications) and function templates taken out,
  * generated variants of device functions (see "Address spaces"),
  * one ``__kernel`` per launch (outermost ``parallel``) of each ``__co__`` function.

Mapping (DESIGN.md section 4):
  * The outermost ``parallel`` is the NDRange: one work-group per instance. The next
    level is the work-items of the group: the group size is the largest inner count
    (at most what the device allows for the kernel), and work-item ``i`` runs the
    instances ``i, i + size, ...`` of each inner ``parallel``. Deeper levels are
    loops inside a work-item, as on the cpu target.
  * Code of the outer level beside an inner ``parallel`` runs as if on work-item 0:
    every work-item runs its control flow (loops, conditions, scalars: all uniform
    across the group, so barriers inside stay legal), but a ``call`` is guarded by
    ``get_local_id(0) == 0``. A DMA of that level is done cooperatively by all
    work-items. Barriers separate what one work-item wrote from what others read:
    on entering and leaving an inner ``parallel``, after a cooperative copy, and
    between work-item 0's calls and the next cooperative step.
  * Storage: ``shared`` data of the outermost level, and ``local`` data of the outer
    level when there is an inner one (it belongs to the outer instance, i.e. to the
    work-group), is ``__local``; other ``local`` data is a private array. A buffer
    whose size is not a compile-time constant is a ``__local`` kernel argument
    (``__local``) or a per-work-item slice of a global scratch buffer (private).
  * ``dma.copy.async`` of one contiguous run between global and ``__local`` memory at
    the outer level is ``async_work_group_copy``; ``wait`` is ``wait_group_events``
    plus a barrier. Other copies (a box of several runs among them: see
    ``KernelEmitter.eligible``) complete when issued (like the cpu target), and their
    ``wait`` has nothing left to do.

Address spaces: OpenCL C 1.2 has no generic address space (PoCL 3 offers none to
CPU devices either, even with -cl-std=CL3.0), and an unqualified pointer parameter
is ``__private``. Copying arguments into private arrays around each call would be
simple, but it cannot hold data whose size is only known at run time, and when
several work-items pass the same ``__local`` buffer the copies-back overwrite each
other's results. Instead each call site passes its pointers as they are, and for
every combination of address spaces (and template arguments) that tileflow code
uses, the device program gets a copy of the function with qualified parameters,
e.g. ``matmul_kernel__t16_4_72__lll(__local int* ...)``; a call whose arguments are
all private calls the user's function itself. Limitation: inside such a copy, a
pointer parameter can only be passed on to functions or pointer variables that
accept its address space.

Runtime checks inside a kernel record the first failure in a small buffer that
the host reads after the launch and turns into the same ``croktile::runtime_error``
as on the cpu target.
"""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from .opencl_events import OpenclEvents, check_opencl_events
from .opencl_fast import FAST_SUFFIX, RESTRICT, OpenclFast, instance_texts
from ..diagnostics import Loc
from ..frontend import ir
from ..frontend.pipeline import TranslationUnit
from ..frontend.splitter import LineMap, _Scanner
from ..frontend.symbolic import Sym
from ..cstrings import escaped
from .opencl_mma import OpenclFragments, PRELUDE as MMA_PRELUDE, check_opencl_mma, needs_prelude, private_copies
from .base import DeviceBuild, ToolChain, c_string, call_statement, elem_ctype, host_translation_unit, line_directive, print_stmt
from .device_host import DeviceHostEmitter, where as _where
from .box_copy import copy_dims
from .dma_transform import element_loops, write_loops, write_shared_loops
from .elements import ElementWriter
from .cok import _blank, _masked, host_device_functions, parse_cok, report_non_cok_call
from .opencl_barriers import OpenclBarriers, check_exact_counts, check_opencl_barriers, uniform_count
from .opencl_check import CHECK_FLAGS, DEFAULT_CHECKER, checker_command, locate, run_check, statement_line
from .fill import fill_literal
from .grid_split import split_nest
from .kernel_ir import (KernelEmitterBase, dev_expr, kernel_free_names, linear as _linear,
                        paren as _paren, product as _product, shape_vars as _shape_vars, strides as _strides,
                        waited_async_futures)

# Generated code spells types without OpenCL C's typedef names, which user code may rename.
DEVICE_CTYPES = dict(ir.ELEM_CTYPES, f16="unsigned short", bf16="unsigned short",
                     **{e: "unsigned char" for e in ir.NARROW_ELEMS})
# Names OpenCL C reserves that are ordinary identifiers in C and C++: keywords (address
# space, function and access qualifiers, `half`, image types, ...) and the built-in type
# names (vector types, uint, size_t, ...). One that __cok__ code declares (spec 1 calls a
# function `kernel`) or that tileflow code names is renamed in the device program.
_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half",
                 "bool", "quad")
OPENCL_RESERVED = frozenset(
    ("global", "local", "constant", "private", "generic", "kernel", "read_only", "write_only", "read_write",
     "uniform", "pipe", "restrict", "vec_step", "half", "quad", "uchar", "ushort", "uint", "ulong",
     "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "event_t", "sampler_t", "image1d_t", "image1d_array_t",
     "image1d_buffer_t", "image2d_t", "image2d_array_t", "image2d_depth_t", "image2d_array_depth_t",
     "image2d_msaa_t", "image2d_array_msaa_t", "image2d_msaa_depth_t", "image2d_array_msaa_depth_t",
     "image3d_t")
    + tuple(f"{base}{n}" for base in _VECTOR_BASES for n in (2, 3, 4, 8, 16)))
RENAMED_PREFIX = "croktile_cl_"
# Tokens after which a reserved name in __cok__ code is being declared (int half = ...,
# void kernel(...), struct float2 {...}), and the words before it that make it a use instead.
_DECLARATOR_END = frozenset(("=", ";", ",", ")", "[", "(", "{", "}", ":", ">"))
_NOT_A_TYPE = frozenset(("return", "case", "sizeof", "else", "do", "goto"))
_ADDRESS_QUALIFIER = re.compile(r"\b(?:__)?(?:global|local|private|constant)\b")
SPACE_QUALIFIER = {"g": "__global", "l": "__local", "p": "__private"}

PRELUDE = r"""// Croktile OpenCL C prelude (OpenCL C 1.2)
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef float f32;
typedef uint4 croktile_vec16;      // the generated copies' 16-byte vectors
typedef event_t croktile_event_t;   // the generated kernels' events, whatever __cok__ code names event_t
// an instance's own event: takes the flag, returns what it held
static inline unsigned int croktile_take_private(unsigned int* p) { const unsigned int v = *p; *p = 0u; return v; }
#ifndef __device__
#define __device__
#endif
#define CROKTILE_OPENCL 1
// The narrow element types are bytes on the device (uchar); these convert them as
// runtime/croktile_minifloat.h does: special 0 none, 1 NaN only (e4m3), 2 IEEE (e5m2).
static inline float croktile_mf_to_float(uint bits, int E, int M, int special) {
  const int bias = (1 << (E - 1)) - 1;
  const uint ones = (1u << E) - 1u, mones = (1u << M) - 1u;
  const float sign = (bits >> (E + M)) & 1u ? -1.0f : 1.0f;
  const uint e = (bits >> M) & ones, m = bits & mones;
  if (special == 2 && e == ones) return m ? as_float(0x7fc00000u) : sign * as_float(0x7f800000u);
  if (special == 1 && e == ones && m == mones) return as_float(0x7fc00000u);
  if (e == 0) return sign * (float)m * as_float((uint)(127 + 1 - bias - M) << 23);
  return sign * (float)((1u << M) | m) * as_float((uint)(127 + (int)e - bias - M) << 23);
}
static inline uchar croktile_mf_from_float(float f, int E, int M, int special) {
  const int bias = (1 << (E - 1)) - 1;
  const uint ones = (1u << E) - 1u, mones = (1u << M) - 1u;
  const uint inf_mag = ones << M;
  const uint max_mag = special == 2 ? ((ones - 1u) << M) | mones : special == 1 ? (ones << M) | (mones - 1u)
                                                                             : (ones << M) | mones;
  const uint nan_mag = special == 2 ? inf_mag | (1u << (M - 1)) : (ones << M) | mones;
  const uint x = as_uint(f), a = x & 0x7fffffffu, sign = (x >> 31) ? 1u << (E + M) : 0u;
  if (a > 0x7f800000u) return (uchar)(special == 0 ? max_mag : sign | nan_mag);
  if (a == 0x7f800000u) return (uchar)(sign | (special == 2 ? inf_mag : max_mag));
  uint sig = a >= 0x00800000u ? (a & 0x7fffffu) | 0x800000u : a;
  const int ex = a >= 0x00800000u ? (int)(a >> 23) - 127 : -126;
  int e = ex < 1 - bias ? 1 - bias : ex;
  const int shift = 23 + e - M - ex;
  uint n = 0;
  if (shift < 32) {
    n = sig >> shift;
    const uint rem = sig & ((1u << shift) - 1u), hw = 1u << (shift - 1);
    if (rem > hw || (rem == hw && (n & 1u))) ++n;
  }
  if (n == (2u << M)) { n >>= 1; ++e; }
  uint mag = n;
  if (n >= (1u << M)) mag = e + bias > (int)ones ? (ones + 1u) << M : ((uint)(e + bias) << M) | (n & mones);
  if (mag > max_mag) mag = special == 2 ? inf_mag : max_mag;
  return (uchar)(sign | mag);
}
// the same under the names of f16's conversions (croktile_f16_to_float)
#define croktile_f8_e4m3_to_float(b) croktile_mf_to_float((b), 4, 3, 1)
#define croktile_f8_e5m2_to_float(b) croktile_mf_to_float((b), 5, 2, 2)
#define croktile_f6_e2m3_to_float(b) croktile_mf_to_float((b), 2, 3, 0)
#define croktile_f6_e3m2_to_float(b) croktile_mf_to_float((b), 3, 2, 0)
#define croktile_f4_e2m1_to_float(b) croktile_mf_to_float((b), 2, 1, 0)
#define croktile_float_to_f8_e4m3(f) croktile_mf_from_float((f), 4, 3, 1)
#define croktile_float_to_f8_e5m2(f) croktile_mf_from_float((f), 5, 2, 2)
#define croktile_float_to_f6_e2m3(f) croktile_mf_from_float((f), 2, 3, 0)
#define croktile_float_to_f6_e3m2(f) croktile_mf_from_float((f), 3, 2, 0)
#define croktile_float_to_f4_e2m1(f) croktile_mf_from_float((f), 2, 1, 0)
#define croktile_f8_e4m3_to_f32(b) croktile_mf_to_float((b), 4, 3, 1)
#define croktile_f8_e5m2_to_f32(b) croktile_mf_to_float((b), 5, 2, 2)
#define croktile_f6_e2m3_to_f32(b) croktile_mf_to_float((b), 2, 3, 0)
#define croktile_f6_e3m2_to_f32(b) croktile_mf_to_float((b), 3, 2, 0)
#define croktile_f4_e2m1_to_f32(b) croktile_mf_to_float((b), 2, 1, 0)
#define croktile_f32_to_f8_e4m3(f) croktile_mf_from_float((f), 4, 3, 1)
#define croktile_f32_to_f8_e5m2(f) croktile_mf_from_float((f), 5, 2, 2)
#define croktile_f32_to_f6_e2m3(f) croktile_mf_from_float((f), 2, 3, 0)
#define croktile_f32_to_f6_e3m2(f) croktile_mf_from_float((f), 3, 2, 0)
#define croktile_f32_to_f4_e2m1(f) croktile_mf_from_float((f), 2, 1, 0)
static inline long croktile_min(long a, long b) { return a < b ? a : b; }
static inline long croktile_max(long a, long b) { return a > b ? a : b; }
// f16/bf16 elements (ushort bits) <-> float, rounding to nearest even as runtime/croktile.h does.
static inline float croktile_f16_to_float(ushort h) {
  uint sign = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return as_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return as_float(sign);
    uint fe = 113;
    while ((m & 0x400u) == 0) { m <<= 1; --fe; }
    return as_float(sign | (fe << 23) | ((m & 0x3ffu) << 13));
  }
  return as_float(sign | ((e + 112u) << 23) | (m << 13));
}
static inline ushort croktile_float_to_f16(float f) {
  uint x = as_uint(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return (ushort)(a > 0x7f800000u ? (sign | 0x7e00u | ((a >> 13) & 0x3ffu)) : (sign | 0x7c00u));
  if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u);
  if (a < 0x38800000u) {
    if (a <= 0x33000000u) return (ushort)sign;
    uint e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint h = m >> shift, rem = m & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (h & 1u))) ++h;
    return (ushort)(sign | h);
  }
  uint h = (a - 0x38000000u) >> 13, rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (ushort)(sign | h);
}
static inline float croktile_bf16_to_float(ushort b) { return as_float((uint)b << 16); }
static inline ushort croktile_float_to_bf16(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
// A failed runtime check: the first one in a launch records its id and values.
static void croktile_check_fail(__global int* err, int id, long v0, long v1, long v2, long v3) {
  if (atomic_cmpxchg(err, 0, id + 1) == 0) {
    __global long* v = (__global long*)(err + 2);
    v[0] = v0; v[1] = v1; v[2] = v2; v[3] = v3;
  }
}
"""



def _capacity(b: ir.Buffer) -> int:
    """Elements of a statically allocated buffer: its size, or its stated bound's capacity."""
    return b.capacity if b.capacity is not None else _product(b.shape).value

class OpenclToolChain(ToolChain):
    target = "opencl"
    source_suffix = ".cpp"
    runtime_header = "croktile_opencl.h"
    device_api = "croktile::opencl"
    checks_device = True
    device_suffix = ".cl"

    def check(self, module, diag) -> None:
        check_opencl_mma(module, diag)
        check_opencl_events(module, diag)
        check_opencl_barriers(module, diag)

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        host, device = Generator(tu, diag).run()
        return {self.source_suffix: host, self.device_suffix: device}

    @staticmethod
    def find_program(command: str) -> Optional[str]:
        return locate(command)

    def device_check(self, generated: str) -> Optional[DeviceBuild]:
        """Checks the device program (x.gen.cl) with an OpenCL C compiler, so that its
        errors are build errors at .co.cpp lines, not failures when it first runs."""
        command = checker_command(self.profile)
        if command is None:
            return None
        if command[0] == DEFAULT_CHECKER:   # neither clang nor a clang-NN is on PATH
            self.warn_unchecked()
            return None
        base = generated[: -len(self.source_suffix)] if generated.endswith(self.source_suffix) else generated
        source = base + self.device_suffix
        argv = [*command, *CHECK_FLAGS, *(["-w"] if self.options.no_warnings else []), source]
        return DeviceBuild(argv, source, "", [], functools.partial(run_check, renamed_prefix=RENAMED_PREFIX))

    def warn_unchecked(self) -> None:
        """Without clang the build goes on (the platform still compiles the program when it
        runs), once saying so."""
        if self.warned or self.options.no_warnings:
            return
        self.warned = True
        print(f"croktilec: warning: no OpenCL C compiler found (profile '{self.profile['name']}' names "
              f"device_cc '{DEFAULT_CHECKER}'; none of clang, clang-NN is on PATH): the device program is not "
              "checked at build time, and errors in __cok__ code show when it first runs; set device_cc "
              "in the profile, or device_cc: \"\" to turn the check off", file=sys.stderr)

    warned = False


_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|&&|\|\||::|\S")


def _code_tokens(text: str) -> List[str]:
    """The tokens of C code, without comments, literals and preprocessor lines."""
    masked = _masked(text)
    scan = _Scanner(masked)
    tokens, i = [], 0
    while i < len(masked):
        j = scan.skip_literal_or_comment(i)
        if j != i:
            tokens.append('""')
            i = j
            continue
        m = _TOKEN.match(masked, i)
        if m is None:
            i += 1
            continue
        tokens.append(m.group())
        i = m.end()
    return tokens


def declared_reserved_names(segments) -> Set[str]:
    """Names OpenCL C reserves that the __cok__ code declares (a variable, parameter,
    function, type, member or enumerator): each is renamed, every use with it. A reserved
    name the code only uses is left alone: OpenCL C code may mean the keyword or type."""
    found: Set[str] = set()
    for seg in segments:
        if seg.kind != "cok":
            continue
        tokens = _code_tokens(seg.text)
        for k in range(1, len(tokens) - 1):
            name, before, after = tokens[k], tokens[k - 1], tokens[k + 1]
            if name in OPENCL_RESERVED and after in _DECLARATOR_END and (
                    before in ("*", "&", "&&", ",", "{", "}") or (before[0].isalpha() or before[0] == "_")
                    and before not in _NOT_A_TYPE):
                found.add(name)
    return found


def reserved_words(code: str) -> Set[str]:
    """Reserved names in generated kernel code: there they can only be tileflow names."""
    return {w for w in re.findall(r"[A-Za-z_]\w*", code) if w in OPENCL_RESERVED}


# ---------------------------------------------------------------------------------
# The whole translation unit
# ---------------------------------------------------------------------------------





class Generator:
    def __init__(self, tu: TranslationUnit, diag):
        self.tu = tu
        self.diag = diag
        self.cok = parse_cok(tu.segments)
        self.clones: Dict[Tuple, str] = {}        # (name, targs, sig) -> generated name
        self.clone_order: List[Tuple] = []
        self.kernels: List[Tuple[str, str]] = []   # (name, text with the fast instance's marks: opencl_fast.py)

    # -- device function calls -------------------------------------------------------
    def callee(self, call: ir.Call, spaces: List[Optional[str]]) -> str:
        """The device function a call site calls, generating a qualified copy if needed."""
        fn = self.cok.functions.get(call.func)
        targs: Tuple[int, ...] = ()
        if call.template_args is not None:
            vals = []
            for t in call.template_args:
                if not t.is_const:
                    self.diag.error(call.loc, f"template argument '{t.to_c()}' of '{call.func}' is not a "
                                              "compile-time constant")
                    return call.func
                vals.append(t.value)
            targs = tuple(vals)
            if fn is None or fn.template_span is None:
                self.diag.error(call.loc, f"'{call.func}' is called with template arguments, but no function "
                                          f"template '{call.func}' is defined in a '__cok__' block")
                return call.func
            if len(fn.template_params) != len(targs) or any(is_type for _, is_type in fn.template_params):
                self.diag.error(call.loc, f"function template '{call.func}' needs {len(fn.template_params)} "
                                          "integer template arguments on target 'opencl'")
                return call.func
        elif fn is not None and fn.template_span is not None:
            self.diag.error(call.loc, f"'{call.func}' is a function template; give its template arguments")
            return call.func
        sig = "".join(s or "-" for s in spaces)      # per argument: g, l, p, or - (not a pointer)
        pointers = sig.replace("-", "")
        if fn is None or (not targs and set(pointers) <= {"p"}):
            return call.func
        key = (call.func, targs, sig)
        if key not in self.clones:
            name = call.func
            if targs:
                name += "__t" + "_".join(str(v) if v >= 0 else f"n{-v}" for v in targs)
            if not set(pointers) <= {"p"}:
                name += "__" + pointers
            self.clones[key] = name
            self.clone_order.append(key)
        return self.clones[key]

    def check_calls(self) -> None:
        """Tileflow code may only call device functions of __cok__ blocks on this target."""
        host_device = host_device_functions(self.tu.segments)
        for fn in self.tu.module.functions:
            for s in fn.walk():
                if isinstance(s, ir.Call) and s.func not in self.cok.declared:
                    report_non_cok_call(self.diag, s, host_device, "opencl")

    # -- output ----------------------------------------------------------------------
    def run(self) -> Tuple[str, str]:
        module = self.tu.module or ir.Module([])
        self.check_calls()
        host_fns = {fn.name: HostEmitter(self, fn).emit() for fn in module.functions}
        device = self.device_source()
        host = self.host_source(host_fns, device)
        return host, device

    def device_source(self) -> str:
        out = ["// Generated by croktilec (target opencl): the OpenCL C device program. Do not edit.", PRELUDE]
        if needs_prelude(self.tu.module or ir.Module([])):
            out.append(MMA_PRELUDE)
        renamed = sorted(declared_reserved_names(self.tu.segments)
                         | reserved_words("\n".join(text for _, text in self.kernels)))
        for n in renamed:
            out.append(f"#define {n} {RENAMED_PREFIX}{n}   /* reserved in OpenCL C */")
        for si, seg in enumerate(self.tu.segments):
            if seg.kind != "cok":
                continue
            chars = list(seg.text)
            for a, b in self.cok.blanks.get(si, []):
                _blank(chars, a, b)
            for fn in self.cok.functions.values():
                if fn.seg_index != si:
                    continue
                for a, b in fn.extern_spans:
                    _blank(chars, a, b)
                if fn.template_span is not None:   # instantiated below, per use
                    _blank(chars, fn.start, fn.end)
            out.append(line_directive(seg.loc))
            out.append("".join(chars))
        for key in self.clone_order:
            out.append(self.clone_text(key))
        for name, text in self.kernels:
            out.extend(instance_texts(text, name, restrict="restrict" not in renamed))
        return "\n".join(out) + "\n"

    def clone_text(self, key) -> str:
        name, targs, sig = key
        fn = self.cok.functions[name]
        seg = self.tu.segments[fn.seg_index]
        text = seg.text
        edits: List[Tuple[int, int, str]] = []   # (start, end, replacement)
        if fn.template_span is not None:
            a, b = fn.template_span
            edits.append((a, b, "".join("\n" if ch == "\n" else " " for ch in text[a:b])))
        for a, b in fn.extern_spans:
            edits.append((a, b, " " * (b - a)))
        edits.append((fn.name_span[0], fn.name_span[1], self.clones[key]))
        for k, (a, b) in enumerate(fn.params):
            space = sig[k] if k < len(sig) else "-"
            if space in "p-" or _ADDRESS_QUALIFIER.search(text[a:b]):
                continue
            lead = len(text[a:b]) - len(text[a:b].lstrip())
            edits.append((a + lead, a + lead, SPACE_QUALIFIER[space] + " "))
        if targs:
            consts = ", ".join(f"{p} = {v}" for (p, _), v in zip(fn.template_params, targs))
            edits.append((fn.body_open + 1, fn.body_open + 1, f" enum {{ {consts} }};"))
        body = text[fn.start:fn.end]
        for a, b, rep in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
            body = body[:a - fn.start] + rep + body[b - fn.start:]
        lines = LineMap(line_directive(seg.loc) + "\n" + text, seg.loc.file)
        loc = lines.loc(fn.start + len(line_directive(seg.loc) + "\n"))
        what = f"{name}<{', '.join(map(str, targs))}>" if targs else name
        spaces = ", ".join(SPACE_QUALIFIER[c] for c in sig if c != "-") or "no"
        return (f"// {what}, pointer parameters: {spaces}\n"
                f"{line_directive(loc)}\n{body}")

    def host_source(self, host_fns: Dict[str, str], device: str) -> str:
        tu = self.tu
        out = ["// Generated by croktilec (target opencl). Do not edit.",
               '#include "croktile.h"', '#include "croktile_opencl.h"']
        if self.kernels:
            delim = "CROKTILE_CL"
            while f"){delim}\"" in device:
                delim += "_"
            out.append("// The OpenCL C device program (also written as the .cl file beside this one).")
            out.append(f'static const char croktile_device_source[] = R"{delim}({device}){delim}";')
            out.append("static croktile::opencl::program croktile_device_program(croktile_device_source, "
                       f"sizeof(croktile_device_source) - 1, {c_string(tu.filename)});")
        cok_note = "compiled into the OpenCL device program"
        return host_translation_unit(tu, out, lambda si, seg: [f"// __cok__ block of {escaped(seg.loc.file)}:{seg.loc.line}: "
                                                               + cok_note],
                                     lambda fn: host_fns[fn.name], "croktile::opencl")


# ---------------------------------------------------------------------------------
# Host code of one __co__ function
# ---------------------------------------------------------------------------------



class HostEmitter(DeviceHostEmitter):
    target = "opencl"

    def __init__(self, gen: Generator, fn: ir.Function):
        super().__init__(gen, fn)
        self.kernel_count = 0

    api = "croktile::opencl"

    def emit(self) -> str:
        return "\n".join(self.emit_functions())

    def prologue(self) -> None:
        fn = self.fn
        where = _where(fn.loc)
        self.w(1, f"croktile::opencl::runtime& croktile_rt = croktile::opencl::runtime::get({where});")
        self.w(1, "[[maybe_unused]] const cl_command_queue croktile_q = croktile::opencl::expect_queue(croktile_rt, "
                  f"croktile_stream.native(), {where});")
        if any(isinstance(s, ir.Parallel) for s in fn.walk()):
            self.w(1, f"[[maybe_unused]] cl_program croktile_prog = croktile_device_program.get(croktile_rt, {where});")

    def bind_param(self, p: ir.Param, where: str) -> None:
        self.w(1, f"croktile::opencl::expect_device(croktile_rt, {p.name}.data(), {p.name}.bytes(), "
                  f"{c_string(p.name)}, {c_string(self.fn.name)}, {where});")
        self.w(1, f"croktile::opencl::buffer {self.mem(p.buffer)} = croktile::opencl::buffer::borrow({p.name}.data());")

    def checks_declaration(self, where: str) -> str:
        return f"static croktile::opencl::check_slot croktile_checks(croktile_report__{self.fn.name});"

    def s_Alloc(self, s: ir.Alloc, depth: int) -> None:
        buf = s.buffer
        count = self.hx(_product(buf.shape))
        self.w(depth, f"croktile::opencl::buffer {self.mem(buf)}(croktile_rt, croktile_q, (std::size_t)({count}) * "
                      f"sizeof({elem_ctype(buf.elem)}), {_where(s.loc)}, false);")

    def s_Fill(self, s: ir.Fill, depth: int) -> None:
        b = s.buffer
        if s.value == 0:   # all bits zero in every element type
            self.w(depth, f"croktile::opencl::fill_zero(croktile_q, {self.mem(b)}.get(), (std::size_t)"
                          f"({self.hx(_product(b.shape))}) * sizeof({elem_ctype(b.elem)}), {_where(s.loc)});")
            return
        self.w(depth, f"croktile::opencl::fill_value(croktile_q, {self.mem(b)}.get(), "
                      f"(std::size_t)({self.hx(_product(b.shape))}), {fill_literal(b.elem, s.value)}, {_where(s.loc)});")

    def copy_box_call(self, s: ir.Dma) -> str:
        return (f"croktile::opencl::copy_box(croktile_rt, croktile_q, {self.mem(s.src.buffer)}, src_shape, src_off, "
                f"{self.mem(s.dst.buffer)}, dst_shape, dst_off, ext, sizeof({elem_ctype(s.src.buffer.elem)}), "
                f"{_where(s.loc)});")

    def s_Parallel(self, s: ir.Parallel, depth: int) -> None:
        k = KernelEmitter(self, s, f"{self.fn.name}__launch{self.kernel_count}")
        self.kernel_count += 1
        kernel_text = k.emit()
        if self.gen.diag.errors:
            return
        self.gen.kernels.append((k.name, kernel_text))
        where = _where(s.loc)
        self.w(depth, "{")
        d = depth + 1
        if k.fast_copies:
            # the fast instance (opencl_fast.py) where every global buffer is 16-byte aligned and
            # none the kernel writes overlaps another
            ranges = ", ".join(f"{{{self.mem(b)}.get(), ({k.buffer_bytes(b)} + 15) / 16 * 16, "
                               f"{str(k.writes(b)).lower()}}}" for b in k.global_args)
            self.w(d, f"const bool croktile_fast = croktile::opencl::fast_instance(croktile_rt, {{{ranges}}});")
            self.w(d, f"if (!croktile_fast) croktile::opencl::generic_instance({where});")
            if k.split is not None:
                self.w(d, f"const long long croktile_split = croktile_fast ? croktile::opencl::split_count(croktile_rt, "
                          f"{self.hx(s.count)}, {self.hx(k.split.count)}) : 1;")
            name = f"croktile_fast ? {c_string(k.name + FAST_SUFFIX)} : {c_string(k.name)}"
        else:
            name = c_string(k.name)
            if k.split is not None:
                self.w(d, "const long long croktile_split = 1;   // one kernel: its loop runs whole")
        self.w(d, f"croktile::opencl::kernel croktile_k(croktile_prog, {name}, {where});")
        if k.scratch:
            self.w(d, f"const long long croktile_slot = {k.slot_bytes_host()};")
        split = " * croktile_split" if k.split is not None and k.fast_copies else ""
        self.w(d, f"const long long croktile_groups = {self.hx(s.count)}{split};")
        self.w(d, f"const long long croktile_group_size = {k.group_size_host()};")
        if k.scratch:
            self.w(d, "croktile::opencl::buffer croktile_scratch(croktile_rt, croktile_q, (std::size_t)(croktile_slot * "
                      f"croktile_groups * croktile_group_size), {where}, false);")
        for i, arg in enumerate(k.args):
            kind, value = arg.host
            if kind == "mem":
                self.w(d, f"croktile_k.arg({i}, {value}, {where});")
            elif kind == "local":
                self.w(d, f"croktile_k.local({i}, (std::size_t)({value}), {where});")
            else:
                self.w(d, f"croktile_k.value({i}, ({kind})({value}), {where});")
        exact = ""
        if k.exact:
            p = k.exact[0]
            how = "run concurrently, a work-item each" if k.concurrent else "are a work-item each"
            exact = ", " + c_string(f"the instances of '{p.var}' (line {p.loc.line}) {how}")
        self.w(d, f"croktile_k.launch(croktile_rt, croktile_q, croktile_groups, croktile_group_size, {where}{exact});")
        self.w(depth, "}")


# ---------------------------------------------------------------------------------
# One __kernel: an outermost parallel
# ---------------------------------------------------------------------------------

@dataclass
class KernelArg:
    decl: str                   # the device parameter
    host: Tuple[str, str]       # (mem | local | C type, host expression)



class KernelEmitter(OpenclFast, OpenclEvents, OpenclBarriers, KernelEmitterBase, OpenclFragments):
    index_type = "long"
    check_fail = "croktile_check_fail"
    element_dialect = "opencl"

    def element_ctype(self, elem: str) -> str:
        return DEVICE_CTYPES[elem]
    join = staticmethod(max)      # the barrier state is a number: more is more to synchronise

    def __init__(self, host: HostEmitter, par: ir.Parallel, name: str):
        super().__init__(host, par)
        self.gen = host.gen
        self.diag = host.gen.diag
        self.name = name
        self.args: List[KernelArg] = []
        self.uses_checks = False
        self.max_level = max(s.level for s, _ in self.all if isinstance(s, ir.Parallel))
        self.group = self.max_level >= 2
        # what the group's cooperative copies read and wrote since the last barrier (None:
        # other work too, whose accesses are not followed); a swap makes names unreliable
        self.since: Optional[Tuple[set, set]] = (set(), set())
        self.follows_copies = not any(isinstance(st, ir.Swap) for st in ir.walk(par.body))
        self.inner = [s for s, _ in self.all if isinstance(s, ir.Parallel) and s.level == 2]
        self.space: Dict[str, str] = {}          # buffer name -> g / l / p
        self.kind: Dict[str, str] = {}           # buffer name -> arg / static / dynlocal / scratch
        self.scratch: List[ir.Buffer] = []
        self.static_local: List[ir.Buffer] = []
        self.level_buffers: Dict[int, List[ir.Buffer]] = {}   # id(parallel) -> buffers to set up there
        self.event_futures: Set[str] = set()
        self.swapped_events: Set[str] = set()    # futures whose events a `swap` exchanges
        self.classify()
        # a loop of the work-items whose iterations the fast instance spreads over more
        # work-groups (grid_split.py); the generic instance is launched with one each
        self.split = None if self.scratch or self.fn.frags else split_nest(par, self.host_names)
        self.barrier_setup()
        self.events_setup()
        # inner levels whose instances run concurrently: a work-item each (opencl_barriers.py)
        self.exact = [p for p in self.inner if id(p) in self.barrier_level_ids() or p in self.resumable_levels]
        check_exact_counts(self.exact, self.diag)
        self.concurrent = bool(self.exact)
        if not self.exact and uniform_count(self.inner):
            self.exact = list(self.inner)
        # a work-group of one work-item: nothing to synchronise (OpenclBarriers.barrier)
        self.single = bool(self.exact) and self.exact[0].count.is_const and self.exact[0].count.value == 1
        self.fast_setup()
        self.global_args: List[ir.Buffer] = []   # the kernel's global buffer arguments
        # a work-item may run several inner instances, each with its copy of a fragment;
        # where each instance that uses a fragment is a work-item of its own, the
        # work-item's private fragment is the instance's: no copy per instance
        self.frag_setup(private_copies(self.fn, one_each=self.exact))

    # -- analysis --------------------------------------------------------------------
    def classify(self) -> None:
        declared = set()
        for s, _ in self.all:
            if isinstance(s, ir.Parallel):
                for b in s.buffers:
                    declared.add(b.name)
                    if b.level == 1 and (self.group or b.storage == "shared"):
                        space = "l"
                    else:
                        space = "p"
                    static = all(d.is_const for d in b.shape) or b.capacity is not None
                    if static:
                        self.kind[b.name] = "static"
                        if space == "l":
                            self.static_local.append(b)
                    elif space == "l":
                        self.kind[b.name] = "dynlocal"
                    else:
                        self.kind[b.name] = "scratch"
                        self.scratch.append(b)
                        space = "g"
                    self.space[b.name] = space
                    if not (_shape_vars(b) <= self.host_names):
                        self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be known when the "
                                               "kernel is launched on target 'opencl'")
        # global buffers the kernel reaches: kernel arguments
        for b in self.fn.buffers:
            if b.name not in declared and b.storage == "global" and self.uses(b):
                self.space[b.name] = "g"
                self.kind[b.name] = "arg"
        # asynchronous copies that can be work-group copies with events
        self.event_futures, self.future_of_buffer = waited_async_futures(self.all, self.eligible)
        self.swapped_events = self.events_swapped()
        self.event_futures -= self.events_out_of_scope()

    def eligible(self, dma: ir.Dma, level: int) -> bool:
        """An outer-level copy of one contiguous run between global and __local memory: a
        work-group copy. A box of several runs (the rows of a tile) would take a loop of
        async_work_group_copy calls; it is copied cooperatively instead, done when issued.
        PoCL runs each call on work-item 0 alone, so the rows would be copied one by one
        anyway, and with a work-group of one or two work-items (which PoCL builds by
        replicating the code of each work-item) such loops in a kernel with barriers abort
        its compiler ("Could not find a dominating alternative variable"): PoCL makes each
        row loop a barrier loop, and the replication cannot remap the values they share."""
        spaces = {self.space.get(dma.src.buffer.name), self.space.get(dma.dst.buffer.name)}
        k, _ = self.runs(dma)
        one_run = all(e.is_const and e.value == 1 for e in dma.src.extents[:k])
        return (level == 1 and dma.op == "copy" and spaces == {"g", "l"} and self.kind.get(dma.src.buffer.name) != "scratch"
                and self.kind.get(dma.dst.buffer.name) != "scratch" and one_run)

    def free_scalars(self) -> List[str]:
        free = kernel_free_names(self.all)
        host = self.host_names
        for v in free:
            if v not in host:
                self.diag.error(self.par.loc, f"internal error: '{v}' used in a kernel is not a host value")
        return free

    # -- host-side sizes -------------------------------------------------------------
    def group_size_host(self) -> str:
        if not self.group:
            return "1"
        if self.exact:
            return f"(long long)({self.host.hx(self.exact[0].count)})"
        counts = ", ".join(f"(long long)({self.host.hx(p.count)})" for p in self.inner)
        return f"std::max<long long>({{1LL, {counts}}})"

    def buffer_bytes(self, b: ir.Buffer) -> str:
        return f"(long long)({self.host.hx(_product(b.shape))}) * (long long)sizeof({elem_ctype(b.elem)})"

    def slot_bytes_host(self) -> str:
        return " + ".join(f"(({self.buffer_bytes(b)} + 15) / 16 * 16)" for b in self.scratch)

    # -- emission --------------------------------------------------------------------
    def ptr(self, buf: ir.Buffer) -> str:
        return f"{buf.name}__ptr"

    def ctype(self, buf: ir.Buffer) -> str:
        return DEVICE_CTYPES[buf.elem]

    def qual(self, buf: ir.Buffer) -> str:
        return SPACE_QUALIFIER[self.space[buf.name]]

    def emit(self) -> str:
        par = self.par
        self.uses_checks = any(isinstance(s, (ir.Check, ir.EventWait)) for s, _ in self.all)
        # kernel parameters
        for b in self.fn.buffers:
            if self.kind.get(b.name) == "arg":
                self.global_args.append(b)
                self.args.append(KernelArg(f"__global {self.ctype(b)}* {RESTRICT}{self.ptr(b)}",
                                           ("mem", self.host.mem(b))))
        for s, _ in self.all:
            if isinstance(s, ir.Parallel):
                for b in s.buffers:
                    if self.kind[b.name] == "dynlocal":
                        self.args.append(KernelArg(f"__local {self.ctype(b)}* {b.name}",
                                                   ("local", self.buffer_bytes(b))))
        if self.scratch:
            self.args.append(KernelArg("__global unsigned char* croktile_scratch", ("mem", "croktile_scratch")))
            self.args.append(KernelArg("long croktile_slot", ("cl_long", "croktile_slot")))
            offset = "0"
            for b in self.scratch:
                self.args.append(KernelArg(f"long {b.name}__off", ("cl_long", offset)))
                offset = f"{offset} + (({self.buffer_bytes(b)} + 15) / 16 * 16)"
        for v in self.free_scalars():
            self.args.append(KernelArg(f"long {v}", ("cl_long", v)))
        for name in self.float_args():
            ctype = self.host.float_params[name]
            self.args.append(KernelArg(f"{ctype} {name}", (ctype, name)))
        if self.split is not None:
            self.args.append(KernelArg("long croktile_split", ("cl_long", "croktile_split")))
        if self.uses_checks:
            self.args.append(KernelArg("__global int* croktile_err", ("mem", f"croktile_checks.get(croktile_rt, {_where(self.par.loc)})")))

        self.lines.append(statement_line(par.loc))
        params = ",\n    ".join(a.decl for a in self.args)
        self.lines.append(f"{self.kernel_attributes()}__kernel void {self.name}({params}) {{")
        if self.split is not None:
            self.w(1, f"const long {par.var} = get_group_id(0) / croktile_split;")
            self.w(1, "const long croktile_part = get_group_id(0) % croktile_split;")
        else:
            self.w(1, f"const long {par.var} = get_group_id(0);")
        if self.group:
            self.w(1, "const long croktile_lid = get_local_id(0);")
            self.w(1, f"const long croktile_lsize = {self.group_size_expr()};")
        for b in self.static_local:
            self.w(1, f"__local {self.ctype(b)} {b.name}[{_capacity(b)}] __attribute__((aligned(16)));")
        self.event_declarations(1)
        for f in sorted(self.swapped_events):   # a swap may exchange it where its copy's scope has ended
            self.w(1, f"croktile_event_t {f}__ev = 0;")
        if self.scratch:
            self.w(1, "__global unsigned char* croktile_slot_base = croktile_scratch + get_global_id(0) * croktile_slot;")
        self.setup_buffers(par, 1)
        self.declare_frags(par.body, 1)
        self.stmts(par.body, 1, 1, 0)
        self.lines.append("}")
        return "\n".join(self.lines)

    def setup_buffers(self, par: ir.Parallel, depth: int) -> None:
        """Pointers to the buffers an instance of `par` owns (the zeros that declared data
        may need are an ir.Fill where it is declared: frontend/fills.py)."""
        for b in par.buffers:
            ct, kind = self.ctype(b), self.kind[b.name]
            q = self.qual(b)
            if kind == "static" and self.space[b.name] == "p":
                self.w(depth, f"{ct} {b.name}[{_capacity(b)}] __attribute__((aligned(16)));")
                self.w(depth, f"{ct}* {self.ptr(b)} = {b.name};")
            elif kind == "scratch":
                self.w(depth, f"__global {ct}* {self.ptr(b)} = (__global {ct}*)(croktile_slot_base + {b.name}__off);")
            else:   # __local, static or a kernel argument
                self.w(depth, f"{q} {ct}* {self.ptr(b)} = {b.name};")

    # Barrier state at the outer level of a group kernel: 0 all synchronised, 1 work-item 0
    # worked alone since the last barrier, 2 the whole group worked (or copies are pending).
    def stmts(self, stmts: List[ir.Stmt], depth: int, level: int, state: int) -> int:
        if self.resumable and not self.in_run:
            return self.resumable_stmts(stmts, depth, level, state)
        return self.each_stmt(stmts, depth, level, state)

    def each_stmt(self, stmts: List[ir.Stmt], depth: int, level: int, state: int) -> int:
        if state:   # a body entered with work pending (a loop's next iteration, an if): not followed
            self.since = None
        for s in stmts:
            self.w(depth, statement_line(s.loc))
            state = getattr(self, "s_" + type(s).__name__)(s, depth, level, state)
        return state

    def s_Loop(self, s: ir.Loop, depth: int, level: int, state: int) -> int:
        state = super().s_Loop(s, depth, level, state)
        self.since = None      # the accesses before the loop may be the ones pending after it
        return state

    def s_If(self, s: ir.If, depth: int, level: int, state: int) -> int:
        state = super().s_If(s, depth, level, state)
        self.since = None
        return state

    def s_InThreads(self, s: ir.InThreads, depth: int, level: int, state: int) -> int:
        state = super().s_InThreads(s, depth, level, state)
        self.since = None
        return state

    def outer(self, level: int) -> bool:
        return self.group and level == 1

    def before(self, level: int, state: int, kind: int, depth: int, copy: Optional[ir.Dma] = None) -> int:
        """Emits the barrier an outer-level step of `kind` (1 masked, 2 cooperative) needs.
        A cooperative `copy` after other such copies needs none when it reads nothing they
        wrote and writes nothing they touched (two tiles loaded one after the other)."""
        if not self.outer(level):
            return 0
        keys = self.copy_keys(copy) if copy is not None and self.follows_copies else None
        if state == 0:
            self.since = (set(), set())
        elif state == 2 or (state == 1 and kind == 2):
            independent = (state == 2 and keys is not None and self.since is not None
                           and not (keys[0] & self.since[1]) and not (keys[1] & (self.since[0] | self.since[1])))
            if not independent:
                self.barrier(depth)
                state = 0
                self.since = (set(), set())
        if kind == 2:
            self.since = None if keys is None or self.since is None else (self.since[0] | keys[0],
                                                                           self.since[1] | keys[1])
        return max(state, kind)

    def copy_keys(self, s: ir.Dma) -> Tuple[set, set]:
        """What a copy reads and writes: group memory by buffer, global memory as one (two
        parameters may be the same array)."""
        def key(b: ir.Buffer) -> str:
            return "global" if b.storage == "global" else b.name
        return {key(s.src.buffer)}, {key(s.dst.buffer)}

    def s_Parallel(self, s: ir.Parallel, depth: int, level: int, state: int) -> int:
        self.level_stack.append(s)
        state = self.level(s, depth, level, state)
        self.level_stack.pop()
        return state

    def level(self, s: ir.Parallel, depth: int, level: int, state: int) -> int:
        if s.level == 2:
            if state:
                self.barrier(depth)
            self.w(depth, "{")
            if s in self.resumable_levels:   # instances that wait on each other's events
                self.resumable_level(s, depth + 1)
            else:
                self.instances(s, depth + 1)
            self.w(depth, "}")
            # the work-items may have touched anything: the next outer-level step (not the
            # end of the kernel) starts with a barrier
            self.since = None
            return 2
        # deeper levels: a loop inside the work-item, as on the cpu target
        saved, self.resumable = self.resumable, False   # (it waits on nothing)
        self.w(depth, f"for (long {s.var} = 0; {s.var} < {dev_expr(s.count)}; ++{s.var}) {{")
        self.setup_buffers(s, depth + 1)
        self.stmts(s.body, depth + 1, s.level, 0)
        self.w(depth, "}")
        self.resumable = saved
        return state

    def instances(self, s: ir.Parallel, depth: int) -> None:
        """The instances of the level-2 `s` that this work-item runs."""
        if s in self.exact:   # a work-item each: the group has exactly as many
            self.w(depth, f"{{ const long {s.var} = croktile_lid;")
        else:   # work-item i runs instances i, i + size, ... (the group may be smaller than the count)
            self.w(depth, f"for (long {s.var} = croktile_lid; {s.var} < {dev_expr(s.count)}; "
                          f"{s.var} += croktile_lsize) {{")
        self.instance_body(s, depth + 1, 0, self.setup_buffers)
        self.w(depth, "}")

    def s_Alloc(self, s: ir.Alloc, depth: int, level: int, state: int) -> int:
        return state   # every buffer is set up where its parallel instance starts, as on cpu

    def s_Fill(self, s: ir.Fill, depth: int, level: int, state: int) -> int:
        b = s.buffer
        start, step = "0", "1"
        if self.outer(level) and self.qual(b) == "__local":   # the whole group fills group memory
            state = self.before(level, state, 2, depth)
            start, step = "croktile_lid", "croktile_lsize"
        elif self.kind[b.name] == "static" and self.space[b.name] == "p" and self.whole_unroll([_product(b.shape)]):
            self.w(depth, "#pragma unroll")   # a private array stays in registers
        self.w(depth, f"for (long croktile_i = {start}; croktile_i < {dev_expr(_product(b.shape))}; "
                      f"croktile_i += {step}) {self.ptr(b)}[croktile_i] = {fill_literal(b.elem, s.value, as_bits=True)};")
        return state

    def events_swapped(self) -> Set[str]:
        """Futures whose events a `swap` exchanges: declared once, at the kernel's start."""
        out = set()
        for st, _ in self.all:
            if isinstance(st, ir.Swap):
                fa, fb = self.future_of_buffer.get(st.a.name), self.future_of_buffer.get(st.b.name)
                if fa in self.event_futures and fb in self.event_futures:
                    out |= {fa, fb}
        return out

    def events_out_of_scope(self) -> Set[str]:
        """Futures (not swapped) with a `wait` that their copy does not precede in the
        same block (a `wait` after the loop that issues it, or before the copy of the next
        iteration): their event would be out of scope there, and a wait on an event no copy
        has set yet is not portable, so such copies complete when issued."""
        out: Set[str] = set()

        def visit(body: List[ir.Stmt]) -> None:
            issued: Set[str] = set()
            for st in body:
                if isinstance(st, ir.Dma) and st.future in self.event_futures:
                    issued.add(st.future)
                elif isinstance(st, ir.Wait):
                    out.update(f for f in st.futures if f in self.event_futures and f not in issued)
                if getattr(st, "body", None):   # a loop's, a branch's: a block of its own
                    visit(st.body)
        visit(self.par.body)
        return out - self.swapped_events

    def s_Swap(self, s: ir.Swap, depth: int, level: int, state: int) -> int:
        q = self.qual(s.a)
        self.w(depth, f"{{ {q} {self.ctype(s.a)}* croktile_t = {self.ptr(s.a)}; {self.ptr(s.a)} = {self.ptr(s.b)}; "
                      f"{self.ptr(s.b)} = croktile_t; }}")
        fa, fb = self.future_of_buffer.get(s.a.name), self.future_of_buffer.get(s.b.name)
        if fa in self.event_futures and fb in self.event_futures:
            self.w(depth, f"{{ croktile_event_t croktile_e = {fa}__ev; {fa}__ev = {fb}__ev; {fb}__ev = croktile_e; }}")
        return state

    def s_Wait(self, s: ir.Wait, depth: int, level: int, state: int) -> int:
        events = [f for f in s.futures if f in self.event_futures]
        others = [f for f in s.futures if f not in self.event_futures]
        if others:
            self.w(depth, f"/* wait {', '.join(others)}: these copies completed when issued */")
        if events:
            self.w(depth, f"{{ croktile_event_t croktile_ev[{len(events)}] = {{{', '.join(f + '__ev' for f in events)}}}; "
                          f"wait_group_events({len(events)}, croktile_ev); }}")
            if self.group:
                self.barrier(depth)
                return 0
        return state

    def region_ptr(self, r: ir.Region) -> str:
        off = _linear(r.offsets, r.shape)
        return self.ptr(r.buffer) + ("" if off.is_const and off.value == 0 else f" + ({dev_expr(off)})")

    def s_Call(self, s: ir.Call, depth: int, level: int, state: int) -> int:
        args, spaces = [], []
        for a in s.args:
            if a.expr is not None:
                text = self.elements().value(a.expr)
                args.append(f"(int)({text})" if a.kind == "int" else text)
                spaces.append(None)
            elif a.kind == "data":
                args.append(self.region_ptr(a.region))
                spaces.append(self.space[a.region.buffer.name])
            elif a.kind == "int":
                args.append(f"(int)({dev_expr(a.value)})")
                spaces.append(None)
            elif a.kind == "bool":
                args.append(f"(bool)({dev_expr(a.value)})")
                spaces.append(None)
            else:
                args.append(a.text)
                spaces.append(None)
        name = self.gen.callee(s, spaces)
        text = call_statement(s, name, args, "long")
        if self.outer(level):
            state = self.before(level, state, 2 if s.result else 1, depth)
            # a value every work-item of the group needs: each calls (README "Scalars")
            self.w(depth, text if s.result else f"if (croktile_lid == 0) {text}")
        else:
            self.w(depth, text)
        return state

    def s_ScalarDef(self, s: ir.ScalarDef, depth: int, level: int, state: int) -> int:
        if ir.stmt_reads(s):   # every work-item computes the scalar: all read
            state = self.before(level, state, 2, depth)
        return super().s_ScalarDef(s, depth, level, state)

    def s_Assign(self, s: ir.Assign, depth: int, level: int, state: int) -> int:
        if ir.stmt_reads(s):
            state = self.before(level, state, 2, depth)
        return super().s_Assign(s, depth, level, state)

    def s_Store(self, s: ir.Store, depth: int, level: int, state: int) -> int:
        text = ElementWriter("opencl", self.ptr, dev_expr, lambda e: DEVICE_CTYPES[e],
                             lambda e: self.diag.error(s.loc, f"computing with '{e}' elements is not supported on "
                                                              "target 'opencl' yet (copying them is)")).store(s)
        if self.outer(level):   # outer-level code runs as if on work-item 0 (spec 4)
            state = self.before(level, state, 1, depth)
            self.w(depth, f"if (croktile_lid == 0) {text}")
        else:
            self.w(depth, text)
        return state

    def s_Print(self, s: ir.Print, depth: int, level: int, state: int) -> int:
        text = print_stmt(s, dev_expr, printf="printf", int_fmt="%ld", int_type="long",
                          bool_as_text=False, flush="", value=self.elements().value, float_type="float")
        if self.outer(level):
            state = self.before(level, state, 1, depth)
            self.w(depth, f"if (croktile_lid == 0) {{ {text} }}")
        else:
            self.w(depth, text)
        return state

    def s_Dma(self, s: ir.Dma, depth: int, level: int, state: int) -> int:
        if s.op != "copy":
            loops, body = element_loops(s, self.ptr, dev_expr, self.ctype(s.dst.buffer), "long")
            if self.outer(level):
                state = self.before(level, state, 2, depth)
                write_shared_loops(self.w, depth, loops, body, dev_expr, "croktile_lid", "croktile_lsize", "long")
            else:
                write_loops(self.w, depth, loops, body, dev_expr, "long")
            return state
        if s.is_async and s.future in self.event_futures:
            state = self.before(level, state, 2, depth)
            self.work_group_copy(s, depth)
            return state
        coop = self.outer(level)
        if coop:
            state = self.before(level, state, 2, depth, copy=s)
        self.copy_loops(s, depth, coop)
        return state

    def runs(self, s: ir.Dma):
        """Dimensions of the copy with the contiguous innermost run merged: (outer dims, run)."""
        ext = list(s.src.extents)
        rank = len(ext)
        k = rank - 1
        while k > 0 and ext[k] == s.src.shape[k] and ext[k] == s.dst.shape[k]:
            k -= 1
        return k, _product(ext[k:])

    def copy_loops(self, s: ir.Dma, depth: int, coop: bool) -> None:
        if not coop:
            self.item_copy(s, depth)
            return
        k, run = self.runs(s)
        dims = list(s.src.extents[:k]) + [run]          # the loop nest; the last one is contiguous
        src_st = _strides(s.src.shape)[:k] + [Sym.const(1)]
        dst_st = _strides(s.dst.shape)[:k] + [Sym.const(1)]
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        loops = []
        for d, e in enumerate(dims):
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * src_st[d]
            dst_at = dst_at + i * dst_st[d]
            loops.append((f"croktile_i{d}", e))
        body = f"{self.ptr(s.dst.buffer)}[{dev_expr(dst_at)}] = {self.ptr(s.src.buffer)}[{dev_expr(src_at)}];"
        self.w(depth, "{")
        vector = self.vector_loops(s, dims, src_st, dst_st)
        if vector is not None and loops:   # 16 bytes per work-item and step where both sides allow
            tests, vloops, vbody = vector
            if tests:
                size = s.src.buffer.elem_bytes
                tested = [(r, size) for r in (s.dst, s.src) if self.alignment_test(r, "", size)]
                self.w(depth + 1, f"if ({self.aligned_test(tests, tested)}) {{")
            self.group_loops(depth + 1 + bool(tests), vloops, vbody)
            if not tests:
                self.w(depth, "}")
                return
            self.w(depth + 1, "} else {")
            self.group_loops(depth + 2, loops, body)
            self.w(depth + 1, "}")
            self.w(depth, "}")
            return
        if loops:     # all work-items, one element each in turn
            self.group_loops(depth + 1, loops, body)
        else:
            self.w(depth + 1, f"if (croktile_lid == 0) {body}")
        self.w(depth, "}")

    def vector_loops(self, s: ir.Dma, dims, src_st, dst_st):
        """A work-group copy in 16-byte vectors: (the alignment tests left for run time, the
        loops, the body), or None where the run or an offset is not whole vectors."""
        size = s.src.buffer.elem_bytes
        if 16 % size or not dims:
            return None
        per = 16 // size
        run = dims[-1]
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        whole = all(c % per == 0 for v in [src_at, dst_at] + src_st[:-1] + dst_st[:-1] for c in v.terms.values())
        if not (run.is_const and run.value % per == 0 and whole):
            return None
        loops = []
        for d, e in enumerate(dims):
            last = d == len(dims) - 1
            e = Sym.const(e.value // per) if last else e
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * (Sym.const(per) if last else src_st[d])
            dst_at = dst_at + i * (Sym.const(per) if last else dst_st[d])
            loops.append((f"croktile_i{d}", e))
        tests = [t for t in (self.alignment_test(s.dst, "", size), self.alignment_test(s.src, "", size)) if t]
        qd, qs = self.qual(s.dst.buffer), self.qual(s.src.buffer)
        body = (f"*(({qd} croktile_vec16*)({self.ptr(s.dst.buffer)} + {_paren(dev_expr(dst_at))})) = "
                f"*(({qs} const croktile_vec16*)({self.ptr(s.src.buffer)} + {_paren(dev_expr(src_at))}));")
        return tests, loops, body

    def group_loops(self, depth: int, loops, body: str) -> None:
        """The work-items of the group take the iterations of a loop nest in turn."""
        self.group_loop_header(depth, _product([e for _, e in loops]))
        rest = "croktile_t"
        for n, (i, e) in enumerate(reversed(loops)):
            if n == len(loops) - 1:
                self.w(depth + 1, f"const long {i} = {rest};")
            else:
                self.w(depth + 1, f"const long {i} = {rest} % {_paren(dev_expr(e))};")
                rest = f"({rest} / {_paren(dev_expr(e))})"
        self.w(depth + 1, body)
        self.w(depth, "}")

    def item_copy(self, s: ir.Dma, depth: int) -> None:
        """One work-item copies a box, as the cuda target's thread copy: base pointers
        computed once, loops with constant trip counts where the shapes are constant, and
        16-byte vectors where the run and the strides allow and both addresses turn out
        aligned (private arrays are declared 16-byte aligned)."""
        dims, run, sst, dstr = copy_dims(s)
        ext = s.src.extents
        ct, size = self.ctype(s.src.buffer), s.src.buffer.elem_bytes
        qd, qs = self.qual(s.dst.buffer), self.qual(s.src.buffer)
        vec = run.is_const and run.value * size % 16 == 0 and all(
            sst[d].is_const and dstr[d].is_const and sst[d].value * size % 16 == 0
            and dstr[d].value * size % 16 == 0 for d in dims)
        src_off = " + ".join(f"croktile_i{d} * {_paren(dev_expr(sst[d]))}" for d in dims) or "0"
        dst_off = " + ".join(f"croktile_i{d} * {_paren(dev_expr(dstr[d]))}" for d in dims) or "0"

        def nest(d0: int, body: str, inner: Sym, var: str) -> None:
            loops = [(f"croktile_i{d}", ext[d]) for d in dims] + [(var, inner)]
            whole = self.whole_unroll([e for _, e in loops])   # private arrays indexed by constants
            for n, (v, e) in enumerate(loops):
                if whole:
                    self.w(d0 + n, "#pragma unroll")
                self.w(d0 + n, f"for (long {v} = 0; {v} < {dev_expr(e)}; ++{v}){' {' if n < len(loops) - 1 else ''}")
            self.w(d0 + len(loops), body)
            for n in reversed(range(len(loops) - 1)):
                self.w(d0 + n, "}")
        self.w(depth, "{")
        self.w(depth + 1, f"{qd} {ct}* const croktile_d = {self.region_ptr(s.dst)};")
        self.w(depth + 1, f"{qs} const {ct}* const croktile_s = {self.region_ptr(s.src)};")
        scalar = f"croktile_d[{dst_off} + croktile_e] = croktile_s[{src_off} + croktile_e];"
        if vec:
            tests = [t for t in (self.alignment_test(s.dst, "croktile_d", size),
                                 self.alignment_test(s.src, "croktile_s", size)) if t]
            tested = [(r, size) for r, p in ((s.dst, "croktile_d"), (s.src, "croktile_s"))
                      if self.alignment_test(r, p, size)]
            if not tests:   # both private arrays at aligned offsets
                nest(depth + 1, f"(({qd} croktile_vec16*)(croktile_d + {dst_off}))[croktile_v] = "
                                f"(({qs} const croktile_vec16*)(croktile_s + {src_off}))[croktile_v];",
                     Sym.const(run.value * size // 16), "croktile_v")
                self.w(depth, "}")
                return
            self.w(depth + 1, f"if ({self.aligned_test(tests, tested)}) {{")
            nest(depth + 2, f"(({qd} croktile_vec16*)(croktile_d + {dst_off}))[croktile_v] = "
                            f"(({qs} const croktile_vec16*)(croktile_s + {src_off}))[croktile_v];",
                 Sym.const(run.value * size // 16), "croktile_v")
            self.w(depth + 1, "} else {")
            nest(depth + 2, scalar, run, "croktile_e")
            self.w(depth + 1, "}")
        else:
            nest(depth + 1, scalar, run, "croktile_e")
        self.w(depth, "}")

    def alignment_test(self, r: ir.Region, pointer: str, size: int) -> str:
        """What decides at run time whether the region starts 16-byte aligned: nothing for
        a private array (declared aligned) at an offset of whole 16-byte units, the
        buffer's base pointer (loop-invariant) for another buffer at such an offset, else
        the address itself. A private array's address is never taken as an integer: that
        keeps it out of registers on some implementations."""
        whole = 16 % size == 0 and not any(c % (16 // size) for c in _linear(r.offsets, r.shape).terms.values())
        b = r.buffer
        if whole and self.kind.get(b.name) == "static" and self.space.get(b.name) in ("p", "l"):
            return ""
        return f"(uint64_t){self.ptr(b) if whole else pointer}"

    def work_group_copy(self, s: ir.Dma, depth: int) -> None:
        k, run = self.runs(s)
        src_st, dst_st = _strides(s.src.shape), _strides(s.dst.shape)
        src_at = _linear(s.src.offsets, s.src.shape)
        dst_at = _linear(s.dst.offsets, s.dst.shape)
        loops = []
        for d in range(k):
            e = s.src.extents[d]
            if e.is_const and e.value == 1:
                continue
            i = Sym.var(f"croktile_i{d}")
            src_at = src_at + i * src_st[d]
            dst_at = dst_at + i * dst_st[d]
            loops.append((f"croktile_i{d}", e))
        hoisted = s.future in self.swapped_events   # declared at the kernel's start; an event_t takes no 0
        ev = "croktile_e" if hoisted else f"{s.future}__ev"
        if not hoisted:
            self.w(depth, f"croktile_event_t {ev} = 0;")
        self.w(depth, "{")
        if hoisted:
            self.w(depth + 1, f"croktile_event_t {ev} = 0;")
        for n, (i, e) in enumerate(loops):
            self.w(depth + 1 + n, f"for (long {i} = 0; {i} < {dev_expr(e)}; ++{i})")
        self.w(depth + 1 + len(loops), f"{ev} = async_work_group_copy({self.ptr(s.dst.buffer)} + {_paren(dev_expr(dst_at))}, "
                                       f"{self.ptr(s.src.buffer)} + {_paren(dev_expr(src_at))}, "
                                       f"(unsigned long){_paren(dev_expr(run))}, {ev});")
        if hoisted:
            self.w(depth + 1, f"{s.future}__ev = {ev};")
        self.w(depth, "}")
