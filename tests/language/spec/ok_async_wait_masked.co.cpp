// Rule (DESIGN.md 4, issue #11): after a masked `wait`, a `wait` outside the mask makes
// the data ready for every instance (waiting a finished copy again does nothing); a
// `foreach` without a condition runs at least once, so a `wait` in its body counts after
// it; a condition that is always true masks nothing.
__device__ void kernel(int *x, int n) {}

__co__ s32 [4, 8] masked_then_all(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 4 {
    with {q, k} in [1, 2] {
      f = dma.copy.async a.chunkat(p, _) => local;
      foreach q if (p == 0) {
        wait f;
        call kernel(f.data, 8);
      }
      wait f;
      dma.copy f.data => out.chunkat(p, _);
      g = dma.copy.async a.chunkat(p, _) => local;
      foreach k {
        wait g;
      }
      call kernel(g.data, 8);
      h = dma.copy.async a.chunkat(p, _) => local;
      foreach q if (true) {
        wait h;
      }
      call kernel(h.data, 8);
      foreach q if (p == 1) {
        m = dma.copy.async a.chunkat(p, _) => local;   // issued and waited inside the mask
        wait m;
        call kernel(m.data, 8);
      }
    }
  }
  return out;
}
