// bench_gpu_forms.py: the same kernels with constant and with symbolic shapes (issue #21),
// built for cuda and for opencl from this one file, timed through the device form
// (device data in, the call and a synchronize, medians) in one process per build:
//   add     the streaming add, 3 x 256 MiB: parallel p by M / 64, q by 256,
//           chunkat(p # jm, jn # q) with {jm, jn} in [64, N / 1024]
//   stream  bench/cuda/stream_add.co.cpp's tiling over [P, K, T, 4]
//   tiled   bench/cuda/tiled_mm.co.cpp: 8192 products of 64 x 64 tiles through shared memory
// Prints one line per kernel: "<name> static_ms <ms> symbolic_ms <ms> right <0|1>".
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

__cok__ {
  extern "C" void add4(const float* a, const float* b, float* c) {
#pragma unroll
    for (int i = 0; i < 4; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void mm_column(const float* a, const float* b, float* out, int col) {
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
    for (int k = 0; k < 64; ++k) {
      const float bk = b[k * 64 + col];
#pragma unroll
      for (int i = 0; i < 64; ++i) acc[i] += a[i * 64 + k] * bk;
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) out[i] = acc[i];
  }
}

__co__ f32 [8192, 8192] add_static(f32 [8192, 8192] a, f32 [8192, 8192] b) {
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

__co__ f32 [a.span] add_symbolic(f32 [M, N] a, f32 [M, N] b) {
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

__co__ f32 [8192, 8, 256, 4] stream_static(f32 [8192, 8, 256, 4] a, f32 [8192, 8, 256, 4] b) {
  f32 [a.span] c;
  parallel p by 8192 {
    parallel t by 256 {
      with k in [8] {
        foreach k {
          x = dma.copy a.chunkat(p, k, t, _) => local;
          y = dma.copy b.chunkat(p, k, t, _) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k, t, _);
        }
      }
    }
  }
  return c;
}

__co__ f32 [a.span] stream_symbolic(f32 [P, K, T, 4] a, f32 [P, K, T, 4] b) {
  f32 [a.span] c;
  parallel p by P {
    parallel t by 256 {
      with k in [K] {
        foreach k {
          x = dma.copy a.chunkat(p, k, t, _) => local;
          y = dma.copy b.chunkat(p, k, t, _) => local;
          local f32 [x.span] z;
          call add4(x.data, y.data, z);
          dma.copy z => c.chunkat(p, k, t, _);
        }
      }
    }
  }
  return c;
}

__co__ f32 [8192, 64, 64] tiled_static(f32 [8192, 64, 64] a, f32 [8192, 64, 64] b) {
  f32 [a.span] c;
  parallel p by 8192 {
    ta = dma.copy a.chunkat(p, _, _) => shared;
    tb = dma.copy b.chunkat(p, _, _) => shared;
    parallel t by 64 {
      local f32 [1, 64, 1] col;
      call mm_column(ta.data, tb.data, col, t);
      dma.copy col => c.chunkat(p, _, t);
    }
  }
  return c;
}

__co__ f32 [a.span] tiled_symbolic(f32 [B, 64, 64] a, f32 [B, 64, 64] b) {
  f32 [a.span] c;
  parallel p by B {
    ta = dma.copy a.chunkat(p, _, _) => shared;
    tb = dma.copy b.chunkat(p, _, _) => shared;
    parallel t by 64 {
      local f32 [1, 64, 1] col;
      call mm_column(ta.data, tb.data, col, t);
      dma.copy col => c.chunkat(p, _, t);
    }
  }
  return c;
}

// Medians of `reps` timed calls of each (call + synchronize), alternating, so that both see
// the same state of the machine.
template <typename Static, typename Symbolic>
static std::pair<double, double> median_ms(Static&& fs, Symbolic&& fy, croktile::stream s, int reps) {
  auto timed = [&](auto&& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    croktile::synchronize(s);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  timed(fs);
  timed(fy);
  std::vector<double> ms_static, ms_symbolic;
  for (int r = 0; r < reps; ++r) {
    ms_static.push_back(timed(fs));
    ms_symbolic.push_back(timed(fy));
  }
  std::sort(ms_static.begin(), ms_static.end());
  std::sort(ms_symbolic.begin(), ms_symbolic.end());
  return {ms_static[reps / 2], ms_symbolic[reps / 2]};
}

template <std::size_t Rank, typename Static, typename Symbolic, typename Expect>
static void compare(const char* name, std::array<std::size_t, Rank> shape, Static&& fs, Symbolic&& fy,
                    Expect&& expect, int reps) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = float(i % 1000) * 0.25f, b[i] = float(i % 7);
  croktile::unique_stream s;
  auto da = croktile::to_device(croktile::spanned_view<float, Rank>(a.data(), shape), s);
  auto db = croktile::to_device(croktile::spanned_view<float, Rank>(b.data(), shape), s);
  const auto [ms_static, ms_symbolic] =
      median_ms([&] { auto c = fs(da, db, s); }, [&] { auto c = fy(da, db, s); }, s, reps);
  auto cs = fs(da, db, s).to_host();
  auto cy = fy(da, db, s).to_host();
  bool right = true;
  for (std::size_t i = 0; i < n; i += 997)
    right = right && cs.data()[i] == cy.data()[i] && expect(a, b, cs.data(), i);
  std::printf("%s static_ms %.4f symbolic_ms %.4f right %d\n", name, ms_static, ms_symbolic, right ? 1 : 0);
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  auto sum = [](const std::vector<float>& a, const std::vector<float>& b, const float* c, std::size_t i) {
    return c[i] == a[i] + b[i];
  };
  compare<2>("add", {8192, 8192}, [](auto& a, auto& b, croktile::stream s) { return add_static(a, b, s); },
             [](auto& a, auto& b, croktile::stream s) { return add_symbolic(a, b, s); }, sum, reps);
  compare<4>("stream", {8192, 8, 256, 4}, [](auto& a, auto& b, croktile::stream s) { return stream_static(a, b, s); },
             [](auto& a, auto& b, croktile::stream s) { return stream_symbolic(a, b, s); }, sum, reps);
  auto tile = [](const std::vector<float>& a, const std::vector<float>& b, const float* c, std::size_t i) {
    const std::size_t base = i / 4096 * 4096, r = i % 4096 / 64, col = i % 64;
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += a[base + r * 64 + k] * b[base + k * 64 + col];
    return std::abs(c[i] - acc) <= 1e-3f * std::max(1.0f, std::abs(acc));
  };
  compare<3>("tiled", {8192, 64, 64}, [](auto& a, auto& b, croktile::stream s) { return tiled_static(a, b, s); },
             [](auto& a, auto& b, croktile::stream s) { return tiled_symbolic(a, b, s); }, tile, reps);
  return 0;
}
