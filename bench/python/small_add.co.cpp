// bench_python.py: a __co__ function on a small input, and the same call timed from C++
// in the same module (the baseline the Python call's overhead is measured against).
#include <chrono>
#include <vector>

__cok__ {
  extern "C" void small_add_k(const int* a, const int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}

__co__ s32 [a.span] small_add(s32 [M, N] a, s32 [M, N] b) {
  s32 [a.span] out;
  parallel p by 1 {
    x = dma.copy a => local;
    y = dma.copy b => local;
    local s32 [x.span] z;
    call small_add_k(x.data, y.data, z, |x.span|);
    dma.copy z => out;
  }
  return out;
}

// Nanoseconds per host-array call of small_add on an m x n input, over `reps` calls:
// what the Python function wraps, called from C++ (exported for ctypes).
extern "C" __attribute__((visibility("default"))) double bench_small_add_cxx(int m, int n, int reps) {
  std::vector<int> a(std::size_t(m) * n, 1), b(std::size_t(m) * n, 2);
  long long sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    auto out = small_add(croktile::make_spanview<2>(a.data(), {std::size_t(m), std::size_t(n)}),
                         croktile::make_spanview<2>(b.data(), {std::size_t(m), std::size_t(n)}));
    sink += out[0][0];
  }
  const auto stop = std::chrono::steady_clock::now();
  if (sink != 3LL * reps) return -1.0;
  return std::chrono::duration<double, std::nano>(stop - start).count() / reps;
}
