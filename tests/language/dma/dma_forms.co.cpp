// DMA forms of the reference language, run on every target:
// - ab: double buffering with 'dma.any' for the second future, 'swap', a 'select' of data
//   as the output of each step and a 'select' of futures waited after the loop;
// - tr, pd: 'dma.transp' and 'dma.pad.async' with a run-time padding value;
// - pipe: a 'wait' of a 'dma.any' future at the top of the loop, before the copy that is
//   assigned to it further down (the first iteration waits for nothing);
// - sel: copies into 'select(k % 2, a.chunkat(..), b.chunkat(..))' that start 'after' the
//   copy they read, and 'wait f, g' of two futures.
// Expected values: numpy (transpose, an explicit padding loop) and plain Python loops
// over the same index arithmetic (the expect-output lines at the end).
__cok__ { extern "C" void acc(int* o, const int* a, int n) { for (int i = 0; i < n; ++i) o[i] += a[i]; } }
__co__ s32 [4, 8, 16] ab(s32 [4, 8, 16] lhs) {
  s32 [4, 8, 16] out;
  parallel p by 4 {
    local s32 [1, 1, 4] o0, o1;
    with index = {x, y} in [8, 4] {
      foreach x {
        lfA = dma.copy.async lhs.chunkat(p, x, y) => local;
        lfB = dma.any;
        foreach y {
          wait lfA;
          lfB = dma.copy.async lhs.chunkat(p, x, (y + 1) % #y) => local;
          l_out = select(y % 2, o0, o1);
          call acc(l_out, lfA.data, |l_out|);
          dma.copy l_out => out.chunkat(p, x, y);
          swap(lfA, lfB);
        }
        lf = select(#y % 2, lfB, lfA);
        wait lf;
      }
    }
  }
  return out;
}
__co__ s32 [2, 8, 6] tr(s32 [2, 6, 8] a) {
  s32 [2, 8, 6] out;
  parallel p by 2 {
    t = dma.transp<0, 2, 1> a.chunkat(p, _, _) => local;
    dma.copy t.data => out.chunkat(p, _, _);
  }
  return out;
}
__co__ s32 [8, 10] pd(s32 [4, 4] a, int v) {
  s32 [8, 10] out;
  parallel p by 2 {
    f = dma.pad.async<{1, 2}, {1, 4}, {0, 0}, v> a.chunkat(p, _) => shared;
    wait f;
    dma.copy f.data => out.chunkat(p, _);
  }
  return out;
}
__cok__ { extern "C" void twice(int* o, const int* a, int n) { for (int i = 0; i < n; ++i) o[i] = 2 * a[i]; } }
// dma.any prologue: the wait at the top of the loop waits the previous iteration's copy
__co__ s32 [4, 32] pipe(s32 [4, 32] src) {
  s32 [4, 32] out;
  parallel p by 4 {
    with k in [8] {
      f0 = dma.any;
      local s32 [1, 4] o;
      foreach k {
        wait f0;
        f0 = dma.copy.async src.chunkat(p, k) => local;
        wait f0;
        call twice(o, f0.data, 4);
        dma.copy o => out.chunkat(p, k);
      }
    }
  }
  return out;
}
// DMA into select(...) and 'after': even chunks land in a, odd ones in b
__co__ s32 [4, 32] sel(s32 [4, 32] src) {
  s32 [4, 32] out;
  parallel p by 4 {
    shared s32 [1, 32] a, b;
    with k in [4] {
      foreach k {
        g = dma.copy.async src.chunkat(p, _) => shared;
        d = dma.copy.async g.chunkat(_, k) => select(k % 2, a.chunkat(_, k), b.chunkat(_, k)) after g;
        e = dma.copy.async g.chunkat(_, k) => local;
        wait d, e;
      }
    }
    dma.copy a => out.chunkat(p, _);
  }
  return out;
}
int main() {
  int in[512];
  for (int i = 0; i < 512; ++i) in[i] = i;
  auto r = ab(choreo::make_spanview<3>(in, {4, 8, 16}));
  long s = 0; for (int i = 0; i < 512; ++i) s += r.data()[i] * (i % 7);
  std::cout << r[0][0][0] << " " << r[1][2][5] << " " << r[3][7][15] << " " << s << "\n";

  auto t = tr(choreo::make_spanview<3>(in, {2, 6, 8}));
  long ts = 0; for (int i = 0; i < 96; ++i) ts += (long)t.data()[i] * (i + 1);
  std::cout << t[1][3][5] << " " << ts << "\n";

  int b[16]; for (int i = 0; i < 16; ++i) b[i] = i + 1;
  auto q = pd(choreo::make_spanview<2>(b, {4, 4}), -7);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 10; ++j) std::cout << q[i][j] << (j == 9 ? "\n" : " ");

  auto pr = pipe(choreo::make_spanview<2>(in, {4, 32}));
  long ps = 0; for (int i = 0; i < 128; ++i) ps += (long)pr.data()[i] * (i + 3);
  std::cout << pr[2][7] << " " << ps << "\n";

  auto sr = sel(choreo::make_spanview<2>(in, {4, 32}));
  long ss = 0; for (int i = 0; i < 128; ++i) ss += (long)sr.data()[i] * (i + 3);
  std::cout << sr[1][3] << " " << sr[1][8] << " " << ss << "\n";
}
// expect-output: 0 745 7216 3078962
// expect-output: 91 281720
// expect-output: -7 -7 -7 -7 -7 -7 -7 -7 -7 -7
// expect-output: -7 -7 1 2 3 4 -7 -7 -7 -7
// expect-output: -7 -7 5 6 7 8 -7 -7 -7 -7
// expect-output: -7 -7 -7 -7 -7 -7 -7 -7 -7 -7
// expect-output: -7 -7 -7 -7 -7 -7 -7 -7 -7 -7
// expect-output: -7 -7 9 10 11 12 -7 -7 -7 -7
// expect-output: -7 -7 13 14 15 16 -7 -7 -7 -7
// expect-output: -7 -7 -7 -7 -7 -7 -7 -7 -7 -7
// expect-output: 142 1430528
// expect-output: 35 0 324352
