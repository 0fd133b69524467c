// Read-before-wait on factor-sim (issue #11). Both functions are right as written; each
// line marked `the fix` is a `wait` that test_read_before_wait.py removes to get the
// program of the issue, which the compiler must then reject at the read:
//
//   masked   the only `wait f` is inside `foreach ... if (p == 0)`: instances 1 to 3 read
//            f's data while the copy may still be in flight (24 of 32 elements wrong on
//            factor-sim with DMA latency before the analysis followed masks).
//   carried  each iteration reads `buf` and then starts the copy of the next tile into
//            it; without the wait, the next iteration reads it while the copy runs.
#include <cstdio>

__cok__ {
  extern "C" void copy_plus(const int* in, int* out, int n, int v) {
    for (int i = 0; i < n; ++i) out[i] = in[i] + v;
  }
}

__co__ s32 [4, 8] masked(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 4 {
    with q in [1] {
      f = dma.copy.async a.chunkat(p, _) => local;
      foreach q if (p == 0) {
        wait f;
      }
      wait f;                                                     // the fix
      local s32 [f.span] r;
      call copy_plus(f.data, r, 8, 1);
      dma.copy r => out.chunkat(p, _);
    }
  }
  return out;
}

__co__ s32 [4, 2, 8] carried(s32 [4, 2, 8] a) {
  s32 [a.span] out;
  parallel p by 4 {
    local s32 [1, 1, 8] buf;
    with k in [2] {
      first = dma.copy.async a.chunkat(p, k, _) => buf;
      wait first;
      foreach k {
        local s32 [buf.span] r;
        call copy_plus(buf, r, 8, 1);
        dma.copy r => out.chunkat(p, k, _);
        f = dma.copy.async a.chunkat(p, (k + 1) % #k, _) => buf;
        wait f;                                                   // the fix
      }
    }
  }
  return out;
}

int main() {
  static int a[4][2][8];
  for (int i = 0; i < 4 * 2 * 8; ++i) (&a[0][0][0])[i] = 7 * i + 1;
  auto m = masked(choreo::make_spanview<2>(&a[0][0][0], {4, 8}));
  int wrong = 0;
  for (int i = 0; i < 4 * 8; ++i) wrong += (&m[0][0])[i] != (&a[0][0][0])[i] + 1;
  std::printf("masked: %d wrong of 32\n", wrong);
  auto c = carried(choreo::make_spanview<3>(&a[0][0][0], {4, 2, 8}));
  wrong = 0;
  for (int i = 0; i < 4 * 2 * 8; ++i) wrong += (&c[0][0][0])[i] != (&a[0][0][0])[i] + 1;
  std::printf("carried: %d wrong of 64\n", wrong);
  return 0;
}
