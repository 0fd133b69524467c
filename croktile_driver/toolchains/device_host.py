"""Host code of a ``__co__`` function whose global data lives in device memory.

The opencl and cuda targets emit the same host-level control flow, checks,
result copies and the table of device-side runtime checks; they differ in how
a device buffer is made, copied and read back, and in how a kernel is launched,
which their subclasses supply (``s_Alloc``, ``copy_box_call``, ``s_Parallel``,
``download``, ``emit``).
"""
from __future__ import annotations

from typing import Dict, List

from ..frontend import ir
from ..frontend.symbolic import Sym
from .base import StatementWriter, box_declarations, c_string, check_stmt, elem_ctype, line_directive, signature
from .kernel_ir import MAX_CHECK_VALUES


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
        self.float_params = {p.name: p for p in fn.params if p.kind == "float"}
        self.narrow = {p.name for p in fn.params if p.kind in ("int", "bool")}
        self.entry_names = {b.symbol for b in fn.bindings} | {p.name for p in fn.params}
        self.written_params = self._written_params()

    def hx(self, s: Sym) -> str:
        """A host C++ expression; `int` parameters are widened so that sizes cannot overflow."""
        return s.to_c(lambda n: f"(long long){n}" if n in self.narrow else n)

    expr = hx

    def _written_params(self) -> List[ir.Buffer]:
        """Parameters the device may write: copied back to the caller's memory."""
        out = []
        for s in self.fn.walk():
            bufs = []
            if isinstance(s, ir.Dma):
                bufs = [s.dst.buffer]
            elif isinstance(s, ir.Call):
                bufs = [a.region.buffer for a in s.args if a.region is not None]
            for b in bufs:
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

    def download(self, buf: ir.Buffer, dest: str, loc) -> str:
        """The statement that copies all of `buf`'s device memory to host memory at `dest`."""
        raise NotImplementedError

    def open_function(self) -> List[ir.Stmt]:
        """Writes the signature, the shape bindings and the checks that lead the body (they
        run before any device work); returns the statements left to emit."""
        fn = self.fn
        body = list(fn.body)
        self.w(0, line_directive(fn.loc))
        self.w(0, signature(fn) + " {")
        for b in fn.bindings:
            self.w(1, f"[[maybe_unused]] const long long {b.symbol} = (long long){b.param}.shape()[{b.dim}];")
        while body and isinstance(body[0], ir.Check):
            self.w(1, line_directive(body[0].loc))
            self.lines.append(check_stmt(body.pop(0), "  "))
        return body

    def copy_box_call(self, s: ir.Dma) -> str:
        """The runtime call of a host-level copy, given the arrays `box_declarations` declares."""
        raise NotImplementedError

    def s_Dma(self, s: ir.Dma, depth: int) -> None:
        self.w(depth, "{")
        for line in box_declarations(s, self.hx):
            self.w(depth + 1, line)
        self.w(depth + 1, self.copy_box_call(s))
        self.w(depth, "}")

    def copy_back(self, depth: int) -> None:
        for b in self.written_params:
            p = next(p for p in self.fn.params if p.buffer is b)
            self.w(depth, self.download(b, f"{p.name}.data()", self.fn.loc))

    def s_Check(self, s: ir.Check, depth: int) -> None:
        self.lines.append(check_stmt(s, "  " * depth))

    def s_Wait(self, s: ir.Wait, depth: int) -> None:
        self.w(depth, f"// wait {', '.join(s.futures)}: host-level copies complete when issued")

    def s_Swap(self, s: ir.Swap, depth: int) -> None:
        self.w(depth, f"std::swap({self.mem(s.a)}, {self.mem(s.b)});")

    def s_Call(self, s: ir.Call, depth: int) -> None:   # sema allows calls only inside parallel
        self.gen.diag.error(s.loc, f"'call' outside 'parallel' cannot run on target '{self.target}'")

    def s_Return(self, s: ir.Return, depth: int) -> None:
        self.copy_back(depth)
        if s.buffer is not None:
            buf = s.buffer
            ctype, rank = elem_ctype(buf.elem), len(buf.shape)
            if buf.origin == "param":
                p = next(p for p in self.fn.params if p.buffer is buf)
                shape = f"{p.name}.shape()"
            else:
                shape = (f"std::array<std::size_t, {rank}>{{" +
                         ", ".join(f"(std::size_t)({self.hx(d)})" for d in buf.shape) + "}")
            self.w(depth, f"croktile::spanned_data<{ctype}, {rank}> {buf.name}__result({shape});")
            self.w(depth, self.download(buf, f"{buf.name}__result.data()", s.loc))
            self.w(depth, f"return {buf.name}__result;")
        elif s.value is not None:
            self.w(depth, f"return {self.hx(s.value)};")
        else:
            self.w(depth, "return;")
