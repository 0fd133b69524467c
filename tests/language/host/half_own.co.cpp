// A program may name its own `half` (here a struct of the host code; opencl's
// reserved_declarators.co.cpp has a typedef in a __cok__ block): it is not croktile's f16
// then (host/half_alias.co.cpp has the alias a program gets when it only uses the name).
// targets: cpu factor opencl
// (cuda: CUDA's header declares `half` itself, as it does for any nvcc program.)
#include <cstdio>

__cok__ {
extern "C" void add_half(int* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = x[i] + x[i] / 2;
}
}

struct half {
  int numerator;
};

__co__ s32 [4] more(s32 [4] a) {
  s32 [a.span] out;
  parallel p by 1 {
    l = dma.copy a => local;
    call add_half(l.data, 4);
    dma.copy l.data => out;
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::s32>(4);
  half h{7};
  for (int i = 0; i < 4; ++i) a[i] = h.numerator * (i + 1);
  auto r = more(a.view());
  for (int i = 0; i < 4; ++i) std::printf("%d%s", r[i], i == 3 ? "\n" : " ");
}

// x + x / 2 of 7 14 21 28:
// expect-output: 10 21 31 42
