// A block of warp groups (wgmma) whose warp groups also work element by element: a
// `: thread` level of 128 right inside each `group-4` level is that warp group's threads
// (g = tid / 128, t = tid % 128 on cuda). Here the threads transpose the accumulator's
// tile, C^T = B A^T computed with B's 64-row tiles on wgmma's M side and A's 8 rows as its
// n (samples/gemm/gemm_skinny.co.cpp's swap AB), back into C. Integer-valued inputs: exact.
// cuda-arch: sm_90a
#include <cstdio>

__co__ auto swapped(f16 [8, 64] lhs, f16 [128, 64] rhs) {
  f32 [8, 128] out;
  parallel p by 1 : block {
    shared f16 [128, 64] ws;
    shared f16 [8, 64] xs;
    tma.copy.swiz<128> rhs => ws;
    tma.copy.swiz<128> lhs => xs;
    mc = mma.fill.f32 0.0f;   // 64 x 8 of C^T per warp group
    foreach kk in 4 {
      parallel g by 2 : group-4 {
        mw = mma.load.swiz<128> ws.chunkat(g, kk);
        mx = mma.load.swiz<128> xs.chunkat(_, kk);
        mma.row.row mc, mw, mx;
      }
    }
    shared f32 [128, 8] ct;
    parallel g by 2 : group-4 {
      mma.store mc, ct.chunkat(g, _);
    }
    shared f32 [8, 128] cs;
    parallel g by 2 : group-4, {tj, ti} by [16, 8] : thread {
      foreach jj in 4
        cs.at(ti, g # jj # tj) = ct.at(g # jj # tj, ti) + 0.5f;
    }
    tma.copy cs => out;
  }
  return out;
}

int main() {
  auto a = croktile::make_spandata<croktile::f16>(8, 64);
  auto b = croktile::make_spandata<croktile::f16>(128, 64);
  for (int i = 0; i < 8 * 64; ++i) a.data()[i] = croktile::f16(float(i % 7 - 3));
  for (int i = 0; i < 128 * 64; ++i) b.data()[i] = croktile::f16(float(i % 5 - 2));
  auto c = swapped(a.view(), b.view());
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 128; ++j) {
      float ref = 0.5f;
      for (int k = 0; k < 64; ++k) ref += float(a[i][k]) * float(b[j][k]);
      if (c[i][j] != ref) {
        std::printf("[%d][%d] is %g, not %g\n", i, j, c[i][j], ref);
        return 1;
      }
    }
  std::printf("transposed by the warp groups' threads: ok\n");
}
// expect-output: transposed by the warp groups' threads: ok
