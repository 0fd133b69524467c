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

__co__ void fragment_element_updates(f16 [16, 16] a, f16 [16, 16] b, f32 [16, 16] c, s32 [8] x) {
  parallel p by 1 : block {
    frag mcs[2] {0.0};
    parallel g by 1 : group {
      ma = mma.load a;
      mb = mma.load b;
      mma.fill.f32 mcs[1], 0.0f;
      mma.row.col mcs[1], ma, mb;
      mcs[1] = 1.0f; // expect-error: a fragment of an array is updated by '+=', '-=', '*=' or '/=' (or made by 'mma.fill' / 'mma.load'), not by '='
      mcs[1] %= 2.0f; // expect-error: a fragment of an array is updated by '+=', '-=', '*=' or '/=' (or made by 'mma.fill' / 'mma.load'), not by '%='
      mcs[1] += ma; // expect-error: a fragment is combined with a number, not a fragment
      mma.store mcs[1], c;
    }
    l = dma.copy x => local;
    l.data[1] += 1; // expect-error: only an element 'x.at(...)' can be assigned here
  }
}
