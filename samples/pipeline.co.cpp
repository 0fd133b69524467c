// pipeline: asynchronous copies (`dma.copy.async`) and `wait`.
//
// out = lhs * rhs + bias, element-wise, in tiles of 32. In each `foreach`
// iteration instance p issues three asynchronous loads (lhs, rhs and bias
// tiles, three futures in flight at once), waits for the first two with
// `wait l, r;`, multiplies them while the bias load may still be in flight,
// then waits for the bias (`wait b;`), adds it, and stores the tile with an
// asynchronous copy that it waits before the next iteration reuses anything.
//
// What the language cannot say yet: a true cross-iteration double buffer
// (issue the loads of tile i + 1, then compute tile i). A future is bound once
// in the scope of one iteration, so it cannot be carried into the next one,
// and chunkat only takes bounded indices, so `lhs.chunkat(p, i + 1)` cannot
// name the next tile. The overlap shown here is the one available: within an
// iteration, compute on the tiles that have arrived while another copy is in
// flight.
#include <cstdlib>
#include <iostream>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  extern "C" void mul(int* a, int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] * b[i];
  }

  extern "C" void add_into(int* c, int* b, int n) {
    for (int i = 0; i < n; ++i) c[i] += b[i];
  }
} // end of __cok__

__co__ s32 [4, 256] fma_tiles(s32 [4, 256] lhs, s32 [4, 256] rhs, s32 [4, 256] bias) {
  s32 [lhs.span] out;
  parallel p by 4 {
    with i in [8] {
      foreach i {
        l = dma.copy.async lhs.chunkat(p, i) => local;
        r = dma.copy.async rhs.chunkat(p, i) => local;
        b = dma.copy.async bias.chunkat(p, i) => local;
        local s32 [l.span] tile;

        wait l, r;                      // b may still be in flight
        call mul(l.data, r.data, tile, |l.span|);

        wait b;
        call add_into(tile, b.data, |b.span|);

        s = dma.copy.async tile => out.chunkat(p, i);
        wait s;
      }
    }
  }
  return out;
}

int main() {
  const int R = 4, C = 256;
  static croktile::s32 lhs[R][C], rhs[R][C], bias[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      lhs[i][j] = (i * 31 + j) % 17 - 8;
      rhs[i][j] = (i * 7 + j * 3) % 13 - 6;
      bias[i][j] = i * 1000 + j;
    }

  auto res = fma_tiles(croktile::make_spanview<2>(&lhs[0][0], {4, 256}),
                       croktile::make_spanview<2>(&rhs[0][0], {4, 256}),
                       croktile::make_spanview<2>(&bias[0][0], {4, 256}));

  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';

  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      int expect = lhs[i][j] * rhs[i][j] + bias[i][j];
      if (res[i][j] != expect) {
        std::cerr << "pipeline: res[" << i << "][" << j << "] = " << res[i][j] << ", expected "
                  << expect << "\n";
        return 1;
      }
    }
  std::cout << "Test Passed" << std::endl;
  return 0;
}
