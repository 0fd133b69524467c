// The few CUDA runtime calls a host program makes around device-resident data
// (cudaMalloc, cudaMemcpy, cudaFree, cudaDeviceSynchronize), for the targets whose
// __co__ functions take host memory (cpu, factor; opencl, which copies it to the device
// at each call): the reference's programs that keep their matrices on the device build
// and run there unchanged. Left out where CUDA's
// own runtime header is present, or with CROKTILE_NO_CUDA_SHIM.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDA_RUNTIME_H__) && !defined(CROKTILE_NO_CUDA_SHIM)
#include <cstdlib>
#include <cstring>

#include "croktile.h"

enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
using __nv_fp8_e4m3 = croktile::f8_e4m3;
using __nv_fp8_e5m2 = croktile::f8_e5m2;

template <typename T>
inline cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  *p = static_cast<T*>(std::malloc(bytes ? bytes : 1));
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind) {
  if (bytes) std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
#endif
