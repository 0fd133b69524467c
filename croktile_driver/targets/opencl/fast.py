"""What makes the opencl target's kernels fast on a GPU, a mixin of the kernel emitter
(opencl.KernelEmitter), as the cuda target's kernels are (targets/cuda/):

* A *fast instance*. A kernel whose vector copies test a global buffer's alignment at
  run time is written twice in the device program: the generic kernel, and
  ``<name>__fast``, whose global pointers are ``restrict`` and whose vector copies take
  no test. The host launches the fast one when every global buffer of the launch starts
  16-byte aligned and none that the kernel writes overlaps another
  (``croktile::opencl::fast_instance``: the same cl_mem twice, or sub-buffers of one
  buffer whose ranges meet), the test of ``croktile::cuda::fast_instance``. With
  ``restrict`` the OpenCL compiler may issue a work-item's loads ahead of its earlier
  stores (NVIDIA's OpenCL keeps them in order otherwise). Both come from one emitted
  text: the copies write their test as ``if (CROKTILE_FAST || (...)) {`` and the
  pointers as ``CROKTILE_RESTRICT``, which `instance_texts` resolves for each instance.
* A fixed work-group size: a kernel whose work-items are its inner instances one to one
  (a constant count, at most UNIFORM_MAX) declares ``reqd_work_group_size`` and takes its
  group size as a constant, as cuda's ``__launch_bounds__``: the compiler sizes registers
  for that many work-items, and the group's copy loops have constant trip counts
  (`group_loop_header`), written for unrolling.
* Unroll hints NVIDIA's OpenCL honours (``#pragma unroll``): a work-item's innermost loop
  over straight-line work is unrolled 8 times (its loads in flight together, with
  ``restrict``), copies and fills of private arrays with constant trip counts whole (the
  arrays stay in registers).
"""
from __future__ import annotations

import re
from typing import List, Optional

from ... import ir
from ...ir.symbolic import Sym
from ...codegen.kernel_emitter import dev_expr, linear

FAST = "CROKTILE_FAST || "            # a copy's test that the fast instance drops
RESTRICT = "CROKTILE_RESTRICT "       # a global pointer the fast instance declares restrict
FAST_SUFFIX = "__fast"
UNROLL_LIMIT = 256                    # a private copy or fill of at most this many steps is unrolled whole
GROUP_UNROLL_LIMIT = 32               # a work-item's share of a group copy unrolled whole up to this many steps
FIXED_GROUP_MAX = 256                 # the largest work-group declared with reqd_work_group_size

_FAST_TEST = re.compile(r"^(\s*)if \(" + re.escape(FAST) + r"(.*)\) \{$", re.M)


def instance_texts(text: str, name: str, restrict: bool) -> List[str]:
    """The device text of a kernel emitted with fast-instance markers: [the generic
    kernel] when it has none, else [generic, fast] (`restrict`: whether the fast one may
    spell the keyword; not where the device program renames a `restrict` of user code)."""
    if FAST not in text:
        return [text.replace(RESTRICT, "")]
    generic = _FAST_TEST.sub(r"\1if (\2) {", text).replace(RESTRICT, "")
    fast = _FAST_TEST.sub(r"\1if (1) {   // the fast instance: 16-byte aligned", text)
    fast = fast.replace(RESTRICT, "restrict " if restrict else "")
    fast = fast.replace(f" {name}(", f" {name}{FAST_SUFFIX}(", 1)
    return [generic, fast]


class OpenclFast:
    """Fast instance, fixed group size and unroll hints of an opencl kernel."""
    par: ir.Parallel

    def fast_setup(self) -> None:
        self.fast_copies = 0          # copies whose alignment test the fast instance drops
        # the work-group size when it is a constant the launch always takes
        self.fixed_group: Optional[int] = None
        if self.group and self.exact and self.exact[0].count.is_const and \
                0 < self.exact[0].count.value <= FIXED_GROUP_MAX:
            self.fixed_group = self.exact[0].count.value

    # -- the kernel's head -----------------------------------------------------------
    def kernel_attributes(self) -> str:
        if self.fixed_group is None:
            return ""
        return f"__attribute__((reqd_work_group_size({self.fixed_group}, 1, 1))) "

    def group_size_expr(self) -> str:
        return str(self.fixed_group) if self.fixed_group is not None else "get_local_size(0)"

    # -- alignment tests -------------------------------------------------------------
    def fast_knows(self, r: ir.Region, size: int) -> bool:
        """Whether the region starts 16-byte aligned in the fast instance: a kernel argument
        (the launch tested its base) or a per-work-item slice of scratch (16-byte slots of a
        buffer of the launch's own), at an offset of whole 16-byte units."""
        if 16 % size or any(c % (16 // size) for c in linear(r.offsets, r.shape).terms.values()):
            return False
        return self.kind.get(r.buffer.name) in ("arg", "scratch")

    def aligned_test(self, tests: List[str], regions) -> str:
        """The condition of a vector copy: `tests` (addresses ORed, & 15), marked for the
        fast instance to drop where it knows every tested region aligned."""
        cond = f"(({' | '.join(tests)}) & 15) == 0"
        if all(self.fast_knows(r, size) for r, size in regions):
            self.fast_copies += 1
            return FAST + cond
        return cond

    # -- loops -----------------------------------------------------------------------
    def unroll_hint(self, s: ir.Loop, level: int) -> str:
        """A work-item's innermost loop over straight-line work (copies, calls, element code)
        is unrolled 8 times (whole when it has fewer steps): with the fast instance's
        restrict pointers the loads of 8 iterations are in flight together."""
        if level < 2 or getattr(self, "resumable", False):
            return ""
        if any(isinstance(x, (ir.Loop, ir.Parallel, ir.If, ir.Break, ir.Continue, ir.InThreads, ir.EventWait,
                              ir.Wait)) for x in ir.walk(s.body)):
            return ""
        if s.count.is_const and s.count.value <= 8:
            return "#pragma unroll"
        return "#pragma unroll 8"

    @staticmethod
    def whole_unroll(extents: List[Sym]) -> bool:
        """A loop nest of constant extents of at most UNROLL_LIMIT steps."""
        trips = 1
        for e in extents:
            if not e.is_const:
                return False
            trips *= e.value
        return trips <= UNROLL_LIMIT

    def group_loop_header(self, depth: int, total: Sym) -> None:
        """The loop by which the work-items take the iterations 0 .. total - 1 in turn,
        as `croktile_t`: with a fixed group size and a total it divides, a loop of
        constant count (unrolled), else a loop strided by the group size."""
        g = self.fixed_group
        if g is not None and total.is_const and total.value % g == 0:
            steps = total.value // g
            self.w(depth, "#pragma unroll" if steps <= GROUP_UNROLL_LIMIT else "#pragma unroll 4")
            self.w(depth, f"for (long croktile_r = 0; croktile_r < {steps}; ++croktile_r) {{")
            self.w(depth + 1, f"const long croktile_t = croktile_lid + croktile_r * {g};")
            return
        self.w(depth, f"for (long croktile_t = croktile_lid; croktile_t < {dev_expr(total)}; "
                      "croktile_t += croktile_lsize) {")
