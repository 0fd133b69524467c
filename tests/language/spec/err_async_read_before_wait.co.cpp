// Rule (DESIGN.md 4): `.async` returns a future that must be waited before its data is
// read.
__device__ void kernel(int *x, int n) {}

__co__ void read_before_wait(s32 [4, 8] a, s32 [4, 8] out) {
  parallel p by 4 {
    f = dma.copy.async a.chunkat(p, _) => local;
    call kernel(f.data, 8);                  // expect-error: 'f.data' is read before 'wait f'
    dma.copy f.data => out.chunkat(p, _);    // expect-error: 'f.data' is read before 'wait f'
    wait f;
    call kernel(f.data, |f.span|);           // fine after the wait
  }
}
