// Data written in full before any read: no declaration here is zero-filled (README "Zero
// fills"; tests/analysis/test_fills.py checks that the -S output of every target has no fill)
// and the results are right on every target. Expected values are worked out by hand.

// dma tiles of a 2-level chunkat over constant bounds: every element written
__co__ s32 [4, 8] tiles(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 2 {
    with index = {i, j} in [2, 4] {
      foreach index {
        t = dma.copy a.chunkat(p, _).chunkat(i, j) => local;
        local s32 [t.span] u;
        dma.copy t.data => u;                      // a copy fills u entirely: no fill
        dma.copy u => out.chunkat(p # i, j);
      }
    }
  }
  return out;
}

// symbolic shapes: `parallel p by M` rows, elements over the whole row
__co__ s32 [a.span] rows(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by M {
    foreach c in [N]
      out.at(p, c) = a.at(p, c) * 2;
  }
  return out;
}

// `shared` data written by the threads of the block, then read by the block
__co__ s32 [2, 8] staged(s32 [2, 8] a) {
  s32 [a.span] out;
  parallel p by 2 {
    shared s32 [8] s;
    parallel q by 4 {
      foreach k in [2]
        s.at(q # k) = a.at(p, q # k) - 1;
    }
    foreach k in [8]
      out.at(p, k) = s.at(7 - k);
  }
  return out;
}

// tiles of 4 rows over cdiv(M, 8) groups of 2, the tiles past the data skipped: the last
// tile reaches past M and is clipped there (a partial tile), so every row is written (#35)
__co__ s32 [a.span] edges(s32 [M, N] a) {
  s32 [a.span] out;
  parallel {g, i} by [cdiv(M, 8), 2] {
    int t = g # i;
    if (t < cdiv(M, 4)) {
      tile = dma.copy a.subspan(4, N).at(t, 0) => local;
      dma.copy tile.data => out.subspan(4, N).at(t, 0);
    }
  }
  return out;
}

// two column halves written by separate copies cover each row; the row tiles in reverse
// order (3 - p, as a causal attention orders its blocks) cover the rows
__co__ s32 [8, 4] halves_reversed(s32 [8, 4] a) {
  s32 [a.span] out;
  parallel p by 4 {
    int r = 3 - p;
    dma.copy a.subspan(2, 2).at(r, 0) => out.subspan(2, 2).at(r, 0);
    dma.copy a.subspan(2, 2).at(r, 1) => out.subspan(2, 2).at(r, 1);
  }
  return out;
}

// a level of one instance (as `parallel g by 1 : group-4` in a block of one warp group):
// its index is always 0, and `q # p # g` tiles the rows as `q # p` does (the index of one
// value once hid p, whose stride it shares: gemm_skinny.co.cpp's workspace was filled)
__co__ s32 [8, 4] one_instance(s32 [8, 4] a) {
  s32 [a.span] out;
  parallel {q, p} by [2, 2] {
    parallel g by 1
      dma.copy a.subspan(2, 4).at(q # p # g, 0) => out.subspan(2, 4).at(q # p # g, 0);
  }
  return out;
}

// a kernel chosen by the shape: each branch of the if/else writes all of out
__co__ s32 [a.span] chosen(s32 [M, N] a) {
  s32 [a.span] out;
  if (M < 4) {
    parallel {p, q} by [M, N]
      out.at(p, q) = a.at(p, q) + 100;
  } else {
    parallel p by M
      dma.copy a.chunkat(p, _) => out.chunkat(p, _);
  }
  return out;
}

int main() {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = i + 1;
  auto t = tiles(choreo::make_spanview<2>(a, {4, 8}));
  long ts = 0;
  for (int i = 0; i < 32; ++i) ts += (long)t.data()[i] * (i + 1);
  std::cout << "tiles " << t[0][0] << " " << t[3][7] << " " << ts << "\n";
  // out == a: sum of i^2 for i in 1..32 = 32*33*65/6
  // expect-output: tiles 1 32 11440

  auto r = rows(choreo::make_spanview<2>(a, {6, 5}));
  long rs = 0;
  for (int i = 0; i < 30; ++i) rs += r.data()[i];
  std::cout << "rows " << r[0][0] << " " << r[5][4] << " " << rs << "\n";
  // 2 * (1 + ... + 30) = 930
  // expect-output: rows 2 60 930

  auto s = staged(choreo::make_spanview<2>(a, {2, 8}));
  std::cout << "staged " << s[0][0] << " " << s[0][7] << " " << s[1][0] << " " << s[1][7] << "\n";
  // row p reversed, minus 1: out[p][k] = a[p][7 - k] - 1 = 8 p + 7 - k
  // expect-output: staged 7 0 15 8

  for (int m : {9, 13}) {   // 9: the fourth tile (rows 12..15) is skipped; 13: the last is clipped
    auto e = edges(choreo::make_spanview<2>(a, {(size_t)m, 2}));
    long es = 0;
    for (int i = 0; i < 2 * m; ++i) es += e.data()[i] == a[i];
    std::cout << "edges " << m << " " << es << " " << e[m - 1][1] << "\n";
  }
  // out == a: all 2 m elements equal, the last a[2 m - 1] = 2 m
  // expect-output: edges 9 18 18
  // expect-output: edges 13 26 26

  auto hr = halves_reversed(choreo::make_spanview<2>(a, {8, 4}));
  long hs = 0;
  for (int i = 0; i < 32; ++i) hs += hr.data()[i];
  std::cout << "halves_reversed " << hr[0][0] << " " << hr[7][3] << " " << hs << "\n";
  // out == a: 1 + ... + 32 = 528
  // expect-output: halves_reversed 1 32 528

  auto oi = one_instance(choreo::make_spanview<2>(a, {8, 4}));
  long os = 0;
  for (int i = 0; i < 32; ++i) os += oi.data()[i];
  std::cout << "one_instance " << oi[0][0] << " " << oi[7][3] << " " << os << "\n";
  // out == a: 528
  // expect-output: one_instance 1 32 528

  auto c2 = chosen(choreo::make_spanview<2>(a, {2, 4}));
  auto c8 = chosen(choreo::make_spanview<2>(a, {8, 4}));
  std::cout << "chosen " << c2[0][0] << " " << c2[1][3] << " " << c8[0][0] << " " << c8[7][3] << "\n";
  // M = 2: a + 100; M = 8: a
  // expect-output: chosen 101 108 1 32
}
