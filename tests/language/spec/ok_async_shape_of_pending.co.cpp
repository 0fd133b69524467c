// The shape of a pending copy's destination is known when the copy is issued: `f.span`,
// `f.data.span`, `|f.data|` and `f.data.span(0)` use no memory and may come before
// the wait (only the data itself may not; see err_async_read_before_wait).
__device__ void k(int *x, int n) {}

__co__ void f(s32 [4, 8] a) {
  parallel p by 4 {
    g = dma.copy.async a.chunkat(p, _) => local;
    local s32 [g.data.span] b;
    local s32 [g.span] c;
    int n = |g.data| + g.data.span(0) + |g|;
    wait g;
    call k(b, |b| + n);
    call k(c, |c|);
    call k(g.data, |g.data|);
  }
}
