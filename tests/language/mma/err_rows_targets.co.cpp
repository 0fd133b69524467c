// The cuda target runs the row operations on a warp group's accumulators (sm_90a); a
// warp's (mma.sync) are an error there for now (run_rows_warp.co.cpp runs them on the
// portable targets).
// compile-flags: -t cuda -arch=sm_90a

__co__ auto warp_rows(f16 [16, 16] a, f16 [16, 8] b) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    c = mma.fill.f32 0.0f;
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col c, ma, mb;
      mx = mma.row.max c; // expect-error: on the cuda target the row operations (mma.row.*, mma.exp, mma.mask.causal, mma.cvt) work on a warp group's accumulator (a 'parallel ... : group-4' level, sm_90a); a warp's (mma.sync) are not supported yet
      mma.exp c, mx, 1.0f; // expect-error: on the cuda target the row operations (mma.row.*, mma.exp, mma.mask.causal, mma.cvt) work on a warp group's accumulator (a 'parallel ... : group-4' level, sm_90a); a warp's (mma.sync) are not supported yet
      mma.store c, out;
    }
  }
  return out;
}
