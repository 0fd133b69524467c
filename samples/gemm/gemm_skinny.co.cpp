// C = A B^T for skinny A (M rows, 1 to a few hundred: decode steps, small batches), f32
// accumulation: f16 data, or -DELEM=bf16, or fp8 (-DELEM=f8_e4m3 -DOUT=f16 -DBK=128). Such
// a product is a stream of the weights B ([N, K]) and little arithmetic, so the kernel is
// shaped to read B once, at the memory's bandwidth, on every SM (issue #35):
//
// - swap AB: each block computes a tile of C^T = B A^T, so that N, the big side, is wgmma's
//   64-row side (a B tile, BN = 64 * WARP_GROUPS rows, is the A operand) and M, the small
//   one, is wgmma's n = MT (8, 16, ..., 256; the A tile is the B operand, given as N x K:
//   mma.row.row). No row of the tensor cores is spent on padding M up to 64. The copy
//   engine streams the tiles through a pipelined loop (STAGES buffers).
// - With as many tiles as SMs (SPLIT_BELOW), or a K of a few steps, one launch: a block
//   per tile walks all of K, stores C^T into shared memory, its warp groups' threads
//   transpose it into C's type and layout, and tma.copy writes the tile of C.
// - With fewer tiles, split-K: the K steps of a tile are divided among `splits` blocks, so
//   that there are about TARGET_BLOCKS blocks (a wave on the 132 SMs of an H100/H200);
//   each stores its partial 64 x MT accumulators as f32 into a workspace [splits, N, M]
//   (padded to whole tiles), and a second `parallel` adds the parts in a fixed order (the
//   same bits on every run: no atomics), converts to OUT and writes C through a shared
//   tile and tma.copy.
//
// splits = cdiv(kt, ks) with kt = cdiv(K, BK) steps, ks = alignup(cdiv(kt * tiles,
// TARGET_BLOCKS), MIN_STEPS * cdiv(mp, SPLIT_ROWS)) steps per block, then evened out
// (tiles = cdiv(N, BN) * cdiv(M, MT), mp = M padded to MT; the smallest part grows with M,
// which keeps the workspace under a quarter of B's bytes); K is split when tiles <
// SPLIT_BELOW and splits > 1. Any M, N, K >= 1: the tiles past the ends of A and B read
// zeros and the stores of C are clipped.
//
// Which form and MT (docs/language/tensor-cores.md, "Skinny shapes"; the same table in
// Python: samples/gemm/skinny_tiles.py):
// M <= 8: MT 8; <= 16: 16; <= 32: 32; <= 64: 32 (two row tiles) where K is split (N < 132
// tiles of 64 rows), else 64; <= 256: 128 (M = 256 is two row tiles); larger M:
// samples/gemm/gemm.co.cpp. MT is a macro (wgmma's n is a constant);
// every MT computes every M, only the speed differs.
//
//   croktilec -t cuda -arch=sm_90a -DMT=8 samples/gemm/gemm_skinny.co.cpp -o gemv && ./gemv
//   croktilec -t cpu samples/gemm/gemm_skinny.co.cpp -o gemv && ./gemv
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
#ifndef MT
#define MT 8    // rows of A per block: wgmma's n (a multiple of 8, at most 256)
#endif
// defaults per MT: a narrow block streams B with deep buffers, two or more blocks per SM;
// the widest take 128 rows of B per block (two warp groups), so that each tile of A they
// load serves more rows, one block per SM
#if MT <= 32
#define BEST_WARP_GROUPS 1
#define BEST_STAGES 8        // 8 KiB of B and MT x 128 bytes of A a stage
#define BEST_TARGET_BLOCKS 264
#elif MT <= 64
#define BEST_WARP_GROUPS 1
#define BEST_STAGES 6        // 16 KiB a stage
#define BEST_TARGET_BLOCKS 264
#elif MT <= 128
#define BEST_WARP_GROUPS 2
#define BEST_STAGES 5        // 32 KiB a stage
#define BEST_TARGET_BLOCKS 132
#else
#define BEST_WARP_GROUPS 2
#define BEST_STAGES 4        // 48 KiB a stage
#define BEST_TARGET_BLOCKS 132
#endif
#ifndef WARP_GROUPS
#define WARP_GROUPS BEST_WARP_GROUPS
#endif
#ifndef STAGES
#define STAGES BEST_STAGES   // buffers per operand; the loads run STAGES - 2 steps ahead
#endif
#ifndef SPLIT_BELOW
#define SPLIT_BELOW 132      // K is split only with fewer tiles than this (the SMs)
#endif
#ifndef TARGET_BLOCKS
#define TARGET_BLOCKS BEST_TARGET_BLOCKS   // and then into about this many blocks (a wave)
#endif
#ifndef MIN_STEPS
#define MIN_STEPS 4          // K steps per block at least (the pipeline's prologue is a cost)
#endif
#ifndef SPLIT_ROWS
#define SPLIT_ROWS 32        // and MIN_STEPS more per SPLIT_ROWS rows of A (see below)
#endif
#define BN (64 * WARP_GROUPS)
// the threads' tiles of C^T and C (TI rows of A at a time) and the reduction's tile of C
// (RM rows of M by RN columns of N, 128 threads)
#define TI (MT < 64 ? MT : 64)
#define RM TI
#define RN 64

__co__ auto gemm(ELEM [M, K] lhs, ELEM [N, K] rhs) {
  OUT [M, N] out;
  int kt = cdiv(K, BK);                 // K steps
  int tiles = cdiv(N, BN) * cdiv(M, MT);
  int np = cdiv(N, BN) * BN;            // N and M padded to whole tiles: the workspace's
  int mp = cdiv(M, MT) * MT;            // tiles are never partial
  // parts of K: about TARGET_BLOCKS blocks, each at least `unit` steps; the unit grows
  // with the rows of A, which keeps the workspace (splits x N x M x 4 bytes, written and
  // read once) under a quarter of B (N x K x 2 bytes) at the default SPLIT_ROWS
  int unit = MIN_STEPS * cdiv(mp, SPLIT_ROWS);
  int parts = cdiv(kt, __alignup(cdiv(kt * tiles, TARGET_BLOCKS), unit));

  if (tiles >= SPLIT_BELOW || parts == 1) {
    // enough tiles for every SM (or a short K): a block per tile walks all of K and
    // writes its tile of C
    parallel {bn, bm} by [cdiv(N, BN), cdiv(M, MT)] : block {
      mc = mma.fill.f32 0.0f;           // 64 x MT of C^T per warp group
      foreach k in [kt] : pipelined(STAGES, end) {
        w = tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(bn, k) => shared;
        x = tma.copy.async.swiz<128> lhs.subspan(MT, BK).at(bm, k) => shared;
        foreach kk in 4 {   // the step as four multiplies (k16 for f16, k32 for fp8)
          parallel g by WARP_GROUPS : group-4 {
            mw = mma.load.swiz<128> w.data.chunkat(g, kk);   // 64 rows of B: wgmma's A
            mx = mma.load.swiz<128> x.data.chunkat(_, kk);   // MT rows of A: wgmma's B (N x K)
            mma.row.row mc, mw, mx;
          }
        }
      }
      // C^T, transposed by the threads into C; rows of MT + 2 elements (an odd number of
      // 4-byte words), so that a warp reading a column of it meets every bank once (the
      // tile is zero-filled first: nothing shows the compiler that the spare columns are
      // never read; a pass over at most 33 KiB of shared memory)
      shared OUT [BN, MT + 2] ct;
      parallel g by WARP_GROUPS : group-4 {
        mma.store mc, ct.subspan(64, MT).at(g, 0);
      }
      shared OUT [MT, BN] cs;
      parallel g by WARP_GROUPS : group-4, {ti, tj} by [2, 64] : thread {
        foreach ii in [MT / 2]   // each warp group its 64 rows of C^T
          cs.at(ii # ti, g # tj) = ct.at(g # tj, ii # ti);
      }
      tma.copy cs => out.subspan(MT, BN).at(bm, bn);
    }
  } else {
    int splits = parts;
    int ks = cdiv(kt, splits);          // steps per block: every block starts inside K
    f32 [splits * np, mp] ws;           // the partial products, C^T per split

    parallel {s, bn, bm} by [splits, cdiv(N, BN), cdiv(M, MT)] : block {
      mc = mma.fill.f32 0.0f;
      // the block's part of K; the last part may end past K (its tiles there read zeros)
      wk = rhs.view(BN, ks * BK).from(bn * BN, s * ks * BK);
      xk = lhs.view(MT, ks * BK).from(bm * MT, s * ks * BK);
      foreach k in [ks] : pipelined(STAGES, end) {
        w = tma.copy.async.swiz<128> wk.subspan(BN, BK).at(0, k) => shared;
        x = tma.copy.async.swiz<128> xk.subspan(MT, BK).at(0, k) => shared;
        foreach kk in 4 {
          parallel g by WARP_GROUPS : group-4 {
            mw = mma.load.swiz<128> w.data.chunkat(g, kk);
            mx = mma.load.swiz<128> x.data.chunkat(_, kk);
            mma.row.row mc, mw, mx;
          }
        }
      }
      parallel g by WARP_GROUPS : group-4 {
        mma.store mc, ws.subspan(64, MT).at(s # bn # g, bm);
      }
    }

    // C = the sum of the parts, in order of s, transposed back and converted
    wv = ws.span_as(splits, np, mp);
    parallel {bm, bn} by [cdiv(M, RM), cdiv(N, RN)] : block {
      shared OUT [RM, RN] cs;
      parallel {tj, ti} by [128 / RM, RM] : thread {   // a warp reads whole rows of the parts
        foreach jj in [RN * RM / 128] {
          mutable f32 acc = 0;
          foreach q in [splits]
            acc += wv.at(q, bn # jj # tj, bm # ti);
          cs.at(ti, jj # tj) = acc;
        }
      }
      tma.copy cs => out.subspan(RM, RN).at(bm, bn);
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
  const double tolerance = std::is_same<croktile::OUT, croktile::bf16>::value ? 1e-2
                           : std::is_same<croktile::ELEM, croktile::f8_e4m3>::value ? 3e-2 : 2e-3;
  // one row (a decode step), a few rows, edge tiles of every operand; K split in parts
  // (few tiles), not split (as many tiles as SPLIT_BELOW, or a short K); a K tail
  const size_t shapes[][3] = {{1, 256, 16 * BK}, {7, BN + 8, 5 * BK + 16}, {MT + 3, 3 * BN, 40 * BK},
                              {3, SPLIT_BELOW * BN - 8, 6 * BK + 8}, {2, 24, BK / 2}};
  for (const auto& s : shapes) {
    double worst = worst_error(s[0], s[1], s[2]);
    if (worst >= tolerance) {
      std::cout << "gemm " << s[0] << " x " << s[1] << " x " << s[2] << " differs: relative error " << worst << "\n";
      return 1;
    }
  }
  std::cout << "Test Passed\n";
}
