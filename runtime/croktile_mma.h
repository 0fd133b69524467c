// croktile_mma.h - the tensor-core runtime that generated code calls for the matrix
// language. Plain C++17 on the portable targets (g++), real tensor-core PTX under nvcc.
//   croktile_mma_forms.h  the mma.sync / mma.sp instruction table (croktile::mma::form)
//   croktile_mma_warp.h   warp-level tiles: croktile::mma::frag, fill/load/store/mma/...
//   croktile_wgmma.h      warp-group tiles (sm_90a): croktile::wgmma::acc, tile, mma
//   croktile_swizzle.h    the swizzled shared layouts; croktile::swizzle::copy_2d
//   croktile_rows.h       row operations on accumulators (softmax): row_max, row_exp, cvt, ...
//   croktile_tma.h        TMA and mbarrier wrappers (CUDA only)
#pragma once

#include "croktile_mma_forms.h"
#include "croktile_mma_warp.h"
#include "croktile_swizzle.h"
#include "croktile_tma.h"
#include "croktile_wgmma.h"
#include "croktile_rows.h"
