// More declarations of names OpenCL C reserves, in positions reserved_names.co.cpp does
// not use: a typedef and a variable after a struct body ('} event_t;'), union tags,
// members, functions named like built-in types, macros in __cok__ code, and a tileflow
// future named event_t whose async copy makes the kernel use OpenCL's own event_t. The
// opencl target's results must be the cpu target's.
#include <cstdio>

__cok__ {
#define global_add(a, b) ((a) + (b))
  typedef int half;
  typedef struct { int priv; int size_t; int uchar; } event_t;
  union float2 { int i; float f; };
  typedef int sampler_t;
  static int char4(int x) { return x + 1; }
  static int image1d_t(int x) { return x * 3; }

  static int pipe(int read_write, half global) {
    event_t e;
    struct { int kernel; } local = {2};
    e.priv = read_write;
    e.size_t = global;
    e.uchar = local.kernel;
    union float2 u;
    u.i = e.priv + e.size_t * e.uchar;
    sampler_t f = char4(u.i);
    return f + image1d_t(1);
  }

  extern "C" void apply(int* global, int n, int half_value) {
    for (int i = 0; i < n; ++i) {
      int double4 = global[i];
      long ulong = double4;
      unsigned int uint2 = 1;
      global[i] = global_add(pipe((int)ulong, half_value), (int)uint2);
    }
  }
}

__co__ s32 [2, 4] run(s32 [2, 4] x, int h) {
  s32 [x.span] out;
  parallel image2d_t by 2 {
    event_t = dma.copy.async x.chunkat(image2d_t, _) => shared;
    wait event_t;
    kernel = dma.copy event_t.data => local;
    call apply(kernel, 4, h);
    dma.copy kernel => out.chunkat(image2d_t, _);
  }
  return out;
}

int main() {
  int x[2][4];
  for (int i = 0; i < 8; ++i) (&x[0][0])[i] = i * 5 % 7 - 3;
  auto r = run(choreo::make_spanview<2>(&x[0][0], {2, 4}), 3);
  for (int i = 0; i < 8; ++i) std::printf(" %d", (&r[0][0])[i]);
  std::printf("\n");
}
