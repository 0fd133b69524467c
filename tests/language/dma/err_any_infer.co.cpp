// 'dma.any' futures typed by 'swap'/'select'/'rotate' partners, and 'swap f, g;' without
// parentheses: what cannot be inferred or does not fit is rejected at the construct.
__device__ void k(int* a, int n) {}

__co__ void untyped(s32 [4, 8] src) {
  parallel p by 1 {
    a = dma.any;                                    // expect-error: the type of 'a = dma.any' cannot be inferred
    b = dma.any;                                    // expect-error: the type of 'b = dma.any' cannot be inferred
    swap(a, b);
    c = dma.any;
    d = dma.any;
    e = select(0, c, d);                            // expect-error: 'c' is 'dma.any' here: no copy has been assigned to it, nor to a future it is swapped or selected with, so it has no type to select
  }
}

__co__ void mismatched(s32 [4, 8] src, s32 [2, 8] two) {
  parallel p by 1 {
    g = dma.any;
    h = dma.copy.async src => local;
    swap g, h;
    wait g;
    foreach i in [2] {
      g = dma.copy.async two => local;              // expect-error: the copy assigned to 'g' is async local s32 [2, 8], but 'g' is async future of local s32 [4, 8]
    }
    m = dma.any;
    n = dma.copy src => local;
    o = dma.copy.async src => local;
    rotate(m, n, o);                                // expect-error: 'swap' needs two futures of the same storage, element type, parallel level and kind (async or not) ('local s32' and 'async local s32')
    wait o;
    local s32 [4, 8] named;
    q = dma.any;
    r = dma.copy.async src => local;
    swap(q, r);
    wait q, r;
    foreach i in [2] {
      q = dma.copy.async src => named;              // expect-error: 'q' was swapped or selected before this copy, which must therefore go to its own buffer
      wait q;
    }
  }
}

__co__ void forms(s32 [4, 8] src) {
  top = dma.any;                                    // expect-note: 'top' is defined here
  parallel p by 1 {
    x = dma.copy.async src => local;
    swap(x);                                        // expect-error: 'swap' takes two futures: 'swap(f, g);'
    swap x, x, x;                                   // expect-error: 'swap' takes two futures
    rotate(x);                                      // expect-error: 'rotate' takes two or more futures: 'rotate(f, g, h);'
    y = dma.copy.async src => local;
    s = select(p, x, y);
    swap(s, y);                                     // expect-error: 'swap' of a 'select' of futures ('s') is not supported yet
    wait x, y;
  }
  parallel p by 1 {
    z = dma.copy.async src => local;
    t = select(0, z, top);                          // expect-error: 'top = dma.any' would take the type of 'z' (async future of local s32 [4, 8]), but a 'dma.any' gets a buffer only of 'local' or 'shared' memory of the 'parallel' level where it is defined
    wait z;
  }
}
