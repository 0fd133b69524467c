// A stated bound (docs/language/spans.md, "Stated bounds"): `assert(N <= 64, ...)` before
// the parallel bounds the thread buffers of a row, sized by N at run time, so every target
// allocates them statically (64 elements; tests/analysis/test_bounds.py checks the -S
// output); the results are the same for every N under the bound, and a larger N is the
// assertion's run-time error. Expected values are worked out by hand.
#include <iostream>
#include <stdexcept>
#include <string>

__co__ s32 [a.span] row_sums(s32 [M, N] a, s32 [M, N] b) {
  assert(N <= 64, "rows of at most 64 elements");
  s32 [a.span] out;
  parallel p by M / 2 {
    parallel q by 2 {
      x = dma.copy a.chunkat(p # q, _) => local;
      y = dma.copy b.chunkat(p # q, _) => local;
      local s32 [x.span] z;
      foreach i in [N]
        z.at(0, i) = x.data.at(0, i) + 10 * y.data.at(0, i);
      dma.copy z => out.chunkat(p # q, _);
    }
  }
  return out;
}

int main() {
  static int a[4 * 64], b[4 * 64];
  for (int i = 0; i < 4 * 64; ++i) a[i] = i, b[i] = i % 7;
  for (int n : {3, 64}) {
    auto r = row_sums(choreo::make_spanview<2>(a, {4, (size_t)n}), choreo::make_spanview<2>(b, {4, (size_t)n}));
    long sum = 0;
    for (int i = 0; i < 4 * n; ++i) sum += r.data()[i];
    std::cout << "n " << n << " first " << r[0][0] << " last " << r[3][n - 1] << " sum " << sum << "\n";
  }
  // n = 3: a is 0..11, b is i % 7 over 0..11 (0 1 2 3 4 5 6 0 1 2 3 4, sum 31): 66 + 310 = 376;
  // last = 11 + 10 * 4 = 51
  // expect-output: n 3 first 0 last 51 sum 376
  // n = 64: a sums to 255 * 256 / 2 = 32640; b over 0..255: 36 full weeks (756) + 0 1 2 3 (6)
  // = 762; last = 255 + 10 * (255 % 7 = 3) = 285
  // expect-output: n 64 first 0 last 285 sum 40260
  try {
    row_sums(choreo::make_spanview<2>(a, {2, 65}), choreo::make_spanview<2>(b, {2, 65}));
  } catch (const std::exception& e) {
    const std::string what = e.what();   // FILE:11:3: runtime check failed: ..., FILE as croktilec was given it
    std::cout << "65: " << what.substr(what.find(":11:3: ") + 7) << "\n";
  }
  // expect-output: 65: runtime check failed: assertion failed: rows of at most 64 elements
}
