// The shapes and roles of fragments (croktile_driver/frontend/sema/mma/): the tile of one
// warp must be an instruction's or a WMMA shape, a fragment has one role, a chunk is a
// 2-D tile of constant shape.

__co__ void no_instruction(f16 [64, 64] a, f16 [64, 64] b, f32 [64, 64] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a.subspan(32, 32).at(0, 0);
      mb = mma.load b.subspan(32, 32).at(0, 0);
      mma.row.col mc, ma, mb; // expect-error: no tensor-core instruction has a 32 x 32 x 32 tile of f16
      mma.store mc, c.subspan(32, 32).at(0, 0);
    }
  }
}

__co__ void two_roles(f16 [16, 16] a, f16 [16, 8] b, f32 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      // expect-error@+1: 'mb' is a B operand; here it would be the A operand
      mma.row.col mc, mb, mb;
      mma.store mc, c;
    }
  }
}

__co__ void store_operand(f16 [16, 16] a, f16 [16, 8] b, f32 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb;
      mma.store ma, c; // expect-error: 'ma' is an A operand; 'mma.store' stores an accumulator
      mma.store mc, c;
    }
  }
}

__co__ void not_a_matrix(f16 [4, 16, 16] a) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      ma = mma.load a; // expect-error: 'mma.load' needs a 2-dimensional chunk (a matrix tile); this one has 3 dimensions
    }
  }
}

__co__ void shape_not_constant(f16 [M, 16] a) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      ma = mma.load a; // expect-error: the tile of 'mma.load' must have a shape known at compile time; it is [M, 16]
    }
  }
}

// (each fragment is also used where it fits, so the one mistake is the one error)
__co__ void k_mismatch(s8 [16, 16] a, s8 [16, 8] b, s8 [16, 32] a2, s8 [32, 8] b2, s32 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill 0;
      mc2 = mma.fill 0;
      ma = mma.load a;
      mb = mma.load b;
      ma2 = mma.load a2;
      mb2 = mma.load b2;
      mma.row.col mc, ma, mb;
      mma.row.col mc2, ma2, mb2;
      mma.row.col mc, ma, mb2; // expect-error: the tiles do not multiply: A is 16 x 16 and B is 32 x 8 (A's columns must equal B's rows)
      mma.store mc, c;
      mma.store mc2, c;
    }
  }
}
