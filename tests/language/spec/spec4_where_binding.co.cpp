// Spec 4, "Experimental: Optional Where-Binding for within": the where-clause on its own
// line. Added: the enclosing __co__ function with M, N, N_P, K as integer parameters.
__co__ void where_binding(int M, int N, int N_P, int K) {
  with {m, n} in [M, N], {n_p, k} in [N_P, K]
  where n_p <-> n {
    // matmul implements with m, n, K. 'n_p' always refers to the same value as 'n'.
  }
}
