// `half`, CUDA's name that the reference's host code uses (tma_with_global_ref.co:
// `new half[M * K]`, `sizeof(half)`): with nvcc CUDA's own type, elsewhere croktile's f16
// (the generated source's alias, given only to a program that declares no `half` of its
// own: host/half_own.co.cpp). Expected values by hand: exact in f16.
#include <cstdio>

__co__ f16 [4] plus_one(f16 [4] a) {
  f16 [a.span] out;
  parallel p by 1 {
    foreach i in [4]
      out.at(i) = a.at(i) + 1.0f;
  }
  return out;
}

int main() {
  half* h = new half[4];   // half as a type: new, sizeof, declarations
  for (int i = 0; i < 4; ++i) h[i] = __float2half(i * 0.5f);
  auto a = choreo::make_spandata<choreo::f16>(4);
  for (int i = 0; i < 4; ++i) a[i] = h[i];
  auto r = plus_one(a.view());
  std::printf("%d", (int)sizeof(half));
  for (int i = 0; i < 4; ++i) std::printf(" %g", __half2float(r[i]));
  std::printf("\n");
  delete[] h;
}

// expect-output: 2 1 1.5 2 2.5
