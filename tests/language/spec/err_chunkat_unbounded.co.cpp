// Rule (spec 2): chunkat indices are bounded integers/ituples (from `parallel-by` or
// `with-in`) or '_'.
__co__ void chunkat_unbounded(s32 [6, 8] a, int i) {
  parallel p by 6 {
    x = dma.copy a.chunkat(p, i) => local;   // expect-error: chunkat index 'i' is not bounded
    ituple t = {1, 2};
    y = dma.copy a.chunkat(t) => local;      // expect-error: chunkat index 't' is not bounded
    z = dma.copy a.chunkat(p, 3) => local;   // expect-error: chunkat index is not bounded
    w = dma.copy a.chunkat(p, _) => local;   // fine
  }
}
