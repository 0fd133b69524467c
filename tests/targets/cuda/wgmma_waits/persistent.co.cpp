// A persistent GEMM: each block takes tiles p, p + blocks, ... and runs their K steps
// (nested loops of run-time counts) with three stages rotated across the tiles' bounds;
// the result of a tile leaves by an asynchronous store while the next tile computes.
// The loads for step k + 2 wait only for the multiplies of step k - 1 (the 4 groups of
// step k may run on), in every tile.
// expect-wait: 4
#define ELEM f16
#define OUT f16
#define BK 64
#define BM 128
#define BN 256
#define GROUP 8
#define WARP_GROUPS 2

__co__ auto gemm(ELEM [M, K] lhs, ELEM [N, K] rhs, int blocks) {
  assert(M % (BM * GROUP) == 0 && N % BN == 0 && K % BK == 0 && K >= 3 * BK,
         "gemm: M must be a multiple of BM * GROUP, N of BN, K of BK (at least 3 of them)");
  OUT [M, N] out;
  int steps = K / BK;
  int tiles = M / BM * (N / BN);
  int band = GROUP * (N / BN);
  assert(blocks >= 1 && blocks <= tiles, "gemm: blocks must be between 1 and the number of tiles");
  parallel p by blocks : block {
    int mine = (tiles - p + blocks - 1) / blocks;   // tiles p, p + blocks, p + 2 blocks, ...
    with {i, k} in [mine, steps] {
      // the prologue: the first tile's steps 0 and 1 in flight
      a0 = tma.copy.async.swiz<128> lhs.subspan(BM, BK).at(p / band * GROUP + p % GROUP, 0) => shared;
      b0 = tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(p % band / GROUP, 0) => shared;
      a1 = tma.copy.async.swiz<128> lhs.subspan(BM, BK).at(p / band * GROUP + p % GROUP, 1) => shared;
      b1 = tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(p % band / GROUP, 1) => shared;
      a2 = tma.any;
      b2 = tma.any;
      shared OUT [BM, BN] cs;
      st = tma.any;
      mc = mma.fill.f32 0.0f;
      mutable int tn = p, kn = 1;   // the tile and step of the next load
      mutable int rn = p / band * GROUP + p % GROUP, cn = p % band / GROUP;
      foreach i {
        int t = p + i * blocks;
        foreach k {
          wait a0, b0;
          foreach w in 4 {
            parallel g by WARP_GROUPS : group-4 {
              ma = mma.load.swiz<128> a0.data.chunkat(g, w);
              mb = mma.load.swiz<128> b0.data.chunkat(_, w);
              mma.row.row mc, ma, mb;
            }
          }
          // two steps ahead, into the next tile near the end of this one
          kn += 1;
          if (kn == steps) {
            kn = 0;
            tn += blocks;
            rn = tn / band * GROUP + tn % GROUP;
            cn = tn % band / GROUP;
          }
          if (tn < tiles) {
            a2 = tma.copy.async.swiz<128> lhs.subspan(BM, BK).at(rn, kn) => shared;
            b2 = tma.copy.async.swiz<128> rhs.subspan(BN, BK).at(cn, kn) => shared;
          }
          rotate(a0, a1, a2);
          rotate(b0, b1, b2);
        }
        wait st;   // the previous tile's result has left cs
        parallel g by WARP_GROUPS : group-4 {
          mma.store mc, cs.chunkat(g, _);
          mma.fill mc, 0.0f;
        }
        st = tma.copy.async cs => out.subspan(BM, BN).at(t / band * GROUP + t % GROUP, t % band / GROUP);
      }
      wait st;
    }
  }
  return out;
}

