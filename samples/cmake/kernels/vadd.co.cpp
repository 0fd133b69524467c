// vadd: c = a + b on the cpu target. Built by croktile_add_kernel(): no main() here, the
// application's main.cpp calls vadd() through the generated "vadd.h".
#include "tile.h"

__device__ void add_tile(int* a, int* b, int* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

__co__ s32 [VADD_ROWS, VADD_COLS] vadd(s32 [VADD_ROWS, VADD_COLS] lhs, s32 [VADD_ROWS, VADD_COLS] rhs) {
  s32 [lhs.span] out;
  parallel p by VADD_ROWS {
    with t in [VADD_TILES] {
      foreach t {
        a = dma.copy lhs.chunkat(p, t) => local;
        b = dma.copy rhs.chunkat(p, t) => local;
        local s32 [a.span] c;
        call add_tile(a.data, b.data, c, |a.span|);
        dma.copy c => out.chunkat(p, t);
      }
    }
  }
  return out;
}
