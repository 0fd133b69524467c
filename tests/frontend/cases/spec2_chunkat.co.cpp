// Spec 2, "Bounded-ituple/integer and 'chunkat' Operation": verbatim inside a __co__
// function. The spec has no `foreach index` here, so 'index' is read outside a loop over
// it: the frontend warns that its value is 0 there (one chunk per parallel instance).
__co__ void chunkat_example() {
  global f32 [6, 10, 100] data;
  parallel p by 6 {
    with index = {x, y} in [10, 10] {
      // for every data move, the stride into 'data' is
      // stride = p*1000 + x * 100 + y * 10
      //
      // for each chunk, the dimensioned size for the movement is {1, 1, 10}
      f = dma.copy data.chunkat(p, index) => local; // expect-warning: 'index' is used outside a 'foreach'
    }
  }
}
