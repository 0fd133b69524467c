// A `with` variable used outside a `foreach` over it has its first value, 0. As a bare
// chunkat index that names the first chunk (a pipeline's prologue); anywhere else it is
// probably a mistake, so it is warned about.
__device__ void k(int *a, int n) {}
__co__ void f(s32 [4, 8] a) {
  parallel p by 4 {
    with i in [8] {
      first = dma.copy a.chunkat(p, i) => local;
      int z = i + 1; // expect-warning: 'i' is used outside a 'foreach' over it; its value is 0 here
      call k(first.data, z);
    }
  }
}
