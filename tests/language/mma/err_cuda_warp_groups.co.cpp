// On cuda a block that uses wgmma is made of warp groups: every inner level is a
// `group-4` level, all of one constant count (each thread holds its warp group's part of
// the accumulators). Levels of 2 and 4 warp groups in one block are reported at each
// wgmma statement.
// compile-flags: -t cuda -arch=sm_90a

__co__ void uneven(f16 [128, 64] a, f16 [64, 64] b, f32 [128, 64] c) {
  parallel p by 1 : block {
    shared f16 [128, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> a => ls;
    tma.copy.swiz<128> b => rs;
    mc = mma.fill.f32 0.0f; // expect-error: on the cuda target a block that uses wgmma is made of warp groups: its inner levels must be 'parallel p by G : group-4', all with the same constant G (1 to 8)
    foreach w in 4 {
      parallel g by 2 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(g, w); // expect-error: all with the same constant G
        mb = mma.load.swiz<128> rs.chunkat(_, w); // expect-error: all with the same constant G
        mma.row.row mc, ma, mb; // expect-error: all with the same constant G
      }
    }
    parallel g by 2 : group-4 {
      mma.store mc, c.chunkat(g, _); // expect-error: all with the same constant G
    }
    parallel h by 4 : group-4 { // expect-error: the inner 'parallel' levels of one block must use the same number of threads on target 'cuda': this one uses 512, an earlier one 256
      c.at(h, 0) = 1.0f;
    }
  }
}

// a thread level inside a warp group is its 128 threads (run_group4_threads.co.cpp), no fewer
__co__ void part_of_a_group(f16 [64, 64] a, f16 [8, 64] b, f32 [8, 64] c) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [8, 64] rs;
    tma.copy.swiz<128> a => ls;
    tma.copy.swiz<128> b => rs;
    mc = mma.fill.f32 0.0f; // expect-error: each with at most a ': thread' level of 128 right inside
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w); // expect-error: all with the same constant G
        mb = mma.load.swiz<128> rs.chunkat(_, w); // expect-error: all with the same constant G
        mma.row.row mc, ma, mb; // expect-error: all with the same constant G
      }
    }
    shared f32 [64, 8] ct;
    parallel g by 1 : group-4 {
      mma.store mc, ct; // expect-error: all with the same constant G
    }
    // expect-error@+2: must use the same number of threads on target 'cuda': this one uses 64, an earlier one 128
    // expect-error@+1: the threads of a 'group-4' level must number a multiple of 128 on target 'cuda', not 64
    parallel g by 1 : group-4, t by 64 : thread {
      c.at(0, t) = ct.at(t, 0);
    }
  }
}
