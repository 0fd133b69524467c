"""The factor target's toolchain: the host and device-module jobs (factor-sim's
profile), and the target's checks."""
from __future__ import annotations

import shlex
from typing import Dict, List, Optional

from .events import check_factor_events
from ...frontend.pipeline import TranslationUnit
from ...driver.profiles import device_compiler_of
from ...driver.toolchain import DeviceBuild, ToolChain
from ...cstrings import c_string
from .host import Generator

# How a gcc-compatible device compiler builds a module the host loads: position
# independent, only the entry points (CROKTILE_FACTOR_EXPORT) visible.
DEVICE_MODULE_FLAGS = ["-fPIC", "-shared", "-fvisibility=hidden"]


class FactorToolChain(ToolChain):
    target = "factor"
    source_suffix = ".cpp"
    runtime_header = "croktile_factor.h"
    device_suffix = ".dev.cpp"
    module_suffix = ".so"

    def check(self, module, diag) -> None:
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


# ---------------------------------------------------------------------------------
# __cok__ blocks: which device functions have C linkage
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# Scratchpad slots of one launch
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# The translation unit
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# Host code of one __co__ function: the cpu target's, with launches
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# Device code: the entry point of one launch
# ---------------------------------------------------------------------------------


