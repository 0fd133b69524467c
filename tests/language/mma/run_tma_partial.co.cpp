// Partial tiles through the copy engine (docs/language/spans.md): a warp group's GEMM of
// any M, N and K whose 64 x 64 tiles are loaded by tma.copy.swiz<128> past the ends of the
// operands (zeros there) and whose result leaves clipped, through a shared tile and
// tma.copy, or straight from the accumulator by mma.store. At 100 x 72 x 80 the copies are
// the copy engine's on sm_90a; at 37 x 29 x 79 (a row pitch of 158 bytes, not a whole
// number of 16) the kernel's generic instance copies element by element. Checked in main.
// cuda-arch: sm_90a
#include <cmath>
#include <cstdio>

__co__ auto gemm_tma(f16 [M, K] lhs, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    shared f32 [64, 64] os;
    mc = mma.fill.f32 0.0f;
    foreach kk in [cdiv(K, 64)] {
      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, kk) => ls;
      tma.copy.swiz<128> rhs.subspan(64, 64).at(bn, kk) => rs;
      foreach w in 4 {
        parallel g by 1 : group-4 {
          ma = mma.load.swiz<128> ls.chunkat(_, w);
          mb = mma.load.swiz<128> rs.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
    }
    mma.store mc, os;
    tma.copy os => out.subspan(64, 64).at(bm, bn);
  }
  return out;
}

__co__ auto gemm_direct(f16 [M, K] lhs, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    mc = mma.fill.f32 0.0f;
    foreach kk in [cdiv(K, 64)] {
      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, kk) => ls;
      tma.copy.swiz<128> rhs.subspan(64, 64).at(bn, kk) => rs;
      foreach w in 4 {
        parallel g by 1 : group-4 {
          ma = mma.load.swiz<128> ls.chunkat(_, w);
          mb = mma.load.swiz<128> rs.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
    }
    mma.store mc, out.subspan(64, 64).at(bm, bn);
  }
  return out;
}

static bool close(const char* what, int m, int n, int k) {
  auto a = croktile::make_spandata<croktile::f16>(m, k);
  auto b = croktile::make_spandata<croktile::f16>(n, k);
  for (int i = 0; i < m * k; ++i) a.data()[i] = croktile::f16(float(i % 7 - 3));
  for (int i = 0; i < n * k; ++i) b.data()[i] = croktile::f16(float(i % 5 - 2));
  auto c = what[0] == 't' ? gemm_tma(a.view(), b.view()) : gemm_direct(a.view(), b.view());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float ref = 0;
      for (int p = 0; p < k; ++p) ref += float(a[i][p]) * float(b[j][p]);
      if (c[i][j] != ref) {
        std::printf("%s %dx%dx%d: [%d][%d] is %g, not %g\n", what, m, n, k, i, j, c[i][j], ref);
        return false;
      }
    }
  return true;
}

int main() {
  bool ok = true;
  for (const char* what : {"tma", "direct"}) {
    ok = close(what, 100, 72, 80) && ok;
#ifndef CROKTILE_REQUIRE_FAST_INSTANCE   // (tests/targets/cuda/test_mma_programs_gpu.py: the copy engine's path only)
    ok = close(what, 37, 29, 79) && ok;
#endif
  }
  std::printf(ok ? "ok\n" : "wrong\n");
  return ok ? 0 : 1;
}
// expect-output: ok
