"""The opencl target's toolchain: the host compiler's jobs, the OpenCL C check of the
device program, and the target's checks."""
from __future__ import annotations

import functools
import sys
from typing import Dict, Optional

from .events import check_opencl_events
from ...frontend.pipeline import TranslationUnit
from .mma import check_opencl_mma
from ...driver.toolchain import DeviceBuild, ToolChain
from .barriers import check_opencl_barriers
from .check import CHECK_FLAGS, DEFAULT_CHECKER, checker_command, locate, run_check
from .host import Generator
from .names import RENAMED_PREFIX


class OpenclToolChain(ToolChain):
    target = "opencl"
    source_suffix = ".cpp"
    runtime_header = "croktile_opencl.h"
    device_api = "croktile::opencl"
    checks_device = True
    device_suffix = ".cl"

    def check(self, module, diag) -> None:
        check_opencl_mma(module, diag)
        check_opencl_events(module, diag)
        check_opencl_barriers(module, diag)

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        host, device = Generator(tu, diag).run()
        return {self.source_suffix: host, self.device_suffix: device}

    @staticmethod
    def find_program(command: str) -> Optional[str]:
        return locate(command)

    def device_check(self, generated: str) -> Optional[DeviceBuild]:
        """Checks the device program (x.gen.cl) with an OpenCL C compiler, so that its
        errors are build errors at .co.cpp lines, not failures when it first runs."""
        command = checker_command(self.profile)
        if command is None:
            return None
        if command[0] == DEFAULT_CHECKER:   # neither clang nor a clang-NN is on PATH
            self.warn_unchecked()
            return None
        base = generated[: -len(self.source_suffix)] if generated.endswith(self.source_suffix) else generated
        source = base + self.device_suffix
        argv = [*command, *CHECK_FLAGS, *(["-w"] if self.options.no_warnings else []), source]
        return DeviceBuild(argv, source, "", [], functools.partial(run_check, renamed_prefix=RENAMED_PREFIX))

    def warn_unchecked(self) -> None:
        """Without clang the build goes on (the platform still compiles the program when it
        runs), once saying so."""
        if self.warned or self.options.no_warnings:
            return
        self.warned = True
        print(f"croktilec: warning: no OpenCL C compiler found (profile '{self.profile['name']}' names "
              f"device_cc '{DEFAULT_CHECKER}'; none of clang, clang-NN is on PATH): the device program is not "
              "checked at build time, and errors in __cok__ code show when it first runs; set device_cc "
              "in the profile, or device_cc: \"\" to turn the check off", file=sys.stderr)

    warned = False


# ---------------------------------------------------------------------------------
# The whole translation unit
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# Host code of one __co__ function
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# One __kernel: an outermost parallel
# ---------------------------------------------------------------------------------


