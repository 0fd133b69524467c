// masking: two-level `parallel` whose result depends on spec 4's masking.
//
// Instance p of the outer level owns a `shared` accumulator `acc` (one row of
// N). Around the inner `parallel q by Q`:
//   * before it, outer-level code sets acc = p * 1000 + 1 (call init_row), and
//   * inside it, each inner thread q squares its slice src[p][q] into its own
//     row q of the shared `partial` (no two threads write the same bytes);
//   * after it, outer-level code *accumulates*: acc += sum over q of partial[q]
//     (call accumulate_rows), then, masked explicitly with `foreach r if (p == 0)`,
//     instance 0 alone adds 7 on each of R rounds.
// Why the result proves the masking:
//   - Implicit masking: the outer-level calls sit beside an inner `parallel`,
//     so they run as if guarded by `if (q == 0)`: once per outer instance. If
//     they ran once per inner thread, accumulate_rows would add the column
//     sums Q = 4 times (acc = base + 4 * sum), not once (and concurrently, a
//     race); the host check below would see the difference in every element.
//   - Barriers: entering the inner `parallel` is a barrier, so every inner thread
//     sees the initialised acc, and leaving it is one, so accumulate_rows sees
//     every row of `partial` the inner threads wrote.
//   - Explicit masking: only row p == 0 of the result carries the extra R * 7.
#include <cstdlib>
#include <iostream>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  extern "C" void init_row(int* acc, int n, int value) {
    for (int i = 0; i < n; ++i) acc[i] = value;
  }

  extern "C" void square(int* in, int* out, int n) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * in[i];
  }

  // acc[j] += sum over r of rows[r][j]; adding, not storing, is what makes
  // running it more than once visible.
  extern "C" void accumulate_rows(int* acc, int* rows, int nrows, int n) {
    for (int r = 0; r < nrows; ++r)
      for (int j = 0; j < n; ++j) acc[j] += rows[r * n + j];
  }

  extern "C" void add_scalar(int* acc, int n, int value) {
    for (int i = 0; i < n; ++i) acc[i] += value;
  }
} // end of __cok__

__co__ s32 [3, 8] masked(s32 [3, 4, 8] src) {
  s32 [3, 8] out;
  parallel p by 3 {
    shared s32 [1, 8] acc;       // one per outer instance p
    shared s32 [4, 8] partial;   // row q written by inner thread q

    // outer level, beside the inner parallel: as if masked to q == 0
    call init_row(acc, 8, p * 1000 + 1);

    parallel q by 4 {
      x = dma.copy src.chunkat(p, q, _) => local;   // [1, 1, 8]
      local s32 [1, 8] sq;
      call square(x.data, sq, 8);
      dma.copy sq => partial.chunkat(q, _);
    }

    // outer level again: runs once per p, after every q has finished
    call accumulate_rows(acc, partial, 4, 8);

    with r in [5] {
      foreach r if (p == 0) {     // explicit masking: instance 0 only
        call add_scalar(acc, 8, 7);
      }
    }
    dma.copy acc => out.chunkat(p, _);
  }
  return out;
}

int main() {
  const int P = 3, Q = 4, N = 8, R = 5;
  croktile::s32 src[P][Q][N];
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q)
      for (int j = 0; j < N; ++j) src[p][q][j] = (p * 7 + q * 3 + j) % 11 - 5;

  auto res = masked(croktile::make_spanview<3>(&src[0][0][0], {3, 4, 8}));

  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';

  for (int p = 0; p < P; ++p)
    for (int j = 0; j < N; ++j) {
      int expect = p * 1000 + 1;
      for (int q = 0; q < Q; ++q) expect += src[p][q][j] * src[p][q][j];
      if (p == 0) expect += R * 7;
      if (res[p][j] != expect) {
        std::cerr << "masking: res[" << p << "][" << j << "] = " << res[p][j] << ", expected "
                  << expect << "\n";
        return 1;
      }
    }
  std::cout << "Test Passed" << std::endl;
  return 0;
}
