// What the cpu target's generated code needs: the outermost `parallel` spread
// over hardware threads, and strided box copies for `dma.copy`.
#pragma once

#include <algorithm>
#include <utility>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "croktile.h"
#include "croktile_check.h"

#ifndef __device__
#define __device__
#endif

namespace croktile {
namespace cpu {

// Runs body(i) for i in [0, count) on up to hardware_concurrency threads; the
// first exception thrown by any instance is rethrown to the caller.
template <typename Body>
void parallel_for(long long count, Body&& body) {
  if (count <= 0) return;
  unsigned hw = std::thread::hardware_concurrency();
  long long workers = std::min<long long>(count, hw ? hw : 1);
  if (workers <= 1) {
    for (long long i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<long long> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&] {
    for (;;) {
      long long i = next.fetch_add(1);
      if (i >= count) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(count);
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers - 1));
  for (long long t = 1; t < workers; ++t) threads.emplace_back(run);
  run();
  for (auto& th : threads) th.join();
  if (error) std::rethrow_exception(error);
}

// Copies the box `ext` at `src_off` of a row-major array shaped `src_shape`
// to `dst_off` of one shaped `dst_shape`; the innermost run is one memcpy.
template <typename T, std::size_t Rank>
void copy_box(const T* src, const long long (&src_shape)[Rank], const long long (&src_off)[Rank],
              T* dst, const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank],
              const long long (&ext)[Rank]) {
  const std::size_t row_bytes = static_cast<std::size_t>(ext[Rank - 1]) * sizeof(T);
  detail::for_each_box_slab(src_shape, src_off, dst_shape, dst_off, ext, Rank - 1,
                            [&](long long s, long long t) { std::memcpy(dst + t, src + s, row_bytes); });
}

}  // namespace cpu
}  // namespace croktile

#include "croktile_host_device.h"
