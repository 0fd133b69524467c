// vmul: c = a * b with a separate-source device function (__cok__ { extern "C" ... }), the
// form the opencl target needs; the cpu target compiles it as C++.
__cok__ {
extern "C" void mul_tile(int* a, int* b, int* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] * b[i];
}
}

__co__ s32 [8, 64] vmul(s32 [8, 64] lhs, s32 [8, 64] rhs) {
  s32 [lhs.span] out;
  parallel p by 8 {
    a = dma.copy lhs.chunkat(p, _) => local;
    b = dma.copy rhs.chunkat(p, _) => local;
    local s32 [a.span] c;
    call mul_tile(a.data, b.data, c, |a.span|);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}
