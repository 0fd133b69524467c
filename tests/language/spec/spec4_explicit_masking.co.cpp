// Spec 4, "Explicit Masking/Condition": `foreach q if (p == 0)`. Verbatim.
__co__  void foo() {
  parallel p by 6 {
    with q in [2] {
      foreach q if (p == 0) {
        // this iteration only work for parallel thread 0
      }
    }
  }
}
