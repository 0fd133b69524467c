// What `foreach k : pipelined(S)` cannot take (docs/language/pipelining.md, issue #39):
// each error at the construct it is about.
__co__ void stages(s32 [4, 8] a, int n) {
  parallel p by 4 {
    foreach k in [8] : pipelined(0) {      // expect-error: must be an integer constant of at least 1
      t = dma.copy.async a.chunkat(p, k) => local;
    }
    foreach k in [8] : pipelined(n) {      // expect-error: must be an integer constant of at least 1
      t = dma.copy.async a.chunkat(p, k) => local;
    }
  }
}

// (a syntax error: the function is not checked further)
__co__ void annotations(s32 [4, 8] a) {
  parallel p by 4 {
    foreach k in [8] : unrolled(2) {       // expect-error: unknown loop annotation 'unrolled'; expected 'pipelined(STAGES)'
      t = dma.copy.async a.chunkat(p, k) => local;
    }
    foreach k in [8] : pipelined(2, later) {   // expect-error: 'later' is no place to issue a pipelined loop's copies; expected 'start' or 'end'
      t = dma.copy.async a.chunkat(p, k) => local;
    }
  }
}

__co__ void ranges(s32 [4, 8] a) {
  parallel p by 4 {
    with {i, k} in [2, 8] {
      foreach i, k : pipelined(2) {        // expect-error: iterates one bounded variable over its whole range
        t = dma.copy.async a.chunkat(p, k) => local;
      }
      foreach k(1:) : pipelined(2) {       // expect-error: iterates one bounded variable over its whole range
        t = dma.copy.async a.chunkat(p, k) => local;
      }
    }
  }
}

__co__ void bodies(s32 [4, 8] a, s32 [4, 8] b) {
  parallel p by 4 {
    foreach k in [8] : pipelined(2) {      // expect-error: needs an asynchronous copy into a new buffer
      t = dma.copy a.chunkat(p, k) => local;
    }
    foreach k in [8] : pipelined(2) {
      int j = (k + 1) % #k;
      t = dma.copy.async a.chunkat(p, j) => local;   // expect-error: before the body defines 'j'
    }
    foreach k in [8] : pipelined(2) {
      local s32 [t.span] u;                // expect-error: 't' is used in the pipelined loop before its copy
      t = dma.copy.async a.chunkat(p, k) => local;
    }
    foreach k in [8] : pipelined(3) {
      t = dma.copy.async a.chunkat(p, k) => local;
      if (k > 4) break;                    // expect-error: 'break' cannot leave a pipelined loop's step
      dma.copy t.data => b.chunkat(p, k);
    }
  }
}
