// matmul: spec 3's "Instantiate the Function Template for Call" example made
// into a complete, numerically correct matrix multiply, for every target.
//
// Shows: `shared` buffers owned by one instance of `parallel p`, chunkat with
// `_` for a whole dimension (`lhs.chunkat(p, _)`, `rhs.chunkat(_, q)`), a call
// of a function template whose arguments (`buffer.span(0)`, `buffer.span(1)`, 72)
// are compile-time constants (on factor, whose device functions have C linkage, build
// with -kt: it wraps matmul_kernel<16, 4, 72> in an extern "C" function), and
// `dma.copy buffer => output.chunkat(p, q)`. The spec's snippet pairs lhs row block p
// with rhs column block p only (the 6 diagonal [16, 4] blocks, never stored); here
// instance p walks all 6 rhs column blocks q, so every block (p, q) is stored.
#include <cstdlib>
#include <iostream>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  // C[M][N] = A[M][K] * B[K][N], all row-major; writes (never accumulates into) C.
  template <int M, int N, int K>
  void matmul_kernel(int* lhs, int* rhs, int* output) {
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        int acc = 0;
        for (int k = 0; k < K; ++k) acc += lhs[m * K + k] * rhs[k * N + n];
        output[m * N + n] = acc;
      }
  }
} // end of __cok__

__co__ auto matmul(s32 [96, 72] lhs, s32 [72, 24] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel p by 6 {
    shared s32 [output.span / #p] buffer;  // shape: [16, 4]
    lhs_load = dma.copy lhs.chunkat(p, _) => shared;  // rows of block p: [16, 72]
    with q in [6] {
      foreach q {
        rhs_load = dma.copy rhs.chunkat(_, q) => shared;  // columns of block q: [72, 4]
        call matmul_kernel<buffer.span(0), buffer.span(1), 72>(lhs_load.data, rhs_load.data, buffer);
        dma.copy buffer => output.chunkat(p, q);
      }
    }
  }
  return output;
}

int main() {
  static croktile::s32 a[96][72];
  static croktile::s32 b[72][24];
  unsigned seed = 12345u;  // small pseudo-random values, no overflow
  auto next = [&seed] { seed = seed * 1103515245u + 12345u; return int((seed >> 16) % 19) - 9; };
  for (auto& row : a) for (auto& x : row) x = next();
  for (auto& row : b) for (auto& x : row) x = next();

  auto res = matmul(croktile::make_spanview<2>(&a[0][0], {96, 72}),
                    croktile::make_spanview<2>(&b[0][0], {72, 24}));

  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';

  if (res.shape()[0] != 96 || res.shape()[1] != 24) {
    std::cerr << "matmul: result shape is [" << res.shape()[0] << ", " << res.shape()[1]
              << "], expected [96, 24]\n";
    return 1;
  }
  for (int i = 0; i < 96; ++i)
    for (int j = 0; j < 24; ++j) {
      int expect = 0;
      for (int k = 0; k < 72; ++k) expect += a[i][k] * b[k][j];
      if (res[i][j] != expect) {
        std::cerr << "matmul: res[" << i << "][" << j << "] = " << res[i][j] << ", expected "
                  << expect << "\n";
        return 1;
      }
    }
  std::cout << "Test Passed" << std::endl;
  return 0;
}
