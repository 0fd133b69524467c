// Rule (DESIGN.md 4): a bound that does not divide its (literal) dimension is a
// compile-time error.
__co__ void not_divisible(s32 [6, 17, 128] a) {
  parallel p by 6 {
    with index in [4, 4] {
      foreach index {
        x = dma.copy a.chunkat(p, index) => local;    // expect-error: dimension 1 of 'a' (17) is not divisible by the bound of 'index' (4)
      }
    }
    with {i, j} in [17, 3] {
      foreach i, j {
        y = dma.copy a.chunkat(p, i, j) => local;     // expect-error: dimension 2 of 'a' (128) is not divisible by the bound of 'j' (3)
      }
    }
  }
  parallel q by 4 {
    z = dma.copy a.chunkat(q, _, _) => local;         // expect-error: dimension 0 of 'a' (6) is not divisible by the bound of 'q' (4)
  }
}
