// `foreach k : pipelined(S)` (docs/language/pipelining.md, issue #39): the compiler issues
// the body's asynchronous copies S - 1 steps ahead, into the buffer of the step before,
// and waits where the body names them. Each function adds two [P, K, 8] arrays tile by
// tile through a pipelined loop: 1 to 4 stages, refills at the start and at the end of
// the step, a loop shorter than its stages, a length known only at run time (1, 2 and 5
// steps under 3 stages), the `with ... foreach` form.
#include <iostream>

#define ADD_STEP(x, y)                                                    \
  local s32 [x.span] z;                                                   \
  foreach i in [8] z.at(0, 0, i) = x.data.at(0, 0, i) + y.data.at(0, 0, i);

__co__ s32 [2, 6, 8] add_s1(s32 [2, 6, 8] a, s32 [2, 6, 8] b) {
  s32 [a.span] out;
  parallel p by 2 {
    foreach k in [6] : pipelined(1) {
      x = dma.copy.async a.chunkat(p, k, _) => local;
      y = dma.copy.async b.chunkat(p, k, _) => local;
      ADD_STEP(x, y)
      dma.copy z => out.chunkat(p, k, _);
    }
  }
  return out;
}

__co__ s32 [2, 6, 8] add_s2(s32 [2, 6, 8] a, s32 [2, 6, 8] b) {
  s32 [a.span] out;
  parallel p by 2 {
    with k in [6] {
      foreach k : pipelined(2) {
        x = dma.copy.async a.chunkat(p, k, _) => local;
        y = dma.copy.async b.chunkat(p, k, _) => local;
        ADD_STEP(x, y)
        dma.copy z => out.chunkat(p, k, _);
      }
    }
  }
  return out;
}

__co__ s32 [2, 6, 8] add_s4(s32 [2, 6, 8] a, s32 [2, 6, 8] b) {
  s32 [a.span] out;
  parallel p by 2 {
    foreach k in [6] : pipelined(2 * 2, end) {   // a constant expression; refilled at the end
      x = dma.copy.async a.chunkat(p, k, _) => local;
      local s32 [x.span] w;
      dma.copy x.data => w;                 // work before the second copy
      y = dma.copy.async b.chunkat(p, k, _) => local;
      ADD_STEP(w, y)
      dma.copy z => out.chunkat(p, k, _);
    }
  }
  return out;
}

// two steps under four stages: the prologue loads only the steps the loop has
__co__ s32 [2, 2, 8] short_s4(s32 [2, 2, 8] a, s32 [2, 2, 8] b) {
  s32 [a.span] out;
  parallel p by 2 {
    foreach k in [2] : pipelined(4) {
      x = dma.copy.async a.chunkat(p, k, _) => local;
      y = dma.copy.async b.chunkat(p, k, _) => local;
      ADD_STEP(x, y)
      dma.copy z => out.chunkat(p, k, _);
    }
  }
  return out;
}

__co__ s32 [a.span] any_s3(s32 [2, K, 8] a, s32 [2, K, 8] b) {
  s32 [a.span] out;
  parallel p by 2 {
    foreach k in [K] : pipelined(3) {
      x = dma.copy.async a.subspan(1, 1, 8).at(p, k, 0) => local;
      y = dma.copy.async b.subspan(1, 1, 8).at(p, k, 0) => local;
      ADD_STEP(x, y)
      dma.copy z => out.subspan(1, 1, 8).at(p, k, 0);
    }
  }
  return out;
}

// a[i] = i, b[i] = 1000 + 2 i: out[i] = 1000 + 3 i; prints the first and last elements and
// the sum over the n elements, 1000 n + 3 n (n - 1) / 2
template <typename R>
void show(const char* name, const R& out, int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += out.data()[i];
  std::cout << name << " " << out.data()[0] << " " << out.data()[n - 1] << " " << sum << "\n";
}

int main() {
  static int a[96], b[96];
  for (int i = 0; i < 96; ++i) a[i] = i, b[i] = 1000 + 2 * i;
  auto va = croktile::make_spanview<3>(a, {2, 6, 8});
  auto vb = croktile::make_spanview<3>(b, {2, 6, 8});
  show("s1", add_s1(va, vb), 96);
  show("s2", add_s2(va, vb), 96);
  show("s4", add_s4(va, vb), 96);
  // n = 96: 96000 + 3 * 96 * 95 / 2 = 109680
  // expect-output: s1 1000 1285 109680
  // expect-output: s2 1000 1285 109680
  // expect-output: s4 1000 1285 109680
  show("short", short_s4(croktile::make_spanview<3>(a, {2, 2, 8}), croktile::make_spanview<3>(b, {2, 2, 8})), 32);
  // n = 32: 32000 + 3 * 32 * 31 / 2 = 33488
  // expect-output: short 1000 1093 33488
  for (size_t k : {1, 2, 5}) {
    int n = (int)(2 * k * 8);
    show("any", any_s3(croktile::make_spanview<3>(a, {2, k, 8}), croktile::make_spanview<3>(b, {2, k, 8})), n);
  }
  // n = 16: 16000 + 360 = 16360; n = 32: 33488; n = 80: 80000 + 9480 = 89480
  // expect-output: any 1000 1045 16360
  // expect-output: any 1000 1093 33488
  // expect-output: any 1000 1237 89480
}
