// What the cuda target's generated code needs, beside croktile.h:
//
//  * host side: CUDA errors as croktile::runtime_error naming the .co.cpp
//    location and the call that failed; an RAII device buffer; kernel launches
//    that request exactly the planned dynamic shared memory (raising the
//    per-kernel limit above 48 KiB when needed) and check both the launch and
//    the kernel's completion; host-level box copies; the buffer through which
//    device code reports a failed runtime check.
//  * device side: block-cooperative box copies (each thread a slice, 16-byte
//    vectors when sizes, strides and addresses allow, cp.async on sm_80 and newer
//    for asynchronous copies into shared memory); per-thread copies are written
//    out in the generated code, where their trip counts are constants to unroll.
//
// Plain CUDA C++ (no CUTLASS/CuTe), so generated sources compile in seconds.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "croktile.h"
#include "croktile_check.h"

// min/max of generated index expressions (std::min is host-only in device code).
__host__ __device__ inline long long croktile_min(long long a, long long b) { return a < b ? a : b; }
__host__ __device__ inline long long croktile_max(long long a, long long b) { return a > b ? a : b; }

namespace croktile {
namespace cuda {

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

[[noreturn]] inline void fail(cudaError_t err, const char* call, const char* where) {
  throw runtime_error(std::string(where) + ": CUDA error in " + call + ": " + cudaGetErrorName(err) + " (" +
                      cudaGetErrorString(err) + ")");
}

inline void check(cudaError_t err, const char* call, const char* where) {
  if (err != cudaSuccess) fail(err, call, where);
}

// Device memory owned by the generated host function: freed on every way out.
class buffer {
 public:
  buffer() = default;
  buffer(std::size_t bytes, const char* where) : bytes_(bytes) {
    if (bytes_ != 0) check(cudaMalloc(&ptr_, bytes_), "cudaMalloc", where);
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  buffer& operator=(buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const { return bytes_; }

  void upload(const void* host, const char* where) {
    if (bytes_) check(cudaMemcpy(ptr_, host, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy (to device)", where);
  }
  void download(void* host, const char* where) const {
    if (bytes_) check(cudaMemcpy(host, ptr_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy (to host)", where);
  }
  void zero(const char* where) {
    if (bytes_) check(cudaMemset(ptr_, 0, bytes_), "cudaMemset", where);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A device-side runtime check that failed records its id (+1) and values here.
struct check_record {
  int id;
  int pad;
  long long values[4];
};

class device_checks {
 public:
  explicit device_checks(const char* where) : buf_(sizeof(check_record), where) { buf_.zero(where); }
  check_record* get() const { return buf_.as<check_record>(); }
  void poll(const char* where, void (*report)(int, const long long*)) const {
    check_record h{};
    buf_.download(&h, where);
    if (h.id != 0) report(h.id - 1, h.values);
  }

 private:
  buffer buf_;
};

// Kernel timing for benchmarks: with `timing().enabled`, each launch is bracketed by
// CUDA events and `timing().last_ms` holds the kernel's time on the GPU.
struct launch_timing {
  bool enabled = false;
  float last_ms = 0.0f;
};
inline launch_timing& timing() {
  static launch_timing t;
  return t;
}

// Launches `kernel` with exactly `smem` bytes of dynamic shared memory, then checks
// the launch (cudaGetLastError) and the kernel's completion (cudaDeviceSynchronize),
// so that a fault is reported at the .co.cpp line of the `parallel` that caused it.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), long long grid, long long block, std::size_t smem, const char* where,
            Args&&... args) {
  if (grid <= 0) return;
  if (grid > 0x7fffffffLL)
    throw runtime_error(std::string(where) + ": a parallel of " + std::to_string(grid) +
                        " instances exceeds the CUDA grid limit (2^31 - 1 blocks)");
  if (smem > 48 * 1024) {
    int dev = 0, optin = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice", where);
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute",
          where);
    if (smem > static_cast<std::size_t>(optin))
      throw runtime_error(std::string(where) + ": the kernel needs " + std::to_string(smem) +
                          " bytes of shared memory; this device allows " + std::to_string(optin));
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "cudaFuncSetAttribute", where);
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  if (timing().enabled) {
    check(cudaEventCreate(&start), "cudaEventCreate", where);
    check(cudaEventCreate(&stop), "cudaEventCreate", where);
    check(cudaEventRecord(start), "cudaEventRecord", where);
  }
  kernel<<<static_cast<unsigned>(grid), static_cast<unsigned>(block), smem>>>(std::forward<Args>(args)...);
  check(cudaGetLastError(), "kernel launch", where);
  if (timing().enabled) check(cudaEventRecord(stop), "cudaEventRecord", where);
  check(cudaDeviceSynchronize(), "kernel execution", where);
  if (timing().enabled) {
    check(cudaEventElapsedTime(&timing().last_ms, start, stop), "cudaEventElapsedTime", where);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
}

// Host-level dma.copy between two device buffers: the box `ext` at `src_off` of a
// row-major array shaped `src_shape` goes to `dst_off` of one shaped `dst_shape`;
// one cudaMemcpy2D per 2-d slab.
template <std::size_t Rank>
void copy_box(const void* src, const long long (&src_shape)[Rank], const long long (&src_off)[Rank], void* dst,
              const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank], const long long (&ext)[Rank],
              std::size_t elem, const char* where) {
  const std::size_t width = static_cast<std::size_t>(ext[Rank - 1]) * elem;
  // pitches of the row dimension (Rank - 2); a rank-1 box is one row
  const std::size_t spitch = Rank >= 2 ? static_cast<std::size_t>(src_shape[Rank - 1]) * elem : width;
  const std::size_t dpitch = Rank >= 2 ? static_cast<std::size_t>(dst_shape[Rank - 1]) * elem : width;
  const std::size_t rows = Rank >= 2 ? static_cast<std::size_t>(ext[Rank - 2]) : 1;
  detail::for_each_box_slab(src_shape, src_off, dst_shape, dst_off, ext, Rank >= 2 ? Rank - 2 : 0,
                            [&](long long s, long long t) {
                              check(cudaMemcpy2D(static_cast<char*>(dst) + t * static_cast<long long>(elem), dpitch,
                                                 static_cast<const char*>(src) + s * static_cast<long long>(elem),
                                                 spitch, width, rows, cudaMemcpyDeviceToDevice),
                                    "cudaMemcpy2D", where);
                            });
}

// ---------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------

#if defined(__CUDACC__)

// A copy of `rows` runs of `run` contiguous elements; the row index is split over
// up to four outer dimensions `ext` (row-major) with element strides `ss` / `ds`.
struct box {
  long long run;
  long long ext[4];
  long long ss[4];
  long long ds[4];
};

template <int ND>
__device__ __forceinline__ void row_offsets(const box& b, long long r, long long& so, long long& dof) {
  so = 0;
  dof = 0;
#pragma unroll
  for (int k = ND - 1; k >= 0; --k) {
    const long long e = b.ext[k];
    const long long i = (k == 0) ? r : r % e;
    r = (k == 0) ? 0 : r / e;
    so += i * b.ss[k];
    dof += i * b.ds[k];
  }
}

template <int ND>
__device__ __forceinline__ long long box_rows(const box& b) {
  long long rows = 1;
#pragma unroll
  for (int k = 0; k < ND; ++k) rows *= b.ext[k];
  return rows;
}

// Whether every run starts and ends on a 16-byte boundary in both arrays.
template <int ND, typename T>
__device__ __forceinline__ bool vectorizable(const T* dst, const T* src, const box& b) {
  unsigned long long bits = reinterpret_cast<unsigned long long>(dst) | reinterpret_cast<unsigned long long>(src) |
                            static_cast<unsigned long long>(b.run * sizeof(T));
#pragma unroll
  for (int k = 0; k < ND; ++k)
    bits |= static_cast<unsigned long long>(b.ss[k] * sizeof(T)) | static_cast<unsigned long long>(b.ds[k] * sizeof(T));
  return (bits & 15u) == 0;
}

__device__ __forceinline__ void cp_async16(void* smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem_src) : "memory");
#else
  *static_cast<uint4*>(smem_dst) = *static_cast<const uint4*>(gmem_src);
#endif
}

// Makes this thread's cp.async copies issued so far one group.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most `Keep` of this thread's most recent cp.async groups are still
// in flight; the caller then synchronises the block.
template <int Keep>
__device__ __forceinline__ void cp_async_wait_group() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Keep) : "memory");
#endif
}

// The 16-byte-vector part of block_copy: thread i moves vectors i, i + blockDim.x, ...,
// loading a batch of them before storing any, so that several loads are in flight.
template <int ND, bool Async, typename I, typename T>
__device__ __forceinline__ void block_copy_vectors(T* dst, const T* src, const box& b, I total, I vrun) {
  constexpr int kBatch = 4;
  const I tid = static_cast<I>(threadIdx.x), nt = static_cast<I>(blockDim.x);
  for (I t0 = tid; t0 < total; t0 += kBatch * nt) {
    uint4 v[kBatch];
    uint4* d[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const I t = t0 + j * nt;
      d[j] = nullptr;
      if (t < total) {
        I e = t;
        long long so = 0, dof = 0;
        if (ND > 0) {
          const I r = t / vrun;
          e = t - r * vrun;
          row_offsets<ND>(b, r, so, dof);
        }
        const uint4* s = reinterpret_cast<const uint4*>(src + so) + e;
        d[j] = reinterpret_cast<uint4*>(dst + dof) + e;
        if (Async)
          cp_async16(d[j], s);
        else
          v[j] = *s;
      }
    }
    if (!Async) {
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (d[j]) *d[j] = v[j];
    }
  }
}

// All threads of the block copy the box together, thread i taking elements (or
// 16-byte vectors) i, i + blockDim.x, ...; `Async` issues cp.async into shared
// memory (the destination must be shared) and leaves the wait to the caller.
template <int ND, bool Async, typename T>
__device__ __forceinline__ void block_copy(T* dst, const T* src, const box& b) {
  const long long rows = box_rows<ND>(b);
  if (vectorizable<ND>(dst, src, b)) {
    const long long vrun = b.run * static_cast<long long>(sizeof(T)) / 16;
    const long long total = rows * vrun;
    if (total <= 0x7fffffffLL)   // 32-bit index arithmetic where it cannot overflow
      block_copy_vectors<ND, Async, int>(dst, src, b, static_cast<int>(total), static_cast<int>(vrun));
    else
      block_copy_vectors<ND, Async, long long>(dst, src, b, total, vrun);
    if (Async) cp_async_commit();
    return;
  }
  // element copies complete here; an async copy still commits its (empty) group, so that
  // the generated cp.async.wait_group counts stay right
  if (Async) cp_async_commit();
  const long long total = rows * b.run;
  const long long tid = threadIdx.x, nt = blockDim.x;
#pragma unroll 4
  for (long long t = tid; t < total; t += nt) {
    long long r = 0, e = t, so = 0, dof = 0;
    if (ND > 0) {
      r = t / b.run;
      e = t - r * b.run;
      row_offsets<ND>(b, r, so, dof);
    }
    dst[dof + e] = src[so + e];
  }
}

// Zero-fills `n` elements with the whole block.
template <typename T>
__device__ __forceinline__ void block_zero(T* p, long long n) {
  for (long long i = threadIdx.x; i < n; i += blockDim.x) p[i] = T();
}

__device__ __forceinline__ void check_fail(check_record* rec, int id, long long v0, long long v1, long long v2,
                                           long long v3) {
  if (atomicCAS(&rec->id, 0, id + 1) == 0) {
    rec->values[0] = v0;
    rec->values[1] = v1;
    rec->values[2] = v2;
    rec->values[3] = v3;
    __threadfence();
  }
}

#endif  // __CUDACC__

}  // namespace cuda
}  // namespace croktile
