// Spec 4, "Experimental: Optional Where-Binding for within", with literal bounds and a
// use: inside the block n_p and n are the same value, so a chunk indexed by n_p matches
// one indexed by n. Added: the function, data, the loop and the copies.
__co__ void where_binding_use(s32 [8, 16] lhs, s32 [16, 4] rhs) {
  parallel p by 1 {
    with {m, n} in [8, 16], {n_p, k} in [16, 4]
    where n_p <-> n {
      foreach m, n, k {
        a = dma.copy lhs.chunkat(m, n) => local;
        b = dma.copy rhs.chunkat(n_p, k) => local;
      }
    }
  }
}
