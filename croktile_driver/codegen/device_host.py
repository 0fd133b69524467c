"""Host code of a ``__co__`` function whose global data lives in device memory.

The opencl and cuda targets emit the same two forms of each function: the device
form (device views in, work queued on a stream, device-owned data out) with its
host-level control flow, checks and table of device-side runtime checks, and the
spec's host-array form, which copies its arguments to device memory and calls the
device form. They differ in how a device buffer is made and copied and in how a
kernel is launched, which their subclasses supply (``prologue``, ``bind_param``,
``s_Alloc``, ``copy_box_call``, ``s_Parallel``, ``checks_declaration``).
"""
from __future__ import annotations

from typing import Dict, List

from .. import ir
from ..ir.symbolic import Sym
from .cxx import At, StatementWriter, box_declarations, check_stmt, elem_ctype, line_directive
from .signatures import (
    stream_param,
    destination_signature,
    device_signature,
    has_destination_form,
    has_device_form,
    result_view,
    signature,
)
from ..cstrings import c_string
from .element_writer import float_values
from .kernel_emitter import MAX_CHECK_VALUES


def where(loc) -> str:
    return c_string(f"{loc.file}:{loc.line}:{loc.col}")


class DeviceHostEmitter(StatementWriter):
    target = ""

    def __init__(self, gen, fn: ir.Function):
        self.gen = gen
        self.fn = fn
        self.lines: List[str] = []
        self.checks: List[ir.Check] = []      # device-side checks, by id
        self.check_ids: Dict[int, int] = {}
        self.float_params = float_values(fn)   # name -> the C type kernels take it as
        self.narrow = {p.name for p in fn.params if p.kind in ("int", "bool")}
        self.written_params = self._written_params()

    def hx(self, s: Sym) -> str:
        """A host C++ expression; `int` parameters are widened so that sizes cannot overflow."""
        return s.to_c(lambda n: f"(long long){n}" if n in self.narrow else n)

    expr = hx

    def _written_params(self) -> List[ir.Buffer]:
        """Parameters the device may write: copied back to the caller's memory."""
        out = []
        for s in self.fn.walk():
            for b in ir.stmt_writes(s):
                if b.origin == "param" and b not in out:
                    out.append(b)
        return out

    def check_id(self, check: ir.Check) -> int:
        if id(check) not in self.check_ids:
            if len(check.values) > MAX_CHECK_VALUES:
                self.gen.diag.error(check.loc, "internal limit: a device-side runtime check with more than "
                                               f"{MAX_CHECK_VALUES} values")
            self.check_ids[id(check)] = len(self.checks)
            self.checks.append(check)
        return self.check_ids[id(check)]

    def report_function(self) -> List[str]:
        """Turns a failed device-side check (its id and values) into the cpu target's error."""
        out = [f"[[noreturn]] static void croktile_report__{self.fn.name}(int id, const long long* v) {{",
               "  switch (id) {"]
        for i, c in enumerate(self.checks):
            vals = ", ".join(f"v[{k}]" for k in range(len(c.values)))
            out.append(f"    case {i}: croktile::detail::check_failed({where(c.loc)}, {c_string(c.message)}, "
                       f"{{{vals}}});")
        out += ["    default: break;", "  }",
                '  throw croktile::runtime_error("croktile: a device-side check failed");', "}"]
        return out

    @staticmethod
    def mem(buf: ir.Buffer) -> str:
        return f"{buf.name}__mem"

    # -- what a target supplies ---------------------------------------------------------
    global_in_place = False    # the host form passes a 'global' parameter's view as device memory
    api = ""                   # the namespace of the target's device API: croktile::cuda, croktile::opencl

    def prologue(self) -> None:
        """Statements after the entry checks: the target's runtime handles."""

    def bind_param(self, p: ir.Param, where: str) -> None:
        """The device form's `{p}__mem` over the caller's device memory (no copy)."""
        raise NotImplementedError

    def host_arg_check(self, p: ir.Param, where: str) -> List[str]:
        """Statements of the host form that check an argument is memory of the right kind."""
        return []

    def checks_declaration(self, where: str) -> str:
        """The declaration of `croktile_checks`, where failed device-side checks are recorded."""
        raise NotImplementedError

    def copy_box_call(self, s: ir.Dma) -> str:
        """The runtime call of a host-level copy, given the arrays `box_declarations` declares."""
        raise NotImplementedError

    # -- the two forms -------------------------------------------------------------------
    def emit_functions(self) -> List[str]:
        """The report function of device-side checks, the function that does the work (the
        device form, or for a function without tensor parameters its only form), and the
        host form over the device form."""
        fn = self.fn
        where_fn = where(fn.loc)
        self.device_form = has_device_form(fn)
        self.destination = has_destination_form(fn, self.api)
        self.destination_buffer = self.returned_buffer() if self.destination else None
        self.w(0, line_directive(fn.loc))
        if self.destination:   # one body; the device form and the destination form call it
            sig = device_signature(fn, self.api)
            sig = sig.replace(f" {fn.name}(", f" {fn.name}__body(", 1)[:-1]
            self.w(0, f"static {sig}, const {result_view(fn, self.api)}* croktile_out) {{")
        else:
            self.w(0, (device_signature(fn, self.api) if self.device_form else signature(fn)) + " {")
        body = self.entry(fn)
        self.w(1, line_directive(fn.loc))
        if not self.device_form:
            self.w(1, f"{self.api}::stream croktile_stream{self.caller_stream()};")
        self.prologue()
        checks_at = len(self.lines)
        if self.device_form:
            for p in fn.params:
                if p.kind == "data":
                    self.bind_param(p, where_fn)
        if self.destination:
            self.bind_destination()
        self.stmts(body, At(1))
        if fn.ret_kind == "void" and not self.device_form:
            self.w(1, self.synchronize(fn.loc))
        self.w(0, "}")
        head: List[str] = []
        if self.checks:
            self.lines.insert(checks_at, "  " + self.checks_declaration(where_fn))
            head = self.report_function()
        tail = self.host_form() if self.device_form else []
        return head + self.lines + self.destination_wrappers() + tail

    def destination_wrappers(self) -> List[str]:
        """The device form and its destination-passing overload, over the one body."""
        if not self.destination:
            return []
        fn, api = self.fn, self.api
        args = ", ".join([p.name for p in fn.params] + ["croktile_stream"])
        return [device_signature(fn, api) + " {", f"  return {fn.name}__body({args}, nullptr);", "}",
                destination_signature(fn, api) + " {", f"  {fn.name}__body({args}, &croktile_out);", "}"]

    def returned_buffer(self):
        """The local buffer every `return` returns: the destination form writes it in the
        caller's memory from the start (else the result is copied there at the return)."""
        returned = {id(s.buffer): s.buffer for s in self.fn.walk() if isinstance(s, ir.Return) and s.buffer}
        bufs = list(returned.values())
        return bufs[0] if len(bufs) == 1 and bufs[0].origin != "param" else None

    def bind_destination(self) -> None:
        """The destination form's checks of the caller's view (the target's)."""

    def result_shape(self, buf: ir.Buffer) -> str:
        return ("std::array<std::size_t, " + str(len(buf.shape)) + ">{" +
                ", ".join(f"(std::size_t)({self.hx(d)})" for d in buf.shape) + "}")

    def entry(self, fn: ir.Function) -> List[ir.Stmt]:
        """Writes the shape bindings and the checks that lead the body (they run on the host
        before any device work); returns the statements left to emit."""
        body = list(fn.body)
        for b in fn.bindings:
            self.w(1, f"[[maybe_unused]] const long long {b.symbol} = (long long){b.param}.shape()[{b.dim}];")
        while body and isinstance(body[0], ir.Check):
            self.w(1, line_directive(body[0].loc))
            self.lines.append(check_stmt(body.pop(0), "  "))
        return body

    def host_form(self) -> List[str]:
        """The spec's host-array form: arguments copied to device memory (a 'global' one used
        in place where the target can), the device form called on the current stream, written
        arguments and the result copied back, and every error reported before it returns."""
        fn = self.fn
        w = where(fn.loc)
        saved, self.lines = self.lines, []
        self.w(0, line_directive(fn.loc))
        self.w(0, signature(fn) + " {")
        self.entry(fn)
        self.w(1, line_directive(fn.loc))
        self.w(1, f"{self.api}::stream croktile_stream{self.caller_stream()};")
        args = []
        for p in fn.params:
            if p.kind != "data":
                args.append(p.name)
                continue
            for line in self.host_arg_check(p, w):
                self.w(1, line)
            if p.device and self.global_in_place:
                self.w(1, f"{self.api}::device_view<{elem_ctype(p.elem)}, {p.rank}> {p.name}__dev({p.name}.data(), "
                          f"{p.name}.shape());")
            else:
                self.w(1, f"auto {p.name}__dev = croktile::detail::upload({p.name}, croktile_stream, {w});")
            args.append(f"{p.name}__dev")
        call = f"{fn.name}({', '.join(args + ['croktile_stream'])})"
        self.w(1, f"{'auto croktile_result = ' if fn.ret_kind != 'void' else ''}{call};")
        for b in self.written_params:
            p = next(p for p in fn.params if p.buffer is b)
            if not (p.device and self.global_in_place):
                self.w(1, f"croktile::detail::download({p.name}, {p.name}__dev, croktile_stream, {w});")
        if fn.ret_kind == "data":
            self.w(1, f"return croktile::detail::finish_on_host(croktile_result, croktile_stream, {w});")
        else:
            self.w(1, self.synchronize(fn.loc))
            if fn.ret_kind != "void":
                self.w(1, "return croktile_result;")
        self.w(0, "}")
        out, self.lines = self.lines, saved
        return out

    def dispatch_args(self) -> List[str]:
        return super().dispatch_args() + (["croktile_stream"] if self.device_form else [])

    def caller_stream(self) -> str:
        """`(s)` where the function has a `stream s` parameter: its work goes on that stream."""
        name = stream_param(self.fn)
        return f"({name})" if name else ""

    def synchronize(self, loc) -> str:
        return f"{self.api}::backend::synchronize(croktile_stream.native(), {where(loc)});"

    # -- statements ----------------------------------------------------------------------
    def s_Dma(self, s: ir.Dma, at: At) -> None:
        depth = at.depth
        if s.element_wise:
            what = f"'dma.{s.op.value}'" if s.op is not ir.DmaOp.COPY else "a copy from or to a partial tile"
            self.gen.diag.error(s.loc, f"{what} outside 'parallel' is not supported yet on target '{self.target}'")
            return
        self.w(depth, "{")
        for line in box_declarations(s, self.hx):
            self.w(depth + 1, line)
        self.w(depth + 1, self.copy_box_call(s))
        self.w(depth, "}")

    def s_Check(self, s: ir.Check, at: At) -> None:
        self.lines.append(check_stmt(s, "  " * at.depth))

    def s_Wait(self, s: ir.Wait, at: At) -> None:
        self.w(at.depth, f"// wait {', '.join(s.futures)}: host-level copies are ordered on the stream")

    def s_Swap(self, s: ir.Swap, at: At) -> None:
        self.w(at.depth, f"std::swap({self.mem(s.a)}, {self.mem(s.b)});")

    def s_Call(self, s: ir.Call, at: At) -> None:   # sema allows calls only inside parallel
        self.gen.diag.error(s.loc, f"'call' outside 'parallel' cannot run on target '{self.target}'")

    def s_Return(self, s: ir.Return, at: At) -> None:
        depth = at.depth
        if s.buffer is not None:
            buf = s.buffer
            ctype, rank = elem_ctype(buf.elem), len(buf.shape)
            if buf.origin == "param":
                p = next(p for p in self.fn.params if p.buffer is buf)
                result = f"croktile::detail::device_copy({p.name}, croktile_stream, {where(s.loc)})"
            else:
                result = (f"{self.api}::device_data<{ctype}, {rank}>::adopt({self.mem(buf)}.release<{ctype}>(), "
                          f"{self.result_shape(buf)}, croktile_stream)")
            if self.destination:
                if buf is self.destination_buffer:
                    self.w(depth, "if (croktile_out) return {};   // written in place")
                else:
                    src = p.name + ".data()" if buf.origin == "param" else f"{self.mem(buf)}.as<{ctype}>()"
                    self.w(depth, f"if (croktile_out) return croktile::detail::copy_result(*croktile_out, {src}, "
                                  f"{self.result_shape(buf)}, croktile_stream, {c_string(self.fn.name)}, "
                                  f"{where(s.loc)}), {self.api}::device_data<{ctype}, {rank}>();")
            if self.device_form:
                self.w(depth, f"return {result};")
            else:
                self.w(depth, f"return croktile::detail::finish_on_host({result}, croktile_stream, {where(s.loc)});")
        elif s.value is not None:
            if not self.device_form:
                self.w(depth, self.synchronize(s.loc))
            self.w(depth, f"return {self.hx(s.value)};")
        elif s.expr is not None:
            if not self.device_form:
                self.w(depth, self.synchronize(s.loc))
            self.w(depth, f"return ({self.fn.ret_kind})({self.elements().value(s.expr)});")
        else:
            if not self.device_form:
                self.w(depth, self.synchronize(s.loc))
            self.w(depth, "return;")
