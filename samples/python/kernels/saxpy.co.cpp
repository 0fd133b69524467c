// y = alpha * x + y over a vector of any length divisible by 4, in four instances.
__cok__ {
  extern "C" void saxpy_k(const float* x, const float* y, float* out, int n, float alpha) {
    for (int i = 0; i < n; ++i) out[i] = alpha * x[i] + y[i];
  }
}

__co__ f32 [x.span] saxpy(f32 [N] x, f32 [N] y, float alpha) {
  f32 [x.span] out;
  parallel p by 4 {
    a = dma.copy x.chunkat(p) => local;
    b = dma.copy y.chunkat(p) => local;
    local f32 [a.span] r;
    call saxpy_k(a.data, b.data, r, |a.span|, alpha);
    dma.copy r => out.chunkat(p);
  }
  return out;
}
