// Host memory for owning data (spanned_data, the host targets' device_data).
//
// Large blocks (4 MiB and more) come from a process-wide cache of freed blocks: a call
// that returns a 256 MiB result, made again and again as programs do, gets the memory of
// the result it freed before instead of fresh pages from the kernel. Fresh pages cost a
// page fault each and are zeroed by the kernel on first touch, which made a streaming add
// into a fresh result 3-4x slower than the same add into touched memory (measured on the
// 2-core development machine). Fresh large blocks are advised to use transparent huge
// pages (Linux), as NumPy advises its large arrays. The cache keeps at most
// `CROKTILE_HOST_CACHE_MIB` MiB of free blocks (default: an eighth of the machine's memory,
// at most 4 GiB; 0 turns it off), the oldest freed first out.
//
// A block kind says where fresh blocks come from: plain memory here; the cuda runtime adds
// pinned memory for host results of device calls (croktile_cuda.h), so that a download goes
// straight from the device into the result. Memory from new_zeroed/new_uninitialized is
// freed with free_host (spanned_data and the host backend do), never with delete[].
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#elif defined(_WIN32)
#include <malloc.h>
#endif

namespace croktile {
namespace detail {

constexpr std::size_t huge_page_threshold = std::size_t(4) << 20;   // bytes
constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;

inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uintptr_t huge = huge_page_bytes;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

// Where fresh blocks of one kind come from and go back to. `get` returns nullptr on failure.
struct block_kind {
  void* (*get)(std::size_t bytes);
  void (*put)(void* p);
};

inline void* plain_block_get(std::size_t bytes) {   // bytes is a multiple of 2 MiB
#if defined(_WIN32)
  void* p = ::_aligned_malloc(bytes, huge_page_bytes);
#else
  void* p = std::aligned_alloc(huge_page_bytes, bytes);
#endif
  if (p) advise_huge_pages(p, bytes);
  return p;
}
inline void plain_block_put(void* p) {
#if defined(_WIN32)
  ::_aligned_free(p);
#else
  std::free(p);
#endif
}
inline const block_kind& plain_blocks() {
  static const block_kind k{plain_block_get, plain_block_put};
  return k;
}

class block_cache {
 public:
  static block_cache& get() {
    static block_cache* c = new block_cache();   // never destroyed: results may outlive static destructors
    return *c;
  }

  // A block of at least `bytes` (rounded up to whole 2 MiB) of kind k: a cached one of the
  // same size and kind, else a fresh one; nullptr when k cannot give one.
  void* take(std::size_t bytes, const block_kind& k) {
    const std::size_t size = round(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->size == size && it->kind == &k) {
          void* p = it->p;
          cached_ -= size;
          free_.erase(it);
          live_[p] = {p, size, &k};
          return p;
        }
    }
    void* p = k.get(size);
    if (p == nullptr) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    live_[p] = {p, size, &k};
    return p;
  }

  // Takes back a block from take (true), kept for reuse while the cache has room; false
  // for memory that did not come from here.
  bool give(void* p) {
    block b;
    std::deque<block> evicted;   // released outside the lock
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = live_.find(p);
      if (it == live_.end()) return false;
      b = it->second;
      live_.erase(it);
      remember(b.size);
      if (b.size <= limit_) {
        while (cached_ + b.size > limit_) {   // oldest out
          evicted.push_back(free_.front());
          cached_ -= free_.front().size;
          free_.pop_front();
        }
        free_.push_back(b);
        cached_ += b.size;
        b.p = nullptr;
      }
    }
    for (const block& e : evicted) e.kind->put(e.p);
    if (b.p) b.kind->put(b.p);
    return true;
  }

  // Whether a block of this size was given back before: a size that recurs, worth a
  // kind whose fresh blocks cost more (pinned memory).
  bool recurs(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t s : seen_)
      if (s == round(bytes)) return true;
    return false;
  }

 private:
  struct block {
    void* p = nullptr;
    std::size_t size = 0;
    const block_kind* kind = nullptr;
  };

  block_cache() : limit_(default_limit()) {}

  static std::size_t round(std::size_t bytes) { return (bytes + huge_page_bytes - 1) & ~(huge_page_bytes - 1); }

  static std::size_t default_limit() {
    if (const char* env = std::getenv("CROKTILE_HOST_CACHE_MIB")) return std::size_t(std::strtoull(env, nullptr, 10)) << 20;
    std::size_t limit = std::size_t(4) << 30;
#if defined(__linux__) && defined(_SC_PHYS_PAGES)
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) limit = std::min(limit, std::size_t(pages) * std::size_t(page) / 8);
#endif
    return limit;
  }

  void remember(std::size_t size) {   // under the lock
    for (std::size_t s : seen_)
      if (s == size) return;
    if (seen_.size() >= 64) seen_.pop_front();
    seen_.push_back(size);
  }

  std::mutex mutex_;
  std::unordered_map<void*, block> live_;
  std::deque<block> free_;       // oldest first
  std::deque<std::size_t> seen_;
  std::size_t cached_ = 0;
  const std::size_t limit_;
};

template <typename T>
constexpr bool cacheable() {
  return std::is_trivially_default_constructible<T>::value && std::is_trivially_destructible<T>::value;
}

// Storage the caller writes in full before reading it (no zeros).
template <typename T>
T* new_uninitialized(std::size_t count, const block_kind& kind = plain_blocks()) {
  if constexpr (cacheable<T>()) {
    if (count * sizeof(T) >= huge_page_threshold) {
      void* p = block_cache::get().take(count * sizeof(T), kind);
      if (p == nullptr && &kind != &plain_blocks()) p = block_cache::get().take(count * sizeof(T), plain_blocks());
      if (p != nullptr) return static_cast<T*>(p);
    }
  }
  return new T[count];
}

// Zeroed like new T[n]() value-initialises: zero for arithmetic types and f16/bf16.
template <typename T>
T* new_zeroed(std::size_t count) {
  if constexpr (cacheable<T>()) {
    if (count * sizeof(T) >= huge_page_threshold) {
      T* p = new_uninitialized<T>(count);
      std::memset(static_cast<void*>(p), 0, count * sizeof(T));
      return p;
    }
  }
  return new T[count]();
}

// Frees memory from new_zeroed / new_uninitialized.
template <typename T>
void free_host(T* p) noexcept {
  if (p != nullptr && !block_cache::get().give(const_cast<std::remove_const_t<T>*>(p))) delete[] p;
}

// The deleter of owning host data.
template <typename T>
struct host_delete {
  void operator()(T* p) const noexcept { free_host(p); }
};

}  // namespace detail
}  // namespace croktile
