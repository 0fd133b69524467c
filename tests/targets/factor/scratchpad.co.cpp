// Scratchpad capacity checked at run time: the size of `r` depends on the caller's shape,
// so croktilec cannot check it. main calls `rows` with rows that fit in the local
// scratchpad of a thread (65536 bytes in profile factor-sim) and with rows that do not,
// and `columns` with a shared buffer that overflows the shared scratchpad of a core (one
// buffer for the block, although it is declared in the inner level), and prints what each
// call gives.
#include <cstdio>
#include <vector>

__cok__ {
  extern "C" void twice(int* x, int n) {
    for (int i = 0; i < n; ++i) x[i] *= 2;
  }
}

__co__ s32 [M, N] rows(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by 2 {
    r = dma.copy a.chunkat(p, _) => local;
    call twice(r.data, |r.span|);
    dma.copy r => out.chunkat(p, _);
  }
  return out;
}

__co__ s32 [M, N] columns(s32 [M, N] a, int q_count) {
  s32 [a.span] out;
  parallel p by 1 {
    parallel q by q_count {
      shared s32 [M, 3] col;
      call twice(col, M);
    }
    c = dma.copy a => shared;
    dma.copy c => out;
  }
  return out;
}

template <typename F>
static void attempt(const char* what, F&& f) {
  try {
    std::printf("%s: ok %d\n", what, f());
  } catch (const croktile::runtime_error& e) {
    std::printf("%s: runtime_error: %s\n", what, e.what());
  }
}

int main() {
  std::vector<int> small(2 * 8, 3), wide(2 * 20000, 3), tall(100000, 1);
  attempt("rows 2x8", [&] { return rows(choreo::make_spanview<2>(small.data(), {2, 8}))[1][7]; });
  attempt("rows 2x20000", [&] { return rows(choreo::make_spanview<2>(wide.data(), {2, 20000}))[1][7]; });
  attempt("columns 1000x1", [&] { return columns(choreo::make_spanview<2>(tall.data(), {1000, 1}), 4)[9][0]; });
  attempt("columns 100000x1", [&] { return columns(choreo::make_spanview<2>(tall.data(), {100000, 1}), 4)[9][0]; });
  return 0;
}
