// The device-data backend of the targets whose "device" memory is host memory
// (cpu, factor): device_view and device_data hold plain pointers, streams are
// empty (work runs when it is called), and synchronize has nothing to wait for.
#pragma once

#include <cstddef>
#include <cstring>

#include "croktile.h"

namespace croktile {
namespace backend {

struct host_queue;  // never defined: a host stream is only a name

template <typename T>
using device_pointer = T*;
constexpr bool typed_pointers = true;
constexpr int dlpack_device_type = 1;  // kDLCPU
using native_stream = host_queue*;

inline native_stream default_stream() { return nullptr; }
inline native_stream create_stream(bool, const char*) { return nullptr; }
inline void destroy_stream(native_stream) noexcept {}

// new T[]() like spanned_data, so that a host result's memory can be adopted.
template <typename T>
T* allocate(std::size_t count, native_stream, const char*) {
  return count ? new T[count]() : nullptr;
}
template <typename T>
void release(T* p, native_stream) noexcept {
  delete[] p;
}
inline void zero(void* p, std::size_t bytes, native_stream, const char*) {
  if (bytes) std::memset(p, 0, bytes);
}
inline void upload(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
  if (bytes) std::memcpy(dst, src, bytes);
}
inline void download(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
  if (bytes) std::memcpy(dst, src, bytes);
}
inline void copy(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
  if (bytes) std::memcpy(dst, src, bytes);
}
inline void synchronize(native_stream, const char*) {}

}  // namespace backend
}  // namespace croktile

#include "croktile_device.h"
