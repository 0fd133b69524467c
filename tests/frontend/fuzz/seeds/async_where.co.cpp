// dma.copy.async + wait, nested parallel, with-in + where, masked foreach,
// mdspan definitions, |x| and #p (spec 2 and 4). 'global' data is declared outside
// 'parallel' (the checker rejects it inside).
#include "choreo.h"

__device__ void work(float * a, float * b, int n, int m) {}

__co__ void async_where(f32 [8, 16] lhs, f32 [16, 32] rhs) {
  sp : [6, 8];
  spn : sp [1, (0)/2, (1)/4];
  mdspan tile : [8, 16];
  global f32 [10] g_data;
  parallel p by 2 {
    parallel q by 4 {
      local f32 [10] l_data;
      f = dma.copy.async g_data => l_data;
      wait f;
      with {m, n} in [8, 16], {n_p, k} in [16, 32] where n_p <-> n {
        foreach m {
          call work(l_data, g_data, |l_data|, #p);
        }
      }
      with x in [2] {
        foreach x if (p == 0) {
          call work(l_data, g_data, |g_data|, #q);
        }
      }
    }
  }
}

int main() {
  float a[8 * 16] = {0};
  float b[16 * 32] = {0};
  async_where(choreo::make_spanview<2>(a, {8, 16}), choreo::make_spanview<2>(b, {16, 32}));
  return 0;
}
