// Spanned operations that the reference compiler rejects, and those not supported yet.
__co__ void reshape(s32 [32, 18, 9] a) {
  f32 [a.span + 1] b;
  c = a.span_as([288, 18]);                       // same size
  d = a.span_as(576, 1, 3, 3);                    // same size
  e = b.span_as([288, 18]);  // expect-error: span_as cannot reshape [33, 19, 10] (6270 elements) to [288, 18] (5184 elements)
  parallel p by 2 {
    with x in [3] {
      foreach x {
        dma.copy a.chunkat(p, x, _).span_as(864) => local;  // expect-warning: 'span_as' of non-contiguous data ([16, 6, 9] of [32, 18, 9]): only a 'dma.copy' may read it
      }
    }
  }
}

__co__ void tiles(f32 [16, 32, 64] a) {
  parallel p by 2 {
    with idx in [16, 2] {
      foreach idx { dma.copy a.chunk(16, 2, 2).at(idx, p) => shared; }
      foreach idx { dma.copy a.subspan(2, 16, 32).at(idx, p) => shared; }  // expect-warning: index may be out of bounds for dimension 0: at its largest value 15 the tile is elements [30, 32) of 16
      dma.copy a.chunk(32, 2, 2).at(0, 0, p) => shared;  // expect-error: tiling factor exceeds data size (32 > 16) in dimension 0
      dma.copy a.subspan(8, 33, 1).at(0, 0, p) => shared;  // expect-error: subspan too large for dimension 1 (33 > 32)
      dma.copy a.subspan(8, 16).at(0, p) => shared;  // expect-error: data rank (3) must be consistent with the count of subspan dimensions (2)
      dma.copy a.subspan(8, 16, 32).at(0, p) => shared;  // expect-error: data rank (3) must be consistent with index count (2)
      dma.copy a.subspan(8, 16, 32).at(2, 0, p) => shared;  // expect-error: index out of bounds for dimension 0
      dma.copy a.chunk(2, 2, 2).at(0, 0, 2) => shared;  // expect-warning: index out of bounds for dimension 2: elements [64, 96) of 64; the tile runs on
      dma.copy a.at(0, 0, 0) => shared;  // expect-error: '.at(...)' must follow '.chunk(...)' or '.subspan(...)'
      dma.copy a.subspan(1, 1, 1).from(0, 0, 0) => shared;  // expect-error: '.from(...)' must follow '.view(...)'
      f = dma.copy.async a.view(2, 2, 2 : 64, 2, 1).from(0, 0, 0) => shared; wait f;  // expect-error: 'dma.copy.async' of a strided view is not supported yet
      dma.copy a.view(2, 2 : 2048, 1).from(15, 0) => shared;  // expect-error: the view reaches element 32769 of data with 32768 elements
      dma.copy a.view(2, 2 : 64, 1, 3) => shared;  // expect-error: a view of 2 dimensions needs 2 strides, not 3
      dma.copy a.subspan(2, 2, 2).step(1, 0, 1).at(0, 0, 0) => shared;  // expect-error: step 1 must be positive, not 0
      dma.copy a.chunk(3, 2, 2).at(0, 0, p) => shared;  // expect-error: dimension 0 of the data (16) is not divisible by the tiling factor (3)
    }
  }
}

__co__ void decls(s8 [4, 8] i, int n) {
  s32 [4] g{n};  // expect-error: the initial value of 'g' must be a constant
  parallel p by 1 {
    shared s8 [4, 8] s0{i};  // expect-error: 's0' is spanned data: its initial value must be a scalar
    local s32 [4] arr[n];  // expect-error: the length of the array 'arr' must be a positive integer constant
    local s32 [4] two[2], three[3]{1};
    dma.copy two[2] => three[0];  // expect-error: index 2 is out of range for an array of 2 buffers
    dma.copy two[p] => three[0];  // expect-error: an element of an array of buffers is selected by an integer constant
    dma.copy two[0][1] => three[0];  // expect-error: '[...]' after spanned data that is not an array of buffers
  }
}

__co__ void storage(u8 [3, 2] a) {
  local f32 [1] b;  // expect-error: 'local' data can only be declared inside a 'parallel' block
  shared s16 [32, 7] c;  // expect-error: 'shared' data can only be declared inside a 'parallel' block
  global s8 [2, 2] d;
  parallel p by 3 {
    local f32 [1] e;
    shared s16 [32, 7] f;
    global s8 [2, 2] g;  // expect-error: 'global' data must be declared outside 'parallel'
  }
}

__co__ void shapes(s32 [?, 4] a) {
  s32 [?, 4] b;  // expect-error: '?' (a dimension known at run time) may only stand in a parameter's shape
  mdspan m1 : {7, 8};                             // an ituple literal is an expression (README)
  m2 : [a.span(0), 0];  // expect-error: dimension 1 of mdspan 'm2' must be positive, not 0
}

__co__ void align(f32 [128, 512] a) {
  int u = __alignup(a.span(0), 6) + __aligndown(a.span(0) / 3, 32);   // 132 + 32
  b = {6, 8};
  parallel p by 2 { dma.copy a.view([b]).from(p, 0) => local; }   // 'view([b])': the ituple's elements
  int w = __alignup(5, 0);  // expect-error: '__alignup' needs a positive alignment, not 0
  int z = __aligndown(5);  // expect-error: '__aligndown' takes two integers, not 1 argument
}
