// 'dma.any' futures that take their type from 'swap', 'rotate' and 'select' partners
// (the reference's type constraints), run on every target:
// - tri: triple buffering; C never gets a copy: 'rotate(A, B, C)' gives it B's type and a
//   buffer of its own, so three buffers take turns (A takes B's, B takes C's, C takes A's);
// - chain: 'swap(A, B)' of two untyped 'dma.any' before any copy; the copy assigned to A in
//   the loop types both, lands in A's current buffer each iteration, and after the loop
//   B.data holds the last tile (name-exchange semantics: B got it by the last swap);
// - pick: 'select(#y % 2, lfA, spare)' types the unused 'dma.any' spare; with #y = 4 it
//   picks lfA, the last tile of the prologue/body/epilogue pipeline ('foreach y(1:)');
//   output chunk y holds tile y - 1 doubled, and chunk 0 (the epilogue's) the last tile;
// - inner: a 'dma.any' of an inner level typed by its swap with that level's copy, whose
//   'wait' then waits for nothing (the copy swapped into it completes when issued).
// Expected values: Python over the same index arithmetic (the expect-output lines).
__cok__ { extern "C" void twice(int* o, const int* a, int n) { for (int i = 0; i < n; ++i) o[i] = 2 * a[i]; } }
__co__ s32 [4, 64] tri(s32 [4, 64] src) {
  s32 [4, 64] out;
  parallel p by 4 {
    local s32 [1, 8] o;
    with k in [8] {
      A = dma.copy.async src.chunkat(p, k) => local;
      B = dma.any;
      C = dma.any;
      foreach k {
        B = dma.copy.async src.chunkat(p, (k + 1) % #k) => local;
        wait A;
        call twice(o, A.data, 8);
        dma.copy o => out.chunkat(p, k);
        rotate(A, B, C);
      }
      wait A;
    }
  }
  return out;
}
__co__ s32 [4, 32] chain(s32 [4, 32] src) {
  s32 [4, 32] out;
  parallel p by 4 {
    local s32 [1, 8] o;
    with k in [4] {
      A = dma.any;
      B = dma.any;
      swap(A, B);
      foreach k {
        A = dma.copy.async src.chunkat(p, k) => local;
        wait A;
        call twice(o, A.data, 8);
        dma.copy o => out.chunkat(p, k);
        swap A, B;
      }
      dma.copy B.data => out.chunkat(p, k);
    }
  }
  return out;
}
__co__ s32 [4, 32] pick(s32 [4, 32] src) {
  s32 [4, 32] out;
  parallel p by 4 {
    local s32 [1, 8] o;
    with y in [4] {
      lfA = dma.copy.async src.chunkat(p, y) => local;
      lfB = dma.any;
      spare = dma.any;
      foreach y(1:) {
        lfB = dma.copy.async src.chunkat(p, y) => local;
        wait lfA;
        call twice(o, lfA.data, 8);
        dma.copy o => out.chunkat(p, y);
        swap(lfA, lfB);
      }
      lf = select(#y % 2, lfA, spare);
      wait lf;
      call twice(o, lf.data, 8);
      dma.copy o => out.chunkat(p, y);
    }
  }
  return out;
}
__co__ s32 [4, 16] inner(s32 [4, 16] src) {
  s32 [4, 16] out;
  parallel p by 4 {
    parallel q by 2 {
      local s32 [1, 8] o;
      d = dma.any;
      e = dma.copy.async src.chunkat(p, q) => local;
      swap(d, e);
      wait d;
      call twice(o, d.data, 8);
      dma.copy o => out.chunkat(p, q);
    }
  }
  return out;
}
int main() {
  int in[256];
  for (int i = 0; i < 256; ++i) in[i] = i;
  auto r = tri(choreo::make_spanview<2>(in, {4, 64}));
  long s = 0; for (int i = 0; i < 256; ++i) s += (long)r.data()[i] * (i + 1);
  std::cout << r[1][9] << " " << s << "\n";
  auto c = chain(choreo::make_spanview<2>(in, {4, 32}));
  long cs = 0; for (int i = 0; i < 128; ++i) cs += (long)c.data()[i] * (i + 1);
  std::cout << c[2][0] << " " << c[2][9] << " " << cs << "\n";
  auto q = pick(choreo::make_spanview<2>(in, {4, 32}));
  long qs = 0; for (int i = 0; i < 128; ++i) qs += (long)q.data()[i] * (i + 1);
  std::cout << q[3][31] << " " << qs << "\n";
  auto n = inner(choreo::make_spanview<2>(in, {4, 16}));
  long ns = 0; for (int i = 0; i < 64; ++i) ns += (long)n.data()[i] * (i + 1);
  std::cout << n[3][15] << " " << ns << "\n";
}
// expect-output: 146 11184640
// expect-output: 88 146 1310688
// expect-output: 238 1373440
// expect-output: 126 174720
