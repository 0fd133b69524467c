// The kinds of fragments (frontend/sema/mma/operands.py, issue #36): an accumulator, an A
// or B operand, sparsity metadata, a row vector. Each statement takes the kinds it works
// on, and a fragment of another kind is one error at its operand that says what it is
// (a row vector as a multiply's operand was an internal error).

__co__ void row_vectors(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out, f32 [16, 8] init) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
      mx = mma.row.max mc;
      mma.row.col mc, mx, mb; // expect-error: 'mx' is a row vector; here it would be the A operand
      mma.row.col mc, ma, mx; // expect-error: 'mx' is a row vector; here it would be the B operand
      mma.row.col mx, ma, mb; // expect-error: 'mx' is a row vector; here it would be the accumulator
      mma.store mx, out; // expect-error: 'mx' is a row vector; 'mma.store' stores an accumulator
      mma.fill mx, 0.0f; // expect-error: 'mx' is a row vector; 'mma.fill' fills an accumulator or an operand (a row vector: 'mma.row.fill')
      mx += 1.0f; // expect-error: 'mx' is a row vector; '+=', '-=', '*=' and '/=' update an accumulator or an operand
      mx = mma.load init; // expect-error: 'mx' is a row vector; 'mma.load' loads an accumulator or an operand
      mx = mma.fill.f32 0.0f; // expect-error: 'mx' is a row vector; 'mma.fill' fills an accumulator or an operand
      mma.store mc, out;
    }
  }
}

__co__ void operands(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
      pa = mma.cvt.f16 mc;
      mma.store pa, out; // expect-error: 'pa' is an A operand made by 'mma.cvt'; 'mma.store' stores an accumulator
      mma.row.col mc, ma, ma; // expect-error: 'ma' is an A operand; here it would be the B operand
      mma.row.col ma, ma, mb; // expect-error: 'ma' is an A operand; here it would be the accumulator
      ma = mma.fill.f32 0.0f; // expect-error: 'ma' is a fragment of f16; 'mma.fill.f32' cannot fill it (write 'mma.fill' or 'mma.fill.f16')
      mma.store mc, out;
    }
  }
}

__co__ void one_multiply(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      mn = mma.fill.f32 0.0f;
      mb = mma.load rhs;
      mma.row.col mc, mn, mb; // expect-error: 'mn' must be made by 'mma.load' (or 'mma.cvt') to be an operand of the multiply
      ma = mma.load lhs;
      mma.row.col mc, ma, mc; // expect-error: 'mc' is the accumulator of this multiply; it cannot be the B operand too
      mma.store mc, out;
    }
  }
}

// a warp group's operands are views of shared memory ('mma.load.swiz<N>') or an A made
// by 'mma.cvt' in registers, its accumulator registers that wgmma computes
__co__ void warp_group(f16 [64, 64] lhs, f16 [64, 64] rhs, f32 [64, 64] out, f32 [64, 64] init) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    mc = mma.fill.f32 0.0f;
    mc = mma.load init; // expect-error: 'mc' is a warp group's accumulator; it is not loaded from memory (make it with 'mma.fill')
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        ma += 1.0f; // expect-error: 'ma' is an A operand of a warp group, a view of shared memory ('mma.load.swiz<N>'); it cannot be updated
        mma.fill mb, 0.0f; // expect-error: 'mb' is a B operand of a warp group, a view of shared memory ('mma.load.swiz<N>'); it cannot be filled
        mma.row.row mc, ma, mb;
      }
    }
    mma.store mc, out;
  }
}

__co__ void warp_group_reload(f16 [64, 64] lhs, f16 [64, 64] rhs, bf16 [64, 64] other, f32 [64, 64] out) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    shared bf16 [64, 64] os;
    tma.copy.swiz<128> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    tma.copy.swiz<128> other => os;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb;
        mb = mma.load.swiz<128> os.chunkat(_, w); // expect-error: 'mb' is a B operand of a warp group, a view of shared memory of f16; it cannot be loaded from bf16 data (wgmma reads it where it is)
      }
    }
    mma.store mc, out;
  }
}

__co__ void warp_group_cvt(f16 [64, 16] lhs, f16 [64, 16] rhs, f16 [64, 64] vals, f32 [64, 64] out) {
  parallel p by 1 : block {
    shared f16 [64, 16] ls;
    shared f16 [64, 16] rs;
    shared f16 [64, 64] vs;
    tma.copy.swiz<32> lhs => ls;
    tma.copy.swiz<32> rhs => rs;
    tma.copy.swiz<128> vals => vs;
    parallel g by 1 : group-4 {
      s = mma.fill.f32 0.0f;
      o = mma.fill.f32 0.0f;
      ma = mma.load.swiz<32> ls;
      mb = mma.load.swiz<32> rs;
      mma.row.row s, ma, mb;
      pa = mma.cvt.f16 s;
      pa *= 2.0f; // expect-error: 'pa' is an A operand of a warp group, made by 'mma.cvt' in registers; it cannot be updated
      mv = mma.load.swiz<128> vs;
      mma.row.col o, pa, mv;
      mma.store o, out;
    }
  }
}
