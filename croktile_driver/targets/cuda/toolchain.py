"""The cuda target's toolchain: nvcc's flags and jobs, and the target's checks."""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from .levels import check_cuda_levels
from ...frontend.pipeline import TranslationUnit
from ...driver.toolchain import ToolChain
from .events import check_cuda_events
from .mma import check_mma
from .limits import ARCH_SHARED_BYTES, MAX_BLOCK
from .host import Generator


class CudaToolChain(ToolChain):
    target = "cuda"
    source_suffix = ".cu"
    runtime_header = "croktile_cuda.h"
    device_api = "croktile::cuda"

    rules_in_generation = True   # the thread mapping of `inthreads` barriers (targets/cuda/kernel.py)

    def check(self, module, diag) -> None:
        check_cuda_levels(module, diag)
        check_cuda_events(module, diag, MAX_BLOCK)
        check_mma(module, diag, self.arch())

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        return {self.source_suffix: Generator(tu, diag, self).run()}

    def arch(self) -> Optional[str]:
        arch = getattr(self.options, "arch", None) or self.profile.get("arch")
        return arch.lower() if arch else arch   # the reference takes -arch=SM_90 too

    def _arch_override(self) -> Optional[Tuple[str, Optional[int]]]:
        """An `-arch` other than the profile's, and its GPU's shared-memory limit (None where
        the table does not know it: then the profile's limit stays)."""
        chosen = getattr(self.options, "arch", None)
        if not chosen or chosen.lower() == str(self.profile.get("arch", "")).lower():
            return None
        m = re.fullmatch(r"(?:sm|compute)_(\d+)a?", chosen.lower())
        return chosen, ARCH_SHARED_BYTES.get(int(m.group(1))) if m else None

    def limits(self) -> Dict[str, int]:
        limits = super().limits()
        override = self._arch_override()
        if override and override[1] is not None:
            limits["shared_bytes"] = override[1]
        return limits

    def limit_set_by(self, key: str) -> Optional[str]:
        override = self._arch_override()
        if key == "shared_bytes" and override and override[1] is not None:
            return f"-arch={override[0]}"
        return super().limit_set_by(key)

    def setting(self) -> str:
        override = self._arch_override()
        return super().setting() + (f", -arch={override[0]}" if override else "")

    def shared_limit(self) -> Optional[int]:
        """The most shared memory a block may take: the profile's, or that of an `-arch`'s GPU."""
        return self.limits().get("shared_bytes")

    def target_flags(self) -> List[str]:
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


# ---------------------------------------------------------------------------------
# The translation unit
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# Host code of one __co__ function
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# One __global__ function: an outermost parallel
# ---------------------------------------------------------------------------------

