// Rule (DESIGN.md 4): DMA copies without reshaping; a named destination of provably
// different shape (or element type) is an error.
__co__ void dma_shape(s32 [6, 16] a, f32 [6, 16] fa) {
  parallel p by 6 {
    local s32 [4, 4] wrong;
    local s32 [1, 16] right;
    local s32 [16] flat;
    dma.copy a.chunkat(p, _) => wrong;    // expect-error: the copied chunk has shape [1, 16], but the destination has shape [4, 4]
    dma.copy a.chunkat(p, _) => right;    // fine
    dma.copy a.chunkat(p, _) => flat;     // expect-error: (rank 2 vs 1)
    dma.copy fa.chunkat(p, _) => right;   // expect-error: 'dma.copy' does not convert
  }
}
