// chunkat with named bounded ituples, ituples, tuple-span ops, scalar params (spec 2).
#include "choreo.h"

__device__ void bar(float *p, int m, int n) {}

__co__ void chunked(f32 [6, 10, 100] data, int N) {
  sp : [6, 8];
  tiling_factor = {3, 2};
  spn : sp / tiling_factor;
  ituple idx = {5, 4, 3, 2, 1};
  parallel p by 6 {
    with index = {x, y} in [10, 10] {
      foreach index {
        f = dma.copy data.chunkat(p, index) => local;
        call bar(f.data, N, |f.span|);
      }
    }
  }
}
