"""cuda target: one ``.co.cpp`` becomes one CUDA C++ source for nvcc (single source).

Mapping (docs/targets/cuda.md says it for users):
  * The outermost ``parallel`` is the grid: one block per instance. The next level
    is the threads of the block: the block has the largest inner count rounded up
    to a warp (at most ``MAX_BLOCK``; thread ``t`` runs instances ``t, t + size,
    ...``), or ``DEFAULT_BLOCK`` threads when there is no inner level. Deeper levels
    are loops inside a thread, as on the cpu target. A level annotated ``: group-4``
    or ``: group`` spans 128 or 32 threads per instance (or as many as the ``thread``
    level right inside it, which then takes one thread per instance); see ``lanes``.
  * Code of the outer level runs on every thread (its control flow and scalars are
    uniform, so barriers inside stay legal), but a ``call`` is guarded by
    ``threadIdx.x == 0`` (spec 4's masking). A DMA of that level is performed by
    all threads of the block together, each a slice, in 16-byte vectors when sizes,
    strides and addresses allow. ``__syncthreads()`` separates what one thread
    wrote from what others read: on entering and leaving an inner ``parallel``, and
    before an outer-level step (a cooperative copy, a thread-0 call) that touches
    bytes other threads accessed since the last barrier (see analysis/barriers.py).
  * Storage: everything an instance of the outer level owns (``shared`` data,
    ``local`` data and DMA destinations of that level) lives in the block's
    shared memory arena, planned from live ranges (analysis/memplan.py): a static
    ``__shared__`` array up to 48 KiB, dynamic shared memory beyond or when sized at
    run time. Data of inner levels is a per-thread array (run-time sized: a slice of
    a global scratch buffer).
  * ``dma.copy.async`` from global memory into the arena, waited at the outer
    level, is ``cp.async`` on sm_80 and newer (the runtime header falls back to
    plain copies for older architectures), one commit group per copy; ``wait`` is
    ``cp.async.wait_group N`` (N: the groups issued after the waited ones, which may
    stay in flight; see analysis/futures.py) plus
    ``__syncthreads()``. Other copies complete when issued.

Host side: shapes are checked, every global array gets device memory (RAII, so it
is freed on every way out), inputs are copied in, each launch requests exactly
the planned shared memory and is checked (launch and completion), device-side
runtime checks are reported as ``croktile::runtime_error`` with the ``.co.cpp``
location, and results are copied out.

Package interface: ``CudaToolChain``; the rest of the folder is
this target's own. May import: ir, analysis, codegen, driver.toolchain, frontend (its
splitter and pipeline types), diagnostics, cstrings.
"""
from .toolchain import CudaToolChain

__all__ = ["CudaToolChain"]
