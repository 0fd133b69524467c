// `mma.cvt` of an accumulator whose tile is not known yet (no multiply or store before
// it gave one) is one error (issue #36): the operand it would make is a fragment whose
// uses report nothing more (they were an internal error, or a second error about its
// tile).

__co__ void before_any_multiply(f16 [16, 16] lhs, f16 [16, 8] rhs, f16 [8, 8] rhs2, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      pa = mma.cvt.f16 mc; // expect-error: the tile of 'mc' is not known here: 'mma.cvt' converts an accumulator that a multiply before it computes
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
      mb2 = mma.load rhs2;
      md = mma.fill.f32 0.0f;
      mma.row.col md, pa, mb2;
      mma.cvt pa, mc;
      mma.store md, out;
    }
  }
}

__co__ void never_multiplied(f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      pa = mma.cvt.bf16 mc; // expect-error: the tile of 'mc' is not known here
      mma.store mc, out;
    }
  }
}

__co__ void statement_form(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
      pa = mma.cvt.f16 mc;
      m2 = mma.fill.f32 0.0f;
      mma.cvt pa, m2; // expect-error: the tile of 'm2' is not known here
      mma.cvt ma, mc; // expect-error: 'ma' was not made by 'mma.cvt'; 'mma.cvt a, s' converts into an operand it made
      pa = mma.cvt.bf16 mc; // expect-error: 'pa' is an operand of f16; 'mma.cvt.bf16' cannot make it again
      mma.store mc, out;
    }
  }
}
