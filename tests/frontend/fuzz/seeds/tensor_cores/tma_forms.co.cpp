// Small TMA forms for tests/frontend/fuzz/tensor_cores.py to mutate: a double buffer of
// tma.copy.async futures (tma.any, wait, swap), a store through a shared row waited at
// the end, and a warp that alone loads the tiles the other warps multiply (inthreads).
// cuda-arch: sm_90a

__co__ auto double_buffer(f32 [4, 64] x) {
  f32 [4, 64] y;
  parallel p by 1 : block {
    with k in [4] {
      cur = tma.copy.async x.chunkat(k, _) => shared;
      nxt = tma.any;
      foreach k(1:) {
        nxt = tma.copy.async x.chunkat(k, _) => shared;
        wait cur;
        tma.copy cur.data => y.chunkat(k - 1, _);
        swap cur, nxt;
      }
      wait cur;
      tma.copy cur.data => y.chunkat(k(-1), _);
    }
  }
  return y;
}

__co__ auto stored_async(f32 [2, 64] x) {
  f32 [2, 64] y;
  parallel p by 1 : block {
    shared f32 [1, 64] row;
    st = tma.any;
    foreach i in [2] {
      tma.copy x.chunkat(i, _) => row;
      wait st;
      st = tma.copy.async row => y.chunkat(i, _);
    }
    wait st;
  }
  return y;
}

__co__ auto one_loader(f16 [32, 32] a, f16 [32, 32] b) {
  f32 [32, 32] c;
  parallel p by 1 : block {
    parallel {wm, wn} by [2, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in [2] {
        shared f16 [32, 16] as;
        shared f16 [32, 16] bs;
        inthreads (wm == 0 && wn == 0) {
          tma.copy a.chunkat(_, k) => as;
          tma.copy b.chunkat(_, k) => bs;
        }
        ma = mma.load as.chunkat(wm, _);
        mb = mma.load bs.chunkat(wn, _);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, c.chunkat(wm, wn);
    }
  }
  return c;
}
