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
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "croktile.h"
#include "croktile_check.h"
#include "croktile_device.h"

// min/max of generated index expressions (std::min is host-only in device code).
__host__ __device__ inline long long croktile_min(long long a, long long b) { return a < b ? a : b; }
__host__ __device__ inline long long croktile_max(long long a, long long b) { return a > b ? a : b; }
// A launch's run-time divisions over host values are its arguments (targets/cuda/launch_invariants.py),
// computed before the kernel's own guards run: a divisor that a guard would have kept from
// being used gives 0 here instead of a trap.
inline long long croktile_quiet_div(long long a, long long b) {
  return b == 0 || (b == -1 && a == (-9223372036854775807LL - 1)) ? 0 : a / b;
}
inline long long croktile_quiet_mod(long long a, long long b) {
  return b == 0 || b == -1 ? 0 : a % b;
}

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

// Which device's memory a pointer is, remembered per pointer so that a call on the same
// arrays asks the driver once (cudaPointerGetAttributes costs as much as a launch's
// bookkeeping). Filled by the pool's allocations, by DLPack tensors that say their
// device, and by the first query of any other pointer; only device memory is kept. An
// entry is one word (the address, below 2^48 on every CUDA platform, and the device),
// so that threads read and write it without a lock. Memory that the caller frees and
// allocates again on another device at the same address would keep its old entry:
// the argument check then names the old device; the guard below still switches to it.
namespace detail {
constexpr std::size_t pointer_slots = 1024;
inline std::atomic<unsigned long long>* pointer_table() {
  static std::atomic<unsigned long long> table[pointer_slots];  // zero-initialised: empty
  return table;
}
inline std::size_t pointer_slot(const void* p) {
  const auto a = reinterpret_cast<unsigned long long>(p);
  return static_cast<std::size_t>((a >> 8) ^ (a >> 20)) % pointer_slots;
}
}  // namespace detail

inline void remember_device(const void* p, int device) {
  const auto a = reinterpret_cast<unsigned long long>(p);
  if (p == nullptr || device < 0 || device >= 0xffff || (a >> 48) != 0) return;
  detail::pointer_table()[detail::pointer_slot(p)].store(a | (static_cast<unsigned long long>(device + 1) << 48),
                                                         std::memory_order_relaxed);
}

// The device whose memory `p` is, if remembered; -1 if not.
inline int remembered_device(const void* p) {
  const auto a = reinterpret_cast<unsigned long long>(p);
  const unsigned long long e = detail::pointer_table()[detail::pointer_slot(p)].load(std::memory_order_relaxed);
  if (e == 0 || (e & ((1ULL << 48) - 1)) != a) return -1;
  return static_cast<int>(e >> 48) - 1;
}

// What kind of memory `p` is: its device for device memory (remembered), else what the
// driver says (the query's error is cleared: an unknown pointer is host memory).
struct pointer_kind {
  cudaMemoryType type;
  int device;             // for cudaMemoryTypeDevice
  bool host_accessible;   // host memory that kernels can reach (registered, mapped)
};
inline pointer_kind pointer_kind_of(const void* p) {
  const int remembered = remembered_device(p);
  if (remembered >= 0) return {cudaMemoryTypeDevice, remembered, false};
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return {cudaMemoryTypeUnregistered, -1, false};
  }
  if (a.type == cudaMemoryTypeDevice) remember_device(p, a.device);
  return {a.type, a.device, a.type == cudaMemoryTypeHost && a.devicePointer != nullptr};
}

// ---------------------------------------------------------------------------
// Device memory and streams (the backend of croktile_device.h)
// ---------------------------------------------------------------------------

namespace detail {
// Keeps freed memory in the device's default pool (stream-ordered allocation),
// so that back-to-back calls do not go back to the driver; once per device.
inline void keep_pool(const char* where) {
  static std::mutex mutex;
  static std::vector<int> done;
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice", where);
  std::lock_guard<std::mutex> lock(mutex);
  if (std::find(done.begin(), done.end(), dev) != done.end()) return;
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool", where);
  unsigned long long keep = ~0ULL;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute", where);
  done.push_back(dev);
}

inline void* pool_allocate(std::size_t bytes, cudaStream_t stream, const char* where) {
  if (bytes == 0) return nullptr;
  thread_local int kept_device = -1;
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice", where);
  if (dev != kept_device) {
    keep_pool(where);
    kept_device = dev;
  }
  void* p = nullptr;
  check(cudaMallocAsync(&p, bytes, stream), "cudaMallocAsync", where);
  remember_device(p, dev);
  return p;
}
}  // namespace detail

// Device memory of a generated function: from the stream-ordered pool (freed on
// its stream when it goes out of scope), or borrowed from the caller (never freed).
class buffer {
 public:
  buffer() = default;
  buffer(std::size_t bytes, cudaStream_t stream, const char* where)
      : ptr_(detail::pool_allocate(bytes, stream, where)), stream_(stream), owned_(true) {}
  static buffer borrow(void* ptr) {
    buffer b;
    b.ptr_ = ptr;
    return b;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), stream_(o.stream_), owned_(std::exchange(o.owned_, false)) {}
  buffer& operator=(buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(stream_, o.stream_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  ~buffer() {
    if (owned_ && ptr_) cudaFreeAsync(ptr_, stream_);
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  // Hands the memory to a device_data, which frees it on the same stream.
  template <typename T>
  T* release() {
    owned_ = false;
    return static_cast<T*>(std::exchange(ptr_, nullptr));
  }
  void zero(std::size_t bytes, const char* where) {
    if (bytes) check(cudaMemsetAsync(ptr_, 0, bytes, stream_), "cudaMemsetAsync", where);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool owned_ = false;
};

// A device-side runtime check that failed records its id (+1) and values here.
struct check_record {
  int id;
  int pad;
  long long values[4];
};

// Where the kernels of one generated function record a failed check: a
// __device__ variable of the generated source (one per device, zero when the
// module loads; kernels reach it without an argument, so graph replays do too),
// read at the next synchronize once a launch of the function was queued.
class check_slot;
namespace detail {
struct check_slots {
  std::mutex mutex;
  std::vector<check_slot*> all;
  static check_slots& get() {
    static check_slots* s = new check_slots();  // never destroyed: slots live as long as the process
    return *s;
  }
};
}  // namespace detail

// A device variable as host code reaches it: its symbol (the generated source built by
// nvcc), or its name in the build's device image (the host half of a split build, whose
// compiler sees no device variable: `address` finds it there).
struct device_symbol {
  const void* symbol = nullptr;
  const char* name = nullptr;
  void* (*address)(const char* name, const char* where) = nullptr;
  device_symbol(const void* s) : symbol(s) {}
  device_symbol(const char* n, void* (*a)(const char*, const char*)) : name(n), address(a) {}
  void read(void* to, std::size_t bytes, cudaStream_t stream, const char* where) const {
    if (symbol)
      check(cudaMemcpyFromSymbolAsync(to, symbol, bytes, 0, cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyFromSymbolAsync", where);
    else
      check(cudaMemcpyAsync(to, address(name, where), bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
            where);
  }
  void write(const void* from, std::size_t bytes, cudaStream_t stream, const char* where) const {
    if (symbol)
      check(cudaMemcpyToSymbolAsync(symbol, from, bytes, 0, cudaMemcpyHostToDevice, stream),
            "cudaMemcpyToSymbolAsync", where);
    else
      check(cudaMemcpyAsync(address(name, where), from, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync",
            where);
  }
};

class check_slot {
 public:
  check_slot(void (*report)(int, const long long*), device_symbol symbol) : report_(report), symbol_(symbol) {}
  check_slot(const check_slot&) = delete;
  check_slot& operator=(const check_slot&) = delete;

  // Called when a launch that may record a failure is queued.
  void arm() {
    if (armed_.load(std::memory_order_relaxed)) return;
    auto& slots = detail::check_slots::get();
    std::lock_guard<std::mutex> lock(slots.mutex);
    if (!armed_.exchange(true)) slots.all.push_back(this);
  }

  // With the registry locked, after `stream` finished: a recorded failure is cleared and returned.
  bool take(cudaStream_t stream, int& id, long long (&values)[4], const char* where) {
    check_record h{};
    symbol_.read(&h, sizeof h, stream, where);
    check(cudaStreamSynchronize(stream), "reading the check record", where);
    if (h.id == 0) return false;
    id = h.id - 1;
    for (int k = 0; k < 4; ++k) values[k] = h.values[k];
    const check_record zero{};
    symbol_.write(&zero, sizeof zero, stream, where);
    check(cudaStreamSynchronize(stream), "clearing the check record", where);
    return true;
  }
  void (*report() const)(int, const long long*) { return report_; }

 private:
  void (*report_)(int, const long long*);
  device_symbol symbol_;
  std::atomic<bool> armed_{false};
};

// Reports the first failed device-side check recorded since the last poll.
inline void poll_checks(cudaStream_t stream, const char* where) {
  auto& slots = detail::check_slots::get();
  int id = 0;
  long long values[4] = {};
  void (*report)(int, const long long*) = nullptr;
  {
    std::lock_guard<std::mutex> lock(slots.mutex);
    for (check_slot* s : slots.all)
      if (s->take(stream, id, values, where)) {
        report = s->report();
        break;
      }
  }
  if (report) report(id, values);
}

// Waits for `stream`; a fault of a kernel queued on it, then a failed device-side
// check, throws croktile::runtime_error.
inline void synchronize(cudaStream_t stream, const char* where) {
  check(cudaStreamSynchronize(stream), "kernel execution", where);
  poll_checks(stream, where);
}

// While `stream` is being captured into a graph, memory that an earlier captured call
// allocated (cudaMallocAsync) exists only once the graph runs, so the driver knows no
// such pointer yet: an unknown pointer is then taken on trust.
inline bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive;
}

// The device a call runs on: that of its first device-memory argument, made current
// for the call (as PyTorch's operations do) and the caller's device restored after.
// Every further argument must be memory of the same device (or memory any device
// reaches: managed, mapped host memory).
class call_device {
 public:
  call_device(cudaStream_t stream, const char* fn, const char* where) : stream_(stream), fn_(fn), where_(where) {}
  call_device(const call_device&) = delete;
  call_device& operator=(const call_device&) = delete;
  ~call_device() {
    if (saved_ >= 0) cudaSetDevice(saved_);
  }

  // Checks that argument `arg` is device memory, and of the call's device.
  void expect(const void* p, const char* arg) {
    if (p == nullptr) return;
    const pointer_kind k = pointer_kind_of(p);
    if (k.type == cudaMemoryTypeUnregistered && capturing(stream_)) return;
    if (k.type == cudaMemoryTypeUnregistered || (k.type == cudaMemoryTypeHost && !k.host_accessible))
      throw runtime_error(std::string(where_) + ": argument '" + arg + "' of '" + fn_ +
                          "' is host memory, but the parameter takes device memory (a croktile::device_view, or a "
                          "view of memory from cudaMalloc for a 'global' parameter)");
    if (k.type != cudaMemoryTypeDevice) return;
    if (device_ < 0) {
      int current = 0;
      check(cudaGetDevice(&current), "cudaGetDevice", where_);
      if (current != k.device) {
        check(cudaSetDevice(k.device), "cudaSetDevice", where_);
        saved_ = current;
      }
      device_ = k.device;
      first_ = arg;
      return;
    }
    if (k.device != device_)
      throw runtime_error(std::string(where_) + ": argument '" + arg + "' of '" + fn_ + "' is memory of device " +
                          std::to_string(k.device) + ", but the call runs on device " + std::to_string(device_) +
                          ", which holds argument '" + first_ + "'");
  }

 private:
  cudaStream_t stream_;
  const char* fn_;
  const char* where_;
  const char* first_ = "";
  int device_ = -1;  // the call's device, once an argument said it
  int saved_ = -1;   // the caller's device, restored at the end
};

inline void expect_host(const void* p, const char* arg, const char* fn, const char* where) {
  if (p == nullptr) return;
  if (pointer_kind_of(p).type == cudaMemoryTypeDevice)
    throw runtime_error(std::string(where) + ": argument '" + arg + "' of '" + fn +
                        "' is device memory, but the parameter takes a host array (pass a croktile::device_view "
                        "to use it in place, or declare the parameter 'global')");
}

// ---------------------------------------------------------------------------
// Host arrays: copies through pinned staging buffers
// ---------------------------------------------------------------------------

namespace detail {

// Copies host memory with several threads (one memcpy is slower than the bus): a fixed
// pool of workers that each take one slice of a copy; the calling thread takes the first.
class parallel_copier {
 public:
  parallel_copier() {
    const unsigned hw = std::thread::hardware_concurrency();
    // three quarters of the cores, at most 12: measured on a 16-core host of an H100 (its
    // memory bandwidth, not the bus, limits a pageable copy), 12 threads copied at 42 GB/s
    // where 8 copied at 34
    const unsigned n = std::max(1u, std::min(hw - hw / 4, 12u));
    for (unsigned i = 1; i < n; ++i) workers_.emplace_back([this, i] { work(i); });
    threads_ = n;
  }
  // never destroyed (see staging::get): workers live as long as the process
  void copy(void* dst, const void* src, std::size_t bytes) {
    if (threads_ == 1 || bytes < (1u << 20)) {
      std::memcpy(dst, src, bytes);
      return;
    }
    run(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
  }

  // Writes a zero to every page of dst (which the caller overwrites in full next), all
  // threads at once: a fresh result's page faults (the kernel zeroing each page) then run
  // in parallel, page by page, instead of in the copy's order behind one another.
  void prefault(void* dst, std::size_t bytes) {
    if (threads_ > 1 && bytes >= (std::size_t(16) << 20)) run(static_cast<char*>(dst), nullptr, bytes);
  }

 private:
  void run(char* dst, const char* src, std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dst_ = dst;
      src_ = src;
      bytes_ = bytes;
      pending_ = threads_ - 1;
      ++generation_;
    }
    start_.notify_all();
    slice(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

  void slice(unsigned i) {
    const std::size_t per = (bytes_ / threads_ + 63) & ~std::size_t(63);
    const std::size_t begin = std::min(bytes_, per * i), end = std::min(bytes_, begin + per);
    if (end <= begin) return;
    if (src_) {
      std::memcpy(dst_ + begin, src_ + begin, end - begin);
      return;
    }
    for (std::size_t at = begin; at < end; at += 4096) static_cast<volatile char*>(dst_)[at] = 0;
  }
  void work(unsigned i) {
    unsigned long long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
      }
      slice(i);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  unsigned threads_ = 1;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  unsigned long long generation_ = 0;
  unsigned pending_ = 0;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t bytes_ = 0;
};

// Pageable host memory goes to and from the device through a ring of pinned buffers,
// allocated once and reused by every call: chunk i is copied into (out of) pinned memory
// by several threads while the copy engine moves chunk i - 1, so a transfer runs at the
// bus's pinned-memory bandwidth instead of the driver's pageable path. Small transfers
// and pinned or registered memory go straight to cudaMemcpyAsync.
class staging {
 public:
  static staging& get() {
    static staging* s = new staging();  // never destroyed: its threads and pinned memory live as long as the process
    return *s;
  }
  static bool worth_it(const void* host, std::size_t bytes) {
    return bytes >= 2 * chunk && pointer_kind_of(host).type == cudaMemoryTypeUnregistered;
  }

  void upload(void* dst, const void* src, std::size_t bytes, cudaStream_t s, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    allocate(where);
    for (std::size_t off = 0, i = 0; off < bytes; off += chunk, ++i) {
      slot& sl = slots_[i % slots];
      const std::size_t n = std::min(chunk, bytes - off);
      check(cudaEventSynchronize(sl.done), "cudaEventSynchronize", where);  // its last copy has left
      copier_.copy(sl.host, static_cast<const char*>(src) + off, n);
      check(cudaMemcpyAsync(static_cast<char*>(dst) + off, sl.host, n, cudaMemcpyHostToDevice, s),
            "cudaMemcpyAsync", where);
      check(cudaEventRecord(sl.done, s), "cudaEventRecord", where);
    }
  }

  // Returns once the bytes are in `dst` (after the work queued on `s` before).
  void download(void* dst, const void* src, std::size_t bytes, cudaStream_t s, const char* where) {
    std::lock_guard<std::mutex> lock(mutex_);
    allocate(where);
    const std::size_t count = (bytes + chunk - 1) / chunk;
    auto drain = [&](std::size_t i) {  // chunk i, whose copy was queued, to its place
      slot& sl = slots_[i % slots];
      check(cudaEventSynchronize(sl.done), "cudaMemcpyAsync", where);
      copier_.copy(static_cast<char*>(dst) + i * chunk, sl.host, std::min(chunk, bytes - i * chunk));
    };
    for (std::size_t i = 0; i < count; ++i) {
      if (i >= slots) drain(i - slots);
      slot& sl = slots_[i % slots];
      check(cudaMemcpyAsync(sl.host, static_cast<const char*>(src) + i * chunk, std::min(chunk, bytes - i * chunk),
                            cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync", where);
      check(cudaEventRecord(sl.done, s), "cudaEventRecord", where);
      if (i + 1 == std::min(slots, count)) copier_.prefault(dst, bytes);   // while the first chunks travel
    }
    for (std::size_t i = count > slots ? count - slots : 0; i < count; ++i) drain(i);
  }

 private:
  static constexpr std::size_t chunk = std::size_t(8) << 20;
  static constexpr std::size_t slots = 4;
  struct slot {
    void* host = nullptr;
    cudaEvent_t done = nullptr;
  };

  void allocate(const char* where) {
    if (slots_[0].host) return;
    for (slot& sl : slots_) {
      check(cudaHostAlloc(&sl.host, chunk, cudaHostAllocPortable), "cudaHostAlloc", where);
      check(cudaEventCreateWithFlags(&sl.done, cudaEventDisableTiming), "cudaEventCreateWithFlags", where);
    }
  }

  std::mutex mutex_;
  slot slots_[slots];
  parallel_copier copier_;
};

}  // namespace detail

namespace detail {
// Pinned host blocks for the results of host-array calls: the device writes them over the
// bus at the pinned-memory bandwidth, with no staging copy. Pinning costs more than the
// copy it saves for a block used once, so only sizes that recur (a result of the same size
// was freed before) get pinned memory; the block cache keeps them for the next call.
inline void* pinned_block_get(std::size_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}
inline void pinned_block_put(void* p) {
  if (cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
}
inline const croktile::detail::block_kind& pinned_blocks() {
  static const croktile::detail::block_kind k{pinned_block_get, pinned_block_put};
  return k;
}
}  // namespace detail

// Kernel timing for benchmarks: with `timing().enabled`, each launch is bracketed by
// CUDA events and `timing().last_ms` holds the kernel's time on the GPU (the launch
// then waits for the kernel).
struct launch_timing {
  bool enabled = false;
  float last_ms = 0.0f;
};
inline launch_timing& timing() {
  static launch_timing t;
  return t;
}

namespace detail {
// Whether a kernel's dynamic shared-memory limit on a device was raised to at least
// `smem` bytes already (`record`: it now is), so that a launch asks the driver once.
inline bool shared_limit_raised(const void* kernel, int dev, std::size_t smem, bool record = false) {
  struct raised {
    const void* kernel;
    int dev;
    std::size_t smem;
  };
  static std::mutex mutex;
  static std::vector<raised> all;
  std::lock_guard<std::mutex> lock(mutex);
  for (raised& r : all)
    if (r.kernel == kernel && r.dev == dev) {
      if (record) r.smem = std::max(r.smem, smem);
      return r.smem >= smem;
    }
  if (record) all.push_back({kernel, dev, smem});
  return false;
}
}  // namespace detail

namespace detail {
// What every launch does around queuing its kernel: the grid's limit, the kernel's
// dynamic shared-memory limit raised once per device when above 48 KiB, the launch's
// error, and with timing() on, the kernel's time between two events.
template <typename Queue>
void launch_with(const void* kernel, long long grid, std::size_t smem, cudaStream_t stream, const char* where,
                 Queue queue) {
  if (grid <= 0) return;
  if (grid > 0x7fffffffLL)
    throw runtime_error(std::string(where) + ": a parallel of " + std::to_string(grid) +
                        " instances exceeds the CUDA grid limit (2^31 - 1 blocks)");
  if (smem > 48 * 1024) {
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice", where);
    if (!shared_limit_raised(kernel, dev, smem)) {
      int optin = 0;
      check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute",
            where);
      if (smem > static_cast<std::size_t>(optin))
        throw runtime_error(std::string(where) + ": the kernel needs " + std::to_string(smem) +
                            " bytes of shared memory; this device allows " + std::to_string(optin));
      check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
            "cudaFuncSetAttribute", where);
      shared_limit_raised(kernel, dev, smem, true);
    }
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  if (timing().enabled) {
    check(cudaEventCreate(&start), "cudaEventCreate", where);
    check(cudaEventCreate(&stop), "cudaEventCreate", where);
    check(cudaEventRecord(start, stream), "cudaEventRecord", where);
  }
  queue();
  check(cudaGetLastError(), "kernel launch", where);
  if (timing().enabled) {
    check(cudaEventRecord(stop, stream), "cudaEventRecord", where);
    check(cudaEventSynchronize(stop), "kernel execution", where);
    check(cudaEventElapsedTime(&timing().last_ms, start, stop), "cudaEventElapsedTime", where);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
}
}  // namespace detail

#if defined(__CUDACC__)  // host code that only calls generated functions may be compiled by a C++ compiler
// Queues `kernel` on `stream` with exactly `smem` bytes of dynamic shared memory and
// checks the launch (cudaGetLastError); a fault while it runs is reported at the next
// synchronize.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), long long grid, long long block, std::size_t smem, cudaStream_t stream,
            const char* where, Args&&... args) {
  detail::launch_with(reinterpret_cast<const void*>(kernel), grid, smem, stream, where, [&] {
    kernel<<<static_cast<unsigned>(grid), static_cast<unsigned>(block), smem, stream>>>(std::forward<Args>(args)...);
  });
}
#endif  // __CUDACC__

// A kernel as generated host code names it: CROKTILE_KERNEL(k<true>) is the kernel
// itself, or in the host half of a split build its name and parameter types (its body
// is in the device image: croktile_cuda_split.h).
#if defined(CROKTILE_SPLIT_HOST)
template <typename F>
struct named_kernel;
template <typename... Params>
struct named_kernel<void(Params...)> {
  const char* name;
};
#define CROKTILE_KERNEL(...) croktile::cuda::named_kernel<decltype(__VA_ARGS__)>{#__VA_ARGS__}
#else
#define CROKTILE_KERNEL(...) __VA_ARGS__
#endif

// Where a function's kernels record a failed check (check_record): a device variable
// of the generated source, internal to it (its PTX name is its own); the host half of a
// split build has no such variable and finds the device's by that name.
#if defined(CROKTILE_SPLIT_HOST)
#define CROKTILE_RECORD [[maybe_unused]] static
#define CROKTILE_RECORD_SYMBOL(name) croktile::cuda::device_symbol(#name, &croktile_split_global)
#else
#define CROKTILE_RECORD static __device__
#define CROKTILE_RECORD_SYMBOL(name) croktile::cuda::device_symbol(&name)
#endif

// A kernel's global pointer parameter: __restrict__ in its fast instance.
template <bool Restrict, class T>
struct kernel_ptr_of { typedef T* type; };
template <class T>
struct kernel_ptr_of<true, T> { typedef T* __restrict__ type; };
template <bool Restrict, class T>
using kernel_ptr = typename kernel_ptr_of<Restrict, T>::type;

// A global buffer of a launch: where it starts, its bytes, whether the kernel writes it.
struct kernel_range {
  const void* data;
  long long bytes;
  bool written;
};

// Whether a launch may take the kernel's fast instance: every buffer 16-byte aligned (the
// vector copies need no address test) and none that the kernel writes overlapping another
// (its pointers may be __restrict__).
inline bool fast_instance(std::initializer_list<kernel_range> ranges) {
  for (const kernel_range& r : ranges)
    if (reinterpret_cast<unsigned long long>(r.data) % 16 != 0) return false;
  for (auto i = ranges.begin(); i != ranges.end(); ++i)
    for (auto j = i + 1; j != ranges.end(); ++j) {
      if (!i->written && !j->written) continue;
      const auto a = reinterpret_cast<unsigned long long>(i->data), b = reinterpret_cast<unsigned long long>(j->data);
      if (a < b + static_cast<unsigned long long>(j->bytes) && b < a + static_cast<unsigned long long>(i->bytes))
        return false;
    }
  return true;
}

// The blocks per instance of a split launch (croktile::detail::split_for) on the current
// device; its SM count is read once.
inline long long split_count(long long grid, long long trips) {
  constexpr int max_devices = 64;
  static std::atomic<int> sms[max_devices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= max_devices) return 1;
  int count = sms[dev].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || count <= 0) return 1;
    sms[dev].store(count, std::memory_order_relaxed);
  }
  return croktile::detail::split_for(grid, trips, count);
}

// The launch at `where` takes the kernel's generic instance (an array not 16-byte aligned,
// overlapping results, or a tensor map the copy engine cannot take). Built with
// -DCROKTILE_REQUIRE_FAST_INSTANCE, that is an error: to check that a program's kernels
// run their fast code (vector copies, TMA) for its data.
inline void generic_instance([[maybe_unused]] const char* where) {
#if defined(CROKTILE_REQUIRE_FAST_INSTANCE)
  throw croktile::runtime_error(std::string(where) + ": the kernel's generic instance is launched "
                                "(CROKTILE_REQUIRE_FAST_INSTANCE): an array is not 16-byte aligned, results overlap, "
                                "or a TMA map was refused");
#endif
}

// Host-level dma.copy between two device buffers: the box `ext` at `src_off` of a
// row-major array shaped `src_shape` goes to `dst_off` of one shaped `dst_shape`;
// one cudaMemcpy2DAsync per 2-d slab, on `stream`.
template <std::size_t Rank>
void copy_box(const void* src, const long long (&src_shape)[Rank], const long long (&src_off)[Rank], void* dst,
              const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank], const long long (&ext)[Rank],
              std::size_t elem, cudaStream_t stream, const char* where) {
  const std::size_t width = static_cast<std::size_t>(ext[Rank - 1]) * elem;
  // pitches of the row dimension (Rank - 2); a rank-1 box is one row
  const std::size_t spitch = Rank >= 2 ? static_cast<std::size_t>(src_shape[Rank - 1]) * elem : width;
  const std::size_t dpitch = Rank >= 2 ? static_cast<std::size_t>(dst_shape[Rank - 1]) * elem : width;
  const std::size_t rows = Rank >= 2 ? static_cast<std::size_t>(ext[Rank - 2]) : 1;
  croktile::detail::for_each_box_slab(src_shape, src_off, dst_shape, dst_off, ext, Rank >= 2 ? Rank - 2 : 0,
                            [&](long long s, long long t) {
                              check(cudaMemcpy2DAsync(static_cast<char*>(dst) + t * static_cast<long long>(elem),
                                                      dpitch,
                                                      static_cast<const char*>(src) + s * static_cast<long long>(elem),
                                                      spitch, width, rows, cudaMemcpyDeviceToDevice, stream),
                                    "cudaMemcpy2DAsync", where);
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

// A barrier of `threads` threads (whole warps) of the block, named `id` (not 0, which
// __syncthreads() uses): the instances of a level narrower than the block around an
// `inthreads` block.
__device__ __forceinline__ void bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
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

// Sets `n` elements of global memory to `v` (a declaration with an initialiser,
// `s32 [M, N] out{-1};`), queued on `s`.
template <typename T>
__global__ void fill_kernel(T* p, long long n, T v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = v;
}

template <typename T>
inline void fill(void* p, long long n, T v, cudaStream_t s, const char* where) {
  if (n <= 0) return;
  const long long blocks = std::min<long long>((n + 255) / 256, 4096);
  fill_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, s>>>(static_cast<T*>(p), n, v);
  check(cudaGetLastError(), "fill_kernel", where);
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

#if defined(__CUDACC__)
#include "croktile_cuda_events.h"
#endif
#include "croktile_cuda_split.h"

// ---------------------------------------------------------------------------
// The device-data backend (croktile_device.h): device pointers, CUDA streams,
// stream-ordered allocation. Its API: croktile::cuda::device_view, ...
// ---------------------------------------------------------------------------
namespace croktile {
namespace cuda {

// Makes the device whose memory `p` is (if croktile knows it: its pool's memory, views of
// DLPack tensors, checked arguments) current until the end of the scope: copies, fills
// and frees of a device_data then run on its device, on that device's legacy default
// stream where its stream is the legacy one, whatever device is current.
class memory_device_guard {
 public:
  explicit memory_device_guard(const void* p) {
    const int dev = p ? remembered_device(p) : -1;
    int current = 0;
    if (dev >= 0 && cudaGetDevice(&current) == cudaSuccess && current != dev && cudaSetDevice(dev) == cudaSuccess)
      saved_ = current;
  }
  ~memory_device_guard() {
    if (saved_ >= 0) cudaSetDevice(saved_);
  }
  memory_device_guard(const memory_device_guard&) = delete;
  memory_device_guard& operator=(const memory_device_guard&) = delete;

 private:
  int saved_ = -1;
};

struct backend {
  template <typename T>
  using device_pointer = T*;
  static constexpr bool typed_pointers = true;
  static constexpr int dlpack_device_type = 2;  // kDLCUDA
  using native_stream = cudaStream_t;

  static native_stream default_stream() { return nullptr; }  // the legacy default stream
  // A blocking stream: ordered with the legacy default stream, as host code that
  // uses cudaMemset/cudaMemcpy without a stream expects.
  static native_stream create_stream(bool, const char* where) {
    cudaStream_t s = nullptr;
    check(cudaStreamCreate(&s), "cudaStreamCreate", where);
    return s;
  }
  static void destroy_stream(native_stream s) noexcept {
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
  template <typename T>
  static T* allocate(std::size_t count, native_stream s, const char* where) {
    return static_cast<T*>(detail::pool_allocate(count * sizeof(T), s, where));
  }
  template <typename T>
  static void release(T* p, native_stream s) noexcept {
    const memory_device_guard on(p);
    if (p) cudaFreeAsync(p, s);
  }
  static void zero(void* p, std::size_t bytes, native_stream s, const char* where) {
    const memory_device_guard on(p);
    if (bytes) check(cudaMemsetAsync(p, 0, bytes, s), "cudaMemsetAsync", where);
  }
  static void upload(void* dst, const void* src, std::size_t bytes, native_stream s, const char* where) {
    const memory_device_guard on(dst);
    if (detail::staging::worth_it(src, bytes))
      detail::staging::get().upload(dst, src, bytes, s, where);
    else if (bytes)
      check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync", where);
  }
  static void download(void* dst, const void* src, std::size_t bytes, native_stream s, const char* where) {
    const memory_device_guard on(src);
    if (detail::staging::worth_it(dst, bytes)) return detail::staging::get().download(dst, src, bytes, s, where);
    if (!bytes) return;
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync", where);
    check(cudaStreamSynchronize(s), "cudaMemcpyAsync", where);
  }
  static void copy(void* dst, const void* src, std::size_t bytes, native_stream s, const char* where) {
    const memory_device_guard on(dst);
    if (bytes) check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync", where);
  }
  static void synchronize(native_stream s, const char* where) { cuda::synchronize(s, where); }
  // The host memory a host-array call's result is downloaded into.
  static const croktile::detail::block_kind& host_result_blocks(std::size_t bytes) {
    namespace cd = croktile::detail;
    return bytes >= cd::huge_page_threshold && cd::block_cache::get().recurs(bytes) ? detail::pinned_blocks()
                                                                                     : cd::plain_blocks();
  }
  static bool capturing(native_stream s) { return cuda::capturing(s); }
  // Orders work queued on `consumer` after what is queued on `producer` now (an event;
  // recorded into a graph while `producer` is captured).
  static void order(native_stream producer, native_stream consumer, const char* where) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags", where);
    const cudaError_t recorded = cudaEventRecord(e, producer);
    const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(consumer, e, 0) : recorded;
    cudaEventDestroy(e);
    check(recorded, "cudaEventRecord", where);
    check(waited, "cudaStreamWaitEvent", where);
  }

  // DLPack: the device type (kDLCUDA, kDLCUDAManaged, kDLCUDAHost, kDLCPU) and id of
  // memory at p; memory of croktile's pool is known without asking the driver, which
  // does not know it yet while a graph is being captured.
  static int dlpack_device_of(const void* p, int& device) {
    device = 0;
    if (p == nullptr) return cudaGetDevice(&device), 2;
    const pointer_kind k = pointer_kind_of(p);
    switch (k.type) {
      case cudaMemoryTypeDevice: device = k.device; return 2;
      case cudaMemoryTypeManaged: return 13;
      case cudaMemoryTypeHost: return 3;
      default: return 1;
    }
  }
  // A kDLCUDA tensor of device `id` at p: the device must exist; remembered for the call.
  static void accept_device(const void* p, int id, const char* who) {
    static const int count = [] {
      int n = 0;
      if (cudaGetDeviceCount(&n) != cudaSuccess) cudaGetLastError();
      return n;
    }();
    if (id < 0 || id >= count)
      throw runtime_error(std::string(who) + ": kDLCUDA device " + std::to_string(id) + " does not exist (" +
                          std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + ")");
    remember_device(p, id);
  }
};

CROKTILE_DEVICE_API(backend)

}  // namespace cuda
}  // namespace croktile

#ifndef CROKTILE_DEVICE_DEFAULT_API
#define CROKTILE_DEVICE_DEFAULT_API cuda
namespace croktile {
CROKTILE_DEVICE_API(cuda::backend)
}
#endif
