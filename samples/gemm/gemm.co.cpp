// C = A B^T with f32 accumulation: f16 data, or -DELEM=bf16, or fp8 (-DELEM=f8_e4m3
// -DOUT=f16 -DBK=128: e4m3 inputs, an f16 result), for shapes the caller gives (M a
// multiple of BM * GROUP, N of BN, K of BK and at least STAGES BK). Each block computes a
// BM x BN tile of C with BM / 64 warp groups, each multiplying its 64 rows with wgmma,
// while the copy engine keeps the next STAGES - 1 K steps' tiles of A and B in flight:
// the loop over K is `pipelined(STAGES, end)` (docs/language/pipelining.md): the compiler
// issues the loads of step k + STAGES - 1 at the end of step k, into the buffers of step
// k - 1, once step k's multiplies are issued, and lets those run on meanwhile. The result leaves through a shared tile and tma.copy.
// Tile sizes, stages and the block order are macros, so a sweep builds variants
// (bench/bench_gemm.py). Needs -arch=sm_90a on cuda; the cpu and factor targets run it
// with portable tensor-core arithmetic.
//
//   croktilec -t cuda -arch=sm_90a samples/gemm/gemm.co.cpp -o gemm && ./gemm
//   croktilec -t cuda -arch=sm_90a -DELEM=bf16 samples/gemm/gemm.co.cpp -o gemm_bf16
#include <cmath>
#include <iostream>
#include <type_traits>

#ifndef ELEM
#define ELEM f16
#endif
#ifndef OUT
#define OUT ELEM
#endif
#ifndef BK
#define BK 64   // a 128-byte row of the swizzled tiles
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef GROUP
#define GROUP 8   // row tiles per group of consecutive blocks (-DGROUP=1 for M = BM)
#endif
#ifndef STAGES
#define STAGES 3  // K steps whose tiles are in shared memory at once
#endif
#define WARP_GROUPS (BM / 64)

__co__ auto gemm(ELEM [M, K] lhs, ELEM [N, K] rhs) {
  OUT [M, N] out;
  // GROUP row tiles side by side in consecutive blocks: a wave of blocks then reads fewer
  // tiles of B, which the L2 keeps for the blocks that share them
  int group = GROUP;
  parallel {gm, bn, bi} by [cdiv(M, BM * group), cdiv(N, BN), group] : block {
    int bm = gm # bi;
    if (bm < cdiv(M, BM)) {   // the last group's blocks past M have no rows
      mc = mma.fill.f32 0.0f;
      // the tiles of step k: the compiler loads them STAGES - 1 steps ahead and waits
      // for them here
      foreach k in [cdiv(K, BK)] : pipelined(STAGES, end) {
        a = tma.copy.async.swiz<128> lhs.subspan(BM, BK).at(bm, k) => shared;
        b = tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(bn, k) => shared;
        foreach w in 4 {   // the step as four multiplies (k16 for f16, k32 for fp8)
          parallel g by WARP_GROUPS : group-4 {
            ma = mma.load.swiz<128> a.data.chunkat(g, w);
            mb = mma.load.swiz<128> b.data.chunkat(_, w);
            mma.row.row mc, ma, mb;
          }
        }
      }
      shared OUT [BM, BN] cs;
      parallel g by WARP_GROUPS : group-4 {
        mma.store mc, cs.chunkat(g, _);
      }
      tma.copy cs => out.subspan(BM, BN).at(bm, bn);
    }
  }
  return out;
}

// the relative error of gemm(a, b) against a double-precision product, at one shape
static double worst_error(size_t M, size_t N, size_t K) {
  auto a = croktile::make_spandata<croktile::ELEM>(M, K);
  auto b = croktile::make_spandata<croktile::ELEM>(N, K);
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
  return worst;
}

int main() {
  // bf16 keeps 8 bits; the tensor cores add fp8 products in fewer bits than f32 (as
  // torch._scaled_mm's use_fast_accum=True does)
  const double tolerance = std::is_same<croktile::OUT, croktile::bf16>::value ? 1e-2
                           : std::is_same<croktile::ELEM, croktile::f8_e4m3>::value ? 3e-2 : 2e-3;
  // whole tiles, then shapes the tiles do not divide: edge tiles, a K shorter than the
  // stages, a single row (a row pitch of whole 16 bytes keeps the copy engine's path)
  const size_t shapes[][3] = {{GROUP * BM, 2 * BN, 5 * BK}, {BM + 37, BN + 8, 3 * BK + 16}, {1, 24, BK / 2}};
  for (const auto& s : shapes) {
    double worst = worst_error(s[0], s[1], s[2]);
    if (worst >= tolerance) {
      std::cout << "gemm " << s[0] << " x " << s[1] << " x " << s[2] << " differs: relative error " << worst << "\n";
      return 1;
    }
  }
  std::cout << "Test Passed\n";
}
