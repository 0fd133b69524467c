// Small warp-level (mma.sync) forms for tests/frontend/fuzz/tensor_cores.py to mutate: a
// typed and an untyped fill refilled in place, a bias added to the accumulator, an array
// of s8 accumulators picked by a run-time index, a sparse multiply, a warp's stores to
// shared memory copied out. Each is small, so that a mutant runs in milliseconds.
// cuda-arch: sm_80

__co__ auto warp_f16(f16 [16, 32] a, f16 [32, 8] b, f32 bias) {
  f32 [16, 8] c;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      foreach k in 2 {
        ma = mma.load a.chunkat(_, k);
        mb = mma.load b.chunkat(k, _);
        mma.row.col mc, ma, mb;
      }
      mc += bias;
      mma.store mc, c;
    }
  }
  return c;
}

__co__ auto warp_refill(bf16 [16, 16] a, bf16 [8, 16] b) {
  f32 [16, 8] c;
  parallel p by 1 : block {
    mc = mma.fill.f32 1.0f;
    parallel g by 1 : group {
      mma.fill mc, 0;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.row mc, ma, mb;
      mma.store mc, c;
    }
  }
  return c;
}

__co__ auto warp_s8(s8 [16, 32] a, s8 [32, 8] b, int i) {
  s32 [16, 16] c;
  parallel p by 1 : block {
    frag.s32 mc[1][2] {0};
    parallel g by 2 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc[0][i], ma, mb;
      mma.store mc[0][i], c.chunkat(_, g);
    }
  }
  return c;
}

__co__ auto warp_sparse(f16 [16, 8] packed, u32 [16, 1] meta, f16 [8, 16] b) {
  f32 [16, 8] c;
  parallel p by 1 : block {
    shared f32 [16, 8] cs;
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load packed;
      mb = mma.load b;
      me = mma.load meta;
      mma.row.row.sp mc, ma, mb, me;
      mma.store mc, cs;
    }
    dma.copy cs => c;
  }
  return c;
}
