// The reference's shape arithmetic, inner scopes, bounded picks (`y(-1)`), bound moves
// (`q #+ 1`), copies that pack non-contiguous data reshaped by `span_as` and prints of
// element values (issue #13,
// "mdspans, i-tuples and bounded arithmetic"). The expected values are worked out by hand
// in the comments.
#include <cstdio>

// a[r][c] = 10 * r + c; column block p (a [4, 3] chunk, not contiguous) packed row-major
__co__ s32 [24] packs(s32 [4, 6] a) {
  s32 [24] out{-1};
  parallel p by 2 {
    f = dma.copy.async a.chunkat(_, p).span_as(12) => local;    // [12]: a[r][3p + c] at 3r + c  // expect-warning: 'span_as' of non-contiguous data
    wait f;
    dma.copy f => out.chunkat(p);                               // out[12p + 3r + c]
  }
  return out;
}

// the same blocks into a named [2, 6] buffer, then rows 2p, 2p + 1 of the result
__co__ s32 [4, 6] packs_named(s32 [4, 6] a) {
  s32 [4, 6] out{0};
  parallel p by 2 {
    local s32 [2, 6] t;
    dma.copy a.chunkat(_, p).span_as(2, 6) => t;   // expect-warning: 'span_as' of non-contiguous data
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}

// b[i] = 100 + i
__co__ s32 [24] picks(s32 [12] b) {
  s32 [24] out{0};
  parallel q by 3 {
    t = dma.copy b.chunkat(q #+ 1) => local;        // bound 4, value q: b[3q .. 3q + 2]
    dma.copy t => out.subspan(3).at(q);             // out[3q ..]; out[9 .. 11] stay 0
    with {y} in [4] {
      u = dma.copy b.chunkat(y(-1)) => local;       // the last of 4 tiles: b[9 .. 11]
      dma.copy u => out.subspan(3).at(4 + q);       // out[12 + 3q ..]
      w = dma.copy b.chunkat(q # y(1)) => local;    // bound 12, value 4q + 1: b[4q + 1]
      dma.copy w => out.subspan(1).at(21 + q);
    }
  }
  return out;
}

// d is [D, 2, 4]
__co__ auto shapes(s32 mdspan[?, 2, 4] d, int n) {
  ituple a = d.span / [3, 2, 2];        // {D / 3, 1, 2}
  b = d.span % [4, 2, 3];               // {D % 4, 0, 1}
  e : 5 + d.span;                       // [D + 5, 7, 9]
  g = 10 - a;                           // {10 - D / 3, 9, 8}
  c : d [(2), (0)];                     // [4, D]
  s32 [c] t{3};
  println("a=", a(0), ",", a(1), ",", a(2), " b=", b(0), ",", b(1), ",", b(2));
  println("e=", e(0), ",", e(1), ",", e(2), " g=", g(0), ",", g(1), ",", g(2), " |t|=", |t|);
  int f = 4;
  sp : [2, f];
  s32 [d.span] out;
  with w in [1] {                       // a scope at the host level (prints stay in order)
    sp : [1, n];                        // an mdspan of this scope
    f = 7 + n;                          // another f
    println("inner ", sp(0), " ", sp(1), " ", f);
  }
  parallel p by 1 {
    sp : [3, 1];                        // and one of the parallel's scope
    local s32 [sp] tmp{1};
    dma.copy d => out;
  }
  println("outer ", sp(0), " ", sp(1), " ", f);
  return out;
}

// element values printed: at host level (a one-instance launch) and inside parallel
__co__ void prints(s32 [2, 3] a, f32 [3] h) {
  foreach i in a.span
    println("a", i(0), i(1), "=", a.at(i) * 3 - 1);          // a[r][c] = 10r + c
  parallel p by 1 {
    l = dma.copy h => local;
    foreach j in [3]
      println("h=", l.data.at(j) * 0.5f);
  }
}

int main() {
  int a[24];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) a[r * 6 + c] = 10 * r + c;
  auto x = packs(choreo::make_spanview<2>(a, {4, 6}));
  for (int i = 0; i < 24; ++i) std::printf("%s%d", i ? " " : "", (int)x[i]);
  std::printf("\n");
  auto y = packs_named(choreo::make_spanview<2>(a, {4, 6}));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) std::printf("%s%d", r + c ? " " : "", (int)y[r][c]);
  std::printf("\n");
  int b[12];
  for (int i = 0; i < 12; ++i) b[i] = 100 + i;
  auto z = picks(choreo::make_spanview<1>(b, {12}));
  for (int i = 0; i < 24; ++i) std::printf("%s%d", i ? " " : "", (int)z[i]);
  std::printf("\n");
  int d[7 * 2 * 4];
  for (int i = 0; i < 56; ++i) d[i] = i;
  auto s = shapes(choreo::make_spanview<3>(d, {7, 2, 4}), 5);
  std::printf("%d %d\n", (int)s[6][1][3], (int)s.shape()[0]);
  std::fflush(stdout);   // before the device's own prints (opencl)
  int e[6] = {0, 1, 2, 10, 11, 12};
  float h[3] = {1.5f, 2.5f, -4.0f};
  prints(choreo::make_spanview<2>(e, {2, 3}), choreo::make_spanview<1>(h, {3}));
}
// expect-output: 0 1 2 10 11 12 20 21 22 30 31 32 3 4 5 13 14 15 23 24 25 33 34 35
// expect-output: 0 1 2 10 11 12 20 21 22 30 31 32 3 4 5 13 14 15 23 24 25 33 34 35
// expect-output: 100 101 102 103 104 105 106 107 108 0 0 0 109 110 111 109 110 111 109 110 111 101 105 109
// expect-output: a=2,1,2 b=3,0,1
// expect-output: e=12,7,9 g=8,9,8 |t|=28
// expect-output: inner 1 5 12
// expect-output: outer 2 4 4
// expect-output: 55 7
// expect-output: a00=-1
// expect-output: a01=2
// expect-output: a02=5
// expect-output: a10=29
// expect-output: a11=32
// expect-output: a12=35
// expect-output: h=0.750000
// expect-output: h=1.250000
// expect-output: h=-2.000000
