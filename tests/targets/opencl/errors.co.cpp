// Runtime errors of the opencl target: each is caught and printed, so the tests
// can check that the message names the failing OpenCL call and the .co.cpp line.
// argv[1] picks the function: none (a plain launch), "wide" (an inner parallel
// wider than a PoCL work-group may be: the work-items loop) or "huge" (a global
// buffer larger than the device can allocate).
#include <cstdio>
#include <cstring>

__cok__ {
  extern "C" void add(int* a, const int* b, int n) { for (int i = 0; i < n; ++i) a[i] += b[i]; }
}

__co__ s32 [2, 8] twice(s32 [2, 8] x) {
  s32 [x.span] out;
  parallel p by 2 {
    t = dma.copy x.chunkat(p, _) => local;
    call add(t, t, 8);
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}

__co__ s32 [2, 8192] wide(s32 [2, 8192] x) {
  s32 [x.span] out;
  parallel p by 2 {
    parallel q by 8192 {
      t = dma.copy x.chunkat(p, q) => local;
      call add(t, t, 1);
      dma.copy t => out.chunkat(p, q);
    }
  }
  return out;
}

__co__ s32 [2, 8] huge(s32 [2, 8] x, int n) {
  s32 [n, 1024, 1024] big;                 // n GiB * 4
  s32 [x.span] out;
  parallel p by 2 {
    t = dma.copy x.chunkat(p, _) => local;
    dma.copy t => out.chunkat(p, _);
  }
  return out;
}

int main(int argc, char** argv) {
  static int x[2][8192];
  for (int i = 0; i < 16; ++i) x[0][i] = i;
  try {
    if (argc > 1 && std::strcmp(argv[1], "huge") == 0) {
      auto r = huge(choreo::make_spanview<2>(&x[0][0], {2, 8}), 1 << 20);
      std::printf("huge: %d\n", r[0][5]);
    } else if (argc > 1 && std::strcmp(argv[1], "wide") == 0) {
      for (int i = 0; i < 2 * 8192; ++i) (&x[0][0])[i] = i % 1000;
      auto r = wide(choreo::make_spanview<2>(&x[0][0], {2, 8192}));
      int wrong = 0;
      for (int i = 0; i < 2 * 8192; ++i) wrong += (&r[0][0])[i] != 2 * (i % 1000);
      std::printf("wide: %d wrong\n", wrong);
    } else {
      auto r = twice(choreo::make_spanview<2>(&x[0][0], {2, 8}));
      std::printf("twice: %d\n", r[0][5]);
    }
  } catch (const croktile::runtime_error& e) {
    std::printf("runtime_error: %s\n", e.what());
    return 2;
  }
  return 0;
}
