// `shared` data is one buffer per block (README "Parallel levels"): declared in an inner
// level, or as the destination of a copy there, every instance of that level uses the
// same buffer, and a copy into or out of it that is alike in every instance is a step of
// the whole block, between what the instances do before and after it. Each function
// below gives a wrong result if the buffer were one per instance, or if a step ran
// before the instances finished (or after they started) reading or writing it. Expected
// values worked out by hand (see each line).
#include <cstdio>

// The outermost level is `: group`: its 4 instances run in one block and fill the rows of
// one shared buffer, which is copied out after all of them wrote: out[g][j] = 10 * a[g][j] + g.
__co__ s32 [4, 8] groups(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel g by 4 : group {
    shared s32 [4, 8] rows;
    foreach j in [8]
      rows.at(g, j) = a.at(g, j) * 10 + g;
    dma.copy rows => out;
  }
  return out;
}

// Declared in the thread level with an initialiser: filled once per block, before any
// thread adds to it. Each thread adds its two columns of a, then of 2 * b (the copy of b
// comes after all threads read a's copy): out[p][j] = 100 + a[p][j] + 2 * b[p][j].
__co__ s32 [2, 8] inner(s32 [2, 8] a, s32 [2, 8] b) {
  s32 [a.span] out;
  parallel p by 2, q by 4 {
    fa = dma.copy.async a.chunkat(p, _) => shared;
    shared s32 [1, 8] sum{100};
    wait fa;
    sum.at(0, q) += fa.data.at(0, q);
    sum.at(0, q + 4) += fa.data.at(0, q + 4);
    fb = dma.copy b.chunkat(p, _) => shared;
    sum.at(0, q) += fb.data.at(0, q) * 2;
    sum.at(0, q + 4) += fb.data.at(0, q + 4) * 2;
    dma.copy sum => out.chunkat(p, _);
  }
  return out;
}

// A loop alike in every thread whose body copies into shared data: the block runs the
// loop, each iteration's copy comes between the threads' uses. `_` in `.view` is the whole
// dimension. out[p][q] = sum over k of a[p][k][q] * (k + 1).
__co__ s32 [2, 4] tiles(s32 [2, 4, 4] a) {
  s32 [2, 4] out;
  parallel p by 2 : block, q by 4 : thread {
    foreach k in [4] {
      t = dma.copy a.view(1, 1, _).from(p, k, 0) => shared;
      out.at(p, q) += t.data.at(0, 0, q) * (k + 1);
    }
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::s32>(4, 8);
  for (int g = 0; g < 4; ++g)
    for (int j = 0; j < 8; ++j) a[g][j] = g * 8 + j;      // a[g][j] = 8g + j
  auto r = groups(a.view());
  // row 1: 10 * (8 + j) + 1 = 81, 91, ..., 151; row 3: 10 * (24 + j) + 3 = 243, ..., 313
  for (int g : {1, 3}) {
    for (int j = 0; j < 8; ++j) std::printf("%d%s", (int)r[g][j], j == 7 ? "\n" : " ");
  }

  auto x = choreo::make_spandata<choreo::s32>(2, 8);
  auto y = choreo::make_spandata<choreo::s32>(2, 8);
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < 8; ++j) { x[p][j] = p * 8 + j; y[p][j] = 50 * p + j; }
  auto s = inner(x.view(), y.view());
  // p = 0: 100 + j + 2j = 100 + 3j; p = 1: 100 + (8 + j) + 2 (50 + j) = 208 + 3j
  for (int p = 0; p < 2; ++p)
    for (int j = 0; j < 8; ++j) std::printf("%d%s", (int)s[p][j], j == 7 ? "\n" : " ");

  auto t = choreo::make_spandata<choreo::s32>(2, 4, 4);
  for (int p = 0; p < 2; ++p)
    for (int k = 0; k < 4; ++k)
      for (int q = 0; q < 4; ++q) t[p][k][q] = p * 100 + k * 10 + q;
  auto u = tiles(t.view());
  // sum_k (100p + 10k + q)(k + 1) = (100p + q) * 10 + 10 * (0 + 2 + 6 + 12) = 1000p + 10q + 200
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q) std::printf("%d%s", (int)u[p][q], q == 3 ? "\n" : " ");
  return 0;
}
// expect-output: 81 91 101 111 121 131 141 151
// expect-output: 243 253 263 273 283 293 303 313
// expect-output: 100 103 106 109 112 115 118 121
// expect-output: 208 211 214 217 220 223 226 229
// expect-output: 200 210 220 230
// expect-output: 1200 1210 1220 1230
