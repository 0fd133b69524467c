// croktile_mma.h - the tensor-core runtime that generated code calls for the mma
// language: warp-level tiles (croktile::mma, croktile_mma_warp.h) and their instruction
// table (croktile_mma_forms.h). Plain C++17 on the portable targets (g++), real
// tensor-core PTX under nvcc.
#pragma once

#include "croktile_mma_forms.h"
#include "croktile_mma_warp.h"
