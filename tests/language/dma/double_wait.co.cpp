// A future waited twice is complete the second time (issue #36): the second `wait` does
// nothing on every target (analysis/futures.py; cuda's copy-engine version of these waits,
// on mbarrier phases that complete once: tests/language/mma/run_tma_waits.co.cpp):
// - twice: `wait f; wait f;` in straight-line code, then `wait f, g` with f waited;
// - looped: a copy issued before a loop and waited in every iteration (complete after
//   the first), and once more after the loop;
// - branches: waited on both arms of an `if ... else` (complete after it), on one arm
//   only (waited again after it), and in a loop that may run no iteration.
// Each block copies one contiguous row of 32 into shared memory (a work-group copy with
// an event on opencl). Expected values by hand: row p of `a` holds 100 p + j.

__co__ s32 [4, 32] twice(s32 [4, 32] a) {
  s32 [4, 32] out;
  parallel p by 4 {
    f = dma.copy.async a.chunkat(p, _) => shared;
    wait f;
    wait f;
    g = dma.copy.async a.chunkat((p + 1) % 4, _) => shared;
    wait f, g;
    foreach j in [32]
      out.at(p, j) = f.data.at(0, j) + g.data.at(0, j);
  }
  return out;
}

__co__ s32 [4, 32] looped(s32 [4, 32] a) {
  s32 [4, 32] out;
  parallel p by 4 {
    f = dma.copy.async a.chunkat(p, _) => shared;
    local s32 [1, 32] acc;
    foreach j in [32]
      acc.at(0, j) = 0;
    foreach k in [3] {
      wait f;
      foreach j in [32]
        acc.at(0, j) += f.data.at(0, j);
    }
    wait f;
    foreach j in [32]
      out.at(p, j) = acc.at(0, j);
  }
  return out;
}

__co__ s32 [4, 32] branches(s32 [4, 32] a, int n) {
  s32 [4, 32] out;
  parallel p by 4 {
    f = dma.copy.async a.chunkat(p, _) => shared;
    if (n > 2) {
      wait f;
    } else {
      wait f;
    }
    wait f;
    g = dma.copy.async a.chunkat((p + 2) % 4, _) => shared;
    if (n > 5) {
      wait g;
    }
    wait g;
    h = dma.copy.async a.chunkat((p + 3) % 4, _) => shared;
    with k in [4] {
      foreach k(n:) {
        wait h;
      }
    }
    wait h;
    foreach j in [32]
      out.at(p, j) = f.data.at(0, j) - g.data.at(0, j) + h.data.at(0, j);
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::s32>(4, 32);
  for (int p = 0; p < 4; ++p)
    for (int j = 0; j < 32; ++j) a[p][j] = 100 * p + j;
  auto t = twice(a.view());
  std::cout << "twice " << t[0][0] << " " << t[1][5] << " " << t[3][31] << "\n";
  auto l = looped(a.view());
  std::cout << "looped " << l[0][1] << " " << l[2][7] << "\n";
  for (int n : {1, 9}) {
    auto b = branches(a.view(), n);
    std::cout << "branches " << b[0][0] << " " << b[1][4] << " " << b[3][31] << "\n";
  }
}
// twice: f row p, g row p+1 (mod 4): 100 (2p + 1) + 2j, row 3 with row 0: 300 + 2j
// expect-output: twice 100 310 362
// looped: 3 (100 p + j)
// expect-output: looped 3 621
// branches: rows p - (p + 2) + (p + 3) mod 4, plus j: p=0: 0 - 200 + 300 = 100;
// p=1: 100 - 300 + 0 + 4 = -196; p=3: 300 - 100 + 200 + 31 = 431 (for any n)
// expect-output: branches 100 -196 431
// expect-output: branches 100 -196 431
