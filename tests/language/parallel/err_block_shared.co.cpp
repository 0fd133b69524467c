// Block-wide `shared` data (README "Parallel levels"): where a step on it cannot become a
// step of the whole block, a warning says that every instance runs it; `_` in `.view`.
__co__ void wild_view(s32 [4, 8] a) {
  parallel p by 2 {
    x = dma.copy a.view(2, _).from(2 * p, 0) => local;   // `_`: the whole dimension
    y = dma.copy a.view(2, _).from(2 * p, 1) => local;  // expect-error: index out of bounds for dimension 1: elements [1, 9) of 8
    z = dma.copy a.view(2, _ : 8, 1).from(2 * p, 0) => local;  // expect-error: view dimensions are integers, ituples or mdspans, not '_'
  }
}

// a `local` accumulator used on both sides of the copies: the level stays whole
__co__ s32 [2, 4] crossing(s32 [2, 4] a) {
  s32 [a.span] out;
  parallel p by 2, q by 4 {
    local s32 [1] acc;
    t = dma.copy a.chunkat(p, _) => shared;  // expect-warning: this step on block-wide 'shared' data runs in every instance of 'q', so the level is not split into block-wide steps (a per-instance value is used on both sides of it)
    acc.at(0) = t.data.at(0, q);
    u = dma.copy a.chunkat(p, _) => shared;  // expect-warning: runs in every instance of 'q'
    acc.at(0) += u.data.at(0, q);
    out.at(p, q) = acc.at(0);
  }
  return out;
}

// a loop whose trip count depends on the instance
__co__ void per_instance_loop(s32 [2, 4] a) {
  parallel p by 2, q by 4 {
    foreach k in [q + 1]
      t = dma.copy a.chunkat(p, _) => shared;  // expect-warning: (it is inside a loop, 'if' or level of each instance)
  }
}

// one buffer per block: its shape cannot differ between the instances
__co__ void varying(s32 [4, 8] a) {
  parallel p by 2, q by 4 {
    shared s32 [q + 1] x;  // expect-error: the shape of 'x' depends on 'q', which differs between the instances of an inner level: 'shared' data is one buffer per block, so its shape must be the same in all of them
    n = q * 2;
    shared s32 [n, 2] y;  // expect-error: the shape of 'y' depends on 'q'
    foreach k in [2]
      z = dma.copy a.subspan(1, k + 1).at(p, 0) => shared;  // expect-error: the shape of 'z' depends on 'k', which differs
  }
}

// alike in every instance: split into block-wide steps, no warning
__co__ s32 [2, 4] alike(s32 [2, 4] a) {
  s32 [a.span] out;
  parallel p by 2, q by 4 {
    r = q * 2;
    foreach k in [2] {
      t = dma.copy a.chunkat(p, _) => shared;
      out.at(p, q) += t.data.at(0, q) + r;
    }
  }
  return out;
}
