// The sum of each row of an int matrix, one instance per row.
__cok__ {
  extern "C" void sum_k(const int* row, int* out, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += row[i];
    out[0] = s;
  }
}

__co__ s32 [M, 1] row_sums(s32 [M, N] a) {
  s32 [M, 1] out;
  parallel p by M {
    r = dma.copy a.chunkat(p, _) => local;
    local s32 [1, 1] s;
    call sum_k(r.data, s, |r.span|);
    dma.copy s => out.chunkat(p, _);
  }
  return out;
}
