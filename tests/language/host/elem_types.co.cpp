// The reference compiler's element types through DMA (one byte per narrow element: the
// chunk offsets step in the element's size), a `stream` parameter, and the host API of its
// programs (make_spandata, fill, fill_random, view, bytes, choreo_assert, timing).
// Expected values: Python (the OCP MX value tables of tests/runtime/test_minifloat.py,
// nearest value with ties to the even encoding).
#include "choreo.h"   // the reference's header name
#define COPY(T, NAME, MEM)                              \
  __co__ T [4, 8] NAME(T [4, 8] a) {                    \
    T [a.span] out;                                     \
    parallel p by 2 {                                   \
      l = dma.copy a.chunkat(p, _) => MEM;              \
      dma.copy l => out.chunkat(p, _);                  \
    }                                                   \
    return out;                                         \
  }
COPY(f8_e4m3, copy_e4m3, local)
COPY(f8, copy_f8, shared)
COPY(f8_e5m2, copy_e5m2, local)
COPY(f6_e2m3, copy_e2m3, shared)
COPY(f6_e3m2, copy_e3m2, local)
COPY(f4_e2m1, copy_e2m1, local)
COPY(s4, copy_s4, shared)
COPY(f64, copy_f64, local)
COPY(u64, copy_u64, shared)

// The host form queues its work on the caller's stream (cpu, factor: runs when called).
__co__ s32 [4, 8] on_stream(s32 [4, 8] a, stream s) {
  s32 [a.span] out;
  parallel p by 4 {
    l = dma.copy a.chunkat(p, _) => local;
    dma.copy l => out.chunkat(p, _);
  }
  return out;
}

template <typename T, typename F>
static void check(const char* name, F copy) {
  auto a = choreo::make_spandata<T>(4, 8);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) a[i][j] = T((i * 8 + j - 12) * 0.4375f);
  auto r = copy(a.view());
  float sum = 0;
  for (std::size_t i = 0; i < r.shape()[0]; ++i)
    for (std::size_t j = 0; j < r.shape()[1]; ++j) {
      choreo::choreo_assert(r[i][j].bits == a[i][j].bits, "copied bits differ");
      sum += float(r[i][j]);
    }
  std::printf("%s %.6g %.6g %.6g %d\n", name, float(r[0][1]), float(r[3][7]), sum, int(r.bytes()));
}

int main() {
  check<choreo::f8_e4m3>("f8_e4m3", [](auto v) { return copy_e4m3(v); });
  check<choreo::f8>("f8", [](auto v) { return copy_f8(v); });
  check<choreo::f8_e5m2>("f8_e5m2", [](auto v) { return copy_e5m2(v); });
  check<choreo::f6_e2m3>("f6_e2m3", [](auto v) { return copy_e2m3(v); });
  check<choreo::f6_e3m2>("f6_e3m2", [](auto v) { return copy_e3m2(v); });
  check<choreo::f4_e2m1>("f4_e2m1", [](auto v) { return copy_e2m1(v); });

  auto s = choreo::make_spandata<choreo::s4>(4, 8);
  for (int k = 0; k < 32; ++k) s[k / 8][k % 8] = k - 8;   // wraps modulo 16
  auto rs = copy_s4(s.view());
  int ssum = 0;
  for (int k = 0; k < 32; ++k) ssum += rs[k / 8][k % 8];
  std::printf("s4 %d %d %d\n", int(rs[3][7]), int(rs[0][3]), ssum);

  auto d = choreo::make_spandata<choreo::f64>(4, 8);
  auto u = choreo::make_spandata<choreo::u64>(4, 8);
  for (int k = 0; k < 32; ++k) {
    d[k / 8][k % 8] = k * 0.5;
    u[k / 8][k % 8] = (choreo::u64(1) << 40) + k;
  }
  auto rd = copy_f64(d.view());
  auto ru = copy_u64(u.view());
  double dsum = 0;
  unsigned long long usum = 0;
  for (int k = 0; k < 32; ++k) {
    dsum += rd[k / 8][k % 8];
    usum += ru[k / 8][k % 8];
  }
  std::printf("f64 %g u64 %llu\n", dsum, usum);

  // fill / fill_random: integers in [lo, hi], floats in [lo, hi)
  auto x = choreo::make_spandata<choreo::s32>(4, 8);
  x.fill_random(-3, 3);
  bool in_range = true;
  for (int k = 0; k < 32; ++k) in_range = in_range && x[k / 8][k % 8] >= -3 && x[k / 8][k % 8] <= 3;
  auto h = choreo::make_spandata<choreo::f16>(4, 8);
  h.fill_random(-1.0f, 1.0f);
  for (int k = 0; k < 32; ++k) in_range = in_range && float(h[k / 8][k % 8]) >= -1 && float(h[k / 8][k % 8]) <= 1;
  x.view().fill(7);
  auto rx = on_stream(x.view(), choreo::stream());
  choreo::TimerOption opt;
  opt.warmup = 1;
  opt.repeat = 2;
  double ms = choreo::timing([&] { on_stream(x.view(), choreo::stream()); }, opt);
  choreo::choreo_assert(in_range && ms >= 0, "values out of range");
  std::printf("stream %d %d\n", rx[3][7], int(rx.bytes()));
}
// expect-output: f8_e4m3 -5 8 48.5 32
// expect-output: f8 -5 8 48.5 32
// expect-output: f8_e5m2 -5 8 49 32
// expect-output: f6_e2m3 -5 7.5 47.5 32
// expect-output: f6_e3m2 -5 8 49 32
// expect-output: f4_e2m1 -4 6 42 32
// expect-output: s4 7 -5 -16
// expect-output: f64 248 u64 35184372089328
// expect-output: stream 7 128
