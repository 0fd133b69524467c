// croktile_swizzle.h - the swizzled shared-memory layouts that TMA writes and wgmma reads
// (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B), and copy_2d, which writes them without TMA.
//
// A swizzled buffer has rows of exactly SWIZZLE bytes (the TMA box's inner dimension)
// and starts on a multiple of 8 rows' bytes (1024 for 128): the 16-byte chunk c of row r
// sits at chunk c ^ (r / (128 / SWIZZLE) % (SWIZZLE / 16)), i.e. bits 4.. of the byte
// offset XOR bits 7.. of it. On the portable targets shared buffers stay unswizzled:
// copy_2d is a plain copy there, and wgmma::smem reads the plain layout.
#pragma once

#include <cstdint>

#include "croktile_minifloat.h"  // CROKTILE_HOST_DEVICE

namespace croktile {
namespace swizzle {

// The byte offset where the byte at `offset` of an unswizzled buffer goes.
template <int SWIZZLE>
CROKTILE_HOST_DEVICE constexpr unsigned offset(unsigned offset) {
  static_assert(SWIZZLE == 0 || SWIZZLE == 32 || SWIZZLE == 64 || SWIZZLE == 128,
                "croktile::swizzle: the swizzle is 0, 32, 64 or 128 bytes");
  return SWIZZLE == 0 ? offset : offset ^ (((offset >> 7) & (SWIZZLE / 16 - 1)) << 4);
}

#if defined(__CUDACC__)
// Cooperative (every thread of the block calls it): dst[r][c] = src[r * src_row_stride + c]
// for r < rows, c < cols, written in the SWIZZLE layout (cols * sizeof(T) == SWIZZLE
// bytes, dst aligned to 8 rows of it), 16 bytes per access where the source allows.
// Ends with fence.proxy.async on sm_90 and newer, so that after the block's next barrier
// wgmma and TMA see it (older GPUs have no async proxy: ldmatrix reads what threads wrote).
// A partial tile (in_rows x in_cols of it lie in the source's data) reads zeros past them.
template <class T, int SWIZZLE>
__device__ inline void copy_2d(T* dst, const T* src, long long rows, long long cols, long long src_row_stride,
                               long long in_rows = -1, long long in_cols = -1) {
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  char* out = reinterpret_cast<char*>(dst);
  constexpr int per16 = 16 / int(sizeof(T));
  if (in_rows < 0) in_rows = rows;
  if (in_cols < 0) in_cols = cols;
  const bool whole = in_rows >= rows && in_cols >= cols;
  const bool vector = whole && sizeof(T) <= 16 && cols % per16 == 0 && src_row_stride % per16 == 0 &&
                      reinterpret_cast<unsigned long long>(src) % 16 == 0;
  if (vector) {
    const long long chunks = cols / per16;
    for (long long n = tid; n < rows * chunks; n += nthreads) {
      const long long r = n / chunks, c = n % chunks;
      const uint4 v = *reinterpret_cast<const uint4*>(src + r * src_row_stride + c * per16);
      *reinterpret_cast<uint4*>(out + offset<SWIZZLE>(unsigned(r * cols + c * per16) * sizeof(T))) = v;
    }
  } else {
    for (long long n = tid; n < rows * cols; n += nthreads) {
      const long long r = n / cols, c = n % cols;
      *reinterpret_cast<T*>(out + offset<SWIZZLE>(unsigned(n) * sizeof(T))) =
          r < in_rows && c < in_cols ? src[r * src_row_stride + c] : T(0.0f);
    }
  }
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
#else
// The portable targets keep shared buffers unswizzled: a plain row-major copy.
template <class T, int SWIZZLE>
inline void copy_2d(T* dst, const T* src, long long rows, long long cols, long long src_row_stride,
                    long long in_rows = -1, long long in_cols = -1) {
  (void)offset<SWIZZLE>(0);
  if (in_rows < 0) in_rows = rows;
  if (in_cols < 0) in_cols = cols;
  for (long long r = 0; r < rows; ++r)
    for (long long c = 0; c < cols; ++c)
      dst[r * cols + c] = r < in_rows && c < in_cols ? src[r * src_row_stride + c] : T(0.0f);
}
#endif

}  // namespace swizzle
}  // namespace croktile
