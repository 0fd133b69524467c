// Rule (spec 2): a `dma.copy` without `.async` is synchronous: "the wait operation on 'f'
// is not needed and cannot be performed". `wait` also needs a future at all.
__co__ void wait_sync(f32 [10] data) {
  parallel p by 1 {
    f = dma.copy data => local;
    wait f;                    // expect-error: cannot wait on 'f': it comes from a synchronous 'dma.copy'
    g = dma.copy.async data => local;
    wait g;                    // fine
    wait p;                    // expect-error: 'wait' needs a future of 'dma.copy.async', but 'p' is a bounded variable
    wait nothing;              // expect-error: 'nothing' was not declared in this scope
  }
}
