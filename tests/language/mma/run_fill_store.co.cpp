// An accumulator that is only filled and stored, never multiplied (found by the
// tensor-core fuzzer, #36: '-S' failed internally, as the fragment had no instruction
// shape): it takes the shape of its data and stores the value it was filled with.
// cuda-arch: sm_80
#include <cstdio>

__co__ auto filled(f16 [16, 16] a) {
  f32 [16, 16] out;
  parallel p by 1 : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 2.5f;
      mma.store mc, out;
    }
  }
  return out;
}

int main() {
  auto a = croktile::make_spandata<croktile::f16>(16, 16);
  auto c = filled(a.view());
  double s = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) s += c[i][j];
  std::printf("%g %g %g\n", c[0][0], c[15][15], s);
}
// expect-output: 2.5 2.5 640
