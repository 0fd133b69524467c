// The rules of warp-group (group-4, wgmma) multiplies: operands from swizzled shared
// tiles whose rows are the swizzle's width, a 64-row tile.

__co__ void from_global(f16 [64, 16] a, f16 [64, 16] b, f32 [64, 64] c) {
  parallel p by 1 : block {
    mc = mma.fill.f32 0.0f;
    parallel g by 1 : group-4 {
      ma = mma.load a; // expect-error: a warp group (wgmma) reads its operands from shared memory through a swizzled layout: load them with 'mma.load.swiz<N>' from shared data
      mb = mma.load b;
      mma.row.row mc, ma, mb;
    }
    mma.store mc, c;
  }
}

__co__ void row_width(f16 [64, 64] a, f16 [64, 64] b, f32 [64, 64] c) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> a => ls;
    tma.copy.swiz<128> b => rs;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<64> ls.chunkat(_, w); // expect-error: the rows of 'ls' must be 64 bytes for 'mma.load.swiz<64>' (its rows are [64] x 2 bytes)
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb;
      }
    }
    mma.store mc, c;
  }
}

__co__ void tile_rows(f16 [32, 64] a, f16 [64, 64] b, f32 [32, 64] c) {
  parallel p by 1 : block {
    shared f16 [32, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> a => ls;
    tma.copy.swiz<128> b => rs;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb; // expect-error: no warp-group (wgmma) instruction computes a 32 x 64 x 16 tile of f16 x f16 -> f32: a warp group's tile is 64 rows
      }
    }
    mma.store mc, c;
  }
}
