"""opencl target: one ``.co.cpp`` becomes a host C++ program and an OpenCL C device program.

Device program (``.cl``, OpenCL C 1.2, embedded in the host binary as a string):
  * a prelude (fixed-width integer names, the runtime-check hook),
  * the user's ``__cok__ { }`` code, with ``extern "C"`` removed (OpenCL C has no
    linkage specifications) and function templates taken out,
  * generated variants of device functions (see "Address spaces"),
  * one ``__kernel`` per launch (outermost ``parallel``) of each ``__co__`` function.

Mapping (docs/targets/opencl.md says it for users):
  * The outermost ``parallel`` is the NDRange: one work-group per instance. The next
    level is the work-items of the group: the group size is the largest inner count
    (at most what the device allows for the kernel), and work-item ``i`` runs the
    instances ``i, i + size, ...`` of each inner ``parallel``. Deeper levels are
    loops inside a work-item, as on the cpu target.
  * Code of the outer level beside an inner ``parallel`` runs as if on work-item 0:
    every work-item runs its control flow (loops, conditions, scalars: all uniform
    across the group, so barriers inside stay legal), but a ``call`` is guarded by
    ``get_local_id(0) == 0``. A DMA of that level is done cooperatively by all
    work-items. Barriers separate what one work-item wrote from what others read:
    on entering and leaving an inner ``parallel``, after a cooperative copy, and
    between work-item 0's calls and the next cooperative step.
  * Storage: ``shared`` data of the outermost level, and ``local`` data of the outer
    level when there is an inner one (it belongs to the outer instance, i.e. to the
    work-group), is ``__local``; other ``local`` data is a private array. A buffer
    whose size is not a compile-time constant is a ``__local`` kernel argument
    (``__local``) or a per-work-item slice of a global scratch buffer (private).
  * ``dma.copy.async`` of one contiguous run between global and ``__local`` memory at
    the outer level is ``async_work_group_copy``; ``wait`` is ``wait_group_events``
    plus a barrier. Other copies (a box of several runs among them: see
    ``KernelEmitter.eligible``) complete when issued (like the cpu target), and their
    ``wait`` has nothing left to do.

Address spaces: OpenCL C 1.2 has no generic address space (PoCL 3 offers none to
CPU devices either, even with -cl-std=CL3.0), and an unqualified pointer parameter
is ``__private``. Copying arguments into private arrays around each call would be
simple, but it cannot hold data whose size is only known at run time, and when
several work-items pass the same ``__local`` buffer the copies-back overwrite each
other's results. Instead each call site passes its pointers as they are, and for
every combination of address spaces (and template arguments) that tileflow code
uses, the device program gets a copy of the function with qualified parameters,
e.g. ``matmul_kernel__t16_4_72__lll(__local int* ...)``; a call whose arguments are
all private calls the user's function itself. Limitation: inside such a copy, a
pointer parameter can only be passed on to functions or pointer variables that
accept its address space.

Runtime checks inside a kernel record the first failure in a small buffer that
the host reads after the launch and turns into the same ``croktile::runtime_error``
as on the cpu target.

Package interface: ``OpenclToolChain``; the rest of the folder is
this target's own. May import: ir, analysis, codegen, driver.toolchain, frontend (its
splitter and pipeline types), diagnostics, cstrings.
"""
from .toolchain import OpenclToolChain

__all__ = ["OpenclToolChain"]
