// An `if (p < n)` over a bounded p (docs/language/spans.md, "Tiles past the data, skipped"):
// inside it the tiles `.at(p)` and elements `.at(p)` are checked against n, but p's bound is unchanged, so
// `chunkat(p)` still makes #p chunks and `#p` is still the bound (a regression: the bound
// itself was once narrowed, and chunkat(p) split the data in 2 instead of 4).
#include <iostream>

__co__ s32 [8] first_half(s32 [8] a) {
  s32 [a.span] out{0};
  parallel p by 4 {
    if (p < 2) {
      t = dma.copy a.chunkat(p) => local;           // chunks of 2 (4 of them)
      local s32 [t.span] u;
      foreach i in [2] u.at(i) = t.data.at(i) + #p;  // #p is 4
      dma.copy u => out.chunkat(p);
    }
  }
  return out;
}

// tiles of 3 over cdiv(N, 3) = 3 blocks of a [7] array, the last partial; `t < 2` skips it
__co__ s32 [7] tiles(s32 [7] a) {
  s32 [a.span] out{0};
  parallel t by cdiv(7, 3) {
    if (t < 2) {
      x = dma.copy a.subspan(3).at(t) => local;
      dma.copy x.data => out.subspan(3).at(t);
    }
  }
  return out;
}

// one parallel over the rows of two arrays (H of a, then G of b): each `if` arm reads
// elements of its own array, checked against the arm's bound (nested ifs too), not against
// the H + G instances (the Llama layer's rope kernel: q heads, then k heads)
__co__ s32 [H, 2] rows_of_two(s32 [H, 2] a, s32 [G, 2] b, int lo) {
  s32 [H, 2] out;
  parallel h by H + G : block {
    parallel c by 2 : thread {
      if (h < H) {
        out.at(h, c) = a.at(h, c) * 10;
      }
      if (h >= lo) {
        if (h < H) {
          out.at(h, c) = out.at(h, c) + 1;
        }
      }
    }
  }
  return out;
}

int main() {
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  {
    int b[4] = {0, 0, 0, 0};
    auto r = rows_of_two(croktile::make_spanview<2>(a, {4, 2}), croktile::make_spanview<2>(b, {2, 2}), 2);
    std::cout << "rows_of_two";
    for (int i = 0; i < 8; ++i) std::cout << " " << r.data()[i];
    std::cout << "\n";
    // expect-output: rows_of_two 10 20 30 40 51 61 71 81
  }
  auto r = first_half(croktile::make_spanview<1>(a, {8}));
  std::cout << "first_half";
  for (int i = 0; i < 8; ++i) std::cout << " " << r[i];
  std::cout << "\n";
  // expect-output: first_half 5 6 7 8 0 0 0 0
  auto t = tiles(croktile::make_spanview<1>(a, {7}));
  std::cout << "tiles";
  for (int i = 0; i < 7; ++i) std::cout << " " << t[i];
  std::cout << "\n";
  // expect-output: tiles 1 2 3 4 5 6 0
}
