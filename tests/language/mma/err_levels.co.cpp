// The levels that may hold a tensor-core statement (frontend/sema/mma/operands.py, issue
// #36): each is done by all threads of a warp together (of a warp group in a 'group-4'
// level), so it is at the block level or at a 'group' / 'group-4' level, never inside a
// level of threads (': thread', or an unannotated level inside another), where one thread
// of the 32 would run it, and a warp group's never inside one of its warps. The same on
// every target (test_mma_targets.py).

__co__ void multiply_in_threads(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      parallel t by 32 : thread { // expect-note: this level's instances are threads
        mma.row.col mc, ma, mb; // expect-error: 'mma.row.col' is done by all threads of a warp together, so it cannot be inside a level of threads; put it at the level of the warp ('parallel ... : group') or of the warp group ('group-4')
      }
      mma.store mc, out;
    }
  }
}

// each kind of statement
__co__ void each_statement(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load lhs;
      mb = mma.load rhs;
      mma.row.col mc, ma, mb;
      parallel t by 32 : thread {
        m1 = mma.fill.f32 0.0f; // expect-error: 'mma.fill' is done by all threads of a warp together
        m2 = mma.load lhs; // expect-error: 'mma.load' is done by all threads of a warp together
        mma.store mc, out; // expect-error: 'mma.store' is done by all threads of a warp together
        mma.fill mc, 1.0f; // expect-error: 'mma.fill' is done by all threads of a warp together
        mc += 1.0f; // expect-error: '+=' on a fragment is done by all threads of a warp together
        mx = mma.row.max mc; // expect-error: 'mma.row.max' is done by all threads of a warp together
        mma.row.scale mc, 2.0f; // expect-error: 'mma.row.scale' is done by all threads of a warp together
        pa = mma.cvt.f16 mc; // expect-error: 'mma.cvt' is done by all threads of a warp together
        frag.f32 ms[2] {0.0f}; // expect-error: a 'frag' declaration is done by all threads of a warp together
      }
      mma.store mc, out;
    }
  }
}

// without annotations the level inside the launch is its threads
__co__ void unannotated(f16 [16, 16] lhs, f16 [16, 8] rhs, f32 [16, 8] out) {
  parallel p by 1 {
    parallel q by 32 { // expect-note: this level's instances are threads (an unannotated level inside another)
      mc = mma.fill.f32 0.0f; // expect-error: 'mma.fill' is done by all threads of a warp together
    }
  }
}

__co__ void warp_group_parts(f16 [64, 64] lhs, f16 [64, 64] rhs, f32 [64, 64] out) {
  parallel p by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    tma.copy.swiz<128> lhs => ls;
    tma.copy.swiz<128> rhs => rs;
    mc = mma.fill.f32 0.0f;
    foreach w in 4 {
      parallel g by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        parallel q by 4 : group {
          mma.row.row mc, ma, mb; // expect-error: inside a 'group-4' level 'mma.row.row' is done by the whole warp group, so it cannot be inside one of its warps (a ': group' level); put it at the 'group-4' level
        }
        parallel t by 128 : thread { // expect-note: this level's instances are threads
          mma.row.row mc, ma, mb; // expect-error: 'mma.row.row' is done by all threads of a warp group together, so it cannot be inside a level of threads; put it at the 'group-4' level
        }
      }
    }
    mma.store mc, out;
  }
}
