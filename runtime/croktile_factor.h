// croktile_factor.h - the factor target: the C ABI between a host program and its
// device module, and factor-sim, the runtime that runs device modules on the CPU.
//
// A factor program is two translation units. The device source (x.gen.dev.cpp: the
// __cok__ code, -kt wrappers, one entry point per launch) defines CROKTILE_FACTOR_DEVICE
// before including this header and gets the ABI only: C types, no library, nothing a
// device compiler could lack. The host source (x.gen.cpp) gets factor-sim as well:
//
//   * module      the device module (a shared object embedded in the host object), loaded
//                 from memory at the first launch; entry points are found by C symbol.
//   * launch      runs the instances of the outermost `parallel` on a pool of simulated
//                 cores (one worker thread each); inner levels are loops inside a core.
//   * scratchpads each core has a `shared` scratchpad and its thread a `local` one, sized
//                 for the kernel and checked against the profile's limits (place()).
//   * DMA engine  one per core, a thread with an in-order queue: `.async` copies really
//                 run later, on that thread, so a missing `wait` reads stale data.
//                 CROKTILE_FACTOR_DMA_LATENCY_US delays each copy (to make such bugs show).
//
// CROKTILE_FACTOR_CORES sets the number of simulated cores (default: hardware threads).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CROKTILE_FACTOR_ABI_VERSION 2   // 2: the barrier service
#define CROKTILE_FACTOR_MAX_RANK 8

// An entry point or the ABI stamp of a device module: C linkage, exported from a module
// built with hidden visibility.
#define CROKTILE_FACTOR_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {

// One strided box copy: `ext` elements at `src_off` of a row-major array shaped
// `src_shape` go to `dst_off` of one shaped `dst_shape`. The arrays are read when the
// copy is issued; the data when the engine performs it.
typedef struct croktile_factor_copy {
  const void* src;
  void* dst;
  long long elem_bytes;
  int rank;
  const long long* src_shape;
  const long long* src_off;
  const long long* dst_shape;
  const long long* dst_off;
  const long long* ext;
} croktile_factor_copy;

typedef struct croktile_factor_core croktile_factor_core;

// What device code asks of the runtime. A copy returns a ticket (0: already complete);
// wait returns once the copy with that ticket is complete. After fail() the entry point
// returns at once: the launch reports the first failure as a croktile::runtime_error.
// Events (targets/factor/events.py): run_concurrently runs body(ctx, i) for the
// `count` instances of a level that wait on each other, each on a thread of the core;
// trigger sets `count` flags; wait_event takes each back once set, and returns 0, or
// the milliseconds it waited in vain (CROKTILE_EVENT_TIMEOUT_MS, default 10000).
// barrier (targets/factor/barriers.py): the instances of the levels an `inthreads`
// block spans meet there; `state` is two words (arrived, generation) that the entry
// point zeroes, `count` the instances; returns 0, or the milliseconds waited in vain.
typedef struct croktile_factor_services {
  unsigned long long (*dma)(croktile_factor_core* core, const croktile_factor_copy* copy, int is_async);
  void (*wait)(croktile_factor_core* core, unsigned long long ticket);
  void (*fail)(croktile_factor_core* core, const char* where, const char* message, int count,
               const long long* values);
  void (*run_concurrently)(croktile_factor_core* core, long long count, void (*body)(void* ctx, long long i),
                           void* ctx);
  void (*trigger)(croktile_factor_core* core, unsigned* flags, long long count);
  long long (*wait_event)(croktile_factor_core* core, unsigned* flags, long long count);
  long long (*barrier)(croktile_factor_core* core, unsigned* state, long long count);
} croktile_factor_services;

// The core an entry point runs on, for one instance of the launch.
struct croktile_factor_core {
  const croktile_factor_services* rt;
  long long index;          // which instance of the outermost `parallel`
  unsigned char* shared;    // the core's shared scratchpad
  unsigned char* local;     // the local scratchpad of the core's thread
  void* impl;               // the runtime's own state
};

// An entry point: one instance of a launch. args[i] points at argument i.
typedef void (*croktile_factor_entry)(croktile_factor_core* core, void* const* args);

}  // extern "C"

#ifdef CROKTILE_FACTOR_DEVICE
// ---------------------------------------------------------------------------------
// Device side: the element type names of croktile.h (f16/bf16 declared only: device
// code handles them through pointers; __cok__ code that needs more includes croktile.h),
// and what generated expressions use.
// ---------------------------------------------------------------------------------
#ifndef __device__
#define __device__
#endif

namespace croktile {
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef float f32;
typedef double f64;
struct f16;
struct bf16;
}  // namespace croktile
namespace choreo = croktile;
#include "croktile_minifloat.h"   // the narrow types, defined: one byte each

static inline long long croktile_min(long long a, long long b) { return a < b ? a : b; }
static inline long long croktile_max(long long a, long long b) { return a > b ? a : b; }

// Element statements (`x.at(i) = ...`) on f16/bf16 data: their bits <-> float, rounding
// to nearest even, by the same functions as croktile.h's types on the host.
static inline float croktile_f16_to_float(uint16_t h) { return croktile::detail::f16_bits_to_float(h); }
static inline uint16_t croktile_float_to_f16(float f) { return croktile::detail::float_to_f16_bits(f); }
static inline float croktile_bf16_to_float(uint16_t b) { return croktile::detail::bf16_bits_to_float(b); }
static inline uint16_t croktile_float_to_bf16(float f) { return croktile::detail::float_to_bf16_bits(f); }

// -kt: the return and parameter types of a function type, so that the C wrapper of a
// template specialisation takes exactly what the specialisation takes.
template <typename F>
struct croktile_kt_fn;
template <typename R, typename... A>
struct croktile_kt_fn<R(A...)> {
  typedef R ret;
};
template <typename F, int I>
struct croktile_kt_param;
template <typename R, typename A0, typename... A>
struct croktile_kt_param<R(A0, A...), 0> {
  typedef A0 type;
};
template <typename R, typename A0, typename... A, int I>
struct croktile_kt_param<R(A0, A...), I> {
  typedef typename croktile_kt_param<R(A...), I - 1>::type type;
};
template <typename F>
using croktile_kt_ret = typename croktile_kt_fn<F>::ret;
template <typename F, int I>
using croktile_kt_arg = typename croktile_kt_param<F, I>::type;

#else
// ---------------------------------------------------------------------------------
// Host side: factor-sim.
// ---------------------------------------------------------------------------------
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "croktile.h"
#include "croktile_cpu.h"   // host-level copies between global buffers

// Puts the file `path` (a string literal) into this object as the bytes between
// sym_begin and sym_end. The generated host source names its device module this way, so
// objects, static libraries and executables carry their device code with them.
// The labels are local to this object, and the declarations say so (hidden): the
// compiler then addresses them PC-relative. Declared default-visibility, a PIE or PIC
// build on aarch64 reads them through the GOT, and the assembler turns a GOT reference
// to a local label into one to its section plus an offset, which the GOT slot drops:
// _begin and _end were the same address and the module came out empty.
#define CROKTILE_FACTOR_EMBED(sym, path)                                                   \
  __asm__(".pushsection .rodata." #sym ",\"a\",%progbits\n.balign 64\n" #sym "_begin:\n"   \
          ".incbin \"" path "\"\n" #sym "_end:\n.byte 0\n.popsection\n");                  \
  extern "C" __attribute__((visibility("hidden"))) const unsigned char sym##_begin[];      \
  extern "C" __attribute__((visibility("hidden"))) const unsigned char sym##_end[]

namespace croktile {
namespace factor {

// The scratchpad sizes of the profile the program was compiled for.
struct limits {
  long long local_bytes;
  long long shared_bytes;
  const char* profile;
};

enum class pad { local, shared };

inline const char* pad_name(pad which) {
  return which == pad::local ? "local scratchpad of a factor thread" : "shared scratchpad of a factor core";
}

// Places a buffer of `bytes` at `end` (16-byte aligned) of a scratchpad, returns its
// offset and moves `end` past it. A buffer that does not fit is an error naming it and
// where it is declared; the compiler reports the same for buffers of known size.
inline long long place(long long& end, long long bytes, const limits& lim, pad which, const char* where,
                       const char* what) {
  const long long limit = which == pad::local ? lim.local_bytes : lim.shared_bytes;
  const long long offset = (end + 15) / 16 * 16;
  if (bytes < 0 || offset + bytes > limit) {
    throw croktile::runtime_error(std::string(where) + ": " + what + " needs " + std::to_string(bytes) +
                                  " bytes and does not fit in the " + pad_name(which) + ": it would end at byte " +
                                  std::to_string(offset + bytes) + ", and profile '" + lim.profile + "' allows " +
                                  std::to_string(limit));
  }
  end = offset + bytes;
  return offset;
}

namespace detail {

// A copy the engine holds: the descriptor's arrays copied, as they may not outlive the call.
struct copy_request {
  const unsigned char* src = nullptr;
  unsigned char* dst = nullptr;
  long long elem = 0;
  int rank = 0;
  long long src_shape[CROKTILE_FACTOR_MAX_RANK] = {}, src_off[CROKTILE_FACTOR_MAX_RANK] = {};
  long long dst_shape[CROKTILE_FACTOR_MAX_RANK] = {}, dst_off[CROKTILE_FACTOR_MAX_RANK] = {};
  long long ext[CROKTILE_FACTOR_MAX_RANK] = {};
  unsigned long long ticket = 0;
  std::chrono::steady_clock::time_point due;
};

inline copy_request make_request(const croktile_factor_copy& c) {
  copy_request r;
  r.src = static_cast<const unsigned char*>(c.src);
  r.dst = static_cast<unsigned char*>(c.dst);
  r.elem = c.elem_bytes;
  r.rank = c.rank;
  for (int d = 0; d < c.rank; ++d) {
    r.src_shape[d] = c.src_shape[d];
    r.src_off[d] = c.src_off[d];
    r.dst_shape[d] = c.dst_shape[d];
    r.dst_off[d] = c.dst_off[d];
    r.ext[d] = c.ext[d];
  }
  return r;
}

// The strided box copy itself: one memcpy per innermost row.
inline void perform(const copy_request& r) {
  const int rank = r.rank;
  long long total = 1;
  for (int d = 0; d < rank; ++d) total *= r.ext[d];
  if (total <= 0) return;
  long long src_stride[CROKTILE_FACTOR_MAX_RANK], dst_stride[CROKTILE_FACTOR_MAX_RANK];
  src_stride[rank - 1] = dst_stride[rank - 1] = r.elem;
  for (int d = rank - 1; d > 0; --d) {
    src_stride[d - 1] = src_stride[d] * r.src_shape[d];
    dst_stride[d - 1] = dst_stride[d] * r.dst_shape[d];
  }
  long long idx[CROKTILE_FACTOR_MAX_RANK] = {};
  const std::size_t row = static_cast<std::size_t>(r.ext[rank - 1] * r.elem);
  for (;;) {
    long long s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      const long long i = d + 1 < rank ? idx[d] : 0;
      s += (r.src_off[d] + i) * src_stride[d];
      t += (r.dst_off[d] + i) * dst_stride[d];
    }
    std::memmove(r.dst + t, r.src + s, row);
    int d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < r.ext[d]) break;
      idx[d] = 0;
    }
  }
}

inline long long env_number(const char* name, long long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return (end != nullptr && *end == '\0' && value >= 0) ? value : fallback;
}

// The DMA engine of one core: a thread that performs copies in the order they were
// issued, each no earlier than CROKTILE_FACTOR_DMA_LATENCY_US after its issue. A
// synchronous copy waits for everything before it as well (the queue is in order).
class dma_engine {
 public:
  dma_engine()
      : latency_(std::chrono::microseconds(env_number("CROKTILE_FACTOR_DMA_LATENCY_US", 0))),
        thread_([this] { run(); }) {}

  ~dma_engine() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    thread_.join();
  }

  dma_engine(const dma_engine&) = delete;
  dma_engine& operator=(const dma_engine&) = delete;

  unsigned long long issue(copy_request request) {
    std::lock_guard<std::mutex> lock(mutex_);
    request.ticket = ++issued_;
    request.due = std::chrono::steady_clock::now() + latency_;
    queue_.push_back(request);
    work_.notify_one();
    return request.ticket;
  }

  void wait(unsigned long long ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return completed_ >= ticket; });
  }

  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return completed_ >= issued_; });
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      const copy_request request = queue_.front();
      lock.unlock();
      std::this_thread::sleep_until(request.due);
      perform(request);
      lock.lock();
      queue_.pop_front();
      completed_ = request.ticket;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::deque<copy_request> queue_;
  unsigned long long issued_ = 0, completed_ = 0;
  bool stop_ = false;
  std::chrono::microseconds latency_;
  std::thread thread_;   // last: starts once the rest exists
};

// What a launch runs, and the first failure of its instances.
struct job {
  croktile_factor_entry entry = nullptr;
  void* const* args = nullptr;
  long long count = 0;
  long long shared_bytes = 0;
  long long local_bytes = 0;
  std::atomic<long long> next{0};
  std::mutex failure_mutex;
  bool failed = false;
  std::string where, message;
  std::vector<long long> values;
  std::exception_ptr error;

  void record(const char* at, const char* text, int count_values, const long long* vals) {
    std::lock_guard<std::mutex> lock(failure_mutex);
    next.store(count);   // no further instances start
    if (failed) return;
    failed = true;
    where = at;
    message = text;
    values.assign(vals, vals + (count_values > 0 ? count_values : 0));
  }

  void record(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(failure_mutex);
    next.store(count);
    if (failed) return;
    failed = true;
    error = e;
  }

  // The failure as the cpu target reports the same check: "<where>: runtime check failed: ...".
  [[noreturn]] void rethrow() const {
    if (error) std::rethrow_exception(error);
    std::string text = where + ": runtime check failed: ";
    for (const char* p = message.c_str(); *p; ++p) {
      if (*p == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
        const std::size_t i = static_cast<std::size_t>(p[1] - '0');
        text += i < values.size() ? std::to_string(values[i]) : std::string("?");
        p += 2;
      } else {
        text += *p;
      }
    }
    throw croktile::runtime_error(text);
  }
};

class core;
const croktile_factor_services& services();

// A simulated core: its scratchpads, its DMA engine, and the worker thread that runs
// the instances of a launch assigned to it.
class core {
 public:
  core() {
    abi_.rt = &services();
    abi_.impl = this;
  }

  void run(job& j) {
    current_ = &j;
    reserve(j.shared_bytes, j.local_bytes);
    for (;;) {
      const long long i = j.next.fetch_add(1);
      if (i >= j.count) break;
      abi_.index = i;
      try {
        j.entry(&abi_, j.args);
      } catch (...) {
        j.record(std::current_exception());
      }
      dma_.drain();   // an instance ends when its copies have landed
    }
    current_ = nullptr;
  }

  unsigned long long copy(const croktile_factor_copy& c, bool is_async) {
    if (c.rank < 1 || c.rank > CROKTILE_FACTOR_MAX_RANK) {
      const long long rank = c.rank;
      current_->record("factor-sim", "a DMA copy of rank {0} (at most 8 are supported)", 1, &rank);
      return 0;
    }
    const unsigned long long ticket = dma_.issue(make_request(c));
    if (is_async) return ticket;
    dma_.wait(ticket);
    return 0;
  }

  void wait(unsigned long long ticket) { dma_.wait(ticket); }
  job& current() { return *current_; }

 private:
  // The scratchpads: shared first, then the thread's local one, each 64-byte aligned.
  void reserve(long long shared_bytes, long long local_bytes) {
    const std::size_t shared_size = static_cast<std::size_t>((shared_bytes + 63) / 64 * 64);
    const std::size_t need = shared_size + static_cast<std::size_t>(local_bytes) + 64;
    if (memory_.size() < need) memory_.assign(need, 0);
    unsigned char* base = memory_.data();
    base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
    abi_.shared = base;
    abi_.local = base + shared_size;
  }

  croktile_factor_core abi_{};
  std::vector<unsigned char> memory_;
  dma_engine dma_;
  job* current_ = nullptr;
};

inline unsigned long long service_dma(croktile_factor_core* c, const croktile_factor_copy* copy, int is_async) {
  return static_cast<core*>(c->impl)->copy(*copy, is_async != 0);
}

inline void service_wait(croktile_factor_core* c, unsigned long long ticket) {
  if (ticket != 0) static_cast<core*>(c->impl)->wait(ticket);
}

inline void service_fail(croktile_factor_core* c, const char* where, const char* message, int count,
                         const long long* values) {
  static_cast<core*>(c->impl)->current().record(where, message, count, values);
}

inline void service_run_concurrently(croktile_factor_core* c, long long count, void (*body)(void*, long long),
                                     void* ctx) {
  std::vector<std::thread> threads;
  for (long long i = 0; i < count; ++i)
    threads.emplace_back([=] {
      try {
        body(ctx, i);
      } catch (...) {
        static_cast<core*>(c->impl)->current().record(std::current_exception());
      }
    });
  for (auto& t : threads) t.join();
}

inline void service_trigger(croktile_factor_core*, unsigned* flags, long long count) {
  for (long long i = 0; i < count; ++i) __atomic_store_n(flags + i, 1u, __ATOMIC_RELEASE);
}

inline long long event_timeout_ms() {
  static const long long ms = env_number("CROKTILE_EVENT_TIMEOUT_MS", 10000);
  return ms > 0 ? ms : 10000;
}

inline long long service_wait_event(croktile_factor_core*, unsigned* flags, long long count) {
  const long long ms = event_timeout_ms();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (long long i = 0; i < count; ++i)
    while (__atomic_exchange_n(flags + i, 0u, __ATOMIC_ACQ_REL) == 0u) {
      if (std::chrono::steady_clock::now() > until) return ms;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  return 0;
}

// The last of `count` arrivals starts the next generation; the others wait for it.
inline long long service_barrier(croktile_factor_core*, unsigned* state, long long count) {
  const unsigned generation = __atomic_load_n(state + 1, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(state, 1u, __ATOMIC_ACQ_REL) == static_cast<unsigned>(count)) {
    __atomic_store_n(state, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(state + 1, generation + 1u, __ATOMIC_RELEASE);
    return 0;
  }
  const long long ms = event_timeout_ms();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (__atomic_load_n(state + 1, __ATOMIC_ACQUIRE) == generation) {
    if (std::chrono::steady_clock::now() > until) return ms;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return 0;
}

inline const croktile_factor_services& services() {
  static const croktile_factor_services table = {service_dma,      service_wait,    service_fail,
                                                 service_run_concurrently, service_trigger, service_wait_event,
                                                 service_barrier};
  return table;
}

// The simulated NPU: a pool of cores, each with a worker thread, running one launch at
// a time (launches from several host threads take turns).
class device {
 public:
  static device& get() {
    static device instance;
    return instance;
  }

  void launch(croktile_factor_entry entry, long long count, void* const* args, long long shared_bytes,
              long long local_bytes) {
    if (count <= 0) return;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex_);
    job j;
    j.entry = entry;
    j.args = args;
    j.count = count;
    j.shared_bytes = shared_bytes;
    j.local_bytes = local_bytes;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &j;
      running_ = cores_.size();
      ++generation_;
    }
    start_.notify_all();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      finished_.wait(lock, [&] { return running_ == 0; });
      job_ = nullptr;
    }
    if (j.failed) j.rethrow();
  }

  ~device() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (auto& t : workers_) t.join();
  }

 private:
  device() {
    unsigned hw = std::thread::hardware_concurrency();
    const long long n = env_number("CROKTILE_FACTOR_CORES", hw ? hw : 1);
    for (long long i = 0; i < (n > 0 ? n : 1); ++i) cores_.emplace_back(new core());
    for (auto& c : cores_) {
      core* self = c.get();
      workers_.emplace_back([this, self] { work(*self); });
    }
  }

  void work(core& c) {
    unsigned long long seen = 0;
    for (;;) {
      job* j = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        j = job_;
      }
      c.run(*j);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--running_ == 0) finished_.notify_all();
      }
    }
  }

  std::mutex launch_mutex_;
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  job* job_ = nullptr;
  std::size_t running_ = 0;
  unsigned long long generation_ = 0;
  bool stop_ = false;
  std::vector<std::unique_ptr<core>> cores_;
  std::vector<std::thread> workers_;
};

}  // namespace detail

// A device module embedded in the host object. It is loaded at the first launch from an
// anonymous in-memory file (memfd), or where that is unavailable from a private temporary
// file removed right after loading; a failure is kept and reported again, not retried.
class module {
 public:
  module(const unsigned char* begin, const unsigned char* end, const char* source)
      : begin_(begin), size_(static_cast<std::size_t>(end - begin)), source_(source) {}

  croktile_factor_entry entry(const char* name, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handle_ == nullptr) {
      if (error_.empty()) load();
      if (handle_ == nullptr) throw croktile::runtime_error(std::string(where) + ": " + error_);
    }
    auto found = entries_.find(name);
    if (found != entries_.end()) return found->second;
    void* symbol = dlsym(handle_, name);
    if (symbol == nullptr) {
      throw croktile::runtime_error(std::string(where) + ": the factor device module of " + source_ +
                                    " has no entry point '" + name + "'");
    }
    croktile_factor_entry e = reinterpret_cast<croktile_factor_entry>(symbol);
    entries_[name] = e;
    return e;
  }

 private:
  void load() {
    std::string why;
    handle_ = load_memfd(why);
    if (handle_ == nullptr) handle_ = load_tempfile(why);
    if (handle_ == nullptr) {
      error_ = "cannot load the factor device module of " + source_ + ": " + why;
      return;
    }
    const void* abi = dlsym(handle_, "croktile_factor_abi");
    if (abi == nullptr || *static_cast<const int*>(abi) != CROKTILE_FACTOR_ABI_VERSION) {
      error_ = "the factor device module of " + source_ + " was built for another runtime (ABI " +
               (abi ? std::to_string(*static_cast<const int*>(abi)) : std::string("unknown")) + ", this is " +
               std::to_string(CROKTILE_FACTOR_ABI_VERSION) + ")";
      handle_ = nullptr;
    }
  }

  bool write_all(int fd) const {
    std::size_t done = 0;
    while (done < size_) {
      const ssize_t n = ::write(fd, begin_ + done, size_ - done);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  void* load_memfd(std::string& why) const {
#if defined(MFD_CLOEXEC)
    const int fd = memfd_create("croktile-factor-module", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    void* handle = nullptr;
    if (write_all(fd)) {
      const std::string path = "/proc/self/fd/" + std::to_string(fd);
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) why = dlerror();
    }
    // A loaded module keeps its descriptor (modules stay loaded for the process's life):
    // closed, its number, and so the path, would be reused by the next module, which
    // dlopen would then take for this one, already loaded (two modules in one process).
    if (handle == nullptr) ::close(fd);
    return handle;
#else
    (void)why;
    return nullptr;
#endif
  }

  void* load_tempfile(std::string& why) const {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/croktile-factor-XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    if (fd < 0) {
      if (why.empty()) why = "cannot create a temporary file in " + std::string(dir && *dir ? dir : "/tmp");
      return nullptr;
    }
    void* handle = nullptr;
    if (write_all(fd)) {
      handle = dlopen(name.data(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) why = dlerror();
    } else if (why.empty()) {
      why = "cannot write " + std::string(name.data());
    }
    ::close(fd);
    ::unlink(name.data());
    return handle;
  }

  const unsigned char* begin_;
  std::size_t size_;
  std::string source_;
  std::mutex mutex_;
  void* handle_ = nullptr;
  std::string error_;
  std::map<std::string, croktile_factor_entry> entries_;
};

// Runs `count` instances of an entry point of `m`; shared_bytes and local_bytes are what
// one core and one thread of this launch use of their scratchpads (place() checked them).
inline void launch(module& m, const char* entry, long long count, void* const* args, long long shared_bytes,
                   long long local_bytes, const char* where) {
  croktile_factor_entry e = m.entry(entry, where);
  detail::device::get().launch(e, count, args, shared_bytes, local_bytes);
}

}  // namespace factor
}  // namespace croktile
#include "croktile_host_device.h"
#endif
