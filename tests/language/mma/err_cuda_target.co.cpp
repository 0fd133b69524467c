// The cuda target runs a tensor-core operation in a warp (a ': group' level); each
// operation outside one is reported.
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
