// C = A B^T with f32 accumulation: f16 data, or -DELEM=bf16, or fp8 (-DELEM=f8_e4m3
// -DOUT=f16 -DBK=128: e4m3 inputs, an f16 result), for shapes the caller gives (M a
// multiple of BM * GROUP, N of BN, K of BK and at least STAGES BK). Each block computes a
// BM x BN tile of C with BM / 64 warp groups, each multiplying its 64 rows with wgmma,
// while the copy engine keeps the next STAGES - 1 K steps' tiles of A and B in flight:
// STAGES buffers per operand (3 by default), rotated each step (tma.copy.async futures).
// The loads for step k + STAGES - 1 start after the multiplies of step k are issued; the
// compiler lets those run on while the copy engine overwrites the buffers of step k - 1.
// The result leaves through a shared tile and tma.copy. Tile sizes, stages and the block
// order are macros, so a sweep builds variants (bench/bench_gemm.py). Needs -arch=sm_90a
// on cuda; the cpu and factor targets run it with portable tensor-core arithmetic.
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
#define STAGES 3  // K steps whose tiles are in shared memory at once: 2, 3 or 4
#endif
#define WARP_GROUPS (BM / 64)
// a K step's tiles of A and B, loaded by the copy engine in the 128-byte swizzle wgmma reads
#define LOAD_A(step) tma.copy.async.swiz<128> lhs.subspan(BM, BK).at(bm, step) => shared
#define LOAD_B(step) tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(bn, step) => shared

__co__ auto gemm(ELEM [M, K] lhs, ELEM [N, K] rhs) {
  assert(M % (BM * GROUP) == 0 && N % BN == 0 && K % BK == 0 && K >= STAGES * BK,
         "gemm: M must be a multiple of BM * GROUP, N of BN, K of BK (at least STAGES of them)");
  OUT [M, N] out;
  // GROUP row tiles side by side in consecutive blocks: a wave of blocks then reads fewer
  // tiles of B, which the L2 keeps for the blocks that share them
  int group = GROUP;
  parallel {gm, bn, bi} by [M / BM / group, N / BN, group] : block {
    int bm = gm # bi;
    with k in [K / BK] {
      // the prologue: steps 0 .. STAGES - 2 in flight; the last buffer is declared empty
      a0 = LOAD_A(0);
      b0 = LOAD_B(0);
#if STAGES >= 3
      a1 = LOAD_A(1);
      b1 = LOAD_B(1);
#endif
#if STAGES >= 4
      a2 = LOAD_A(2);
      b2 = LOAD_B(2);
#endif
      a_next = tma.any;
      b_next = tma.any;
      mc = mma.fill.f32 0.0f;
      foreach k {
        wait a0, b0;
        foreach w in 4 {   // the step as four multiplies (k16 for f16, k32 for fp8)
          parallel g by WARP_GROUPS : group-4 {
            ma = mma.load.swiz<128> a0.data.chunkat(g, w);
            mb = mma.load.swiz<128> b0.data.chunkat(_, w);
            mma.row.row mc, ma, mb;
          }
        }
        if (k + STAGES - 1 < #k) {
          a_next = LOAD_A(k + STAGES - 1);
          b_next = LOAD_B(k + STAGES - 1);
        }
        // a_next now holds the buffer of step k - 1
#if STAGES == 2
        rotate(a0, a_next);
        rotate(b0, b_next);
#elif STAGES == 3
        rotate(a0, a1, a_next);
        rotate(b0, b1, b_next);
#else
        rotate(a0, a1, a2, a_next);
        rotate(b0, b1, b2, b_next);
#endif
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

int main() {
  const size_t M = GROUP * BM, N = 2 * BN, K = 5 * BK;
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
  // bf16 keeps 8 bits; the tensor cores add fp8 products in fewer bits than f32 (as
  // torch._scaled_mm's use_fast_accum=True does)
  const double tolerance = std::is_same<croktile::OUT, croktile::bf16>::value ? 1e-2
                           : std::is_same<croktile::ELEM, croktile::f8_e4m3>::value ? 3e-2 : 2e-3;
  if (worst >= tolerance) {
    std::cout << "gemm differs: relative error " << worst << "\n";
    return 1;
  }
  std::cout << "Test Passed\n";
}
