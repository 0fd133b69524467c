"""The CUDA hardware limits and block-shape defaults the cuda target plans with."""
from __future__ import annotations




DEFAULT_BLOCK = 128      # threads of a block whose launch has no inner level


MAX_BLOCK = 512          # more inner instances than this loop over the block


MAX_LANES = 1024         # threads of a block that annotated levels may use (CUDA's limit)


LANE_WIDTH = {"group-4": 128, "group": 32}   # threads of one warp group / warp


STATIC_SHARED_MAX = 48 * 1024   # the most a kernel may declare statically


MAX_COPY_DIMS = 4        # strided dimensions of one copy (besides the contiguous run)


UNROLL_LIMIT = 256       # a per-thread copy of at most this many steps is written out (unrolled)


BARRIER = "__syncthreads();"


# the most shared memory one block may take, by compute capability (CUDA programming
# guide, "Technical Specifications per Compute Capability"); up to 6.x, the 48 KiB a
# block may declare
ARCH_SHARED_BYTES = {**dict.fromkeys((30, 32, 35, 37, 50, 52, 53, 60, 61, 62), 49152), 70: 98304, 72: 98304, 75: 65536, 80: 166912, 86: 101376, 87: 166912, 89: 101376,
                     90: 232448, 100: 232448, 103: 232448, 120: 101376}
