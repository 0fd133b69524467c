// Backslash-newline joins lines before tokenising (C++ translation phase 2): between
// tokens of tileflow code it is whitespace, and a `//` comment ending in one goes on.
__device__ void k(int *x, int n) {}

__co__ void f(s32 [4, 8] a) { // this comment \
  goes on here
  int b = 1 + \
 2;
  parallel p by \
    4 {
    g = dma.copy a.chunkat(p, _) => local;
    call k(g.data, b + \
      |g.data|);
  }
}
