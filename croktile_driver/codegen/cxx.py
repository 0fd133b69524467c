"""What every target's toolchain provides, and the C++ emission they share."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from ..cstrings import c_string, directive_lines, line_marker
from .. import ir
from ..frontend.splitter import LineMap
from ..ir.symbolic import Sym


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


HOST_API = "croktile::host"    # the device API of the targets whose device memory is host memory


# the arrays box_declarations declares, as a box copy takes them: (source, destination,
# extents); prefixed, so that no user name (frontend/reserved_names.py) can be one of them
BOX_SOURCE = "croktile_src_shape, croktile_src_off"
BOX_DESTINATION = "croktile_dst_shape, croktile_dst_off"
BOX_EXTENTS = "croktile_ext"


def box_declarations(dma: ir.Dma, expr) -> List[str]:
    """The shape/offset/extent arrays a host-side box copy takes; ``expr`` renders a Sym."""
    rank = len(dma.src.extents)

    def arr(items):
        return "{" + ", ".join(f"(long long)({expr(x)})" for x in items) + "}"
    return [f"const long long croktile_src_shape[{rank}] = {arr(dma.src.shape)}, "
            f"croktile_src_off[{rank}] = {arr(dma.src.offsets)};",
            f"const long long croktile_dst_shape[{rank}] = {arr(dma.dst.shape)}, "
            f"croktile_dst_off[{rank}] = {arr(dma.dst.offsets)};",
            f"const long long {BOX_EXTENTS}[{rank}] = {arr(dma.src.extents)};"]


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


def loop_header(index_type: str, s: ir.Loop, expr) -> str:
    """`for (...) {` of a loop, whose range may start past 0 and step by more than 1."""
    step = f"++{s.var}" if s.step.is_const and s.step.value == 1 else f"{s.var} += {expr(s.step)}"
    return f"for ({index_type} {s.var} = {expr(s.start)}; {s.var} < {expr(s.count)}; {step}) {{"


class At(NamedTuple):
    """Where a statement is written, what every statement visitor takes: ``s_X(self, s, at)``.

    `depth` is the indentation of its lines. In a kernel, `level` is the parallel level
    whose code it is (1 the group's, 2 a thread's, ...) and `state` the barrier state
    before it (analysis/barriers.py); a kernel's visitor returns the state after the
    statement, or None where it leaves it as it was. Emitters of one thread of control
    (the host's, the cpu's) have neither."""
    depth: int
    level: int = 0
    state: Any = None

    def inner(self) -> "At":
        """Where the statement's body is written: one indentation deeper."""
        return At(self.depth + 1, self.level, self.state)


class StatementWriter:
    """The statements every emitter writes alike, one thread of control: loops,
    conditions and scalars, each after a #line into the .co.cpp. Subclasses say how a
    symbolic value is written (`expr`) and emit the other statements."""

    lines: List[str]

    def expr(self, s: Sym) -> str:
        return sym_c(s)

    def w(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def stmts(self, stmts: List[ir.Stmt], at: At) -> None:
        for s in stmts:
            self.w(at.depth, line_directive(s.loc))
            getattr(self, "s_" + type(s).__name__)(s, at)

    def s_Loop(self, s: ir.Loop, at: At) -> None:
        self.w(at.depth, loop_header("long long", s, self.expr))
        self.stmts(s.body, at.inner())
        self.w(at.depth, "}")

    def s_If(self, s: ir.If, at: At) -> None:
        self.w(at.depth, f"if ({condition(self.expr(s.cond))}) {{")
        self.stmts(s.body, at.inner())
        self.w(at.depth, "}")

    s_InThreads = s_If

    element_dialect = "cxx"    # how element expressions are written (codegen/element_writer.py)

    def elements(self):
        from .element_writer import ElementWriter
        return ElementWriter(self.element_dialect, getattr(self, "ptr", _no_data), self.expr, elem_ctype)

    def scalar_value(self, ctype: str, elem, e, sym) -> str:
        if e is None and elem is None:
            return self.expr(sym)
        return self.elements().scalar(ctype, elem, e, sym)

    def s_ScalarDef(self, s: ir.ScalarDef, at: At) -> None:
        value = self.scalar_value(s.ctype, s.elem, s.expr, s.value)
        self.w(at.depth, f"[[maybe_unused]] {scalar_ctype(s.ctype)} {s.name} = {value};")

    def s_Assign(self, s: ir.Assign, at: At) -> None:
        self.w(at.depth, f"{s.name} = {self.scalar_value(s.ctype, s.elem, s.expr, s.value)};")

    def s_Break(self, s: ir.Break, at: At) -> None:
        self.w(at.depth, "break;")

    def s_Continue(self, s: ir.Continue, at: At) -> None:
        self.w(at.depth, "continue;")

    def s_Print(self, s: ir.Print, at: At) -> None:
        self.w(at.depth, print_stmt(s, self.expr, value=self.elements().value))

    def dispatch_args(self) -> List[str]:
        """The arguments a function passes on to one of its instances (instances.py)."""
        return [p.name for p in self.fn.params]

    def s_Dispatch(self, s, at: At) -> None:
        call = f"{s.callee}({', '.join(self.dispatch_args())})"
        self.w(at.depth, f"// {s.why}")
        if self.fn.ret_kind == "void":
            self.w(at.depth, f"if ({condition(self.expr(s.cond))}) {{ {call}; return; }}")
        else:
            self.w(at.depth, f"if ({condition(self.expr(s.cond))}) return {call};")


# -- every generated line at the user's line it was generated for (issue #36) -----------
# The generated sources put ``#line N "file.co.cpp"`` before the code of each statement, so
# that the C++ compiler's messages and debuggers name the user's file. The lines after a
# directive count on from N: right for the user's text copied (host C++, ``__cok__``
# blocks), wrong for generated code, whose lines claimed the lines after N (the 25 lines a
# kernel starts with took lines 13 to 38 of the user's file: other code, or no line at
# all). ``pin_lines`` repeats the directive before each generated line after the first.
_CODE = re.compile(r"\w")   # a line that could hold a token the compiler reports

UserText = Callable[[str, int], Optional[str]]


def user_lines(preprocessed: str, filename: str) -> UserText:
    """(file, line) -> that line of the user's text as the code generators copy it (after
    the preprocessor), None where the translation unit has none."""
    lines = LineMap(preprocessed, filename)
    text: Dict[Tuple[str, int], str] = {}
    for k, start in enumerate(lines.starts):
        end = lines.starts[k + 1] - 1 if k + 1 < len(lines.starts) else len(preprocessed)
        text.setdefault(lines.origin[k], preprocessed[start:end].rstrip("\r"))
    return lambda file, line: text.get((file, line))


def pin_lines(text: str, user_text: UserText) -> str:
    """``text`` with the directive in force repeated before each line of generated code
    that would otherwise claim a later line of the user's file. A directive's region
    (its lines up to the next directive) that has a line of the user's own text at its
    place (``user_text``) is a copy, whose lines keep counting on (an edited one too:
    `extern "C"` blanked); any other region is generated code."""
    out: List[str] = []
    anchor: Optional[str] = None              # the directive of the region
    place: Optional[Tuple[str, int]] = None   # where the compiler puts its first line
    region: List[Tuple[str, bool]] = []       # its lines, and whether each is code

    def flush() -> None:
        if anchor is None:
            out.extend(line for line, _ in region)
            return
        copied = any(code and user_text(place[0], place[1] + k) == line for k, (line, code) in enumerate(region))
        first = True
        for line, code in region:
            if code and not copied and not first:
                out.append(line[:len(line) - len(line.lstrip())] + anchor)
            first = first and not code
            out.append(line)

    for line, directive, inside in directive_lines(text):
        if directive is not None:
            flush()
            out.append(line)
            anchor, place, region = line.strip(), directive, []
            continue
        region.append((line, not inside and bool(_CODE.search(line)) and not line.lstrip().startswith("#")))
    flush()
    return "\n".join(out)
