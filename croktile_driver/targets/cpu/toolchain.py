"""The cpu target's toolchain: the host compiler compiles the generated C++ as it is."""
from __future__ import annotations

from typing import Dict

from ...frontend.pipeline import TranslationUnit
from ...driver.toolchain import ToolChain
from .codegen import emit_translation_unit


class CpuToolChain(ToolChain):
    target = "cpu"
    source_suffix = ".cpp"
    runtime_header = "croktile_cpu.h"

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        return {self.source_suffix: emit_translation_unit(tu)}
