"""What every target's toolchain provides, and the C++ emission they share."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from ..cstrings import c_string, line_marker  # noqa: F401 (c_string: the targets import it from here)
from ..frontend import ir
from ..frontend.pipeline import TranslationUnit
from ..frontend.symbolic import Sym
from .half_alias import half_alias
from .lean_headers import runtime_defines
from .macro_guard import guarded_head


def line_directive(loc) -> str:
    return line_marker(loc.line, loc.file)


def sym_c(s: Sym) -> str:
    return s.to_c()


def condition(text: str) -> str:
    """An `if` condition without one redundant pair of outer parentheses: clang warns of
    `if ((k == 0))` (-Wparentheses-equality)."""
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(text) - 1:
                return text
        return text[1:-1]
    return text


def elem_ctype(elem: str) -> str:
    return ir.ELEM_CTYPES[elem]


def signature(fn: ir.Function) -> str:
    """The C++ declaration host code calls: spanned views in, owning data out."""
    params = []
    for p in fn.params:
        if p.kind == "data":
            params.append(f"croktile::spanned_view<{elem_ctype(p.elem)}, {p.rank}> {p.name}")
        elif p.kind == "float":
            params.append(f"{p.ctype} {p.name}")
        elif p.kind == "stream":
            params.append(f"croktile::stream {p.name}")
        else:
            params.append(f"{p.kind} {p.name}")
    if fn.ret_kind == "data":
        ret = f"croktile::spanned_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
    else:
        ret = fn.ret_kind
    return f"{ret} {fn.name}({', '.join(params)})"


def stream_param(fn: ir.Function) -> Optional[str]:
    """The name of the function's `stream` parameter: its host form runs on that stream."""
    return next((p.name for p in fn.params if p.kind == "stream"), None)


def has_device_form(fn: ir.Function) -> bool:
    """A function with a tensor parameter also gets an overload taking device views; one
    without would have the same parameters as its host form."""
    return any(p.kind == "data" for p in fn.params)


def device_signature(fn: ir.Function, api: str) -> str:
    """The overload that takes device views and a stream and returns device-owned data, in
    the types of the target's device API (`api`: croktile::cuda, croktile::opencl, croktile::host)."""
    params = []
    for p in fn.params:
        if p.kind == "data":
            params.append(f"{api}::device_view<{elem_ctype(p.elem)}, {p.rank}> {p.name}")
        elif p.kind == "float":
            params.append(f"{p.ctype} {p.name}")
        elif p.kind == "stream":   # the trailing stream argument is the one the device form uses
            params.append(f"[[maybe_unused]] {api}::stream {p.name}")
        else:
            params.append(f"{p.kind} {p.name}")
    params.append(f"{api}::stream croktile_stream")
    if fn.ret_kind == "data":
        ret = f"{api}::device_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
    else:
        ret = fn.ret_kind
    return f"{ret} {fn.name}({', '.join(params)})"


# The device APIs of targets whose device form of a function returning data has a
# destination-passing overload (the caller's device view instead of new memory).
DESTINATION_APIS = {"croktile::cuda"}


def has_destination_form(fn: ir.Function, api: str) -> bool:
    return fn.ret_kind == "data" and has_device_form(fn) and api in DESTINATION_APIS


def result_view(fn: ir.Function, api: str) -> str:
    return f"{api}::device_view<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"


def destination_signature(fn: ir.Function, api: str) -> str:
    """The destination-passing overload: the device form's parameters, then the view the
    result is written into (`croktile_out`), then the stream; it returns nothing."""
    head = device_signature(fn, api)
    params = head[head.index("(") + 1:head.rindex(f", {api}::stream croktile_stream)")]
    sep = ", " if params else ""
    return f"void {fn.name}({params}{sep}{result_view(fn, api)} croktile_out, {api}::stream croktile_stream)"


def device_prototype(fn: ir.Function, api: str) -> str:
    """The device form's declaration (and its destination-passing overload's), where the
    stream argument gets its default."""
    def with_default(sig: str) -> str:
        return sig.replace(f"{api}::stream croktile_stream)", f"{api}::stream croktile_stream = {api}::stream())") + ";"
    out = with_default(device_signature(fn, api))
    if has_destination_form(fn, api):
        out += "\n" + with_default(destination_signature(fn, api))
    return out


def host_over_device_form(fn: ir.Function, api: str) -> str:
    """The device form on a target whose device memory is host memory (cpu, factor): it
    calls the host form on the same memory; a returned result's memory is adopted."""
    args = []
    for p in fn.params:
        if p.kind == "data":
            args.append(f"croktile::spanned_view<{elem_ctype(p.elem)}, {p.rank}>({p.name}.data(), {p.name}.shape())")
        else:
            args.append(p.name)
    call = f"{fn.name}({', '.join(args)})"
    lines = [line_directive(fn.loc), device_signature(fn, api) + " {"]
    if fn.ret_kind == "data":
        ret = f"{api}::device_data<{elem_ctype(fn.ret_elem)}, {len(fn.ret_shape)}>"
        lines += [f"  auto croktile_result = {call};",
                  "  const auto croktile_shape = croktile_result.shape();",
                  f"  return {ret}::adopt(croktile_result.release(), croktile_shape, croktile_stream);"]
    elif fn.ret_kind == "void":
        lines += ["  (void)croktile_stream;", f"  {call};"]
    else:
        lines += ["  (void)croktile_stream;", f"  return {call};"]
    lines.append("}")
    return "\n".join(lines)


def with_device_form(fn: ir.Function, host_text: str) -> str:
    """A host-memory target's definitions of `fn`: its host form, then the device form over it."""
    return host_text + ("\n" + host_over_device_form(fn, HOST_API) if has_device_form(fn) else "")


HOST_API = "croktile::host"    # the device API of the targets whose device memory is host memory


def host_translation_unit(tu: TranslationUnit, head: List[str], cok_lines, co_text, api: str = HOST_API) -> str:
    """The generated host source: `head` (a comment line, then the runtime's includes, which
    ``runtime_defines`` come before), then the input's segments in order: host C++ as
    written (after a #line), each `__cok__` block as ``cok_lines(index, segment)`` renders
    it, and the declarations and definitions (``co_text(function)``, both forms) of __co__
    functions."""
    functions = {fn.name: fn for fn in (tu.module.functions if tu.module else [])}
    out = guarded_head(head[:1] + runtime_defines(tu.segments) + head[1:], tu.macros) + half_alias(tu.segments)
    device_declared = set()
    for si, seg in enumerate(tu.segments):
        if seg.kind == "host":
            if not seg.text.startswith("#line"):
                out.append(line_directive(seg.loc))
            out.append(seg.text)
        elif seg.kind == "cok":
            out.extend(cok_lines(si, seg))
        elif seg.kind in ("co_decl", "co") and seg.name in functions:
            fn = functions[seg.name]
            if seg.kind == "co_decl":
                out.append(signature(fn) + ";")
            # the stream's default argument goes on the first declaration only
            if has_device_form(fn) and fn.name not in device_declared:
                device_declared.add(fn.name)
                out.append(device_prototype(fn, api))
            if seg.kind == "co":
                out.extend(co_text(inst) for inst in getattr(fn, "instances", ()))
                out.append(co_text(fn))
    return "\n".join(out) + "\n"


def box_declarations(dma: ir.Dma, expr) -> List[str]:
    """The shape/offset/extent arrays a host-side box copy takes; ``expr`` renders a Sym."""
    rank = len(dma.src.extents)

    def arr(items):
        return "{" + ", ".join(f"(long long)({expr(x)})" for x in items) + "}"
    return [f"const long long src_shape[{rank}] = {arr(dma.src.shape)}, "
            f"src_off[{rank}] = {arr(dma.src.offsets)};",
            f"const long long dst_shape[{rank}] = {arr(dma.dst.shape)}, "
            f"dst_off[{rank}] = {arr(dma.dst.offsets)};",
            f"const long long ext[{rank}] = {arr(dma.src.extents)};"]


def check_stmt(check: ir.Check, indent: str) -> str:
    where = c_string(f"{check.loc.file}:{check.loc.line}:{check.loc.col}")
    values = ", ".join(f"(long long)({sym_c(v)})" for v in check.values)
    return (f"{indent}if (!({sym_c(check.cond)})) croktile::detail::check_failed("
            f"{where}, {c_string(check.message)}, {{{values}}});")


def print_stmt(s: ir.Print, expr, printf: str = "std::printf", int_fmt: str = "%lld",
               int_type: str = "long long", bool_as_text: bool = True, flush: str = "std::fflush(stdout);",
               value=None, float_type: str = "double") -> str:
    """`print`/`println` as printf calls: the strings go into the format (as written, '%'
    doubled), integers as `int_fmt`, floating-point values (`value` renders them) as "%f".
    A boolean prints `true`/`false`: a `%s` of a ternary, or (OpenCL C, whose `%s` takes
    only a literal) a printf of its own on each branch."""
    calls, fmt, args = [], [], []

    def flush_fmt():
        if fmt:
            calls.append(f"{printf}({', '.join([chr(34) + ''.join(fmt) + chr(34)] + args)});")
            fmt.clear()
            args.clear()
    for item in s.items:
        if item.kind == "text":
            fmt.append(item.text[1:-1].replace("%", "%%"))
        elif item.kind == "int":
            fmt.append(int_fmt)
            args.append(f"({int_type})({expr(item.value)})")
        elif item.kind == "float" and item.expr.ctype not in ("float", "double"):   # an integer element
            fmt.append(int_fmt)
            args.append(f"({int_type})({value(item.expr)})")
        elif item.kind == "float":
            fmt.append("%f")
            args.append(f"({float_type})({value(item.expr)})")
        elif bool_as_text:
            fmt.append("%s")
            args.append(f"(({expr(item.value)}) ? \"true\" : \"false\")")
        else:
            flush_fmt()
            calls.append(f"if ({expr(item.value)}) {printf}(\"true\"); else {printf}(\"false\");")
    if s.newline:
        fmt.append("\\n")
    flush_fmt()
    return " ".join(calls + ([flush] if flush else []))


def call_arguments(call: ir.Call, region_ptr, expr, value=None) -> List[str]:
    """The C++ arguments of a `call`: data as a pointer to the region's first element
    (`region_ptr` renders it), integers and booleans converted (`expr` renders a Sym),
    floats as written, computed values as `value` renders an element expression."""
    out = []
    for a in call.args:
        if a.expr is not None:
            out.append(f"(int)({value(a.expr)})" if a.kind == "int" else value(a.expr))
        elif a.kind == "data":
            out.append(region_ptr(a.region))
        elif a.kind == "int":
            out.append(f"(int)({expr(a.value)})")
        elif a.kind == "bool":
            out.append(f"(bool)({expr(a.value)})")
        else:
            out.append(a.text)
    return out


def call_statement(call: ir.Call, callee: str, args: List[str], int_type: str = "long long") -> str:
    """`f(args);`, or for `mutable int a = call f(...)` the assignment of its value."""
    text = f"{callee}({', '.join(args)})"
    if call.result is None:
        return text + ";"
    return f"{call.result} = ({scalar_ctype(call.result_ctype, int_type)})({text});"


def scalar_ctype(ctype: str, int_type: str = "long long") -> str:
    """The C type of a scalar variable computed in `ctype` (integers: the 64-bit index type)."""
    return {"int": int_type, "bool": "bool"}.get(ctype, ctype)


def _no_data(buf):
    raise AssertionError("an element of data read at host level")   # (sema rejects it)


@dataclass
class DeviceBuild:
    """A device module that must be built from the generated sources before the host source
    compiles (factor: a shared object the host object embeds)."""
    argv: List[str]          # the job that builds it
    source: str              # the generated device source it compiles
    output: str              # the file it writes
    host_flags: List[str]    # what the compile of the host source then needs
    runner: Optional[Callable[..., int]] = None   # runs argv in place of the driver (a check: rewords diagnostics)


def loop_header(index_type: str, s: ir.Loop, expr) -> str:
    """`for (...) {` of a loop, whose range may start past 0 and step by more than 1."""
    step = f"++{s.var}" if s.step.is_const and s.step.value == 1 else f"{s.var} += {expr(s.step)}"
    return f"for ({index_type} {s.var} = {expr(s.start)}; {s.var} < {expr(s.count)}; {step}) {{"


class StatementWriter:
    """The statements every emitter writes alike, one thread of control: loops,
    conditions and scalars, each after a #line into the .co.cpp. Subclasses say how a
    symbolic value is written (`expr`) and emit the other statements."""

    lines: List[str]

    def expr(self, s: Sym) -> str:
        return sym_c(s)

    def w(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def stmts(self, stmts: List[ir.Stmt], depth: int) -> None:
        for s in stmts:
            self.w(depth, line_directive(s.loc))
            getattr(self, "s_" + type(s).__name__)(s, depth)

    def s_Loop(self, s: ir.Loop, depth: int) -> None:
        self.w(depth, loop_header("long long", s, self.expr))
        self.stmts(s.body, depth + 1)
        self.w(depth, "}")

    def s_If(self, s: ir.If, depth: int) -> None:
        self.w(depth, f"if ({condition(self.expr(s.cond))}) {{")
        self.stmts(s.body, depth + 1)
        self.w(depth, "}")

    s_InThreads = s_If

    element_dialect = "cxx"    # how element expressions are written (toolchains/elements.py)

    def elements(self):
        from .elements import ElementWriter
        return ElementWriter(self.element_dialect, getattr(self, "ptr", _no_data), self.expr, elem_ctype)

    def scalar_value(self, ctype: str, elem, e, sym) -> str:
        if e is None and elem is None:
            return self.expr(sym)
        return self.elements().scalar(ctype, elem, e, sym)

    def s_ScalarDef(self, s: ir.ScalarDef, depth: int) -> None:
        value = self.scalar_value(s.ctype, s.elem, s.expr, s.value)
        self.w(depth, f"[[maybe_unused]] {scalar_ctype(s.ctype)} {s.name} = {value};")

    def s_Assign(self, s: ir.Assign, depth: int) -> None:
        self.w(depth, f"{s.name} = {self.scalar_value(s.ctype, s.elem, s.expr, s.value)};")

    def s_Break(self, s: ir.Break, depth: int) -> None:
        self.w(depth, "break;")

    def s_Continue(self, s: ir.Continue, depth: int) -> None:
        self.w(depth, "continue;")

    def s_Print(self, s: ir.Print, depth: int) -> None:
        self.w(depth, print_stmt(s, self.expr, value=self.elements().value))

    def dispatch_args(self) -> List[str]:
        """The arguments a function passes on to one of its instances (instances.py)."""
        return [p.name for p in self.fn.params]

    def s_Dispatch(self, s, depth: int) -> None:
        call = f"{s.callee}({', '.join(self.dispatch_args())})"
        self.w(depth, f"// {s.why}")
        if self.fn.ret_kind == "void":
            self.w(depth, f"if ({condition(self.expr(s.cond))}) {{ {call}; return; }}")
        else:
            self.w(depth, f"if ({condition(self.expr(s.cond))}) return {call};")


class ToolChain:
    """Target knowledge lives in subclasses; the driver only asks these questions."""

    target = ""
    source_suffix = ".cpp"      # suffix of the generated host source
    runtime_header = ""         # the target's runtime header: device views, streams, launches
    device_api = "croktile::host"   # the namespace of its device views and streams
    checks_device = False       # device_check may give a job: -S then checks a copy of its output

    def __init__(self, profile: Dict, options):
        self.profile = profile
        self.options = options

    def check(self, module, diag) -> None:
        """The target's own rules on a checked program (e.g. cuda's threads per block);
        run by every build and by `-fsyntax-only` when a target is named."""

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        """Returns generated files: suffix -> text (the host source under source_suffix)."""
        raise NotImplementedError

    def runtime_include_dir(self) -> str:
        from ..paths import runtime_dir
        return runtime_dir()

    # How the generic flags reach this target's compiler; gcc and clang take them as they are.
    def target_flags(self) -> List[str]:
        """Flags every compile and link job of this target gets (e.g. nvcc's -arch); a
        profile's sysroot (cross-compiling) is one."""
        sysroot = self.profile.get("sysroot")
        return [f"--sysroot={sysroot}"] if sysroot else []

    def host_flags(self, flags: List[str]) -> List[str]:
        """Warning, code-generation and -Xcompiler flags, meant for the host C++ compiler."""
        return flags

    def linker_flags(self, wl: List[str], xlinker: List[str]) -> List[str]:
        """-Wl,ARGS and -Xlinker ARG, for the linker."""
        return [f"-Wl,{w}" for w in wl] + [a for f in xlinker for a in ("-Xlinker", f)]

    def quote_include(self, directory: str) -> List[str]:
        """Makes #include "x.h" find headers beside the .co.cpp when compiling its generated source."""
        return ["-iquote", directory]

    @staticmethod
    def find_program(command: str) -> Optional[str]:
        """Where a profile's compiler command (cxx, device_cc) is, for --print-toolchains."""
        import shlex
        import shutil
        words = shlex.split(command)
        return shutil.which(words[0]) if words else None

    def compiler(self) -> List[str]:
        """The profile's compiler; $CXX/$NVCC were applied when the profile was resolved."""
        return [self.profile.get("cxx", "c++")]

    def device_build(self, generated: str, flags: List[str], source_dir: str) -> Optional[DeviceBuild]:
        """The device module built from the sources generated at `generated` (compiled with
        `flags`; `source_dir` holds the .co.cpp), or None where the host source is all."""
        return None

    def device_check(self, generated: str) -> Optional[DeviceBuild]:
        """The job that checks the device program generated beside `generated` before
        anything is compiled (opencl: an OpenCL C compiler), or None."""
        return None
