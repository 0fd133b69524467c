// The spelling and the place of the tensor-core and TMA forms.

__co__ void bad_swizzle(f16 [16, 64] a) {
  parallel p by 1 : block {
    shared f16 [16, 64] s;
    tma.copy.swiz<48> a => s; // expect-error: the swizzle of '.swiz<N>' is 32, 64 or 128 bytes
  }
}

__co__ void outside_parallel(f16 [16, 16] a) {
  mc = mma.fill.f32 0.0f; // expect-error: 'mma.fill' must be inside 'parallel'
}

__co__ void accumulator_type(s8 [16, 32] a, s8 [32, 8] b, s8 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.s8 0; // expect-error: a fragment of 's8' elements cannot accumulate
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      mma.store mc, c;
    }
  }
}
