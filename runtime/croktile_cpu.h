// What the cpu target's generated code needs: the outermost `parallel` spread
// over hardware threads, levels whose instances wait on each other's events run as
// threads, and strided box copies for `dma.copy`.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>
#include <condition_variable>
#include <memory>
#include <type_traits>
#include <unistd.h>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "croktile.h"
#include "croktile_check.h"
#include "croktile_cuda_host_shim.h"

#ifndef __device__
#define __device__
#endif

namespace croktile {
namespace cpu {

// The worker threads of the outermost `parallel`: started on the first launch that
// has more than one instance, kept for the life of the process (a launch costs a wake-up,
// not a thread start), one per hardware thread, the caller being the first.
class thread_pool {
 public:
  using range_fn = void (*)(void* ctx, long long begin, long long end);

  static thread_pool& get() {
    // a child process after fork() has none of its parent's threads: it starts its own
    static thread_pool* pool = nullptr;
    static std::mutex made;
    std::lock_guard<std::mutex> lock(made);
    if (pool == nullptr || pool->owner_ != current_process()) pool = new thread_pool();  // never freed: workers
    return *pool;                                                                       // outlive static destructors
  }

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Runs fn(ctx, begin, end) on `parts` contiguous ranges that cover [0, count), in
  // order, one per thread; false (nothing run) when the pool is busy with another launch.
  bool try_run(long long count, unsigned parts, range_fn fn, void* ctx) {
    std::unique_lock<std::mutex> busy(launch_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(m_);
      fn_ = fn, ctx_ = ctx, count_ = count, parts_ = parts, error_ = nullptr;
      pending_ = parts - 1;
      ++generation_;
    }
    wake_.notify_all();
    inside_worker() = true;   // a launch from inside this part runs in this thread
    run_part(0);
    inside_worker() = false;
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (error_) std::rethrow_exception(error_);
    return true;
  }

  // whether this thread is running instances of a launch (a worker, or the caller's part)
  static bool& inside_worker() {
    static thread_local bool inside = false;
    return inside;
  }

 private:
  thread_pool() : owner_(current_process()) {
    unsigned hw = std::thread::hardware_concurrency();
    for (unsigned t = 1; t < (hw ? hw : 1); ++t) workers_.emplace_back([this, t] { work(t); });
    for (auto& w : workers_) w.detach();
  }

  static long long current_process();

  void run_part(unsigned part) {
    long long begin = count_ * part / parts_, end = count_ * (part + 1) / parts_;
    try {
      if (begin < end) fn_(ctx_, begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void work(unsigned part) {
    inside_worker() = true;
    unsigned long long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (part >= parts_) continue;
      }
      run_part(part);
      std::lock_guard<std::mutex> lock(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  long long owner_;
  std::vector<std::thread> workers_;
  std::mutex launch_, m_;
  std::condition_variable wake_, done_;
  unsigned long long generation_ = 0;
  range_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  long long count_ = 0;
  unsigned parts_ = 1, pending_ = 0;
  std::exception_ptr error_;
};

inline long long thread_pool::current_process() { return static_cast<long long>(::getpid()); }

// Runs body(i) for i in [0, count) on the thread pool, each thread a contiguous range of
// instances (neighbouring instances usually touch neighbouring memory); the first
// exception thrown by any instance is rethrown to the caller. A launch from inside an
// instance, or while another host thread's launch holds the pool, runs its instances in
// the calling thread.
template <typename Body>
void parallel_for(long long count, Body&& body) {
  if (count <= 0) return;
  auto serial = [&] { for (long long i = 0; i < count; ++i) body(i); };
  if (count == 1 || thread_pool::inside_worker()) return serial();
  thread_pool& pool = thread_pool::get();
  unsigned parts = static_cast<unsigned>(std::min<long long>(count, pool.size()));
  if (parts <= 1) return serial();
  auto range = [](void* ctx, long long begin, long long end) {
    auto& b = *static_cast<std::remove_reference_t<Body>*>(ctx);
    for (long long i = begin; i < end; ++i) b(i);
  };
  if (!pool.try_run(count, parts, range, const_cast<void*>(static_cast<const void*>(std::addressof(body)))))
    serial();
}

// Runs body(i) for i in [0, count), each instance in a thread of its own, all at once:
// the instances of a level that wait on each other's events (one loop would block
// forever). The first exception thrown by an instance is rethrown after all have ended.
template <typename Body>
void run_concurrently(long long count, Body&& body) {
  std::vector<std::thread> threads;
  std::exception_ptr error;
  std::mutex m;
  for (long long i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

// An event (events.md): set by `trigger`, awaited and unset by `wait`.
struct event {
  std::mutex m;
  std::condition_variable changed;
  bool set = false;
};

// How long a wait blocks before it reports a deadlock: CROKTILE_EVENT_TIMEOUT_MS, or 10 s.
inline long long event_timeout_ms() {
  static const long long ms = [] {
    const char* text = std::getenv("CROKTILE_EVENT_TIMEOUT_MS");
    long long v = text ? std::atoll(text) : 0;
    return v > 0 ? v : 10000LL;
  }();
  return ms;
}

inline void trigger(event* events, long long count) {
  for (long long i = 0; i < count; ++i) {
    {
      std::lock_guard<std::mutex> lock(events[i].m);
      events[i].set = true;
    }
    events[i].changed.notify_all();
  }
}

// Waits for each of `count` events and unsets it; a wait that outlasts the timeout
// fails as a runtime check at `where` with `message` ({0}: the milliseconds waited).
inline void wait(event* events, long long count, const char* where, const char* message) {
  const long long ms = event_timeout_ms();
  for (long long i = 0; i < count; ++i) {
    std::unique_lock<std::mutex> lock(events[i].m);
    if (!events[i].changed.wait_for(lock, std::chrono::milliseconds(ms), [&] { return events[i].set; }))
      detail::check_failed(where, message, {ms});
    events[i].set = false;
  }
}

// The barrier of the instances of a block's inner levels (run as threads) around an
// `inthreads` block: each arrival waits until all `count` instances have arrived; one
// that outlasts the event timeout (an instance that never comes) fails as a runtime
// check at `where`.
class barrier {
 public:
  explicit barrier(long long count) : count_(count) {}

  void arrive_and_wait(const char* where, const char* message) {
    std::unique_lock<std::mutex> lock(m_);
    const unsigned long long generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      all_.notify_all();
      return;
    }
    const long long ms = event_timeout_ms();
    if (!all_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return generation_ != generation; }))
      detail::check_failed(where, message, {ms});
  }

 private:
  std::mutex m_;
  std::condition_variable all_;
  long long count_, arrived_ = 0;
  unsigned long long generation_ = 0;
};

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
