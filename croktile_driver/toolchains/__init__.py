"""One module per target: code generation plus the compile and link jobs."""
from __future__ import annotations

from .base import ToolChain


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
