// Warp-group (group-4, wgmma) multiplies fed by TMA copies with a 128-byte swizzle, run
// and checked in main: f16 -> f32, and e4m3 x e5m2 -> f32 (wgmma multiplies any two fp8
// types, as mma.sync does; issue #36) with integer values, exact.
// cuda-arch: sm_90a

#define M 64
#define N 64
#define K 128

// One warp group computes a 64 x 64 tile; its k loop reads 16 columns of the swizzled
// shared tiles at a time.
__co__ auto mm_wgmma(f16 [M, K] lhs, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [1, 1] : block {
    shared f16 [M, 64] ls;
    shared f16 [N, 64] rs;
    mc = mma.fill.f32 0.0f;
    foreach k in K / 64 {
      tma.copy.swiz<128> lhs.chunkat(bm, k) => ls;
      tma.copy.swiz<128> rhs.chunkat(bn, k) => rs;
      foreach w in 64 / 16 {
        parallel p by 1 : group-4 {
          ma = mma.load.swiz<128> ls.chunkat(_, w);
          mb = mma.load.swiz<128> rs.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
    }
    shared f32 [M, N] os;
    mma.store mc, os;
    tma.copy os => out.chunkat(bm, bn);
  }
  return out;
}

// A of e4m3 and B of e5m2 (as N x K): the k loop reads 32 columns (32 bytes) at a time.
__co__ auto mm_wgmma_f8(f8_e4m3 [M, K] lhs, f8_e5m2 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [1, 1] : block {
    shared f8_e4m3 [M, K] ls;
    shared f8_e5m2 [N, K] rs;
    mc = mma.fill.f32 0.0f;
    tma.copy.swiz<128> lhs.chunkat(bm, _) => ls;
    tma.copy.swiz<128> rhs.chunkat(bn, _) => rs;
    foreach w in K / 32 {
      parallel p by 1 : group-4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(_, w);
        mma.row.row mc, ma, mb;
      }
    }
    mma.store mc, out.chunkat(bm, bn);
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(M, K);
  auto b = choreo::make_spandata<choreo::f16>(N, K);
  a.fill_random(-1.0f, 1.0f);
  b.fill_random(-1.0f, 1.0f);
  auto c = mm_wgmma(a.view(), b.view());
  bool ok = true;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (double)(float)a[i][k] * (float)b[j][k];
      ok = ok && std::fabs(c[i][j] - ref) <= 1e-5 * (1 + std::fabs(ref));
    }
  std::cout << "wgmma_f16_f32 " << (ok ? "ok" : "differs") << "\n";

  auto a8 = choreo::make_spandata<choreo::f8_e4m3>(M, K);
  auto b8 = choreo::make_spandata<choreo::f8_e5m2>(N, K);
  for (size_t i = 0; i < M; ++i)
    for (size_t k = 0; k < K; ++k) a8[i][k] = choreo::f8_e4m3((int)((i * 7 + k * 3) % 9) - 4);
  for (size_t j = 0; j < N; ++j)
    for (size_t k = 0; k < K; ++k) b8[j][k] = choreo::f8_e5m2((int)((j * 5 + k * 11) % 7) - 3);
  auto c8 = mm_wgmma_f8(a8.view(), b8.view());
  bool ok8 = true;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (double)choreo::to_f32(a8[i][k]) * choreo::to_f32(b8[j][k]);
      ok8 = ok8 && c8[i][j] == ref;
    }
  std::cout << "wgmma_e4m3_e5m2_f32 " << (ok8 ? "ok" : "differs") << "\n";

}

// expect-output: wgmma_f16_f32 ok
// expect-output: wgmma_e4m3_e5m2_f32 ok
