// Small warp-group (group-4, wgmma) forms for tests/frontend/fuzz/tensor_cores.py to
// mutate: swizzled TMA tiles read by mma.load.swiz, the row operations of a softmax, a
// converted operand (mma.cvt) multiplied again, fp8 operands, an accumulator stored
// through shared memory.
// cuda-arch: sm_90a

__co__ auto group_gemm(f16 [64, 64] a, f16 [64, 64] b) {
  f32 [64, 64] c;
  parallel p by 1 : block {
    shared f16 [64, 64] as;
    shared f16 [64, 64] bs;
    tma.copy.swiz<128> a => as;
    tma.copy.swiz<128> b => bs;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> as.chunkat(_, w);
        mb = mma.load.swiz<128> bs.chunkat(_, w);
        mma.row.row mc, ma, mb;
      }
    }
    shared f32 [64, 64] cs;
    mma.store mc, cs;
    tma.copy cs => c;
  }
  return c;
}

__co__ auto group_softmax_pv(f16 [64, 64] q, f16 [64, 64] k, f16 [64, 64] v, float scale) {
  f32 [64, 64] o;
  parallel p by 1 : block {
    shared f16 [64, 64] qs;
    shared f16 [64, 64] ks;
    shared f16 [64, 64] vs;
    tma.copy.swiz<128> q => qs;
    tma.copy.swiz<128> k => ks;
    tma.copy.swiz<128> v => vs;
    s = mma.fill.f32 0.0f;
    acc = mma.fill.f32 0.0f;
    parallel g by 1 : group-4 {
      qa = mma.load.swiz<128> qs;
      kb = mma.load.swiz<128> ks;
      mma.row.row s, qa, kb;
      mma.mask.causal s, 0, 0;
      mx = mma.row.max s;
      mma.exp s, mx, scale;
      l = mma.row.sum s;
      mma.row.div s, l;
      pa = mma.cvt.f16 s;
      vb = mma.load.swiz<128> vs;
      mma.row.col acc, pa, vb;
      mma.row.scale acc, 0.5f;
    }
    shared f32 [64, 64] os;
    mma.store acc, os;
    tma.copy os => o;
  }
  return o;
}

__co__ auto group_fp8(f8_e4m3 [64, 128] a, f8_e4m3 [64, 128] b) {
  f16 [64, 64] c;
  parallel p by 1 : block {
    shared f8_e4m3 [64, 128] as;
    shared f8_e4m3 [64, 128] bs;
    tma.copy.swiz<128> a => as;
    tma.copy.swiz<128> b => bs;
    mc = mma.fill.f16 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> as.chunkat(_, w);
        mb = mma.load.swiz<128> bs.chunkat(_, w);
        mma.row.row mc, ma, mb;
      }
    }
    shared f16 [64, 64] cs;
    mma.store mc, cs;
    tma.copy cs => c;
  }
  return c;
}
