// The cuda target runs a tensor-core operation in a warp (a ': group' level) and does not
// generate warp-group (group-4) multiplies yet; each operation is reported.
// compile-flags: -t cuda

__co__ void no_group(f16 [16, 16] a, f16 [16, 8] b, f32 [16, 8] c) {
  parallel p by 1 : block {
    mc = mma.fill.f32 0.0f;
    ma = mma.load a; // expect-error: on the cuda target a tensor-core operation runs in a warp: inside a 'parallel ... : group' level
    mb = mma.load b; // expect-error: on the cuda target a tensor-core operation runs in a warp
    mma.row.col mc, ma, mb; // expect-error: on the cuda target a tensor-core operation runs in a warp
    mma.store mc, c; // expect-error: on the cuda target a tensor-core operation runs in a warp
  }
}

__co__ void warp_group(f16 [64, 16] a, f16 [64, 16] b, f32 [64, 64] c) {
  parallel p by 1 : block {
    parallel g by 1 : group-4 {
      mc = mma.fill.f32 0.0f; // expect-error: warp-group tensor-core operations (wgmma, in a 'group-4' level) are not generated for the cuda target yet
      ma = mma.load a; // expect-error: are not generated for the cuda target yet
      mb = mma.load b; // expect-error: are not generated for the cuda target yet
      mma.row.row mc, ma, mb; // expect-error: are not generated for the cuda target yet
      mma.store mc, c; // expect-error: are not generated for the cuda target yet
    }
  }
}
