"""One device entry point per launch of the factor target: threads, scratchpads, copies
and barriers in C."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List

from .events import FactorEvents
from .barriers import FactorBarriers
from ...diagnostics import Loc
from ... import ir
from ...analysis.futures import plan_waits
from ...codegen.dma_loops import element_loops, write_loops
from ...codegen.fragments import FragmentWriter, replication
from ...codegen.cxx import (
    BOX_DESTINATION,
    BOX_EXTENTS,
    BOX_SOURCE,
    At,
    StatementWriter,
    box_declarations,
    call_arguments,
    call_statement,
    print_stmt,
    line_directive,
)
from ...cstrings import c_string
from ...codegen.fill_literal import fill_literal
from ...codegen.element_writer import ElementWriter, float_names, float_values
from ...codegen.kernel_emitter import (
    same_level,
    swap_tainted,
    dev_expr,
    host_level_names,
    kernel_free_names,
    linear,
    product,
    shape_vars,
    walk_levels,
)
from .memory import place_static, plan_slots

if TYPE_CHECKING:   # for annotations only: importing it here would be a cycle
    from .host import Generator


def _where(loc: Loc) -> str:
    return c_string(f"{loc.file}:{loc.line}:{loc.col}")


@dataclass
class EntryArg:
    kind: str        # global (a buffer's pointer), scalar (a host value), float, layout
    name: str        # host expression / device name
    decl: str = ""   # how the entry point reads it from croktile_args[i]
    ctype: str = ""  # float: the C type the entry reads


class EntryEmitter(FactorBarriers, StatementWriter, FactorEvents, FragmentWriter):
    """One launch's entry point; tensor-core statements as on cpu (codegen/fragments.py): the
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
        self.waits = plan_waits(self.par.body)
        for s in ir.walk([self.par]):
            if isinstance(s, ir.Dma) and s.future:
                self.future_of_buffer.setdefault(s.dst.buffer.name, s.future)

    def check_sizes_known_at_launch(self) -> None:
        """The host lays out the scratchpads before the launch: a size that depends on an
        instance (`local s32 [p + 1]`, a chunk by such a bound) cannot be placed there
        (the generated host code named `p` and did not compile)."""
        fn = self.fn
        host_names = host_level_names(fn)
        for slot in self.slots:
            if not shape_vars(slot.buffer) <= host_names:
                b = slot.buffer
                self.diag.error(b.loc, f"the size of '{b.source_name or b.name}' must be known when the kernel "
                                       "is launched on target 'factor'")

    @staticmethod
    def ptr(buf: ir.Buffer) -> str:
        return f"{buf.name}__ptr"

    def s_Print(self, s: ir.Print, at: At) -> None:
        self.w(at.depth, print_stmt(s, self.expr, printf="printf", flush="fflush(stdout);",
                                    value=self.elements().value))

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
        an ir.Fill where it is declared: analysis/fills.py), its futures, its statements."""
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
        self.stmts(par.body, At(depth))

    def stmts(self, stmts: List[ir.Stmt], at: At) -> None:
        for s in stmts:
            if not isinstance(s, ir.Alloc):   # (slots are set up where the instance starts)
                self.w(at.depth, line_directive(s.loc))
                getattr(self, "s_" + type(s).__name__)(s, at)

    def s_Parallel(self, s: ir.Parallel, at: At) -> None:
        depth = at.depth
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

    def s_Fill(self, s: ir.Fill, at: At) -> None:
        b = s.buffer
        bits = b.elem in ("f16", "bf16")     # declared, not defined, on the device: store the bits
        ptr = f"((unsigned short*){self.ptr(b)})" if bits else self.ptr(b)
        self.w(at.depth, f"for (long long croktile_i = 0; croktile_i < {dev_expr(product(b.shape))}; ++croktile_i) "
                         f"{ptr}[croktile_i] = {fill_literal(b.elem, s.value, as_bits=bits)};")

    def s_Swap(self, s: ir.Swap, at: At) -> None:
        ctype = ir.ELEM_CTYPES[s.a.elem]
        self.w(at.depth, f"{{ {ctype}* croktile_t = {self.ptr(s.a)}; {self.ptr(s.a)} = {self.ptr(s.b)}; "
                         f"{self.ptr(s.b)} = croktile_t; }}")
        fa, fb = self.future_of_buffer.get(s.a.name), self.future_of_buffer.get(s.b.name)
        if fa and fb:   # whether each copy is pending moves with its buffer
            self.w(at.depth, f"{{ unsigned long long croktile_t = {fa}__ticket; {fa}__ticket = {fb}__ticket; "
                             f"{fb}__ticket = croktile_t; }}")

    def s_Dma(self, s: ir.Dma, at: At) -> None:
        depth = at.depth
        if s.element_wise:   # element loops on the core; the future's ticket stays 0 (done)
            loops, body = element_loops(s, self.ptr, dev_expr, ir.ELEM_CTYPES[s.dst.buffer.elem])
            write_loops(self.w, depth, loops, body, dev_expr)
            return
        self.w(depth, "{")
        for line in box_declarations(s, dev_expr):
            self.w(depth + 1, line)
        self.w(depth + 1, f"const croktile_factor_copy croktile_copy = {{{self.ptr(s.src.buffer)}, "
                          f"{self.ptr(s.dst.buffer)}, {s.src.buffer.elem_bytes}, {len(s.src.extents)}, "
                          f"{BOX_SOURCE}, {BOX_DESTINATION}, {BOX_EXTENTS}}};")
        is_async = s.is_async and s.future not in self.sync_futures
        issue = f"croktile_rt->dma(croktile_core, &croktile_copy, {1 if is_async else 0});"
        if s.is_async and s.future:
            self.w(depth + 1, f"{s.future}__ticket = {issue}")
        else:
            self.w(depth + 1, f"(void){issue}")
        self.w(depth, "}")

    def s_Wait(self, s: ir.Wait, at: At) -> None:
        done = self.waits.complete(s)   # waited already on every path (analysis/futures.py)
        for f in s.futures:
            self.w(at.depth, f"// wait {f}: complete already" if f in done else
                   f"croktile_rt->wait(croktile_core, {f}__ticket);")

    def region_ptr(self, r: ir.Region) -> str:
        off = linear(r.offsets, r.shape)
        if off.is_const and off.value == 0:
            return self.ptr(r.buffer)
        if r.buffer.elem in ir.STRUCT_ELEMS:   # declared, not defined, on the device: step in bytes
            ctype = ir.ELEM_CTYPES[r.buffer.elem]
            return f"({ctype}*)((unsigned char*){self.ptr(r.buffer)} + ({dev_expr(off)}) * {r.buffer.elem_bytes})"
        return f"{self.ptr(r.buffer)} + ({dev_expr(off)})"

    def s_Call(self, s: ir.Call, at: At) -> None:
        args = call_arguments(s, self.region_ptr, dev_expr, self.elements().value)
        self.w(at.depth, call_statement(s, self.gen.callees.get(id(s), s.func), args))

    def s_Store(self, s: ir.Store, at: At) -> None:
        elements = ElementWriter("factor", self.ptr, dev_expr, lambda e: ir.ELEM_CTYPES[e],
                                 lambda e: self.diag.error(s.loc, f"computing with '{e}' elements is not supported "
                                                                  "on target 'factor' yet (copying them is)"))
        self.w(at.depth, elements.store(s))

    def s_Check(self, s: ir.Check, at: At) -> None:
        depth = at.depth
        values = ", ".join(f"(long long)({dev_expr(v)})" for v in s.values) or "0"
        self.w(depth, f"if (!({dev_expr(s.cond)})) {{")
        self.w(depth + 1, f"const long long croktile_v[] = {{{values}}};")
        self.w(depth + 1, f"croktile_rt->fail(croktile_core, {_where(s.loc)}, {c_string(s.message)}, "
                          f"{len(s.values)}, croktile_v);")
        self.w(depth + 1, "return;")
        self.w(depth, "}")

    def s_Return(self, s: ir.Return, at: At) -> None:
        self.diag.error(s.loc, "'return' inside 'parallel' cannot run on target 'factor'")
