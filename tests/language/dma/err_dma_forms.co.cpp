// The reference's DMA forms rejected: transpose layouts and paddings that do not fit
// the source, 'select' of values of different types or out of range, 'dma.any' misuse,
// copies into a 'select' read before their wait, and the forms not supported yet.
__device__ void k(int* a, int n) {}

__co__ void transforms(s32 [2, 16] src, f16 [4, 4] h) {
  s32 [16, 2] d0;
  s32 [4, 8] d1;
  parallel p by 1 {
    dma.transp<1, 0, 2> src => d0;                  // expect-error: the 'dma.transp' layout has 3 dimensions, but the source has rank 2
    dma.transp<1, 1> src => d0;                     // expect-error: the 'dma.transp' layout <1, 1> is not a permutation of 0..1
    dma.transp<1, 0> src => d1;                     // expect-error: the copied chunk has shape [16, 2], but the destination has shape [4, 8]
    dma.pad<{1, 0}, {1, 0, 3}, {0, 0}, 4> src => local;   // expect-error: the high padding of 'dma.pad' has 3 elements, but the source has rank 2
    dma.pad<{1}, {1}, {0}, 4> src => local;         // expect-error: the low padding of 'dma.pad' has 1 element, but the source has rank 2
    dma.pad<{1, 1}, {1, 1}, {1, 0}, 4> src => local; // expect-error: 'dma.pad' with a middle padding other than 0 is not supported yet
    dma.pad<{1, 1}, {1, 1}, {0, 0}, 0> h => local;  // expect-error: 'dma.pad' of 'f16' data is not supported yet
    dma.transp src => d0;                           // expect-error: 'dma.transp' needs its configuration
    dma.copy<1, 0> src => d0;                       // expect-error: 'dma.copy' takes no '<...>' configuration
    f = dma.copy.sp<2:4> src => local;              // expect-error: structured-sparsity copies ('dma.copy.sp<2:4>') are not supported yet
  }
}

__co__ void placeholders(s32 [4, 8] src) {
  parallel p by 1 {
    unused = dma.any;                               // expect-error: 'unused = dma.any' is defined but never used
    early = dma.any;
    call k(early.data, 1);                          // expect-error: 'early' is 'dma.any' here: no copy has been assigned to it, nor to a future it is swapped or selected with, so it has no data
    early = dma.copy.async src => local;
    early = dma.copy.async src => local;            // expect-error: future 'early' is already defined
    // expect-note@-4: previous definition is here
    wait early;
    q = dma.any;
    {
      q = dma.copy.async src => local;
      r = dma.copy.async src => local;
      swap(q, r);                                   // expect-error: 'swap' of futures defined in different scopes ('q' and 'r')
      wait q, r;
    }
    x = dma.any;
    y = x;                                          // expect-error: cannot define 'y' from future
  }
}

__co__ void selects(s32 [4, 8] src, int n) {
  parallel p by 1 {
    local s32 [4, 8] a;
    local s32 [8, 4] b;
    local f32 [4, 8] c;
    shared s32 [4, 8] d;
    local s32 [4, 8] e;
    x0 = select(0, a, b);                           // expect-error: 'select' needs values of one type: local s32 [8, 4] is not local s32 [4, 8]
    x1 = select(0, a, c);                           // expect-error: 'select' needs values of one type: local f32 [4, 8] is not local s32 [4, 8]
    x2 = select(0, a, d);                           // expect-error: 'select' needs values of one type: shared s32 [4, 8] is not local s32 [4, 8]
    x3 = select(2, a, e);                           // expect-error: the selector of 'select' is 2, outside [0, 2)
    x4 = select(-1, a, e);                          // expect-error: the selector of 'select' is -1, outside [0, 2)
    x5 = select(src, a, e);                         // expect-error: the selector of 'select' must be an integer, not spanned data
    x6 = select(n, a, 3);                           // expect-error: 'select' chooses among spanned data or futures, not int
    f = dma.copy.async src => select(n % 2, a, e);
    call k(a, 1);                                   // expect-error: 'f' is read before 'wait f'
    // expect-note@-2: the asynchronous copy 'f' is issued here
    wait f;
    dma.copy src => local after a;                  // expect-error: 'after' takes futures, not spanned data
  }
}
