// Partial tiles on the tensor cores (docs/language/spans.md): a GEMM of any M, N and K
// (37 x 29 x 40 here, a K tail too) whose tiles cross the ends of the matrices, for
// 'mma.load' and 'mma.store' of global tiles and for copies into shared memory; checked
// against the product computed in main (integer-valued inputs: exact).
// cuda-arch: sm_80
#include <cstdio>

// fragments loaded from and stored to global tiles that cross the data's end
__co__ auto mm_global(f16 [M, K] lhs, f16 [K, N] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [cdiv(M, 16), cdiv(N, 16)] : block {
    parallel {gm, gn} by [1, 1] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in cdiv(K, 16) {
        ma = mma.load lhs.subspan(16, 16).at(m, k);
        mb = mma.load rhs.subspan(16, 16).at(k, n);
        mma.row.col mc, ma, mb;
      }
      mma.store mc, out.subspan(16, 16).at(m, n);
    }
  }
  return out;
}

// partial tiles copied into shared memory (zeros past the data), an f16 result stored
// through a shared tile and copied out clipped
__co__ auto mm_shared(f16 [M, K] lhs, f16 [K, N] rhs) {
  f16 [M, N] out;
  parallel {m, n} by [cdiv(M, 32), cdiv(N, 16)] : block {
    shared f16 [32, 16] cs;
    parallel {gm, gn} by [2, 1] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in cdiv(K, 16) {
        ls = dma.copy lhs.subspan(32, 16).at(m, k) => shared;
        rs = dma.copy rhs.subspan(16, 16).at(k, n) => shared;
        ma = mma.load ls.chunkat(gm, _);
        mb = mma.load rs;
        mma.row.col mc, ma, mb;
      }
      mma.store mc, cs.chunkat(gm, _);
    }
    dma.copy cs => out.subspan(32, 16).at(m, n);
  }
  return out;
}

static int check(const char* what, const float* got, const float* want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i]) { std::printf("%s: element %d is %g, not %g\n", what, i, got[i], want[i]); return 1; }
  std::printf("%s: ok\n", what);
  return 0;
}

int main() {
  const int m = 37, n = 29, k = 40;
  static croktile::f16 a[m * k], b[k * n];
  static float want[m * n], got[m * n];
  for (int i = 0; i < m * k; ++i) a[i] = croktile::f16(float(i % 7 - 3));
  for (int i = 0; i < k * n; ++i) b[i] = croktile::f16(float(i % 5 - 2));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < k; ++p) s += float(a[i * k + p]) * float(b[p * n + j]);
      want[i * n + j] = s;
    }
  auto lhs = croktile::make_spanview<2>(a, {m, k});
  auto rhs = croktile::make_spanview<2>(b, {k, n});
  auto r1 = mm_global(lhs, rhs);
  for (int i = 0; i < m * n; ++i) got[i] = r1.data()[i];
  int bad = check("global tiles", got, want, m * n);
  auto r2 = mm_shared(lhs, rhs);
  for (int i = 0; i < m * n; ++i) got[i] = float(r2.data()[i]);
  bad += check("shared tiles", got, want, m * n);
  return bad;
}
// expect-output: global tiles: ok
// expect-output: shared tiles: ok
