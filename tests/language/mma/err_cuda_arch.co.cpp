// An instruction the chosen architecture lacks is an error, not a wrong program: fp8
// mma.sync needs sm_89.
// compile-flags: -t cuda -arch=sm_75

__co__ void fp8(f8_e4m3 [16, 32] a, f8_e4m3 [32, 8] b, f32 [16, 8] c) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load a;
      mb = mma.load b;
      mma.row.col mc, ma, mb; // expect-error: mma.sync m16n8k32 of f8_e4m3 x f8_e4m3 -> f32 needs sm_89 or newer; -arch=sm_75 has no such instruction
      mma.store mc, c;
    }
  }
}
