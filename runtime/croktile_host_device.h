// The device-data backend of the targets whose "device" memory is host memory
// (cpu, factor): device_view and device_data hold plain pointers, streams are
// empty (work runs when it is called), and synchronize has nothing to wait for.
// Its API is croktile::host::device_view, ... (and croktile::device_view, ... when
// this is the first target header a translation unit includes).
#pragma once

#include <cstddef>
#include <cstring>

#include "croktile.h"
#include "croktile_device.h"

namespace croktile {
namespace host {

struct host_queue;  // never defined: a host stream is only a name

struct backend {
  template <typename T>
  using device_pointer = T*;
  static constexpr bool typed_pointers = true;
  static constexpr int dlpack_device_type = 1;  // kDLCPU
  using native_stream = host_queue*;

  static native_stream default_stream() { return nullptr; }
  static native_stream create_stream(bool, const char*) { return nullptr; }
  static void destroy_stream(native_stream) noexcept {}

  // Zeroed memory of spanned_data's kind, so that a host result's memory can be adopted.
  template <typename T>
  static T* allocate(std::size_t count, native_stream, const char*) {
    return count ? detail::new_zeroed<T>(count) : nullptr;
  }
  template <typename T>
  static void release(T* p, native_stream) noexcept {
    detail::free_host(p);
  }
  static void zero(void* p, std::size_t bytes, native_stream, const char*) {
    if (bytes) std::memset(p, 0, bytes);
  }
  static void upload(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  static void download(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  static void copy(void* dst, const void* src, std::size_t bytes, native_stream, const char*) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  static void synchronize(native_stream, const char*) {}
};

CROKTILE_DEVICE_API(backend)

}  // namespace host
}  // namespace croktile

#ifndef CROKTILE_DEVICE_DEFAULT_API
#define CROKTILE_DEVICE_DEFAULT_API host
namespace croktile {
CROKTILE_DEVICE_API(host::backend)
}
#endif
