// The row operations on a warp group's accumulator (sema_fragments.py): a softmax of the
// rows of Q K^T, and a causal attention tile whose probabilities multiply V from
// registers (mma.cvt, then mma.row.col with V given as keys x columns), and a row
// operation at block level on the accumulator of two warp groups (each group's part: on
// cpu and factor, where one thread runs both, each copy); run and checked in main against
// double-precision references.
// cuda-arch: sm_90a
// not-on-opencl: the row operations are not written for OpenCL C yet (err_rows_opencl)

// softmax(scale * q k^T) by rows: a literal scale, a value as a per-row operand
__co__ auto softmax(f16 [64, 64] q, f16 [64, 64] k, float scale) {
  f32 [64, 64] out;
  parallel p by 1 : block {
    shared f16 [64, 64] qs;
    shared f16 [64, 64] ks;
    tma.copy.swiz<128> q => qs;
    tma.copy.swiz<128> k => ks;
    s = mma.fill.f32 0.0f;
    parallel g by 1 : group-4 {
      qa = mma.load.swiz<128> qs;
      kb = mma.load.swiz<128> ks;
      mma.row.row s, qa, kb;
      mx = mma.row.max s;
      mma.exp s, mx, scale;
      l = mma.row.sum s;
      mma.row.scale s, 2.0f;     // a value: every row
      mma.row.div s, l;
      mma.row.div s, 2;
    }
    shared f32 [64, 64] os;
    mma.store s, os;
    tma.copy os => out;
  }
  return out;
}

// causal softmax(q k^T / 8) v, the tile at rows 64.., columns 32.. of a larger matrix,
// whose keys end after the tile's first `keys` columns (mma.mask.cols)
__co__ auto causal_tile(f16 [64, 64] q, f16 [64, 64] k, f16 [64, 64] v, int row0, int keys) {
  f32 [64, 64] out;
  parallel p by 1 : block {
    shared f16 [64, 64] qs;
    shared f16 [64, 64] ks;
    shared f16 [64, 64] vs;
    tma.copy.swiz<128> q => qs;
    tma.copy.swiz<128> k => ks;
    tma.copy.swiz<128> v => vs;
    s = mma.fill.f32 0.0f;
    o = mma.fill.f32 0.0f;
    parallel g by 1 : group-4 {
      qa = mma.load.swiz<128> qs;
      kb = mma.load.swiz<128> ks;
      mma.row.row s, qa, kb;
      mma.mask.causal s, row0, 32;
      mma.mask.cols s, keys;
      mx = mma.row.fill.f32 -1.0e30f;
      old = mma.row.fill.f32 0.0f;
      mma.row.fill old, mx;
      mma.row.max mx, s;
      mma.exp old, mx, 0.125f;   // 0 (nothing before)
      mma.exp s, mx, 0.125f;
      l = mma.row.sum s;
      mma.row.sum l, old;        // a row vector into a row vector
      pa = mma.cvt.f16 s;
      vb = mma.load.swiz<128> vs;
      mma.row.col o, pa, vb;
      mma.row.div o, l;
    }
    shared f32 [64, 64] os;
    mma.store o, os;
    tma.copy os => out;
  }
  return out;
}

// 2 q k^T over two warp groups, scaled outside them
__co__ auto doubled(f16 [128, 64] q, f16 [64, 64] k) {
  f32 [128, 64] out;
  parallel p by 1 : block {
    shared f16 [128, 64] qs;
    shared f16 [64, 64] ks;
    tma.copy.swiz<128> q => qs;
    tma.copy.swiz<128> k => ks;
    s = mma.fill.f32 0.0f;
    parallel g by 2 : group-4 {
      qa = mma.load.swiz<128> qs.chunkat(g, _);
      kb = mma.load.swiz<128> ks;
      mma.row.row s, qa, kb;
    }
    mma.row.scale s, 2.0f;
    shared f32 [128, 64] os;
    parallel g by 2 : group-4 {
      mma.store s, os.chunkat(g, _);
    }
    tma.copy os => out;
  }
  return out;
}

int main() {
  auto q = choreo::make_spandata<choreo::f16>(64, 64);
  auto k = choreo::make_spandata<choreo::f16>(64, 64);
  auto v = choreo::make_spandata<choreo::f16>(64, 64);
  q.fill_random(-1.0f, 1.0f);
  k.fill_random(-1.0f, 1.0f);
  v.fill_random(-1.0f, 1.0f);
  double s[64][64];
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      s[i][j] = 0;
      for (int d = 0; d < 64; ++d) s[i][j] += (double)(float)q[i][d] * (float)k[j][d];
    }
  auto sm = softmax(q.view(), k.view(), 0.5f);
  bool ok = true;
  for (int i = 0; i < 64; ++i) {
    double top = -1e300, total = 0;
    for (int j = 0; j < 64; ++j) top = std::fmax(top, s[i][j]);
    for (int j = 0; j < 64; ++j) total += std::exp(0.5 * (s[i][j] - top));
    for (int j = 0; j < 64; ++j) ok = ok && std::fabs(sm[i][j] - std::exp(0.5 * (s[i][j] - top)) / total) < 1e-5;
  }
  std::cout << "softmax " << (ok ? "ok" : "differs") << "\n";
  const int row0 = 64, keys = 40;   // keys 32 + j: row 64 + i sees keys up to 64 + i, j < 40
  auto o = causal_tile(q.view(), k.view(), v.view(), row0, keys);
  ok = true;
  for (int i = 0; i < 64; ++i) {
    double top = -1e300, total = 0, p[64];
    for (int j = 0; j < 64; ++j)
      if (32 + j <= row0 + i && j < keys) top = std::fmax(top, s[i][j]);
    for (int j = 0; j < 64; ++j) total += p[j] = 32 + j <= row0 + i && j < keys ? std::exp((s[i][j] - top) / 8) : 0;
    for (int d = 0; d < 64; ++d) {
      double ref = 0;
      for (int j = 0; j < 64; ++j) ref += p[j] * (float)v[j][d];
      ok = ok && std::fabs(o[i][d] - ref / total) < 2e-3;   // P rounded to f16
    }
  }
  std::cout << "causal_tile " << (ok ? "ok" : "differs") << "\n";
  auto q2 = choreo::make_spandata<choreo::f16>(128, 64);
  q2.fill_random(-1.0f, 1.0f);
  auto d2 = doubled(q2.view(), k.view());
  ok = true;
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 64; ++j) {
      double ref = 0;
      for (int d = 0; d < 64; ++d) ref += (double)(float)q2[i][d] * (float)k[j][d];
      ok = ok && std::fabs(d2[i][j] - 2 * ref) < 1e-3;
    }
  std::cout << "doubled " << (ok ? "ok" : "differs") << "\n";
}

// expect-output: softmax ok
// expect-output: causal_tile ok
// expect-output: doubled ok
