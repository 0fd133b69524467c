// Spec 2, "Bounded-ituple/integer and 'chunkat' Operation": verbatim inside a __co__
// function. The spec has no `foreach index` here, so 'index' is read outside a loop over
// it: a bare `with` variable used as a chunkat index outside its foreach names the
// first chunk (index 0), without a warning.
__co__ void chunkat_example() {
  global f32 [6, 10, 100] data;
  parallel p by 6 {
    with index = {x, y} in [10, 10] {
      // for every data move, the stride into 'data' is
      // stride = p*1000 + x * 100 + y * 10
      //
      // for each chunk, the dimensioned size for the movement is {1, 1, 10}
      f = dma.copy data.chunkat(p, index) => local;
    }
  }
}
