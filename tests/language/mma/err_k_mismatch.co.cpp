// A's columns must be B's rows: one error, at the multiply, when the fragments are used nowhere else
// (err_shapes.co.cpp has the case where they are).

__co__ void k_mismatch(f16 [16, 16] a, f16 [32, 8] b, f32 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb; // expect-error: the tiles do not multiply: A is 16 x 16 and B is 32 x 8
      mma.store mc, c;
    }
  }
}
