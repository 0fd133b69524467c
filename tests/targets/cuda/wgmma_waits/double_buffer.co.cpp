// Two buffers per operand: the loads of step k + 1, after the multiplies of step k, go
// into the buffers that the swap at the end of step k - 1 left in a1 and b1: step k - 1's.
// The four groups of step k run on.
// expect-wait: 4
__co__ auto gemm(f16 [M, K] lhs, f16 [N, K] rhs) {
  f16 [M, N] out;
  parallel {bm, bn} by [M / 64, N / 128] : block {
    with k in [K / 64] {
      a0 = tma.copy.async.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;
      b0 = tma.copy.async.swiz<128> rhs.subspan(128, 64).at(bn, 0) => shared;
      a1 = tma.any;
      b1 = tma.any;
      mc = mma.fill.f32 0.0f;
      foreach k {
        wait a0, b0;
        foreach w in 4 {
          parallel g by 1 : group-4 {
            ma = mma.load.swiz<128> a0.data.chunkat(_, w);
            mb = mma.load.swiz<128> b0.data.chunkat(_, w);
            mma.row.row mc, ma, mb;
          }
        }
        if (k + 1 < #k) {
          a1 = tma.copy.async.swiz<128> lhs.subspan(64, 64).at(bm, k + 1) => shared;
          b1 = tma.copy.async.swiz<128> rhs.subspan(128, 64).at(bn, k + 1) => shared;
        }
        swap(a0, a1);
        swap(b0, b1);
      }
      shared f16 [64, 128] cs;
      parallel g by 1 : group-4 {
        mma.store mc, cs;
      }
      tma.copy cs => out.subspan(64, 128).at(bm, bn);
    }
  }
  return out;
}
