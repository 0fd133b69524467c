// Spec 2, "Bounded-ituple/integer and 'chunkat' Operation", with the loop the comment
// describes ("for every data move, the stride ... p*1000 + x * 100 + y * 10").
// Added: `foreach index` around the copy; the rest is verbatim.
__co__ void chunkat_loop() {
  global f32 [6, 10, 100] data;
  parallel p by 6 {
    with index = {x, y} in [10, 10] {
      foreach index {
        // for each chunk, the dimensioned size for the movement is {1, 1, 10}
        f = dma.copy data.chunkat(p, index) => local;
      }
    }
  }
}
