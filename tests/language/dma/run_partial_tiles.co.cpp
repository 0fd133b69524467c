// Partial tiles (docs/language/spans.md): a '.subspan(s).at(i)' or '.view(s).from(o)' tile
// that crosses the end of its data reads zeros past it and writes only inside it, on
// every target. Expected values: numpy (np.pad of the 10 x 7 input to whole tiles).
// - padded: every 4 x 4 tile of a 10 x 7 matrix under 'parallel' bounds from 'cdiv',
//   copied into whole tiles of a padded result (the zeros past the edge show);
// - twice: the tiles doubled in local memory and written back clipped (elements outside
//   the data are not written: the result is exactly 2a + 1);
// - nested: tiles of a chunk cross the chunk's end, not the data's: zeros there too, not
//   the next chunk's rows;
// - from: '.view(3, 3).from(r, c)' boxes at any offset.
#include <cstdio>

__co__ f32 [cdiv(M, 4) * 4, cdiv(N, 4) * 4] padded(f32 [M, N] a) {
  f32 [cdiv(M, 4) * 4, cdiv(N, 4) * 4] out;
  parallel {p, q} by [cdiv(M, 4), cdiv(N, 4)] {
    t = dma.copy a.subspan(4, 4).at(p, q) => local;
    dma.copy t.data => out.chunkat(p, q);
  }
  return out;
}

__co__ f32 [M, N] twice(f32 [M, N] a) {
  f32 [M, N] out;
  parallel {p, q} by [cdiv(M, 4), cdiv(N, 4)] {
    local f32 [4, 4] t;
    dma.copy a.subspan(4, 4).at(p, q) => t;
    foreach i in [4], j in [4]
      t.at(i, j) = t.at(i, j) * 2.0f + 1.0f;
    dma.copy t => out.subspan(4, 4).at(p, q);
  }
  return out;
}

__co__ f32 [12, 7] nested(f32 [10, 7] a) {
  f32 [12, 7] out;
  parallel p by 2 {
    foreach i in [2] {
      t = dma.copy a.chunkat(p, _).subspan(3, 7).at(i, 0) => local;
      dma.copy t.data => out.subspan(3, 7).at(p * 2 + i, 0);
    }
  }
  return out;
}

__co__ f32 [12, 3] from(f32 [10, 7] a) {
  f32 [12, 3] out;
  parallel p by 4 {
    t = dma.copy a.view(3, 3).from(p * 3, p * 2) => local;
    dma.copy t.data => out.chunkat(p, _);
  }
  return out;
}

int main() {
  float in[70];
  for (int i = 0; i < 70; ++i) in[i] = i + 1;
  auto a = croktile::make_spanview<2>(in, {10, 7});
  auto r = padded(a);
  double s = 0;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 8; ++j) s += r[i][j] * (i * 8 + j + 1);
  std::printf("padded: %g %g %g %g\n", r[9][6], r[9][7], r[10][0], s);
  auto w = twice(a);
  s = 0;
  for (int i = 0; i < 70; ++i) s += w.data()[i] * (i + 1);
  std::printf("twice: %g %g\n", w[9][6], s);
  auto n = nested(a);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 6; ++j) std::printf(j ? " %g" : "%g", n[i * 6 + j][6]);
    std::printf("\n");
  }
  auto f = from(a);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) std::printf(j ? " %g" : "%g", f[i * 3 + j][2]);
    std::printf("\n");
  }
}
// expect-output: padded: 70 0 0 132020
// expect-output: twice: 141 236075
// expect-output: 7 14 21 28 35 0
// expect-output: 42 49 56 63 70 0
// expect-output: 3 10 17
// expect-output: 26 33 40
// expect-output: 49 56 63
// expect-output: 0 0 0
