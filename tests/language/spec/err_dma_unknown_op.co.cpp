// Syntax/sema: the only DMA operation is `dma.copy`, its only modifier `.async`.
__co__ void dma_ops(s32 [4] a) {
  parallel p by 1 {
    f = dma.move a => local;          // expect-error: unknown DMA operation 'dma.move'; expected 'dma.copy'
    g = dma.copy.sync a => local;     // expect-error: unknown DMA modifier '.sync'; expected '.async'
    h = dma.copy a => local;          // fine
    wait f;                           // no follow-on error for the failed copy
  }
}
