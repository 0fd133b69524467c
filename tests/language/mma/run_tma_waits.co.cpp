// Futures of `tma.copy.async` waited more than once (issue #36): a future waited twice is
// complete the second time. On sm_90a each of these loads completes on an mbarrier phase
// that completes once (cuda/tma.py): a second wait of it waited for a phase nothing would
// complete and hung. Now a wait of a future complete on every path is no code, and one
// complete on some paths only (a loop's later iterations, a `tma.any` waited before its
// first copy) checks a per-barrier bit of what is in flight
// (tests/targets/cuda/test_tma.py checks the code; test_mma_programs_gpu.py runs it).
// - twice: `wait f; wait f;`;
// - looped: a copy before a loop, waited in each of its iterations and after it;
// - prologue: `f = tma.any`, waited at the top of each iteration for the copy of the one
//   before (the first wait waits for nothing), and twice after the loop;
// - branches: waited on both arms of `if ... else` and again after it.
// Expected values by hand: a[r][j] = r * 64 + j.
// cuda-arch: sm_90a

__co__ auto twice(f32 [4, 64] a) {
  f32 [4, 64] out;
  parallel p by 4 : block {
    f = tma.copy.async a.chunkat(p, _) => shared;
    wait f;
    wait f;
    foreach j in [64]
      out.at(p, j) = f.data.at(0, j) * 2.0f;
  }
  return out;
}

__co__ auto looped(f32 [4, 64] a) {
  f32 [4, 64] out;
  parallel p by 4 : block {
    f = tma.copy.async a.chunkat(p, _) => shared;
    shared f32 [1, 64] acc;
    foreach j in [64]
      acc.at(0, j) = 0.0f;
    foreach k in [3] {
      wait f;
      foreach j in [64]
        acc.at(0, j) = acc.at(0, j) + f.data.at(0, j);
    }
    wait f;
    foreach j in [64]
      out.at(p, j) = acc.at(0, j);
  }
  return out;
}

__co__ auto prologue(f32 [4, 64] a) {
  f32 [1, 64] out;
  parallel p by 1 : block {
    f = tma.any;
    shared f32 [1, 64] acc, row;
    foreach j in [64]
      acc.at(0, j) = 0.0f;
    foreach k in [4] {
      wait f;
      if (k > 0) {
        foreach j in [64]
          acc.at(0, j) = acc.at(0, j) + row.at(0, j);
      }
      f = tma.copy.async a.chunkat(k, _) => row;
    }
    wait f;
    wait f;
    foreach j in [64]
      out.at(0, j) = acc.at(0, j) + row.at(0, j);
  }
  return out;
}

__co__ auto branches(f32 [4, 64] a, int n) {
  f32 [4, 64] out;
  parallel p by 4 : block {
    f = tma.copy.async a.chunkat(p, _) => shared;
    if (n > p) {
      wait f;
    } else {
      wait f;
    }
    wait f;
    foreach j in [64]
      out.at(p, j) = f.data.at(0, j) + 1.0f;
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f32>(4, 64);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 64; ++j) a[r][j] = r * 64 + j;
  auto t = twice(a.view());
  std::cout << "twice " << t[0][1] << " " << t[3][63] << "\n";
  auto l = looped(a.view());
  std::cout << "looped " << l[0][1] << " " << l[2][5] << "\n";
  auto q = prologue(a.view());
  std::cout << "prologue " << q[0][0] << " " << q[0][63] << "\n";
  auto b = branches(a.view(), 2);
  std::cout << "branches " << b[0][0] << " " << b[3][63] << "\n";
}
// twice: 2 a; looped: 3 a; prologue: the column sums 0 + 64 + 128 + 192 + 4 j;
// branches: a + 1
// expect-output: twice 2 510
// expect-output: looped 3 399
// expect-output: prologue 384 636
// expect-output: branches 1 256
