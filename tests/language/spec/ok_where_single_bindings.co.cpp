// Where-binding between two single-name bindings (`i in [4]` binds a one-element
// ituple). Regression: this used to be an internal compiler error.
__co__ void where_single(s32 [4, 4] a) {
  parallel p by 1 {
    with i in [4], j in [4] where i <-> j {
      foreach i {
        x = dma.copy a.chunkat(i, j) => local;   // j is i here: no "outside a foreach" warning
      }
    }
  }
}
