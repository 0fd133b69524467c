// Warp-group multiplies (wgmma) exist on sm_90a only: each of their statements is
// reported for another arch.
// compile-flags: -t cuda -arch=sm_80

__co__ void wg(f16 [64, 64] a, f16 [64, 64] b, f32 [64, 64] c) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> a => ls;
    tma.copy.swiz<128> b => rs;
    mc = mma.fill.f32 0.0f; // expect-error: warp-group tensor-core operations (wgmma) need -arch=sm_90a; -arch=sm_80 has none
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w); // expect-error: need -arch=sm_90a; -arch=sm_80 has none
        mb = mma.load.swiz<128> rs.chunkat(_, w); // expect-error: need -arch=sm_90a; -arch=sm_80 has none
        mma.row.row mc, ma, mb; // expect-error: need -arch=sm_90a; -arch=sm_80 has none
      }
    }
    mma.store mc, c; // expect-error: need -arch=sm_90a; -arch=sm_80 has none
  }
}
