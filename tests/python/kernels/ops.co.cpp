// Functions the Python tests call through croktile.load on cpu, opencl and factor:
// symbolic shapes, int and float scalars, a result of another element type, an int
// result beside a write into a parameter, and destination passing (void, f16). The
// device code is in __cok__ { extern "C" ... } so that every target builds it.
#include "ops_helpers.h"

__cok__ {
  extern "C" void add_k(const int* a, const int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
  extern "C" void axpb_k(const float* x, float* y, int n, float alpha, int beta) {
    for (int i = 0; i < n; ++i) y[i] = alpha * x[i] + (float)beta;
  }
  extern "C" void bump_k(int* x, int n, int v) {
    for (int i = 0; i < n; ++i) x[i] += v;
  }
}

// symbolic shapes, one instance per row
__co__ s32 [a.span] add(s32 [M, N] a, s32 [M, N] b) {
  s32 [a.span] out;
  parallel p by M {
    x = dma.copy a.chunkat(p, _) => local;
    y = dma.copy b.chunkat(p, _) => local;
    local s32 [x.span] z;
    call add_k(x.data, y.data, z, |x.span|);
    dma.copy z => out.chunkat(p, _);
  }
  return out;
}

// a float and an int scalar; rows split in OPS_SPLIT parts (a runtime divisibility check)
__co__ f32 [x.span] axpb(f32 [M, N] x, float alpha, int beta) {
  f32 [x.span] out;
  parallel p by OPS_SPLIT {
    t = dma.copy x.chunkat(p, _) => local;
    local f32 [t.span] y;
    call axpb_k(t.data, y, |t.span|, alpha, beta);
    dma.copy y => out.chunkat(p, _);
  }
  return out;
}

// destination passing: the result lands in the caller's array
__co__ void copy_into(f16 [M, N] src, f16 [M, N] dst) {
  parallel p by M {
    t = dma.copy src.chunkat(p, _) => local;
    dma.copy t => dst.chunkat(p, _);
  }
}

// an int result beside a write into a parameter
__co__ int bump_all(s32 [N] a, int v) {
  parallel p by 1 {
    t = dma.copy a => local;
    call bump_k(t.data, |t.span|, v);
    dma.copy t => a;
  }
  return N * v;
}
