// -kt on the factor target: one function template called with several sets of template
// arguments (one of them negative, one of them twice), next to an extern "C" function.
// tests/targets/factor/test_factor.py builds it for cpu and for factor -kt and compares what main
// prints; it also checks the wrappers croktilec generates for it.
#include <cstdio>

__cok__ {
  template <int K>
  void scale(const int* in, int* out, int n) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * K;
  }

  // returns a value, which the wrapper passes on (tileflow code ignores it)
  template <int A, int B>
  int affine(int* x, int n) {
    for (int i = 0; i < n; ++i) x[i] = x[i] * A + B;
    return n;
  }

  extern "C" void add(const int* a, int* b, int n) {
    for (int i = 0; i < n; ++i) b[i] += a[i];
  }
}

__co__ s32 [4, 16] templates(s32 [4, 16] a) {
  s32 [a.span] out;
  parallel p by 4 {
    t = dma.copy a.chunkat(p, _) => local;         // [1, 16]
    local s32 [1, 16] u;
    call scale<2>(t.data, u, |t.span|);           // u = 2a
    call scale<3>(u, t.data, 16);                  // t = 6a
    call affine<-1, 5>(t.data, 16);                // t = 5 - 6a
    call scale<2>(t.data, u, 16);                  // u = 10 - 12a: scale<2> again, same wrapper
    call add(t.data, u, 16);                       // u = 15 - 18a
    call affine<t.span(1), 0>(u, 16);              // u *= 16: a template argument from a shape
    dma.copy u => out.chunkat(p, _);
  }
  return out;
}

int main() {
  static int a[4][16];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) a[i][j] = i * 16 + j - 20;
  auto res = templates(choreo::make_spanview<2>(&a[0][0], {4, 16}));
  int wrong = 0;
  std::printf("templates:");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) {
      std::printf(" %d", res[i][j]);
      wrong += res[i][j] != (15 - 18 * a[i][j]) * 16;
    }
  std::printf("\n%s\n", wrong ? "WRONG" : "Test Passed");
  return wrong != 0;
}
