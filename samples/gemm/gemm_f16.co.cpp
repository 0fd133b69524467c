// C = A B^T in f16 with f32 accumulation, for shapes the caller gives (M a multiple of 64,
// N of 128, K of 64): each block computes a 64 x 128 tile of C with one warp group's
// wgmma, while the copy engine loads the next K step's tiles of A and B into the other
// half of a double buffer (tma.copy.async futures, swapped each step); the result leaves
// through a shared tile and tma.copy. Needs -arch=sm_90a on cuda; the other targets run
// it with portable tensor-core arithmetic.
//
//   croktilec -t cuda -arch=sm_90a samples/gemm/gemm_f16.co.cpp -o gemm && ./gemm
#include <cmath>
#include <iostream>

__co__ auto gemm(f16 [M, K] lhs, f16 [N, K] rhs) {
  f16 [M, N] out;
  parallel {bm, bn} by [M / 64, N / 128] : block {
    with k in [K / 64] {
      a0 = tma.copy.async.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;
      b0 = tma.copy.async.swiz<128> rhs.subspan(128, 64).at(bn, 0) => shared;
      a1 = tma.any;
      b1 = tma.any;
      mc = mma.fill.f32 0.0f;
      foreach k(1:) {
        a1 = tma.copy.async.swiz<128> lhs.subspan(64, 64).at(bm, k) => shared;
        b1 = tma.copy.async.swiz<128> rhs.subspan(128, 64).at(bn, k) => shared;
        wait a0, b0;
        foreach w in 4 {
          parallel g by 1 : group-4 {
            ma = mma.load.swiz<128> a0.data.chunkat(_, w);
            mb = mma.load.swiz<128> b0.data.chunkat(_, w);
            mma.row.row mc, ma, mb;
          }
        }
        swap a0, a1;
        swap b0, b1;
      }
      wait a0, b0;
      foreach w in 4 {
        parallel g by 1 : group-4 {
          ma = mma.load.swiz<128> a0.data.chunkat(_, w);
          mb = mma.load.swiz<128> b0.data.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
      shared f16 [64, 128] cs;
      mma.store mc, cs;
      tma.copy cs => out.subspan(64, 128).at(bm, bn);
    }
  }
  return out;
}

int main() {
  const size_t M = 128, N = 256, K = 192;
  auto a = croktile::make_spandata<croktile::f16>(M, K);
  auto b = croktile::make_spandata<croktile::f16>(N, K);
  a.fill_random(-1.0f, 1.0f);
  b.fill_random(-1.0f, 1.0f);
  auto c = gemm(a.view(), b.view());
  double worst = 0;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (double)(float)a[i][k] * (float)b[j][k];
      worst = std::fmax(worst, std::fabs((float)c[i][j] - ref) / (1 + std::fabs(ref)));
    }
  if (worst >= 2e-3) {
    std::cout << "gemm differs: relative error " << worst << "\n";
    return 1;
  }
  std::cout << "Test Passed\n";
}
