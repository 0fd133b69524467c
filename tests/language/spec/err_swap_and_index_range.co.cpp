// `swap(f, g)` (double buffering) and computed chunkat indices (`k + 1`) are checked.
__device__ void k(int *a, int n) {}
__co__ void f(s32 [4, 8] a, s32 [4, 16] b) {
  int n = 3;
  parallel p by 4 {
    with i in [8] {
      x = dma.copy.async a.chunkat(p, i) => local;
      y = dma.copy.async b.chunkat(p, _) => local;
      swap(x, y); // expect-error: shape
      swap(x, n); // expect-error: 'swap' takes futures, but 'n' is an int
      swap(x); // expect-error: 'swap' takes two futures
      // expect-warning@+1: 'i' is used outside a 'foreach' over it
      z = dma.copy a.chunkat(p, i + 8) => local; // expect-error: chunkat index is 8, outside its bound [0, 8)
      local s32 [1, 1] named;
      w = dma.copy.async a.chunkat(p, i) => named;
      swap(x, w); // expect-error: 'swap' needs futures of copies into 'local' or 'shared'
      wait x, y, w;
      call k(x.data, 1);
    }
  }
}
