// symbolic: one __co__ function over symbolic shapes, `s32 [M, N] a`. M and N are bound
// by the argument's shape when the function is called; `parallel p by 4` with
// `a.chunkat(p, _)` gives each instance M / 4 rows, the local buffers take their shape
// from the chunk, and the result is declared `s32 [a.span]`. main calls it with 8 x 16
// and 12 x 5, and then with 10 x 3: 10 rows cannot be split by 4, which the compiler
// cannot know, so the generated code checks it at run time and throws
// croktile::runtime_error naming this file and line.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

__cok__ {  // device code in spec 1's separate source form: it builds on every target
  extern "C" void affine(int* x, int* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 3 * x[i] - 1;
  }
} // end of __cok__

__co__ s32 [a.span] affine_rows(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by 4 {
    rows = dma.copy a.chunkat(p, _) => local;  // [M / 4, N]
    local s32 [rows.span] y;
    call affine(rows.data, y, |rows.span|);
    dma.copy y => out.chunkat(p, _);
  }
  return out;
}

static bool run(std::size_t m, std::size_t n) {
  std::vector<croktile::s32> a(m * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = int(i % 23) - 11;
  auto res = affine_rows(croktile::make_spanview<2>(a.data(), {m, n}));
  // CROKTILE_DUMP=1: every result element (the tests compare the targets with it)
  if (std::getenv("CROKTILE_DUMP"))
    for (auto v : res) std::cout << v << '\n';
  if (res.shape()[0] != m || res.shape()[1] != n) {
    std::cerr << "symbolic: " << m << "x" << n << ": result shape is [" << res.shape()[0] << ", "
              << res.shape()[1] << "]\n";
    return false;
  }
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      int expect = 3 * a[i * n + j] - 1;
      if (res[i][j] != expect) {
        std::cerr << "symbolic: " << m << "x" << n << ": res[" << i << "][" << j << "] = " << res[i][j]
                  << ", expected " << expect << "\n";
        return false;
      }
    }
  return true;
}

int main() {
  if (!run(8, 16) || !run(12, 5)) return 1;

  bool thrown = false;
  try {
    run(10, 3);
  } catch (const croktile::runtime_error& e) {
    thrown = true;
    const std::string msg = e.what();
    if (msg.find("symbolic.co.cpp") == std::string::npos) {
      std::cerr << "symbolic: the error does not name the .co.cpp file: " << msg << "\n";
      return 1;
    }
  }
  if (!thrown) {
    std::cerr << "symbolic: 10 rows split by 4 did not throw croktile::runtime_error\n";
    return 1;
  }
  std::cout << "Test Passed" << std::endl;
  return 0;
}
