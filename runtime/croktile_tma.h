// croktile_tma.h - the Hopper bulk tensor copy engine (TMA) and the mbarriers it completes
// on, as named one-line wrappers (CUDA only; sm_90).
//
// Host:   croktile::tma::make_map<T>(&map, global, rank, dims, strides, box, swizzle),
//         encode_map (the same, returning the driver's result), box_map (dense arrays)
// Device: croktile::mbarrier::{init, fence_init, arrive, expect_tx, arrive_expect_tx,
//         try_wait_parity, wait_parity}; croktile::tma::{load_async, store_async,
//         store_commit, store_wait, fence_proxy_async}
// Shapes, strides, boxes and coordinates are in row-major order (outermost first), as
// croktile spells shapes; the wrappers reverse them into the driver's innermost-first
// order. The map is passed to kernels by value (`const __grid_constant__ CUtensorMap`)
// and to these functions by its address.
#pragma once

// the host half of a split build (croktile_cuda_split.h) encodes maps too
#if defined(__CUDACC__) || defined(CROKTILE_SPLIT_HOST)

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "croktile.h"

namespace croktile {
namespace tma {

namespace detail {
using encode_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                               const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                               CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// cuTensorMapEncodeTiled through the runtime, so that programs need no -lcuda.
inline encode_fn encoder() {
  static encode_fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !p)
      throw croktile::runtime_error("croktile::tma: the CUDA driver has no cuTensorMapEncodeTiled (TMA needs sm_90)");
    return reinterpret_cast<encode_fn>(p);
  }();
  return fn;
}

template <class T>
constexpr CUtensorMapDataType data_type() {
  return sizeof(T) == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
         : sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
         : sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                          : CU_TENSOR_MAP_DATA_TYPE_UINT64;
}
}  // namespace detail

/// Encodes a tiled tensor map of `global` (rank 1..5): dims and box in elements, strides
/// in elements (the innermost 1), swizzle 0/32/64/128 bytes. Returns the driver's result
/// (CUDA_SUCCESS, or why it refuses: alignment, strides, box size).
template <class T>
inline CUresult encode_map(CUtensorMap* map, const T* global, int rank, const long long* dims,
                           const long long* strides, const int* box, int swizzle) {
  if (rank < 1 || rank > 5 || strides[rank - 1] != 1) return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (int i = 0; i < rank; ++i) {
    d[i] = cuuint64_t(dims[rank - 1 - i]);
    b[i] = cuuint32_t(box[rank - 1 - i]);
    e[i] = 1;
    if (i) s[i - 1] = cuuint64_t(strides[rank - 1 - i]) * sizeof(T);
  }
  const CUtensorMapSwizzle sw = swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                : CU_TENSOR_MAP_SWIZZLE_NONE;
  return detail::encoder()(map, detail::data_type<T>(), cuuint32_t(rank), const_cast<T*>(global), d, s, b, e,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/// encode_map, throwing with the driver's complaint where it refuses.
template <class T>
inline void make_map(CUtensorMap* map, const T* global, int rank, const long long* dims, const long long* strides,
                     const int* box, int swizzle) {
  const CUresult r = encode_map(map, global, rank, dims, strides, box, swizzle);
  if (r != CUDA_SUCCESS)
    throw croktile::runtime_error("croktile::tma::make_map: cuTensorMapEncodeTiled refused the map (error " +
                                  std::to_string(int(r)) +
                                  "): the global address must be 16-byte aligned, strides multiples of 16 bytes, "
                                  "box sides 1..256 with the inner one a multiple of 16 bytes and at most the swizzle");
}

namespace detail {
// The maps a thread encoded last: a kernel called again on the same arrays (every step of
// a training loop, every call of a bench) takes them instead of asking the driver again.
struct encoded_map {
  const void* global = nullptr;
  int rank = 0, size = 0, swizzle = 0;
  long long dims[5] = {};
  int box[5] = {};
  CUtensorMap map;
};
constexpr int map_cache_size = 16;

template <int Rank>
inline bool same_map(const encoded_map& e, const void* global, int size, const long long (&dims)[Rank],
                     const int (&box)[Rank], int swizzle) {
  if (e.global != global || e.rank != Rank || e.size != size || e.swizzle != swizzle) return false;
  for (int i = 0; i < Rank; ++i)
    if (e.dims[i] != dims[i] || e.box[i] != box[i]) return false;
  return true;
}
}  // namespace detail

/// The map of a dense row-major array `global` shaped `dims`, in boxes shaped `box`, as
/// generated kernels take it: true when the driver encoded it (else the launch takes the
/// kernel's instance without TMA). A map is a function of these arguments alone, so the
/// last ones encoded are reused.
template <class T, int Rank>
inline bool box_map(CUtensorMap* map, const T* global, const long long (&dims)[Rank], const int (&box)[Rank],
                    int swizzle) {
  static thread_local detail::encoded_map cache[detail::map_cache_size];
  static thread_local int next = 0;
  for (const detail::encoded_map& e : cache)
    if (detail::same_map(e, global, int(sizeof(T)), dims, box, swizzle)) {
      *map = e.map;
      return true;
    }
  // what the driver would refuse is not asked of it (compute-sanitizer reports refusals)
  if (reinterpret_cast<unsigned long long>(global) % 16 != 0) return false;
  long long strides[Rank];
  long long stride = 1;
  for (int i = Rank - 1; i >= 0; --i) {
    if (dims[i] < 1 || dims[i] > (1LL << 32) || box[i] < 1 || box[i] > 256) return false;
    if (i < Rank - 1 && stride * (long long)sizeof(T) % 16 != 0) return false;
    strides[i] = stride;
    stride *= dims[i];
  }
  if (encode_map(map, global, Rank, dims, strides, box, swizzle) != CUDA_SUCCESS) return false;
  detail::encoded_map& e = cache[next];
  next = (next + 1) % detail::map_cache_size;
  e.global = global;
  e.rank = Rank;
  e.size = int(sizeof(T));
  e.swizzle = swizzle;
  for (int i = 0; i < Rank; ++i) {
    e.dims[i] = dims[i];
    e.box[i] = box[i];
  }
  e.map = *map;
  return true;
}

#if defined(__CUDACC__)   // device side
/// The shared-memory address of p, as PTX's shared-state-space operands take it.
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace tma

namespace mbarrier {
/// An mbarrier: 8 bytes of shared memory, 8-byte aligned.
using type = std::uint64_t;

/// Sets the barrier up for `count` arrivals per phase (one thread does it).
__device__ __forceinline__ void init(type* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tma::shared_address(bar)), "r"(count) : "memory");
}
/// Makes initialised barriers visible to the async proxy (TMA); then sync the block.
__device__ __forceinline__ void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/// One arrival on the barrier's current phase.
__device__ __forceinline__ void arrive(type* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tma::shared_address(bar)) : "memory");
}
/// Adds `bytes` to the transaction count the current phase waits for, without arriving.
__device__ __forceinline__ void expect_tx(type* bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(tma::shared_address(bar)), "r"(bytes)
               : "memory");
}
/// expect_tx and arrive in one (the TMA producer's usual call).
__device__ __forceinline__ void arrive_expect_tx(type* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tma::shared_address(bar)), "r"(bytes)
               : "memory");
}
/// Whether the phase of parity `phase` has completed (one try).
__device__ __forceinline__ bool try_wait_parity(type* bar, unsigned phase) {
  unsigned done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(tma::shared_address(bar)), "r"(phase)
      : "memory");
  return done != 0;
}
/// Waits until the phase of parity `phase` has completed.
__device__ __forceinline__ void wait_parity(type* bar, unsigned phase) {
  while (!try_wait_parity(bar, phase)) {
  }
}
}  // namespace mbarrier

namespace tma {
/// Orders this thread's ordinary shared-memory writes before later TMA / wgmma reads.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/// Starts copying the box at `coords` (row-major, elements) of the map into shared memory
/// at dst (128-byte aligned; 1024 for 128-byte swizzle); it completes its bytes on bar.
template <class... I>
__device__ __forceinline__ void load_async(void* dst, const CUtensorMap* map, mbarrier::type* bar, I... coords) {
  static_assert(sizeof...(I) >= 1 && sizeof...(I) <= 5, "croktile::tma::load_async: 1 to 5 coordinates");
  const int c[] = {int(coords)...};
  const std::uint32_t d = shared_address(dst), b = shared_address(bar);
  const auto m = reinterpret_cast<std::uint64_t>(map);
  constexpr int n = sizeof...(I);
  if constexpr (n == 1)
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
                 ::"r"(d), "l"(m), "r"(b), "r"(c[0]) : "memory");
  else if constexpr (n == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                 ::"r"(d), "l"(m), "r"(b), "r"(c[1]), "r"(c[0]) : "memory");
  else if constexpr (n == 3)
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
                 ::"r"(d), "l"(m), "r"(b), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
  else if constexpr (n == 4)
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
                 ::"r"(d), "l"(m), "r"(b), "r"(c[3]), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
                 ::"r"(d), "l"(m), "r"(b), "r"(c[4]), "r"(c[3]), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
}

/// Starts copying shared memory at src into the box at `coords` of the map (after
/// fence_proxy_async by the threads that wrote src); store_commit, then store_wait.
template <class... I>
__device__ __forceinline__ void store_async(const CUtensorMap* map, const void* src, I... coords) {
  static_assert(sizeof...(I) >= 1 && sizeof...(I) <= 5, "croktile::tma::store_async: 1 to 5 coordinates");
  const int c[] = {int(coords)...};
  const std::uint32_t s = shared_address(src);
  const auto m = reinterpret_cast<std::uint64_t>(map);
  constexpr int n = sizeof...(I);
  if constexpr (n == 1)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];" ::"l"(m), "r"(s), "r"(c[0]) : "memory");
  else if constexpr (n == 2)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
                 ::"l"(m), "r"(s), "r"(c[1]), "r"(c[0]) : "memory");
  else if constexpr (n == 3)
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
                 ::"l"(m), "r"(s), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
  else if constexpr (n == 4)
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                 ::"l"(m), "r"(s), "r"(c[3]), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
                 ::"l"(m), "r"(s), "r"(c[4]), "r"(c[3]), "r"(c[2]), "r"(c[1]), "r"(c[0]) : "memory");
}
/// Closes the group of store_async issued since the last commit.
__device__ __forceinline__ void store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
/// Waits until at most N committed store groups still read their shared memory.
template <int N>
__device__ __forceinline__ void store_wait() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"); }
/// Waits until at most N committed store groups are still writing global memory.
template <int N>
__device__ __forceinline__ void store_wait_all() { asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory"); }

}  // namespace tma
#else
}  // namespace tma
#endif  // device side
}  // namespace croktile
#endif  // __CUDACC__ || CROKTILE_SPLIT_HOST
