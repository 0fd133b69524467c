// Element access and arithmetic (`x.at(...)`), `m#p`, loop ranges and the `foreach ... in`
// forms, run on every target. Expected values are worked out by hand (see each line).

// the reference's tests/gpu/end2end/add.co (span_as: the data group's)
__co__ s32 [6, 64] ele_add(s32 [2, 3, 64] lhs, s32 [2, 3, 64] rhs) {
  l = lhs.span_as(6, 64);
  r = rhs.span_as(6, 64);
  s32 [l.span] output;
  parallel p by 6, q by 64
    output.at(p, q) = l.at(p, q) + r.at(p, q);
  return output;
}

// the reference's matmul.co: thread (p, q) computes rows m#p and columns n#q
__co__ s32 [16, 8] matmul(s32 [16, 32] lhs, s32 [32, 8] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel p by 4, q by 2 {
    foreach index = {m, n, k} in [16 / #p, 8 / #q, 32]
      output.at(m#p, n#q) += lhs.at(m#p, k) * rhs.at(k, n#q);
  }
  return output;
}

// floating point: f32, f16 and bf16 elements computed as float, float literals and parameters
__co__ f32 [4] saxpy(f32 [4] x, f32 [4] y, float a) {
  f32 [x.span] out;
  parallel p by 1 {
    foreach i in [4]
      out.at(i) = a * x.at(i) + y.at(i) - 0.25;
  }
  return out;
}

__co__ f16 [4] half_ops(f16 [4] x, bf16 [4] y) {
  f16 [x.span] out;
  parallel p by 2 {
    foreach i in 2 {
      out.at(p * 2 + i) = x.at(p * 2 + i) * 2 + y.at(p * 2 + i);
      out.at(p * 2 + i) /= 4;
    }
  }
  return out;
}

// a future's data (local memory), compound assignments, and element code outside 'parallel'
__co__ s32 [4, 8] locals(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 1 {
    l = dma.copy a => local;
    foreach idx in [4, 8] {
      l.data.at(idx) += 0x100;
      l.data.at(idx) *= 2;
    }
    local s32 [l.span] t;
    foreach {i, j} in [4, 8] if (j % 2 == 1) {
      t.at(i, j) = l.data.at(i, j) - 1;
      t.at(i, j) <<= 1;
    }
    dma.copy t => out;
  }
  foreach i in out.span if (i(1) == 0)
    out.at(i) = a.at(i) % 3 - (i(0) > 1 ? 10 : 20);
  return out;
}

// ranged loops and shared memory across two levels
__co__ s32 [8] ranges(s32 [8] a) {
  s32 [a.span] out;
  parallel p by 1 {
    shared s32 [8] s;
    parallel q by 8
      s.at(q) = a.at(q) * 3;
    with {m} in [8] {
      foreach m(1:-1:2) out.at(m) = s.at(m) + m;
      foreach m(6:) out.at(m) = -1;
      foreach m(:-6) out.at(m) |= 0x40;
    }
    with w in [2];
    t = {3, 5};
    u = t {(1), (0)};
    out.at(0) += u(0) * 100 + u(1);
  }
  return out;
}

int main() {
  auto l = choreo::make_spandata<choreo::s32>(2, 3, 64);
  auto r = choreo::make_spandata<choreo::s32>(2, 3, 64);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 64; ++j) { l[i / 3][i % 3][j] = i * 100 + j; r[i / 3][i % 3][j] = 7 * j - i; }
  auto sum = ele_add(l.view(), r.view());
  long total = 0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 64; ++j) total += sum[i][j];
  std::cout << "add " << sum[0][0] << " " << sum[5][63] << " " << total << "\n";
  // sum[i][j] = 99 i + 8 j; total = 64 * 99 * 15 + 6 * 8 * 2016
  // expect-output: add 0 999 191808

  auto lhs = choreo::make_spandata<choreo::s32>(16, 32);
  auto rhs = choreo::make_spandata<choreo::s32>(32, 8);
  for (int i = 0; i < 16; ++i) for (int k = 0; k < 32; ++k) lhs[i][k] = (i + k) % 5 - 2;
  for (int k = 0; k < 32; ++k) for (int j = 0; j < 8; ++j) rhs[k][j] = (k * j) % 7 - 3;
  auto mm = matmul(lhs.view(), rhs.view());
  bool ok = true;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int ref = 0;
      for (int k = 0; k < 32; ++k) ref += lhs[i][k] * rhs[k][j];
      ok = ok && ref == mm[i][j];
    }
  std::cout << "matmul " << (ok ? "ok" : "wrong") << "\n";
  // expect-output: matmul ok

  float xs[4] = {1, 2, 3, 4}, ys[4] = {0.5f, 0.25f, 0, -1};
  auto sx = saxpy(choreo::make_spanview<1>(xs, {4}), choreo::make_spanview<1>(ys, {4}), 1.5f);
  std::cout << "saxpy " << sx[0] << " " << sx[1] << " " << sx[2] << " " << sx[3] << "\n";
  // 1.5 x + y - 0.25
  // expect-output: saxpy 1.75 3 4.25 4.75

  choreo::f16 hx[4] = {1.0f, 0.5f, 3.0f, -2.0f};
  choreo::bf16 hy[4] = {1.0f, 1.0f, 2.0f, 0.5f};
  auto hh = half_ops(choreo::make_spanview<1>(hx, {4}), choreo::make_spanview<1>(hy, {4}));
  std::cout << "half " << float(hh[0]) << " " << float(hh[1]) << " " << float(hh[2]) << " " << float(hh[3]) << "\n";
  // (2 x + y) / 4
  // expect-output: half 0.75 0.5 2 -0.875

  auto a = choreo::make_spandata<choreo::s32>(4, 8);
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 8; ++j) a[i][j] = i * 8 + j;
  auto lo = locals(a.view());
  for (int i = 0; i < 4; ++i) {
    std::cout << "locals";
    for (int j = 0; j < 4; ++j) std::cout << " " << lo[i][j];
    std::cout << "\n";
  }
  // column 0: a % 3 - (i > 1 ? 10 : 20); odd columns: (2 (a + 256) - 1) * 2 = 4 a + 1022; others 0
  // expect-output: locals -20 1026 0 1034
  // expect-output: locals -18 1058 0 1066
  // expect-output: locals -9 1090 0 1098
  // expect-output: locals -10 1122 0 1130

  choreo::s32 ra[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto rr = ranges(choreo::make_spanview<1>(ra, {8}));
  std::cout << "ranges";
  for (int i = 0; i < 8; ++i) std::cout << " " << rr[i];
  std::cout << "\n";
  // m = 1, 3, 5: 3 a + m; m = 6, 7: -1; m = 0, 1: |= 64; then out[0] += 503
  // expect-output: ranges 567 71 0 15 0 23 -1 -1
}
