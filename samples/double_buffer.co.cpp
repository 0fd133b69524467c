// A double-buffered pipeline: while tile k is computed, the copy of tile k+1 is
// already in flight. `cur` holds the tile being computed, `nxt` the one landing;
// `swap(cur, nxt)` rotates the two buffers at the end of each iteration.
// (`(k + 1) % #k` keeps k's bound and is range-checked; the last iteration prefetches
// tile 0 again, which the final `wait cur` absorbs.)
#include <cstdlib>
#include <iostream>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  extern "C" void scale_add(const int* in, int* out, int n) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * 3 + 1;
  }
} // end of __cok__

__co__ s32 [4, 8, 64] double_buffered(s32 [4, 8, 64] src) {
  s32 [src.span] out;
  parallel p by 4 {
    with k in [8] {
      cur = dma.copy.async src.chunkat(p, k, _) => local;   // prologue: tile 0
      foreach k {
        nxt = dma.copy.async src.chunkat(p, (k + 1) % #k, _) => local;
        wait cur;
        local s32 [cur.span] res;
        call scale_add(cur.data, res, |cur.span|);
        dma.copy res => out.chunkat(p, k, _);
        swap(cur, nxt);
      }
      wait cur;
    }
  }
  return out;
}

int main() {
  static int src[4][8][64];
  for (int p = 0; p < 4; ++p)
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 64; ++i) src[p][k][i] = p * 1000 + k * 100 + i;
  auto res = double_buffered(croktile::make_spanview<3>(&src[0][0][0], {4, 8, 64}));
  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';
  for (int p = 0; p < 4; ++p)
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 64; ++i)
        if (res[p][k][i] != src[p][k][i] * 3 + 1) {
          std::cerr << "mismatch at [" << p << "][" << k << "][" << i << "]: " << res[p][k][i] << "\n";
          return EXIT_FAILURE;
        }
  std::cout << "Test Passed\n";
}
