// The opencl target has no row operations yet: the first of each function is an error at
// its line (cpu, factor and cuda run them: run_rows_warp.co.cpp, run_rows_wgmma.co.cpp).
// compile-flags: -t opencl

__co__ auto warp_rows(f16 [16, 16] a, f16 [16, 8] b) {
  f32 [16, 8] out;
  parallel p by 1 : block {
    c = mma.fill.f32 0.0f;
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col c, ma, mb;
      mx = mma.row.max c; // expect-error: on target 'opencl' the row operations (mma.row.*, mma.exp, mma.mask.causal, mma.cvt) are not supported yet; the cpu, factor and cuda targets run them
      mma.exp c, mx, 1.0f;
      mma.store c, out;
    }
  }
  return out;
}
