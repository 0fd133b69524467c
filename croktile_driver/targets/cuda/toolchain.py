"""The cuda target's toolchain: nvcc's flags and jobs, and the target's checks."""
from __future__ import annotations

import copy
import re
from typing import Dict, List, Optional, Tuple

from .levels import check_cuda_levels
from ...frontend.pipeline import TranslationUnit
from ...driver.toolchain import ToolChain
from .events import check_cuda_events
from .archs import ArchError, gencode, is_list, kernel_condition, parse as parse_archs
from .mma import check_mma, check_mma_shapes
from .limits import ARCH_SHARED_BYTES, MAX_BLOCK
from .host import Generator
from .split_build import runner as split_runner


class CudaToolChain(ToolChain):
    target = "cuda"
    source_suffix = ".cu"
    runtime_header = "croktile_cuda.h"
    device_api = "croktile::cuda"

    rules_in_generation = True   # the thread mapping of `inthreads` barriers (targets/cuda/kernel.py)

    def __init__(self, profile: Dict, options):
        super().__init__(profile, options)
        self._archs: Optional[List[str]] = None   # what -arch names, resolved once (archs.py)
        self._fixed: Optional[str] = None         # in a view for one architecture of a list

    def check(self, module, diag) -> None:
        problem = self.option_problem()
        if problem:
            raise diag.fatal(None, problem)
        check_cuda_levels(module, diag)
        check_cuda_events(module, diag, MAX_BLOCK)
        check_mma_shapes(module, diag)
        for view in self.views():   # each architecture of a list has the instructions or is named
            check_mma(module, diag, view.arch(), view.arch_label())

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        return {self.source_suffix: Generator(tu, diag, self).run()}

    def compile_runner_of(self, generated: str, runner, remap):
        """Generated sources the generator marked build in two halves at once (split_build.py)."""
        return split_runner(generated, runner, remap)

    def host_compile_runner(self, source: str):
        """Plain host C++ (the Python bindings) goes to nvcc's host compiler itself: nvcc
        would only add cudafe++'s pass over it."""
        from ...driver import interrupts
        from .split_build import host_only

        def run(argv, env=None) -> int:
            return interrupts.run_child(host_only(argv, source) or argv, env=env)
        return run

    # -- the architectures ------------------------------------------------------------
    def given_arch(self) -> Optional[str]:
        """`-arch` as given, else the profile's."""
        return getattr(self.options, "arch", None) or self.profile.get("arch")

    def archs(self) -> List[str]:
        """The architectures the build is for: `-arch`'s (a list, or native: parse_archs,
        which raises ArchError), else the profile's; one in a view."""
        if self._fixed is not None:
            return [self._fixed]
        if self._archs is None:
            given = self.given_arch()
            if given and is_list(given):
                self._archs = parse_archs(given)
            else:   # one architecture goes to nvcc as given (the reference takes -arch=SM_90 too)
                self._archs = [given.lower()] if given else []
        return self._archs

    def option_problem(self) -> Optional[str]:
        try:
            self.archs()
        except ArchError as exc:
            return str(exc)
        return None

    def device_archs(self) -> List[str]:
        return self.archs()

    def several(self) -> bool:
        """Whether the build is for several architectures (a dispatcher picks at run time)."""
        try:
            return self._fixed is None and len(self.archs()) > 1
        except ArchError:   # reported by check()
            return False

    def views(self) -> List["CudaToolChain"]:
        """This toolchain for each architecture it builds (itself for one)."""
        return [self.for_arch(a) for a in self.archs()] if self.several() else [self]

    def for_arch(self, arch: str) -> "CudaToolChain":
        view = copy.copy(self)
        view._fixed = arch
        return view

    def arch(self) -> Optional[str]:
        """The one architecture code is generated for (None for a list: see views())."""
        found = self.archs()
        return found[0] if len(found) == 1 else None

    def arch_label(self) -> str:
        """The architecture as messages name it: "-arch=sm_80", or in a view of a list
        "sm_80 (of -arch=sm_80,sm_90a)"."""
        if self._fixed is not None:
            return f"{self._fixed} (of -arch={self.given_arch()})"
        given, found = self.given_arch(), self.archs()
        resolved = f" ({found[0]})" if found and is_list(str(given)) else ""   # -arch=native (sm_90a)
        return f"-arch={given}{resolved}"

    def kernel_guard(self) -> Optional[str]:
        """The condition under which a kernel's body is compiled (a build of a list), or None."""
        return kernel_condition(self._fixed) if self._fixed is not None else None

    def _arch_override(self) -> Optional[Tuple[str, Optional[int]]]:
        """An architecture other than the profile's, as messages name it, and its GPU's
        shared-memory limit (None where the table does not know it: then the profile's
        limit stays)."""
        if self.several():
            return None
        try:
            chosen = self.arch()
        except ArchError:   # reported by check(); the profile's limits meanwhile
            return None
        if not chosen or (self._fixed is None and chosen == str(self.profile.get("arch", "")).lower()):
            return None
        m = re.fullmatch(r"(?:sm|compute)_(\d+)a?", chosen)
        return self.arch_label(), ARCH_SHARED_BYTES.get(int(m.group(1))) if m else None

    def limits(self) -> Dict[str, int]:
        if self.several():   # the smallest GPU's (a page or a report for all of them)
            views = self.views()
            limits = min((v.limits() for v in views), key=lambda lim: lim.get("shared_bytes", 1 << 62))
            return limits
        limits = super().limits()
        override = self._arch_override()
        if override and override[1] is not None:
            limits["shared_bytes"] = override[1]
        return limits

    def limit_set_by(self, key: str) -> Optional[str]:
        if self.several():
            smallest = min(self.views(), key=lambda v: v.limits().get(key, 1 << 62))
            return smallest.limit_set_by(key)
        override = self._arch_override()
        if key == "shared_bytes" and override and override[1] is not None:
            return override[0]
        return super().limit_set_by(key)

    def setting(self) -> str:
        if self.several():
            return super().setting() + f", -arch={','.join(self.archs())}"
        override = self._arch_override()
        return super().setting() + (f", {override[0]}" if override else "")

    def shared_limit(self) -> Optional[int]:
        """The most shared memory a block may take: the profile's, or that of an `-arch`'s GPU."""
        return self.limits().get("shared_bytes")

    def target_flags(self) -> List[str]:
        if self.several():
            return [gencode(a) for a in self.archs()]
        arch = self.arch()
        if arch and re.fullmatch(r"sm_\d+a", arch):
            # nvcc's -arch=sm_90a also embeds compute_90 PTX, in which the architecture-
            # specific instructions (wgmma) do not assemble: name the one code it builds
            return [f"-gencode=arch={arch.replace('sm_', 'compute_')},code={arch}"]
        return [f"-arch={arch}"] if arch else []

    def host_flags(self, flags: List[str]) -> List[str]:
        """gcc-style flags meant for the host compiler reach it through -Xcompiler."""
        out = []
        for f in flags:
            if f == "-Werror":
                out.append("-Werror=all-warnings")
            else:
                out.append(f"-Xcompiler={f}")
        return out

    def linker_flags(self, wl: List[str], xlinker: List[str]) -> List[str]:
        return [f"-Xlinker={f}" for f in wl + xlinker]

    def quote_include(self, directory: str) -> List[str]:
        return ["-I", directory]     # nvcc has no -iquote
