// CUDA's `__half` beside `choreo::f16` in host code, as the reference's programs write it
// (bench/hgemm_*_warptiling.co): with nvcc CUDA's own type, converting to and from f16;
// elsewhere `__half` is f16 (README "Host code and element types"). Expected values by hand:
// all of them are exact in f16.
#include "choreo.h"
#include <cstdio>

__co__ f16 [2, 4] twice(f16 [2, 4] a) {
  f16 [a.span] out;
  parallel p by 2 {
    l = dma.copy a.chunkat(p, _) => local;
    foreach j in [4]
      l.data.at(0, j) = l.data.at(0, j) * 2.0f;
    dma.copy l.data => out.chunkat(p, _);
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(2, 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) a[i][j] = __float2half(i * 4 + j + 0.5f);   // __half into f16
  auto r = twice(a.view());
  __half ref = 0.0f;
  for (int j = 0; j < 4; ++j) ref += a[1][j] * a[0][j];                    // f16 * f16 into __half
  // (4.5 * 0.5) + (5.5 * 1.5) + (6.5 * 2.5) + (7.5 * 3.5) = 2.25 + 8.25 + 16.25 + 26.25 = 53
  std::printf("%g\n", __half2float(ref));
  // r[i][j] = 2 * (4i + j + 0.5): 1 3 5 7 / 9 11 13 15
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) std::printf("%g%s", __half2float(r[i][j]), j == 3 ? "\n" : " ");
  __half h = __half(r[1][3]);                                                 // f16 to __half, explicitly
  std::printf("%g\n", __half2float(h) + 1.0f);
  return 0;
}
// expect-output: 53
// expect-output: 1 3 5 7
// expect-output: 9 11 13 15
// expect-output: 16
