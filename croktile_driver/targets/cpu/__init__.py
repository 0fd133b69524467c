"""cpu target: the tileflow code becomes plain C++ that the host compiler builds; parallel
levels are loops, DMA is memcpy, device functions are ordinary functions.

Package interface: ``CpuToolChain``, ``FunctionEmitter``; the rest of the folder is
this target's own. May import: ir, analysis, codegen, driver.toolchain, frontend (its
splitter and pipeline types), diagnostics, cstrings.
"""
from .toolchain import CpuToolChain
from .codegen import FunctionEmitter   # factor's host code is cpu's

__all__ = ["CpuToolChain", "FunctionEmitter"]
