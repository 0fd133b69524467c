// Matmul with a shared buffer and a template call (spec 3).
#include "choreo.h"

template<int M, int N, int K>
__device__ void matmul_kernel(int *lhs, int* rhs, int* output) {}

__co__ auto matmul(s32 [96, 72] lhs, s32 [72, 24] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel p by 6 {
    shared s32 [output.span / #p] buffer;   // shape: [16, 4]
    lhs_load = dma.copy lhs.chunkat(p, _) => shared;
    rhs_load = dma.copy rhs.chunkat(_, p) => shared;
    call matmul_kernel<buffer.span(0), buffer.span(1), 72>(lhs_load.data, rhs_load.data, buffer);
  }
  return output;
}

int main() {
  int a[96 * 72] = {0};
  int b[72 * 24] = {0};
  auto res = matmul(choreo::make_spanview<2>(a, {96, 72}),
                    choreo::make_spanview<2>(b, {72, 24}));
  return res.shape()[0] == 96 ? 0 : 1;
}
