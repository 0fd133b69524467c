// Empty tensors (a dimension of 0) on every target: shared buffers, async copies and
// local buffers sized by empty chunks, and a result shaped by two arguments' spans. Each
// call with an empty dimension does nothing and returns a result of the right shape
// (test_empty_tensors.py); main prints the shape and the first element. "huge" is a view
// too large to exist, which every target refuses before using it.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

__cok__ {
  extern "C" void inc(int* x, int n) { for (int i = 0; i < n; ++i) x[i] += 1; }
  extern "C" void mm(int* a, int* b, int* c, int m, int k, int n) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        int s = 0;
        for (int t = 0; t < k; ++t) s += a[i * k + t] * b[t * n + j];
        c[i * n + j] += s;
      }
  }
  extern "C" void zero(int* c, int n) { for (int i = 0; i < n; ++i) c[i] = 0; }
}

// a return type whose brackets hold parentheses; declared before it is defined
__co__ s32 [a.span(0), b.span(1)] matmul(s32 [M, K] a, s32 [K2, N] b);

// a shared buffer sized by an empty chunk, filled by an inner parallel level
__co__ s32 [a.span] shared2(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by 2 {
    shared s32 [a.chunkat(p, _).span] s;
    parallel q by 4 {
      r = dma.copy a.chunkat(p, q) => local;
      call inc(r.data, |r.span|);
      dma.copy r.data => s.chunkat(_, q);
    }
    dma.copy s => out.chunkat(p, _);
  }
  return out;
}

// async copies of empty chunks into shared memory
__co__ s32 [a.span] async_rows(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by 2 {
    with i in [2] {
      foreach i {
        f = dma.copy.async a.chunkat(p, _).chunkat(i, _) => shared;
        wait f;
        t = dma.copy f.data => local;
        call inc(t.data, |t.span|);
        dma.copy t.data => out.chunkat(p, _).chunkat(i, _);
      }
    }
  }
  return out;
}

// K == 0 gives zeros; M == 0 or N == 0 an empty result
__co__ s32 [a.span(0), b.span(1)] matmul(s32 [M, K] a, s32 [K2, N] b) {
  s32 [a.span(0), b.span(1)] c;
  parallel p by 2 {
    ta = dma.copy a.chunkat(p, _) => local;
    tb = dma.copy b => local;
    local s32 [ta.span(0), tb.span(1)] acc;
    call zero(acc, |acc.span|);
    call mm(ta.data, tb.data, acc, ta.span(0), ta.span(1), tb.span(1));
    dma.copy acc => c.chunkat(p, _);
  }
  return c;
}

template <class R>
static int show(const R& r) {
  std::cout << r.shape()[0] << "x" << r.shape()[1];
  if (r.shape()[0] * r.shape()[1] != 0) std::cout << " " << r[0][0];
  std::cout << "\n";
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const std::string which = argv[1];
  const std::size_t m = std::atoi(argv[2]), n = std::atoi(argv[3]);
  const std::size_t k = argc > 4 ? std::atoi(argv[4]) : 0;
  std::vector<int> a(64, 1), b(64, 2);
  try {
    if (which == "shared") return show(shared2(choreo::make_spanview<2>(a.data(), {m, n})));
    if (which == "huge")   // a view whose size in bytes does not fit in 63 bits (m and n are shifts)
      return show(shared2(choreo::make_spanview<2>(a.data(), {std::size_t(1) << m, std::size_t(1) << n})));
    if (which == "async") return show(async_rows(choreo::make_spanview<2>(a.data(), {m, n})));
    if (which == "matmul")
      return show(matmul(choreo::make_spanview<2>(a.data(), {m, k}), choreo::make_spanview<2>(b.data(), {k, n})));
  } catch (const croktile::runtime_error& e) {
    std::cout << "runtime_error: " << e.what() << "\n";
    return 3;
  }
  return 2;
}
