// What the cuda target maps specially and the samples do not reach: copies whose
// rows are not 16-byte multiples (element-wise fallback) beside ones that are
// (vectors), 1-byte elements, arena bytes reused by buffers that are not live
// together, a block arena above 48 KiB, an inner level of 300 threads (more than a
// warp, not a multiple of one), async copies waited at the outer level, and f32 -> f16
// rounding (one instruction on the GPU, spelled out on the host: the same bits).
// Built for cpu and cuda; the tests compare what both print.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ void add_one(int* x, int n) { for (int i = 0; i < n; ++i) x[i] += 1; }
__device__ void flip(unsigned char* x, int n) { for (int i = 0; i < n; ++i) x[i] = (unsigned char)(255 - x[i]); }
__device__ void mix(float* a, const float* b, int n) { for (int i = 0; i < n; ++i) a[i] = a[i] * 2.0f + b[i]; }
__device__ void sum4(int* acc, const int* x) { for (int i = 0; i < 4; ++i) acc[0] += x[i]; }
__device__ void to_f16(choreo::f16* h, const float* f, int n) { for (int i = 0; i < n; ++i) h[i] = choreo::f16(f[i]); }

// rows of 5 ints (20 bytes): no vectors; rows of 8 ints: vectors
__co__ s32 [6, 7, 5] odd_rows(s32 [6, 7, 5] a) {
  s32 [a.span] out;
  parallel p by 6 {
    t = dma.copy a.chunkat(p, _, _) => shared;          // [1, 7, 5]
    call add_one(t.data, 35);
    dma.copy t.data => out.chunkat(p, _, _);
  }
  return out;
}

__co__ u8 [4, 3, 33] bytes(u8 [4, 3, 33] a) {
  u8 [a.span] out;
  parallel p by 4 {
    with r in [3] {
      foreach r {
        t = dma.copy a.chunkat(p, r, _) => shared;      // 33 bytes
        call flip(t.data, 33);
        dma.copy t.data => out.chunkat(p, r, _);
      }
    }
  }
  return out;
}

// phase 1 and phase 2 buffers are never live together: they share arena bytes
__co__ f32 [2, 4096] phases(f32 [2, 4096] a, f32 [2, 4096] b) {
  f32 [a.span] out;
  parallel p by 2 {
    x = dma.copy a.chunkat(p, _) => shared;              // 16 KiB
    y = dma.copy b.chunkat(p, _) => shared;              // 16 KiB
    call mix(x.data, y.data, 4096);
    dma.copy x.data => out.chunkat(p, _);
    u = dma.copy out.chunkat(p, _) => shared;            // reuses x's bytes
    v = dma.copy.async a.chunkat(p, _) => shared;        // reuses y's bytes
    wait v;
    call mix(u.data, v.data, 4096);
    dma.copy u.data => out.chunkat(p, _);
  }
  return out;
}

// 64 KiB of shared memory per block: above the default 48 KiB
__co__ s32 [2, 16384] big_arena(s32 [2, 16384] a) {
  s32 [a.span] out;
  parallel p by 2 {
    t = dma.copy.async a.chunkat(p, _) => shared;
    wait t;
    call add_one(t.data, 16384);
    dma.copy t.data => out.chunkat(p, _);
  }
  return out;
}

// 300 inner threads; each sums its column into a shared accumulator row
__co__ s32 [3, 300] wide(s32 [3, 300, 4] a) {
  s32 [3, 300] out;
  parallel p by 3 {
    shared s32 [1, 300] acc;
    parallel q by 300 {
      c = dma.copy a.chunkat(p, q, _) => local;          // [1, 1, 4]
      local s32 [1, 1] s;
      call sum4(s, c.data);
      dma.copy s => acc.chunkat(_, q);
    }
    call add_one(acc, 300);
    dma.copy acc => out.chunkat(p, _);
  }
  return out;
}

template <typename T>
static void print(const char* what, const T& r) {
  std::printf("%s:", what);
  for (std::size_t i = 0; i < r.size(); ++i) std::printf(" %g", (double)r.data()[i]);
  std::printf("\n");
}

__co__ f16 [2, 32] halves(f32 [2, 32] a) {
  f16 [a.span] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p, _) => shared;
    shared f16 [1, 32] h;
    call to_f16(h, t.data, 32);
    dma.copy h => out.chunkat(p, _);
  }
  return out;
}

int main() {
  {
    std::vector<int> a(6 * 7 * 5);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (int)(i * 7 % 23);
    auto r = odd_rows(choreo::make_spanview<3>(a.data(), {6, 7, 5}));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (r.data()[i] != a[i] + 1) { std::printf("odd_rows: wrong at %zu\n", i); return 1; }
    print("odd_rows", r);
  }
  {
    std::vector<unsigned char> a(4 * 3 * 33);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (unsigned char)(i * 13);
    auto r = bytes(choreo::make_spanview<3>(a.data(), {4, 3, 33}));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (r.data()[i] != 255 - a[i]) { std::printf("bytes: wrong at %zu\n", i); return 1; }
    print("bytes", r);
  }
  {
    std::vector<float> a(2 * 4096), b(2 * 4096);
    for (std::size_t i = 0; i < a.size(); ++i) { a[i] = (float)(i % 97); b[i] = (float)(i % 13); }
    auto r = phases(choreo::make_spanview<2>(a.data(), {2, 4096}), choreo::make_spanview<2>(b.data(), {2, 4096}));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (r.data()[i] != (a[i] * 2 + b[i]) * 2 + a[i]) { std::printf("phases: wrong at %zu\n", i); return 1; }
    print("phases", r);
  }
  {
    std::vector<int> a(2 * 16384);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (int)i;
    auto r = big_arena(choreo::make_spanview<2>(a.data(), {2, 16384}));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (r.data()[i] != a[i] + 1) { std::printf("big_arena: wrong at %zu\n", i); return 1; }
    std::printf("big_arena: ok\n");
  }
  {
    std::vector<int> a(3 * 300 * 4);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (int)(i % 11);
    auto r = wide(choreo::make_spanview<3>(a.data(), {3, 300, 4}));
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 300; ++q) {
        int s = 1;
        for (int k = 0; k < 4; ++k) s += a[(p * 300 + q) * 4 + k];
        if (r[p][q] != s) { std::printf("wide: wrong at %d %d\n", p, q); return 1; }
      }
    print("wide", r);
  }
  {
    // ties to even (1 + 2^-11, 1 + 3 * 2^-11), the largest finite and the tie to infinity
    // (65504, 65520), subnormals and the tie to zero (2^-24, 2^-25, 3 * 2^-26), signed
    // zeros, infinities, then values of every magnitude
    std::vector<float> a = {1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 65504.0f, 65519.99f, 65520.0f, 1e9f, 0x1p-24f,
                            0x1p-25f, 0x3p-26f, 0x1.8p-20f, -0.0f, 0.0f, 1.0f / 0.0f, -1.0f / 0.0f, -65520.0f};
    for (int i = (int)a.size(); i < 64; ++i) a.push_back((i % 2 ? -1.0f : 1.0f) * std::ldexp(1.2345678f + i, i - 40));
    auto r = halves(choreo::make_spanview<2>(a.data(), {2, 32}));
    std::printf("halves:");
    for (std::size_t i = 0; i < a.size(); ++i) std::printf(" %04x", (unsigned)r.data()[i].bits);
    std::printf("\n");
  }
  return 0;
}
