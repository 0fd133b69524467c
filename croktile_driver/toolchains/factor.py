"""factor target: an NPU whose device functions have C linkage (spec 3), run by factor-sim.

One ``.co.cpp`` becomes two sources (separate source, spec 1):

* the **device source** (``x.gen.dev.cpp``): the ``__cok__`` code as written
  (``extern "C"`` functions), with ``-kt`` the explicit instantiation and ``extern "C"``
  wrapper of every function template specialisation that tileflow code calls, and one
  entry point per launch (outermost ``parallel``), ``<function>__launch<k>``, with C
  linkage. The profile's ``device_cc`` compiles it into the device module (a shared
  object for factor-sim);
* the **host source** (``x.gen.cpp``): the host code, and per ``__co__`` function what
  the cpu target does at host level, with each launch handing its arguments to the
  device module's entry point by name. The module itself is embedded in the host
  object (``CROKTILE_FACTOR_EMBED``), so ``-c`` objects, static libraries and
  executables carry it; ``runtime/croktile_factor.h`` loads it at the first launch.

Inside an entry point (one instance of the launch, on one core): deeper ``parallel``
levels are loops; every DMA goes through the core's DMA engine (``.async`` returns a
ticket that ``wait`` waits for); runtime checks report through the runtime and leave.

Scratchpads (checked against the profile's ``limits``): each core has a ``shared``
scratchpad of ``shared_bytes`` and its thread a ``local`` one of ``local_bytes``. Every
buffer an instance holds gets its own 16-byte aligned slot for the whole instance (a
total per instance, not a plan by live ranges): ``shared`` data of the outer level, and
its ``local`` data when an inner level exists (it belongs to the core, as on opencl), go
in the shared scratchpad; ``shared`` data of inner levels too, one slot per inner
instance; other ``local`` data in the thread's local scratchpad. Slots of known size come
first and are checked here; the others are placed, and checked, by the host before the
launch (``croktile::factor::place``), with the same message.
"""
from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from .factor_events import FactorEvents, check_factor_events
from .factor_barriers import FactorBarriers
from .macro_guard import guarded_head
from ..cstrings import escaped
from ..diagnostics import Loc
from ..frontend import ir
from ..frontend.pipeline import TranslationUnit
from ..frontend.splitter import _Scanner
from ..frontend.symbolic import Sym
from ..profiles import device_compiler_of
from .dma_transform import element_loops, write_loops
from .mma_emit import FragmentWriter, check_instructions, replication, uses_mma
from .base import (DeviceBuild, with_device_form, StatementWriter, ToolChain, box_declarations, c_string, call_arguments,
                   call_statement, host_translation_unit,
                   print_stmt,
                   line_directive)
from .cpu import FunctionEmitter
from .fill import fill_literal
from .elements import ElementWriter, float_names, float_values
from .kernel_ir import (same_level, swap_tainted, dev_expr, host_level_names, kernel_free_names, linear, matching, product, shape_vars,
                        walk_levels)
from .cok import _masked, host_device_functions, parse_cok, report_non_cok_call, segment_loc

ALIGN = 16
# How a gcc-compatible device compiler builds a module the host loads: position
# independent, only the entry points (CROKTILE_FACTOR_EXPORT) visible.
DEVICE_MODULE_FLAGS = ["-fPIC", "-shared", "-fvisibility=hidden"]
PAD_NAMES = {"local": "local scratchpad of a factor thread", "shared": "shared scratchpad of a factor core"}


class FactorToolChain(ToolChain):
    target = "factor"
    source_suffix = ".cpp"
    runtime_header = "croktile_factor.h"
    device_suffix = ".dev.cpp"
    module_suffix = ".so"

    def check(self, module, diag) -> None:
        check_instructions(module, diag)
        check_factor_events(module, diag)

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        limits = self.scratchpad_limits(diag)
        if limits is None:
            return {}
        host, device = Generator(tu, diag, self.profile["name"], limits, bool(self.options.kernel_templates),
                                 bool(getattr(self.options, "memory_report", False))).run()
        return {self.source_suffix: host, self.device_suffix: device}

    def scratchpad_limits(self, diag) -> Optional[Dict[str, int]]:
        """The factor target sizes its scratchpads from the profile: both limits are required."""
        limits = self.profile.get("limits", {})
        missing = [k for k in ("local_bytes", "shared_bytes") if not isinstance(limits.get(k), int)]
        if missing:
            diag.error(None, f"profile '{self.profile['name']}' (target factor) gives no "
                             f"{' and '.join('limits.' + k for k in missing)}: the factor target needs the sizes "
                             "of its local and shared scratchpads")
            return None
        return {"local_bytes": limits["local_bytes"], "shared_bytes": limits["shared_bytes"]}

    def device_compiler(self) -> List[str]:
        """The profile's device_cc, which may carry its own flags (a vendor compiler's target)."""
        return shlex.split(device_compiler_of(self.profile))

    def device_build(self, generated: str, flags: List[str], source_dir: str) -> Optional[DeviceBuild]:
        """Compiles x.gen.dev.cpp into x.gen.so; the host compile embeds that file."""
        base = generated[: -len(self.source_suffix)] if generated.endswith(self.source_suffix) else generated
        source, module = base + self.device_suffix, base + self.module_suffix
        argv = [*self.device_compiler(), *flags, *DEVICE_MODULE_FLAGS, *self.quote_include(source_dir),
                source, "-o", module]
        return DeviceBuild(argv, source, module,
                           [f"-DCROKTILE_FACTOR_MODULE={c_string(_assembler_string(module))}"])


def _assembler_string(path: str) -> str:
    """The path as the inside of an assembler string (.incbin "...")."""
    return path.replace("\\", "\\\\").replace('"', '\\"')


def _digest(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:n]


def _where(loc: Loc) -> str:
    return c_string(f"{loc.file}:{loc.line}:{loc.col}")


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _align_sym(s: Sym) -> Sym:
    return Sym.const(_align(s.value)) if s.is_const else (s + (ALIGN - 1)).floordiv(ALIGN) * ALIGN


def _show(s: Sym) -> str:
    """A dimension as messages show it: (M / 2) without the outer parentheses."""
    text = s.to_c()
    if text.startswith("(") and matching(text, 0, "(", ")") == len(text) - 1:
        return text[1:-1]
    return text


def kt_wrapper_name(func: str, targs: Tuple[int, ...]) -> str:
    """The C symbol of the -kt wrapper of func<targs>: croktile_kt__f__16_4_72 (m5 for -5)."""
    return f"croktile_kt__{func}__" + "_".join(str(v) if v >= 0 else f"m{-v}" for v in targs)


# ---------------------------------------------------------------------------------
# __cok__ blocks: which device functions have C linkage
# ---------------------------------------------------------------------------------

def _top_level(text: str) -> str:
    """The text with everything inside nested braces blanked (declarations at this level remain)."""
    out, depth = [], 0
    for ch in text:
        if ch == "}":
            depth -= 1
        out.append(ch if depth == 0 or ch == "\n" else " ")
        if ch == "{":
            depth += 1
    return "".join(out)


_EXTERN_C_BLOCK = re.compile(r'\bextern\s*"C"\s*\{')
_EXTERN_C_DECL = re.compile(r'\bextern\s*"C"\s*(?!\{)[^;{}()]*?\b([A-Za-z_]\w*)\s*\(')
_DECLARED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def c_linkage_names(segments, cok) -> Set[str]:
    """Functions of __cok__ blocks declared extern "C" (one by one or in an extern "C" { } block)."""
    names = {n for n, f in cok.functions.items() if f.extern_spans}
    for seg in segments:
        if seg.kind != "cok":
            continue
        masked = _masked(seg.text)
        names.update(m.group(1) for m in _EXTERN_C_DECL.finditer(masked))
        scan = _Scanner(seg.text)
        for m in _EXTERN_C_BLOCK.finditer(masked):
            close = scan.find_matching_brace(m.end() - 1)
            if close > 0:
                names.update(d.group(1) for d in _DECLARED.finditer(_top_level(masked[m.end():close])))
    return names


# ---------------------------------------------------------------------------------
# Scratchpad slots of one launch
# ---------------------------------------------------------------------------------

@dataclass
class Slot:
    buffer: ir.Buffer
    pad: str                              # local | shared
    copies: Optional[ir.Parallel] = None  # an inner level whose instances each hold one
    note: str = ""                        # why it is where it is, for messages
    offset: Optional[int] = None          # bytes into the pad when known here
    index: int = -1                       # else: its entry of croktile_layout

    @property
    def bytes(self) -> Sym:
        return product(self.buffer.shape) * self.buffer.elem_bytes

    @property
    def stride(self) -> Sym:
        return _align_sym(self.bytes)

    @property
    def total(self) -> Sym:
        return self.bytes if self.copies is None else self.stride * self.copies.count

    def what(self) -> str:
        b = self.buffer
        name = f"'{b.source_name}'" if b.source_name else "the destination of this copy"
        shape = "[" + ", ".join(_show(d) for d in b.shape) + "]"
        extra = f"; {self.note}" if self.note else ""
        if self.copies is not None:
            extra += f"; one per instance of '{self.copies.var}', {_show(self.copies.count)} of them"
        return f"{b.storage} buffer {name} ({b.elem} {shape}{extra})"


def plan_slots(par: ir.Parallel) -> List[Slot]:
    """Every buffer of a launch in its scratchpad: those of known size first, in declaration order."""
    has_inner = any(isinstance(s, ir.Parallel) and s.level >= 2 for s in ir.walk(par.body))
    slots: List[Slot] = []

    def visit(p: ir.Parallel, inner: Optional[ir.Parallel]) -> None:
        for b in p.buffers:
            if p.level == 1 and b.storage == "local" and has_inner:
                slots.append(Slot(b, "shared", note="outer-level data of a two-level kernel"))
            elif b.storage == "shared":
                slots.append(Slot(b, "shared", copies=inner))
            else:
                slots.append(Slot(b, "local"))
        for s in ir.walk(p.body):
            if isinstance(s, ir.Parallel) and s.level == p.level + 1:
                visit(s, inner if inner is not None else s)

    visit(par, None)
    return [s for s in slots if s.total.is_const] + [s for s in slots if not s.total.is_const]


def place_static(slots: List[Slot], limits: Dict[str, int], profile: str, diag) -> Dict[str, int]:
    """Offsets of the slots of known size; one that does not fit is an error (with the others as notes)."""
    ends = {"local": 0, "shared": 0}
    for slot in slots:
        if not slot.total.is_const:
            continue
        offset = _align(ends[slot.pad])
        end = offset + slot.total.value
        limit = limits[slot.pad + "_bytes"]
        if end > limit and ends[slot.pad] <= limit:
            diag.error(slot.buffer.loc, f"{slot.what()} needs {slot.total.value} bytes and does not fit in the "
                                        f"{PAD_NAMES[slot.pad]}: it would end at byte {end}, and profile "
                                        f"'{profile}' allows {limit}")
            for other in slots:
                if other is not slot and other.pad == slot.pad and other.total.is_const:
                    diag.note(other.buffer.loc, f"{other.what()}, {other.total.value} bytes, is in the same "
                                                "scratchpad")
        slot.offset = offset
        ends[slot.pad] = end
    index = 0
    for slot in slots:
        if slot.offset is None:
            slot.index = index
            index += 1
    return ends


# ---------------------------------------------------------------------------------
# The translation unit
# ---------------------------------------------------------------------------------

class Generator:
    def __init__(self, tu: TranslationUnit, diag, profile: str, limits: Dict[str, int], kt: bool,
                 report: bool = False):
        self.tu = tu
        self.diag = diag
        self.profile = profile
        self.limits = limits
        self.kt = kt
        self.report = report
        self.cok = parse_cok(tu.segments)
        self.c_names = c_linkage_names(tu.segments, self.cok)
        self.callees: Dict[int, str] = {}                          # id(call) -> what the entry calls
        self.wrappers: Dict[Tuple[str, Tuple[int, ...]], Loc] = {}  # -kt: instantiation -> first call
        self.entries: List[str] = []

    def run(self) -> Tuple[str, str]:
        module = self.tu.module or ir.Module([])
        self.resolve_calls(module)
        host_fns = {fn.name: HostEmitter(self, fn).emit() for fn in module.functions}
        device = self.device_source()
        return self.host_source(host_fns, device), device

    # -- device functions --------------------------------------------------------------
    def resolve_calls(self, module: ir.Module) -> None:
        """What each call site calls, in source order; the errors of calls that cannot work here."""
        host_device = host_device_functions(self.tu.segments)
        for fn in module.functions:
            for s in fn.walk():
                if isinstance(s, ir.Call):
                    self.callees[id(s)] = self.resolve(s, host_device)

    def resolve(self, call: ir.Call, host_device: Dict[str, Loc]) -> str:
        name = call.func
        if name not in self.cok.declared:
            report_non_cok_call(self.diag, call, host_device, "factor")
            return name
        fn = self.cok.functions.get(name)
        is_template = fn is not None and fn.template_span is not None
        if call.template_args is None:
            if is_template:
                self.diag.error(call.loc, f"'{name}' is a function template; on target 'factor' call it with "
                                          f"its template arguments ('{name}<...>'), which -kt turns into an "
                                          "extern \"C\" wrapper")
            elif name not in self.c_names:
                self.diag.error(call.loc, f"'{name}' does not have C linkage; on target 'factor' the device "
                                          "functions that tileflow code calls must be declared extern \"C\"")
                if fn is not None:
                    self.diag.note(segment_loc(self.tu.segments[fn.seg_index], fn.name_span[0]),
                                   f"'{name}' is defined here")
            return name
        return self.template_callee(call, fn)

    def template_callee(self, call: ir.Call, fn) -> str:
        name = call.func
        if fn is None or fn.template_span is None:
            self.diag.error(call.loc, f"'{name}' is called with template arguments, but no function template "
                                      f"'{name}' is defined in a '__cok__' block")
            return name
        if any(not t.is_const for t in call.template_args):
            return name   # sema has reported it
        targs = tuple(t.value for t in call.template_args)
        spelled = f"{name}<{', '.join(map(str, targs))}>"
        if not self.kt:
            self.diag.error(call.loc, f"'{name}' is a function template, and device functions have C linkage on "
                                      f"target 'factor': compile with -kt to generate an extern \"C\" wrapper "
                                      f"for '{spelled}'")
            return name
        typed = [p for p, is_type in fn.template_params if is_type]
        if typed:
            self.diag.error(call.loc, f"function template '{name}' has a type template parameter '{typed[0]}'; "
                                      "tileflow code gives integer template arguments, so -kt cannot wrap it")
            return name
        if len(fn.template_params) != len(targs):
            self.diag.error(call.loc, f"function template '{name}' has {len(fn.template_params)} template "
                                      f"parameters, the call gives {len(targs)} (-kt wraps one specialisation)")
            return name
        if len(fn.params) != len(call.args):
            self.diag.error(call.loc, f"'{spelled}' takes {len(fn.params)} arguments, the call passes "
                                      f"{len(call.args)} (a -kt wrapper passes every parameter)")
            return name
        self.wrappers.setdefault((name, targs), call.loc)
        return kt_wrapper_name(name, targs)

    def wrapper_text(self, name: str, targs: Tuple[int, ...], loc: Loc) -> str:
        """-kt: the explicit instantiation of name<targs> and its C wrapper, typed by the specialisation."""
        spec = f"{name}<{', '.join(map(str, targs))}>"
        fn_type = f"decltype({spec})"
        count = len(self.cok.functions[name].params)
        types = [f"croktile_kt_arg<{fn_type}, {i}>" for i in range(count)]
        ret = f"croktile_kt_ret<{fn_type}>"
        params = ", ".join(f"{t} a{i}" for i, t in enumerate(types))
        args = ", ".join(f"a{i}" for i in range(count))
        return "\n".join([f"// {spec}, called from tileflow code: explicit instantiation and C wrapper (-kt)",
                          line_directive(loc),
                          f"template {ret} {spec}({', '.join(types)});",
                          f'extern "C" {ret} {kt_wrapper_name(name, targs)}({params}) {{',
                          f"  return {spec}({args});",
                          "}"])

    def report_scratchpads(self, entry: "EntryEmitter") -> None:
        """--memory-report: where each buffer of a launch is, in which scratchpad."""
        loc = entry.par.loc
        out = [f"{loc.file}:{loc.line}:{loc.col}: scratchpads of entry point '{entry.name}' (profile "
               f"'{self.profile}'): local {entry.ends['local']} of {self.limits['local_bytes']} bytes per thread, "
               f"shared {entry.ends['shared']} of {self.limits['shared_bytes']} bytes per core"
               + (" + run-time sized buffers" if any(s.index >= 0 for s in entry.slots) else ""),
               f"  {'pad':<6}  {'offset':>8}  {'bytes':>8}  buffer"]
        for slot in entry.slots:
            offset = str(slot.offset) if slot.offset is not None else "run time"
            size = str(slot.total.value) if slot.total.is_const else _show(slot.total)
            out.append(f"  {slot.pad:<6}  {offset:>8}  {size:>8}  {slot.what()}")
        print("\n".join(out), file=self.diag.stream)

    # -- output --------------------------------------------------------------------------
    def device_source(self) -> str:
        out = [f"// Generated by croktilec (target factor): the device module of {escaped(self.tu.filename)}. Do not edit.",
               "#define CROKTILE_FACTOR_DEVICE 1", '#include "croktile_factor.h"', "#include <stdio.h>   // println"]
        if self.tu.module is not None and any(uses_mma(fn) for fn in self.tu.module.functions):
            out.append('#include "croktile_mma.h"   // tensor-core fragments: portable C++, as on cpu')
        out = guarded_head(out, self.tu.macros)
        for seg in self.tu.segments:
            if seg.kind == "cok":
                out.append(line_directive(seg.loc))
                out.append(seg.text)
        for (name, targs), loc in self.wrappers.items():
            out.append(self.wrapper_text(name, targs, loc))
        out.extend(self.entries)
        out.append("// Which runtime this module was built for.")
        out.append("CROKTILE_FACTOR_EXPORT const int croktile_factor_abi = CROKTILE_FACTOR_ABI_VERSION;")
        return "\n".join(out) + "\n"

    def host_source(self, host_fns: Dict[str, str], device: str) -> str:
        tu = self.tu
        sym = f"croktile_factor_module_{_digest(tu.filename, 12)}"
        out = ["// Generated by croktilec (target factor). Do not edit.",
               '#include "croktile.h"', '#include "croktile_factor.h"',
               "// The device module: the .dev.cpp generated beside this file, built by the profile's device",
               "// compiler into a shared object whose path CROKTILE_FACTOR_MODULE names; it is embedded here.",
               f"// Device source digest: {_digest(device, 16)} (a changed module changes this file).",
               "#ifdef CROKTILE_FACTOR_MODULE",
               f"CROKTILE_FACTOR_EMBED({sym}, CROKTILE_FACTOR_MODULE);",
               "#else",
               "static_assert(sizeof(int) == 0, \"compile the .dev.cpp generated beside this file into a shared "
               "object (cc -shared -fPIC) and define CROKTILE_FACTOR_MODULE as its path in quotes; croktilec "
               "and croktile_add_kernel do both\");",
               f'extern "C" const unsigned char {sym}_begin[], {sym}_end[];',
               "#endif",
               f"[[maybe_unused]] static croktile::factor::module croktile_factor_module({sym}_begin, {sym}_end, "
               f"{c_string(tu.filename)});",
               f"[[maybe_unused]] static const croktile::factor::limits croktile_factor_limits = "
               f"{{{self.limits['local_bytes']}, {self.limits['shared_bytes']}, {c_string(self.profile)}}};"]
        return host_translation_unit(tu, out, lambda si, seg: [f"// __cok__ block of {escaped(seg.loc.file)}:{seg.loc.line}: "
                                                               "compiled into the device module"],
                                     lambda fn: with_device_form(fn, host_fns[fn.name]))


# ---------------------------------------------------------------------------------
# Host code of one __co__ function: the cpu target's, with launches
# ---------------------------------------------------------------------------------

class HostEmitter(FunctionEmitter):
    """Host-level statements as on cpu; an outermost `parallel` becomes a launch of an entry point."""

    def __init__(self, gen: Generator, fn: ir.Function):
        super().__init__(fn)
        self.gen = gen
        self.launches = 0
        self.narrow = {p.name for p in fn.params if p.kind in ("int", "bool")}

    def hx(self, s: Sym) -> str:
        """A host expression; `int` parameters are widened so that sizes cannot overflow."""
        return s.to_c(lambda n: f"(long long){n}" if n in self.narrow else n)

    def s_Parallel(self, s: ir.Parallel, depth: int) -> None:
        name = f"{self.fn.name}__launch{self.launches}"
        self.launches += 1
        entry = EntryEmitter(self.gen, self.fn, s, name)
        text = entry.emit()
        if self.gen.diag.errors:
            return
        self.gen.entries.append(text)
        if self.gen.report:
            self.gen.report_scratchpads(entry)
        where = _where(s.loc)
        d = depth + 1
        self.w(depth, "{")
        args = []
        for k, arg in enumerate(entry.args):
            if arg.kind == "scalar":
                self.w(d, f"long long croktile_s{k} = (long long)({self.hx(Sym.var(arg.name))});")
                args.append(f"&croktile_s{k}")
            elif arg.kind == "layout":
                args.append("croktile_layout")
            elif arg.kind == "float":   # in the type the entry reads (a parameter may be f16)
                self.w(d, f"{arg.ctype} croktile_s{k} = ({arg.ctype})({arg.name});")
                args.append(f"&croktile_s{k}")
            else:
                args.append(f"&{arg.name}")
        ends = entry.ends
        self.w(d, f"long long croktile_shared_end = {ends['shared']}, croktile_local_end = {ends['local']};")
        dynamic = [slot for slot in entry.slots if slot.index >= 0]
        if dynamic:
            self.w(d, f"long long croktile_layout[{len(dynamic)}];")
        for slot in dynamic:
            self.w(d, f"croktile_layout[{slot.index}] = croktile::factor::place(croktile_{slot.pad}_end, "
                      f"(long long)({self.hx(slot.total)}), croktile_factor_limits, "
                      f"croktile::factor::pad::{slot.pad}, {_where(slot.buffer.loc)}, {c_string(slot.what())});")
        listed = ", ".join(f"(void*){a}" for a in args) or "nullptr"
        self.w(d, f"void* const croktile_args[] = {{{listed}}};")
        self.w(d, f"croktile::factor::launch(croktile_factor_module, {c_string(name)}, "
                  f"(long long)({self.hx(s.count)}), croktile_args, croktile_shared_end, croktile_local_end, "
                  f"{where});")
        self.w(depth, "}")


# ---------------------------------------------------------------------------------
# Device code: the entry point of one launch
# ---------------------------------------------------------------------------------

@dataclass
class EntryArg:
    kind: str        # global (a buffer's pointer), scalar (a host value), float, layout
    name: str        # host expression / device name
    decl: str = ""   # how the entry point reads it from croktile_args[i]
    ctype: str = ""  # float: the C type the entry reads


class EntryEmitter(FactorBarriers, StatementWriter, FactorEvents, FragmentWriter):
    """One launch's entry point; tensor-core statements as on cpu (mma_emit.py): the
    portable fragments of runtime/croktile_mma.h, one copy per inner instance."""
    expr = staticmethod(dev_expr)     # device code: croktile_min / croktile_max
    element_dialect = "factor"

    def __init__(self, gen: Generator, fn: ir.Function, par: ir.Parallel, name: str):
        self.gen = gen
        self.fn = fn
        self.frag_setup(replication(fn))   # inner instances run one after another
        self.barrier_setup()
        self.par = par
        self.name = name
        self.lines: List[str] = []
        self.args: List[EntryArg] = []
        self.diag = gen.diag
        self.slots = plan_slots(self.par)
        self.slot_of = {id(s.buffer): s for s in self.slots}
        self.check_sizes_known_at_launch()
        self.ends = place_static(self.slots, self.gen.limits, self.gen.profile, self.diag)
        self.future_of_buffer: Dict[str, str] = {}
        self.sync_futures = swap_tainted([self.par])   # swapped into a `dma.any`: no ticket follows
        for s in ir.walk([self.par]):
            if isinstance(s, ir.Dma) and s.future:
                self.future_of_buffer.setdefault(s.dst.buffer.name, s.future)

    def check_sizes_known_at_launch(self) -> None:
        """The host lays out the scratchpads before the launch: a size that depends on an
        instance (`local s32 [p + 1]`, a chunk by such a bound) cannot be placed there
        (the generated host code named `p` and did not compile)."""
        fn = self.fn
        host_names = host_level_names(fn, {b.symbol for b in fn.bindings} | {p.name for p in fn.params})
        for slot in self.slots:
            if not shape_vars(slot.buffer) <= host_names:
                b = slot.buffer
                self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be known when the kernel "
                                       "is launched on target 'factor'")

    @staticmethod
    def ptr(buf: ir.Buffer) -> str:
        return f"{buf.name}__ptr"

    def s_Print(self, s: ir.Print, depth: int) -> None:
        self.w(depth, print_stmt(s, self.expr, printf="printf", flush="fflush(stdout);", value=self.elements().value))

    # -- arguments ---------------------------------------------------------------------
    def collect_args(self) -> None:
        """Global buffers the launch reaches, the host values it reads, float parameters, the layout."""
        own = {id(b) for s in ir.walk([self.par]) if isinstance(s, ir.Parallel) for b in s.buffers}
        used: List[ir.Buffer] = []
        floats: List[str] = []
        for s in ir.walk([self.par]):
            regions = []
            if isinstance(s, ir.Dma):
                regions = [s.src, s.dst]
            elif isinstance(s, ir.Call):
                regions = [a.region for a in s.args if a.region is not None]
            elif isinstance(s, ir.Store):
                regions = [ir.Region(b, [], []) for b in [s.buffer] + [r.buffer for r in s.reads()]]
            elif isinstance(s, ir.MmaLoad):
                regions = [s.src]
            elif isinstance(s, ir.MmaStore):
                regions = [s.dst]
            floats += [f for f in float_names([s]) if f not in floats]
            regions += [ir.Region(r.buffer, [], []) for x in ir.stmt_eexprs(s) if not isinstance(s, ir.Store)
                        for r in ir.e_walk(x) if isinstance(r, ir.ERead)]
            for r in regions:
                if id(r.buffer) not in own and r.buffer not in used:
                    used.append(r.buffer)
        for b in used:
            ctype = ir.ELEM_CTYPES[b.elem]
            self.args.append(EntryArg("global", self.ptr(b), f"{ctype}* {self.ptr(b)} = *({ctype}* const*)"))
        for v in kernel_free_names(list(walk_levels([self.par], 0))):
            self.args.append(EntryArg("scalar", v, f"[[maybe_unused]] const long long {v} = *(const long long*)"))
        params = float_values(self.fn)   # name -> the C type the entry takes it as
        for f in floats:
            if f in params:
                self.args.append(EntryArg("float", f, f"const {params[f]} {f} = *(const {params[f]}*)", params[f]))
        if any(s.index >= 0 for s in self.slots):
            self.args.append(EntryArg("layout", "croktile_layout",
                                      "[[maybe_unused]] const long long* const croktile_layout = "
                                      "(const long long*)"))

    # -- the entry point -----------------------------------------------------------------
    def emit(self) -> str:
        self.collect_args()
        self.lines.append(line_directive(self.par.loc))
        self.lines.append(f"CROKTILE_FACTOR_EXPORT void {self.name}(croktile_factor_core* croktile_core, "
                          "void* const* croktile_args) {")
        self.w(1, "[[maybe_unused]] const croktile_factor_services* const croktile_rt = croktile_core->rt;")
        self.w(1, f"[[maybe_unused]] const long long {self.par.var} = croktile_core->index;")
        for i, arg in enumerate(self.args):
            self.w(1, f"{arg.decl}croktile_args[{i}];")
        self.declare_frags(self.par.body, 1)
        self.instance(self.par, 1)
        self.lines.append("}")
        return "\n".join(self.lines)

    def instance(self, par: ir.Parallel, depth: int) -> None:
        """One instance of a level: its buffers (the zeros that declared data may need are
        an ir.Fill where it is declared: frontend/fills.py), its futures, its statements."""
        for b in par.buffers:
            if b.storage == "local" and self.is_concurrent(par):   # each thread its own
                self.thread_array(b, depth)
                continue
            slot = self.slot_of[id(b)]
            base = f"croktile_core->{slot.pad} + " + (str(slot.offset) if slot.offset is not None
                                                     else f"croktile_layout[{slot.index}]")
            if slot.copies is not None:
                base += f" + {slot.copies.var} * ({dev_expr(slot.stride)})"
            ctype = ir.ELEM_CTYPES[b.elem]
            self.w(depth, f"{ctype}* {self.ptr(b)} = ({ctype}*)({base});")
        futures = []
        for s in same_level(par.body):
            if isinstance(s, ir.Dma) and s.is_async and s.future and s.future not in futures:
                futures.append(s.future)
        if futures:
            self.w(depth, "unsigned long long " + ", ".join(f"{f}__ticket = 0" for f in futures) + ";")
        self.stmts(par.body, depth)

    def stmts(self, stmts: List[ir.Stmt], depth: int) -> None:
        for s in stmts:
            if not isinstance(s, ir.Alloc):   # (slots are set up where the instance starts)
                self.w(depth, line_directive(s.loc))
                getattr(self, "s_" + type(s).__name__)(s, depth)

    def s_Parallel(self, s: ir.Parallel, depth: int) -> None:
        self.level_stack.append(s)
        if s.level == 2:
            self.declare_barriers(s, depth)
        if self.is_concurrent(s):   # instances that wait on each other's events or meet at a barrier
            self.concurrent_level(s, depth)
        else:
            self.w(depth, f"for (long long {s.var} = 0; {s.var} < {dev_expr(s.count)}; ++{s.var}) {{")
            self.instance(s, depth + 1)
            self.w(depth, "}")
        self.level_stack.pop()

    def s_Fill(self, s: ir.Fill, depth: int) -> None:
        b = s.buffer
        bits = b.elem in ("f16", "bf16")     # declared, not defined, on the device: store the bits
        ptr = f"((unsigned short*){self.ptr(b)})" if bits else self.ptr(b)
        self.w(depth, f"for (long long croktile_i = 0; croktile_i < {dev_expr(product(b.shape))}; ++croktile_i) "
                      f"{ptr}[croktile_i] = {fill_literal(b.elem, s.value, as_bits=bits)};")

    def s_Swap(self, s: ir.Swap, depth: int) -> None:
        ctype = ir.ELEM_CTYPES[s.a.elem]
        self.w(depth, f"{{ {ctype}* croktile_t = {self.ptr(s.a)}; {self.ptr(s.a)} = {self.ptr(s.b)}; "
                      f"{self.ptr(s.b)} = croktile_t; }}")
        fa, fb = self.future_of_buffer.get(s.a.name), self.future_of_buffer.get(s.b.name)
        if fa and fb:   # whether each copy is pending moves with its buffer
            self.w(depth, f"{{ unsigned long long croktile_t = {fa}__ticket; {fa}__ticket = {fb}__ticket; "
                          f"{fb}__ticket = croktile_t; }}")

    def s_Dma(self, s: ir.Dma, depth: int) -> None:
        if s.op != "copy":   # element loops on the core; the future's ticket stays 0 (done)
            loops, body = element_loops(s, self.ptr, dev_expr, ir.ELEM_CTYPES[s.dst.buffer.elem])
            write_loops(self.w, depth, loops, body, dev_expr)
            return
        self.w(depth, "{")
        for line in box_declarations(s, dev_expr):
            self.w(depth + 1, line)
        self.w(depth + 1, f"const croktile_factor_copy croktile_copy = {{{self.ptr(s.src.buffer)}, "
                          f"{self.ptr(s.dst.buffer)}, {s.src.buffer.elem_bytes}, {len(s.src.extents)}, "
                          "src_shape, src_off, dst_shape, dst_off, ext};")
        is_async = s.is_async and s.future not in self.sync_futures
        issue = f"croktile_rt->dma(croktile_core, &croktile_copy, {1 if is_async else 0});"
        if s.is_async and s.future:
            self.w(depth + 1, f"{s.future}__ticket = {issue}")
        else:
            self.w(depth + 1, f"(void){issue}")
        self.w(depth, "}")

    def s_Wait(self, s: ir.Wait, depth: int) -> None:
        for f in s.futures:
            self.w(depth, f"croktile_rt->wait(croktile_core, {f}__ticket);")

    def region_ptr(self, r: ir.Region) -> str:
        off = linear(r.offsets, r.shape)
        if off.is_const and off.value == 0:
            return self.ptr(r.buffer)
        if r.buffer.elem in ir.STRUCT_ELEMS:   # declared, not defined, on the device: step in bytes
            ctype = ir.ELEM_CTYPES[r.buffer.elem]
            return f"({ctype}*)((unsigned char*){self.ptr(r.buffer)} + ({dev_expr(off)}) * {r.buffer.elem_bytes})"
        return f"{self.ptr(r.buffer)} + ({dev_expr(off)})"

    def s_Call(self, s: ir.Call, depth: int) -> None:
        args = call_arguments(s, self.region_ptr, dev_expr, self.elements().value)
        self.w(depth, call_statement(s, self.gen.callees.get(id(s), s.func), args))

    def s_Store(self, s: ir.Store, depth: int) -> None:
        self.w(depth, ElementWriter("factor", self.ptr, dev_expr, lambda e: ir.ELEM_CTYPES[e],
                                    lambda e: self.diag.error(s.loc, f"computing with '{e}' elements is not supported "
                                                                     "on target 'factor' yet (copying them is)")).store(s))

    def s_Check(self, s: ir.Check, depth: int) -> None:
        values = ", ".join(f"(long long)({dev_expr(v)})" for v in s.values) or "0"
        self.w(depth, f"if (!({dev_expr(s.cond)})) {{")
        self.w(depth + 1, f"const long long croktile_v[] = {{{values}}};")
        self.w(depth + 1, f"croktile_rt->fail(croktile_core, {_where(s.loc)}, {c_string(s.message)}, "
                          f"{len(s.values)}, croktile_v);")
        self.w(depth + 1, "return;")
        self.w(depth, "}")

    def s_Return(self, s: ir.Return, depth: int) -> None:
        self.diag.error(s.loc, "'return' inside 'parallel' cannot run on target 'factor'")

