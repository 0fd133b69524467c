// Device code that is valid C and C++ but names things with words OpenCL C reserves
// (address space, function and access qualifiers, half, vector and built-in type
// names) as variables, parameters, functions, members and types. The opencl target
// renames them in the device program; the result must be the cpu target's.
#include <cstdio>

__cok__ {
  typedef unsigned int uint;                 // OpenCL C's own uint: a compatible name
  typedef int float4;                        // a user type named like a vector type
  struct int2 { int half; int local; };      // a tag and members
  enum { constant = 3, read_only = 1 };      // enumerators

  static int restrict(int global, int local) { return global * 10 + local; }
  static float4 half(float4 kernel) { struct int2 v = {kernel, constant}; return v.half + v.local; }

  extern "C" void kernel(int* global, int n, int write_only) {
    for (int read_write = 0; read_write < n; ++read_write) {
      uint image2d_t = (uint)read_write;                  // an OpenCL C image type name
      int sampler_t = restrict(global[read_write], read_only);
      global[read_write] = half(sampler_t) + (int)image2d_t * write_only;
    }
  }
}

// tileflow names that OpenCL C reserves: a parameter, a buffer, a parallel variable
__co__ s32 [4, 8] run(s32 [4, 8] x, int read_only) {
  s32 [x.span] out;
  parallel uint by 4 {
    float4 = dma.copy x.chunkat(uint, _) => local;
    call kernel(float4, 8, read_only);
    dma.copy float4 => out.chunkat(uint, _);
  }
  return out;
}

int main() {
  int x[4][8];
  for (int i = 0; i < 32; ++i) (&x[0][0])[i] = i * 7 % 13 - 6;
  auto r = run(choreo::make_spanview<2>(&x[0][0], {4, 8}), 2);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) std::printf(" %d", r[i][j]);
    std::printf("\n");
  }
}
