// The query rows of several heads in one warp-group tile (samples/attention/decode.co.cpp,
// issue #35): a swizzled tma.copy of a [1, 4, 16, 64] box (4 heads x 16 rows, rows past S
// zeros) is one 64 x 64 A operand (span_as); its rows repeat every 16, so a causal mask
// takes a period (`mma.mask.causal s, row0, col0, 16`: element (i, j) masked where
// col0 + j > row0 + i % 16). With rows of 64 f16 the box is the copy engine's on sm_90a; with
// rows of 68 (a pitch of 136 bytes, not whole 16) the threads copy it, tile by tile (every
// head's, not only the first). The scores are checked in main against products computed
// there.
// cuda-arch: sm_90a
// not-on-opencl: the row operations are not written for OpenCL C yet (err_rows_opencl)
#include <cmath>
#include <cstdio>

// s = x[b, 4h.., 16m.., :64] k^T for the 64 rows of 4 heads, masked where key j > row i % 16
// + row0 (row0 = -1000: no mask)
__co__ auto heads(f16 [B, H, S, D] x, f16 [64, 64] k, int row0) {
  f32 [B, H / 4, 64, 64] out;
  parallel {b, h, m} by [B, H / 4, cdiv(S, 16)] : block {
    shared f16 [64, 64] ks;
    tma.copy.swiz<128> k => ks;
    xs = tma.copy.async.swiz<128> x.subspan(1, 4, 16, 64).at(b, h, m, 0) => shared;
    s = mma.fill.f32 0.0f;
    wait xs;
    parallel g by 1 : group-4 {
      xa = mma.load.swiz<128> xs.data.span_as([64, 64]);
      kb = mma.load.swiz<128> ks;
      mma.row.row s, xa, kb;
      if (row0 > -1000)
        mma.mask.causal s, row0, 0, 16;
    }
    shared f32 [1, 1, 64, 64] os;
    mma.store s, os.span_as([64, 64]);
    tma.copy os => out.subspan(1, 1, 64, 64).at(b, h, 0, 0);
  }
  return out;
}

static bool check(int B, int H, int S, int D, int row0) {
  auto x = croktile::make_spandata<croktile::f16>(B, H, S, D);
  auto k = croktile::make_spandata<croktile::f16>(64, 64);
  for (int i = 0; i < B * H * S * D; ++i) x.data()[i] = croktile::f16(float(i % 7 - 3));
  for (int i = 0; i < 64 * 64; ++i) k.data()[i] = croktile::f16(float(i % 5 - 2));
  auto s = heads(x.view(), k.view(), row0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H / 4; ++h)
      for (int r = 0; r < 64; ++r)
        for (int j = 0; j < 64; ++j) {
          const int head = 4 * h + r / 16, i = r % 16;
          float ref = 0;
          for (int d = 0; d < 64 && i < S; ++d) ref += float(x[b][head][i][d]) * float(k[j][d]);
          if (row0 > -1000 && j > row0 + i) ref = -INFINITY;
          if (s[b][h][r][j] != ref) {
            std::printf("%dx%dx%dx%d: [%d][%d][%d][%d] is %g, not %g\n", B, H, S, D, b, h, r, j, s[b][h][r][j], ref);
            return false;
          }
        }
  return true;
}

int main() {
  // whole tiles; 5 rows of 16 (zeros past them); a causal mask of period 16; rows of 68
  bool ok = check(1, 8, 16, 64, -1000) && check(2, 4, 5, 64, -1000) && check(1, 4, 16, 64, 3);
#ifndef CROKTILE_REQUIRE_FAST_INSTANCE   // (tests/targets/cuda/test_mma_programs_gpu.py: the copy engine's path only)
  ok = check(1, 4, 5, 68, 2) && ok;
#endif
  std::printf("%s\n", ok ? "heads tile ok" : "differs");
}
// expect-output: heads tile ok
