"""The factor target's host side: the translation unit, the C-linkage device module's
entry points and each function's host code."""
from __future__ import annotations

import hashlib
import re
from typing import Dict, List, Set, Tuple

from ...codegen.macro_guard import guarded_head
from ...cstrings import escaped
from ...diagnostics import Loc
from ... import ir
from ...frontend.pipeline import TranslationUnit
from ...frontend.splitter import Scanner
from ...ir.symbolic import Sym
from ...codegen.fragments import uses_mma
from ...codegen.signatures import with_device_form
from ...codegen.cxx import At, line_directive
from ...cstrings import c_string
from ...codegen.host_unit import host_translation_unit
from ...codegen.cxx import pin_lines, user_lines
from ..cpu import FunctionEmitter
from ...codegen.cok_blocks import masked_text, host_device_functions, parse_cok, report_non_cok_call, segment_loc
from .entry import EntryEmitter, _where
from .memory import _show


def _digest(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:n]


def kt_wrapper_name(func: str, targs: Tuple[int, ...]) -> str:
    """The C symbol of the -kt wrapper of func<targs>: croktile_kt__f__16_4_72 (m5 for -5)."""
    return f"croktile_kt__{func}__" + "_".join(str(v) if v >= 0 else f"m{-v}" for v in targs)


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
        masked = masked_text(seg.text)
        names.update(m.group(1) for m in _EXTERN_C_DECL.finditer(masked))
        scan = Scanner(seg.text)
        for m in _EXTERN_C_BLOCK.finditer(masked):
            close = scan.find_matching_brace(m.end() - 1)
            if close > 0:
                names.update(d.group(1) for d in _DECLARED.finditer(_top_level(masked[m.end():close])))
    return names


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
        return pin_lines("\n".join(out), user_lines(self.tu.preprocessed, self.tu.filename)) + "\n"

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

    def s_Parallel(self, s: ir.Parallel, at: At) -> None:
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
        d = at.depth + 1
        self.w(at.depth, "{")
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
        self.w(at.depth, "}")
