// Rule (DESIGN.md 4): a buffer that is the destination of a pending asynchronous copy
// may not be passed to `call`, copied from or copied into before the `wait`.
__device__ void kernel(int *x, int n) {}

__co__ void pending_dest(s32 [4, 8] a, s32 [4, 8] out) {
  parallel p by 4 {
    local s32 [1, 8] buf;
    f = dma.copy.async a.chunkat(p, _) => buf;
    call kernel(buf, 8);                     // expect-error: 'f' is read before 'wait f'
    dma.copy buf => out.chunkat(p, _);       // expect-error: 'f' is read before 'wait f'
    dma.copy a.chunkat(p, _) => buf;         // expect-error: 'f' is written before 'wait f'
    wait f;
    call kernel(buf, 8);                     // fine after the wait
  }
}
