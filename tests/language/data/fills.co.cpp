// Declared data that may be read before it is written reads zeros there, on every target
// (README "Zero fills"); fills_none.co.cpp has the data written in full, which is not filled.
// `// fill` marks each declaration the compiler must fill (tests/analysis/test_fills.py
// checks them against -Wimplicit-fill); every other declaration here must not be filled.
// Expected values are worked out by hand (see each line).

// the tiles of column 0 are left out (`foreach j(1:)`): column 0 reads 0
__co__ s32 [4, 4] halves(s32 [4, 4] a) {
  s32 [a.span] out;                            // fill
  parallel p by 2 {
    with j in [4] {
      foreach j(1:)
        dma.copy a.chunkat(p, j) => out.chunkat(p, j);
    }
  }
  return out;
}

// a masked write, and a local read before all of it is written
__co__ s32 [8] masked(s32 [8] a) {
  s32 [a.span] out;
  parallel p by 1 {
    local s32 [8] t;                           // fill
    foreach i in [8] if (i % 3 == 0)
      t.at(i) = a.at(i) + 100;
    dma.copy t => out;
  }
  return out;
}

// an accumulation reads what it has not written; the initialiser fills as written
__co__ s32 [4] sums(s32 [4, 4] a) {
  s32 [4] acc;                                 // fill
  s32 [4] base{5};
  parallel p by 1 {
    foreach {i, k} in [4, 4]
      acc.at(i) += a.at(i, k) + base.at(i);
  }
  return acc;
}

// `parallel p by M / 2` rows of 2 cover M rows only when M is even: filled when it is odd
// (only then: the fill is under `if (!((2*(M / 2)) == M))`)
__co__ s32 [a.span] pairs(s32 [M, N] a) {
  s32 [a.span] out;                            // fill
  parallel p by M / 2 {
    foreach {r, c} in [2, N]
      out.at(p # r, c) = a.at(p # r, c) * 2;
  }
  return out;
}

// the guard skips a tile inside the data (the last of cdiv(M, 4)): its rows stay zeros
__co__ s32 [a.span] short_edges(s32 [M, N] a) {
  s32 [a.span] out;                            // fill
  parallel t by cdiv(M, 4) {
    if (t < cdiv(M, 4) - 1) {
      tile = dma.copy a.subspan(4, N).at(t, 0) => local;
      dma.copy tile.data => out.subspan(4, N).at(t, 0);
    }
  }
  return out;
}

// one of the two column halves of each row: the other stays zeros
__co__ s32 [8, 4] one_half(s32 [8, 4] a) {
  s32 [a.span] out;                            // fill
  parallel p by 4 {
    dma.copy a.subspan(2, 2).at(p, 0) => out.subspan(2, 2).at(p, 0);
  }
  return out;
}

// only one branch of the if/else writes all of out: the other leaves rows 1.. as zeros
__co__ s32 [a.span] one_branch(s32 [M, N] a) {
  s32 [a.span] out;                            // fill
  if (M < 4) {
    parallel p by M
      dma.copy a.chunkat(p, _) => out.chunkat(p, _);
  } else {
    parallel p by 1
      dma.copy a.subspan(1, N).at(p, 0) => out.subspan(1, N).at(p, 0);
  }
  return out;
}

int main() {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = i + 1;
  auto h = halves(choreo::make_spanview<2>(a, {4, 4}));
  std::cout << "halves " << h[0][0] << " " << h[0][1] << " " << h[3][0] << " " << h[3][3] << "\n";
  // columns 1..3 copied (a[r][c] = 4 r + c + 1), column 0 zeros
  // expect-output: halves 0 2 0 16

  auto m = masked(choreo::make_spanview<1>(a, {8}));
  std::cout << "masked";
  for (int i = 0; i < 8; ++i) std::cout << " " << m[i];
  std::cout << "\n";
  // i = 0, 3, 6: a[i] + 100 = i + 101
  // expect-output: masked 101 0 0 104 0 0 107 0

  auto s = sums(choreo::make_spanview<2>(a, {4, 4}));
  std::cout << "sums " << s[0] << " " << s[1] << " " << s[2] << " " << s[3] << "\n";
  // row i: (4i+1 + ... + 4i+4) + 4 * 5 = 16 i + 10 + 20
  // expect-output: sums 30 46 62 78

  auto even = pairs(choreo::make_spanview<2>(a, {6, 5}));
  auto odd = pairs(choreo::make_spanview<2>(a, {5, 4}));
  std::cout << "pairs " << even[0][0] << " " << even[5][4] << " " << odd[3][3] << " " << odd[4][0] << " "
            << odd[4][3] << "\n";
  // 2 a; the odd shape's last row (4) is not written: zeros
  // expect-output: pairs 2 60 32 0 0

  auto se = short_edges(choreo::make_spanview<2>(a, {10, 2}));
  std::cout << "short_edges " << se[0][0] << " " << se[7][1] << " " << se[8][0] << " " << se[9][1] << "\n";
  // rows 0..7 copied (a[r][c] = 2 r + c + 1); rows 8, 9 (the third tile) not written
  // expect-output: short_edges 1 16 0 0

  auto oh = one_half(choreo::make_spanview<2>(a, {8, 4}));
  long os = 0;
  for (int i = 0; i < 32; ++i) os += oh.data()[i];
  std::cout << "one_half " << oh[0][0] << " " << oh[0][2] << " " << oh[7][1] << " " << os << "\n";
  // columns 0 and 1 of a[r][c] = 4 r + c + 1: sum of 8 r + 3 over r < 8 = 248
  // expect-output: one_half 1 0 30 248

  auto ob = one_branch(choreo::make_spanview<2>(a, {6, 4}));
  long obs = 0;
  for (int i = 0; i < 24; ++i) obs += ob.data()[i];
  std::cout << "one_branch " << ob[0][3] << " " << ob[1][0] << " " << obs << "\n";
  // row 0 is a's first row, 1 + 2 + 3 + 4
  // expect-output: one_branch 4 0 10
}
