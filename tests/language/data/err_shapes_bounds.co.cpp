// Errors of the reference's shape arithmetic, scopes, bounded picks, bound moves and
// packing copies (issue #13, "mdspans, i-tuples and bounded arithmetic").
__device__ void k(int *x) {}

__co__ void shapes(s32 [4, 6] a, int n) {
  sp : [2, 3];
  x = sp + a.span;                  // expect-error: '+' of two mdspans is not defined
  y = {1, 2, 3} * sp;               // expect-error: '*' between an ituple of 3 elements and an mdspan of rank 2: their lengths must be equal
  z = sp % [1, 0];                  // expect-error: division by zero
  parallel p by 2 {
    s : [1, 2];                     // an mdspan of this scope ...
    s : [2, 2];                     // expect-error: mdspan 's' is already defined
    sp : [4];                       // ... and one of an outer scope's name: fine
  }
  int m = 3;
  m = 4;                            // expect-error: only mutables can be re-assigned
  w = a [(0), 1];                   // expect-error: '[...]' after spanned data that is not an array of buffers
  println(&a.at(0, 0));             // expect-error: the address of a value ('&') is not supported
}

__co__ void bounds(s32 [12] b, int n) {
  parallel q by 4 {
    with {y} in [4] {
      dma.copy b.chunkat(y(4)) => local;        // expect-error: 'y(4)' is 4, outside the bound of 'y' [0, 4)
      dma.copy b.chunkat(y(-5)) => local;       // expect-error: 'y(-5)' is -1, outside the bound of 'y' [0, 4)
      dma.copy b.chunkat(y(1, 2)) => local;     // expect-error: a value of bounded 'y' is picked with one index
      dma.copy b.chunkat(y(-1) #- 1) => local;  // expect-error: chunkat index is 3, outside its bound [0, 3)
      dma.copy b.chunkat(q #- 4) => local;      // expect-error: '#-' leaves a bound of 0; a bound must be positive
      dma.copy b.chunkat(q #+ y) => local;      // expect-error: '#+' moves a bound by an integer, not by a bounded integer
      // expect-warning@-1: 'y' is used outside a 'foreach' over it
      int j = n #- 1;                           // expect-error: '#-' moves the bound of a bounded integer, not of an unbounded int
    }
  }
}

__co__ void packs(s32 [4, 6] a) {
  s32 [2, 12] out;
  parallel p by 2 {
    l = a.chunkat(_, p).span_as(12);            // expect-error: cannot define 'l' from non-contiguous data reshaped by 'span_as'
    // expect-warning@-1: 'span_as' of non-contiguous data ([4, 3] of [4, 6])
    m = l.span;                                 // no error: 'l' is declared, as an error
    dma.copy a.chunkat(_, p).span_as(2, 6) => out.chunkat(_, p);   // expect-error: a copy that packs non-contiguous data needs a contiguous destination
    // expect-warning@-1: 'span_as' of non-contiguous data
    dma.transp<1, 0> a.chunkat(_, p).span_as(6, 2) => local;        // expect-error: 'dma.transp' of non-contiguous data reshaped by 'span_as' is not supported yet
    // expect-warning@-1: 'span_as' of non-contiguous data
    call k(a.chunkat(_, p).span_as(12));        // expect-error: non-contiguous data reshaped by 'span_as'
    // expect-warning@-1: 'span_as' of non-contiguous data
  }
}
