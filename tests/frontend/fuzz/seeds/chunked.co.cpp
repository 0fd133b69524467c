// chunkat with named bounded ituples, ituples, tuple-span ops, scalar params, and an
// mdspan<2> parameter passed to a device function with |d| (spec 2).
#include "choreo.h"

__device__ void bar(float *p, int m, int n) {}

__co__ void chunked(f32 [6, 10, 100] data, f32 mdspan<2> d, int N) {
  sp : [6, 8];
  int b = sp(0) + sp(1);
  tiling_factor = {3, 2};
  spn : sp / tiling_factor;
  ituple idx = {5, 4, 3, 2, 1};
  parallel p by 6 {
    call bar(d, b, |d|);
    with index = {x, y} in [10, 10] {
      foreach index {
        f = dma.copy data.chunkat(p, index) => local;
        call bar(f.data, N, |f.span|);
      }
    }
  }
}

void foobar(float* a, float* c) {
  chunked(choreo::make_spanview<3>(a, {6, 10, 100}), choreo::make_spanview<2>(c, {1, 2}), 4);
}
