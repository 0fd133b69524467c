"""One package per target (``cpu``, ``cuda``, ``opencl``, ``factor``): its toolchain class
(flags, compilers, jobs), its rules (``ToolChain.check``) and its code generation.

Each target's ``__init__`` is its interface; nothing outside a target's folder imports
from inside it. May import: ir, analysis, codegen, frontend, driver.toolchain,
driver.profiles and driver.interrupts, diagnostics, cstrings, paths.
"""
from __future__ import annotations

from ..driver.toolchain import ToolChain


def toolchain_for(target: str) -> type:
    if target == "cpu":
        from .cpu import CpuToolChain
        return CpuToolChain
    if target == "cuda":
        from .cuda import CudaToolChain
        return CudaToolChain
    if target == "opencl":
        from .opencl import OpenclToolChain
        return OpenclToolChain
    if target == "factor":
        from .factor import FactorToolChain
        return FactorToolChain
    raise KeyError(target)


__all__ = ["ToolChain", "toolchain_for"]
