// The autotuner's test kernel (test_tune.py): rows doubled, split in TILE parts. A TILE
// that does not divide the rows fails the run-time divisibility check (the variant raises
// for that shape); TILE 3 fails to build (a static_assert, as a kernel rejects a tile size).
#ifndef TILE
#define TILE 2
#endif

static_assert(TILE != 3, "TILE must be a power of two");

__cok__ {
  extern "C" void twice_k(const int* x, int* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 2 * x[i];
  }
}

__co__ s32 [a.span] twice(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by TILE {
    t = dma.copy a.chunkat(p, _) => local;
    local s32 [t.span] y;
    call twice_k(t.data, y, |t.span|);
    dma.copy y => out.chunkat(p, _);
  }
  return out;
}
