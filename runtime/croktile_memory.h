// Host memory for owning data (spanned_data, the host targets' device_data): zeroed like
// new T[n](), but large blocks are first advised to use transparent huge pages (Linux),
// so that first touching a fresh result costs a page fault per 2 MiB instead of per 4 KiB
// (NumPy advises its large arrays the same way). Freed with delete[] as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace croktile {
namespace detail {

constexpr std::size_t huge_page_threshold = std::size_t(4) << 20;   // bytes

inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

template <typename T>
T* new_zeroed(std::size_t count) {
  if constexpr (std::is_trivially_default_constructible<T>::value) {
    if (count * sizeof(T) >= huge_page_threshold) {
      T* p = new T[count];   // not touched yet: the advice still applies to every page
      advise_huge_pages(p, count * sizeof(T));
      std::memset(static_cast<void*>(p), 0, count * sizeof(T));
      return p;
    }
  }
  return new T[count]();
}

// Storage the caller writes in full before reading it (no zeros): huge pages advised the same.
template <typename T>
T* new_uninitialized(std::size_t count) {
  T* p = new T[count];
  if (std::is_trivially_default_constructible<T>::value && count * sizeof(T) >= huge_page_threshold)
    advise_huge_pages(p, count * sizeof(T));
  return p;
}

}  // namespace detail
}  // namespace croktile
