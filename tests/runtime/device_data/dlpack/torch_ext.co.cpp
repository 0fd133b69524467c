// A framework extension as a user writes one with croktile_dlpack.h: a shared library
// with a C ABI that takes DLPack tensors (from the capsules of torch.utils.dlpack.to_dlpack
// or __dlpack__(), through ctypes in test_dlpack.py), calls __co__ functions on their
// memory in place, and hands results back as managed tensors (for from_dlpack), in the
// legacy form (DLManagedTensor, "dltensor" capsules) and the DLPack 1.x one
// (DLManagedTensorVersioned, "dltensor_versioned"). Errors are returned as text.
#include <cstdio>
#include <exception>
#include <type_traits>

#include "croktile_dlpack.h"

__cok__ {
  extern "C" void scale_k(float* x, float* y, int k, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] * k;
  }
}

__co__ f32 [a.span] scale(f32 [M, N] a, int k) {
  f32 [a.span] out;
  parallel p by 1 {
    x = dma.copy a => local;
    local f32 [x.span] y;
    call scale_k(x.data, y, k, |x.span|);
    dma.copy y => out;
  }
  return out;
}

__co__ void copy_into(f32 [M, N] src, f32 [M, N] dst) {
  parallel p by 1 {
    t = dma.copy src => local;
    dma.copy t => dst;
  }
}

namespace {
int deleted = 0;

// Counts the releases of managed tensors of type M, then runs croktile's deleter.
template <typename M>
struct counted {
  static inline void (*croktile_deleter)(M*) = nullptr;
  static void deleter(M* m) {
    ++deleted;
    croktile_deleter(m);
  }
  static M* wrap(M* m) {
    croktile_deleter = m->deleter;
    m->deleter = &deleter;
    return m;
  }
};

// f(), or `failed` with the exception's text in `error`.
template <typename R, typename F>
R guarded(char* error, int size, R failed, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::snprintf(error, static_cast<std::size_t>(size), "%s", e.what());
    return failed;
  }
}

// k * a, a new tensor the caller owns (its deleter is counted); null and `error` on failure.
template <typename M>
M* scale_managed(const M* a, int k, char* error, int size) {
  return guarded<M*>(error, size, nullptr, [&] {
    auto result = scale(croktile::dlpack::to_view<float, 2>(*a), k);
    croktile::synchronize(result.stream());
    if constexpr (std::is_same<M, DLManagedTensor>::value)
      return counted<M>::wrap(croktile::dlpack::to_managed(std::move(result)));
    else
      return counted<M>::wrap(croktile::dlpack::to_managed_versioned(std::move(result)));
  });
}

// Copies src into dst's memory (in place); 0, or -1 and `error`.
template <typename M>
int copy_managed(const M* src, const M* dst, char* error, int size) {
  return guarded(error, size, -1, [&] {
    copy_into(croktile::dlpack::to_view<float, 2>(*src), croktile::dlpack::to_view<float, 2>(*dst));
    croktile::synchronize();
    return 0;
  });
}
}  // namespace

extern "C" DLManagedTensor* croktile_scale(const DLManagedTensor* a, int k, char* error, int size) {
  return scale_managed(a, k, error, size);
}
extern "C" int croktile_copy_into(const DLManagedTensor* src, const DLManagedTensor* dst, char* error, int size) {
  return copy_managed(src, dst, error, size);
}
extern "C" DLManagedTensorVersioned* croktile_scale_versioned(const DLManagedTensorVersioned* a, int k, char* error,
                                                              int size) {
  return scale_managed(a, k, error, size);
}
extern "C" int croktile_copy_into_versioned(const DLManagedTensorVersioned* src, const DLManagedTensorVersioned* dst,
                                            char* error, int size) {
  return copy_managed(src, dst, error, size);
}

// How many results of croktile_scale(_versioned) were released.
extern "C" int croktile_deleted() { return deleted; }
