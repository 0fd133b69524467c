// Spec 2, "The 'with-in' Block and 'where' Clause": where-binding n_p to n.
// Added: the enclosing __co__ function with M, N, N_P, K as integer parameters. N and N_P
// are runtime values, so their equality becomes a runtime check.
__co__ void with_where(int M, int N, int N_P, int K) {
  with {m, n} in [M, N], {n_p, k} in [N_P, K] where n_p <-> n {
  // matmul implements with m,n,K. n_p is no long useful.
  }
}
