// A framework extension as a user writes one with croktile_dlpack.h: a shared library
// with a C ABI that takes DLPack tensors (from torch.utils.dlpack.to_dlpack, through
// ctypes in test_dlpack.py), calls __co__ functions on their memory in place, and hands
// results back as DLManagedTensors (for torch.utils.dlpack.from_dlpack). Errors are
// returned as text.
#include <cstdio>
#include <exception>

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
void (*croktile_deleter)(DLManagedTensor*) = nullptr;
void counting_deleter(DLManagedTensor* m) {
  ++deleted;
  croktile_deleter(m);
}

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
}  // namespace

// k * a, a new tensor the caller owns (its deleter is counted); null and `error` on failure.
extern "C" DLManagedTensor* croktile_scale(const DLManagedTensor* a, int k, char* error, int size) {
  return guarded<DLManagedTensor*>(error, size, nullptr, [&] {
    auto result = scale(croktile::dlpack::to_view<float, 2>(*a), k);
    croktile::synchronize(result.stream());
    DLManagedTensor* m = croktile::dlpack::to_managed(std::move(result));
    croktile_deleter = m->deleter;
    m->deleter = &counting_deleter;
    return m;
  });
}

// Copies src into dst's memory (in place); 0, or -1 and `error`.
extern "C" int croktile_copy_into(const DLManagedTensor* src, const DLManagedTensor* dst, char* error, int size) {
  return guarded(error, size, -1, [&] {
    copy_into(croktile::dlpack::to_view<float, 2>(*src), croktile::dlpack::to_view<float, 2>(*dst));
    croktile::synchronize();
    return 0;
  });
}

// How many tensors of croktile_scale were released.
extern "C" int croktile_deleted() { return deleted; }
