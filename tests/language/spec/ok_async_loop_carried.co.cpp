// Rule (DESIGN.md 4, issue #11): loops whose copies are waited before the next iteration
// touches their destination are accepted: the wait later in the same iteration, a read
// before the copy that the previous iteration waited, and double buffering with `swap`
// (the shape of samples/double_buffer.co.cpp).
__device__ void kernel(int *x, int n) {}

__co__ s32 [4, 8, 64] loops(s32 [4, 8, 64] src) {
  s32 [src.span] out;
  parallel p by 4 {
    local s32 [1, 1, 64] buf;
    with k in [8] {
      foreach k {
        call kernel(buf, 64);
        f = dma.copy.async src.chunkat(p, k, _) => buf;
        call kernel(out, 64);
        wait f;
      }
      cur = dma.copy.async src.chunkat(p, k, _) => local;
      foreach k {
        nxt = dma.copy.async src.chunkat(p, (k + 1) % #k, _) => local;
        wait cur;
        call kernel(cur.data, |cur.span|);
        dma.copy cur.data => out.chunkat(p, k, _);
        swap(cur, nxt);
      }
      wait cur;
      foreach k {
        g = dma.copy.async src.chunkat(p, k, _) => local;
        h = dma.copy.async src.chunkat(p, k, _) => buf;
        wait g, h;
        call kernel(buf, 64);
      }
    }
  }
  return out;
}
