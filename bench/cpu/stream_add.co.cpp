// bench_cpu.py: the streaming add c = a + b over 3 x 256 MiB f32 (issue #21), with the
// shape written as constants and with symbolic M, N tiled the same way; and C++ timing
// loops over both (exported for ctypes), next to a memcpy of the same bytes, so that the
// Python calls, the C++ calls and the baselines are measured in one process.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

__cok__ {
  extern "C" void add4(const float* a, const float* b, float* c) {
    for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
  }
}

__co__ f32 [8192, 8192] stream_add_static(f32 [8192, 8192] a, f32 [8192, 8192] b) {
  f32 [a.span] c;
  parallel p by 128 {
    parallel q by 256 {
      with {jm, jn} in [64, 8] {
        foreach jm, jn {
          x = dma.copy a.chunkat(p # jm, jn # q) => local;
          y = dma.copy b.chunkat(p # jm, jn # q) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p # jm, jn # q);
        }
      }
    }
  }
  return c;
}

__co__ f32 [a.span] stream_add_symbolic(f32 [M, N] a, f32 [M, N] b) {
  f32 [a.span] c;
  parallel p by M / 64 {
    parallel q by 256 {
      with {jm, jn} in [64, N / 1024] {
        foreach jm, jn {
          x = dma.copy a.chunkat(p # jm, jn # q) => local;
          y = dma.copy b.chunkat(p # jm, jn # q) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p # jm, jn # q);
        }
      }
    }
  }
  return c;
}

#define BENCH_EXPORT extern "C" __attribute__((visibility("default")))

// Milliseconds of one host-array call, its result freed (median of `reps`), from C++:
// `which` 0 is the static function, 1 the symbolic one on the same m x n arrays; -1 when
// a result is wrong.
BENCH_EXPORT double bench_stream_add_cxx(const float* a, const float* b, long long m, long long n, int which,
                                         int reps) {
  auto va = croktile::make_spanview<2>(const_cast<float*>(a), {std::size_t(m), std::size_t(n)});
  auto vb = croktile::make_spanview<2>(const_cast<float*>(b), {std::size_t(m), std::size_t(n)});
  auto call = [&] { return which == 0 ? stream_add_static(va, vb) : stream_add_symbolic(va, vb); };
  {
    auto c = call();
    for (long long i = 0; i < m * n; i += 9973)
      if (c.data()[i] != a[i] + b[i]) return -1.0;
  }
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {   // the result freed inside, as a Python caller's is
    const auto start = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Milliseconds of a memcpy of `bytes` between two arrays already in memory, median of `reps`.
BENCH_EXPORT double bench_memcpy_cxx(void* dst, const void* src, long long bytes, int reps) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(dst, src, bytes);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return std::memcmp(dst, src, 64) == 0 ? ms[ms.size() / 2] : -1.0;
}
