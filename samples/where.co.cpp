// where: a blocked, batched matrix multiply written with spec 4's where-binding
//   with {m, n} in [M, N], {n_p, k} in [N_P, K] where n_p <-> n
//
// `a` is tiled into M x N blocks indexed (m, n) and `b` into N_P x K blocks indexed
// (n_p, k). Block (m, k) of the product is the sum over the shared reduction index of
// a(m, n) * b(n_p, k) with n_p == n. The `where` clause makes n_p an alias of n, so
// `foreach n` walks both and every product pairs matching blocks. Without the binding
// (n_p independent, iterated on its own or left at 0) the sum would pair a(m, n) with
// the wrong blocks of b and the host check against the plain triple loop would fail.
#include <cstdlib>
#include <iostream>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  // c[bm][bk] += a[bm][bn] * b[bn][bk], row-major
  extern "C" void block_mma(int* a, int* b, int* c, int bm, int bn, int bk) {
    for (int i = 0; i < bm; ++i)
      for (int j = 0; j < bk; ++j) {
        int acc = 0;
        for (int t = 0; t < bn; ++t) acc += a[i * bn + t] * b[t * bk + j];
        c[i * bk + j] += acc;
      }
  }

  extern "C" void zero(int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = 0;
  }
} // end of __cok__

// a: [batch, 3 * 4, 4 * 5], b: [batch, 4 * 5, 2 * 6] -> [batch, 12, 12]
__co__ s32 [2, 12, 12] batched_matmul(s32 [2, 12, 20] a, s32 [2, 20, 12] b) {
  s32 [2, 12, 12] c;
  parallel p by 2 {  // one batch per instance
    with {m, n} in [3, 4], {n_p, k} in [4, 2] where n_p <-> n {
      foreach m, k {
        local s32 [1, 4, 6] acc;
        call zero(acc, |acc.span|);
        foreach n {
          ta = dma.copy a.chunkat(p, m, n) => local;    // [1, 4, 5]
          tb = dma.copy b.chunkat(p, n_p, k) => local;  // [1, 5, 6]; n_p is n here
          call block_mma(ta.data, tb.data, acc, ta.span(1), ta.span(2), tb.span(2));
        }
        dma.copy acc => c.chunkat(p, m, k);
      }
    }
  }
  return c;
}

int main() {
  const int B = 2, M = 12, N = 20, K = 12;
  static croktile::s32 a[B][M][N], b[B][N][K];
  for (int s = 0; s < B; ++s) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) a[s][i][j] = (s * 5 + i * 3 + j * 7) % 13 - 6;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < K; ++j) b[s][i][j] = (s * 11 + i * 5 + j * 2) % 9 - 4;
  }

  auto res = batched_matmul(croktile::make_spanview<3>(&a[0][0][0], {2, 12, 20}),
                            croktile::make_spanview<3>(&b[0][0][0], {2, 20, 12}));

  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';

  for (int s = 0; s < B; ++s)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < K; ++j) {
        int expect = 0;
        for (int t = 0; t < N; ++t) expect += a[s][i][t] * b[s][t][j];
        if (res[s][i][j] != expect) {
          std::cerr << "where: res[" << s << "][" << i << "][" << j << "] = " << res[s][i][j]
                    << ", expected " << expect << "\n";
          return 1;
        }
      }
  std::cout << "Test Passed" << std::endl;
  return 0;
}
