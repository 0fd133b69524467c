// Rule (DESIGN.md 4): chunkat indices must cover exactly the rank of the data: too many
// and too few are errors.
__co__ void chunkat_rank(s32 [6, 8] a, s32 [6, 8, 16] b) {
  parallel p by 6 {
    with {x, y} in [2, 4] {
      foreach x, y {
        u = dma.copy a.chunkat(p, x, y) => local;  // expect-error: chunkat has 3 indices, but 'a' has only 2 dimensions
        v = dma.copy b.chunkat(p, x) => local;     // expect-error: chunkat has 2 indices for the 3 dimensions of 'b'
        w = dma.copy b.chunkat(p) => local;        // expect-error: chunkat has 1 index for the 3 dimensions of 'b'
        ok = dma.copy b.chunkat(p, x, y) => local; // fine
      }
    }
  }
}
