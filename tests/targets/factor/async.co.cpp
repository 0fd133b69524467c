// Asynchronous copies on factor-sim, where each core's DMA engine (a thread) performs
// them after their issue (CROKTILE_FACTOR_DMA_LATENCY_US later). main prints each result.
//
//   waited    every async copy is waited before its data is read: right on any latency.
//   unsynced  the *source* of a pending copy is overwritten before the copy is waited
//             (the compiler cannot see this hazard): on cpu, where copies complete when
//             issued, the copy holds the old data; on factor-sim it holds the new data,
//             so the missing synchronisation shows.
#include <cstdio>

__cok__ {
  extern "C" void bump(int* x, int n, int v) {
    for (int i = 0; i < n; ++i) x[i] += v;
  }
}

__co__ s32 [4, 2, 64] waited(s32 [4, 2, 64] a) {
  s32 [a.span] out;
  parallel p by 4 {
    with k in [2] {
      foreach k {
        f = dma.copy.async a.chunkat(p, k, _) => local;
        g = dma.copy.async a.chunkat(p, (k + 1) % #k, _) => shared;
        wait f;
        call bump(f.data, 64, 1);
        s = dma.copy.async f.data => out.chunkat(p, k, _);
        wait g, s;
        call bump(g.data, 64, 0);
      }
    }
  }
  return out;
}

__co__ s32 [2, 8] unsynced(s32 [2, 8] a) {
  s32 [a.span] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p, _) => local;
    f = dma.copy.async t.data => shared;
    call bump(t.data, 8, 100);          // overwrites what f is still to copy
    wait f;
    dma.copy f.data => out.chunkat(p, _);
  }
  return out;
}

int main() {
  static int a[4][2][64];
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 64; ++j) a[i][k][j] = i * 1000 + k * 100 + j;
  auto w = waited(choreo::make_spanview<3>(&a[0][0][0], {4, 2, 64}));
  int wrong = 0;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 64; ++j) wrong += w[i][k][j] != a[i][k][j] + 1;
  std::printf("waited: %d wrong of %d\n", wrong, 4 * 2 * 64);
  auto u = unsynced(choreo::make_spanview<2>(&a[0][0][0], {2, 8}));
  std::printf("unsynced:");
  for (auto v : u) std::printf(" %d", v);
  std::printf("\n");
  return 0;
}
