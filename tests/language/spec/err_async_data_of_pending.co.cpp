// Only the shape of a pending copy's destination may be used before the wait: its data
// may not, also when it is then only passed on whole.
__device__ void k(int *x, int n) {}

__co__ void f(s32 [4, 8] a) {
  parallel p by 4 {
    g = dma.copy.async a.chunkat(p, _) => local;
    int n = |g.data.span|;
    call k(g.data, n); // expect-error: 'g.data' is read before 'wait g'
    wait g;
  }
}
