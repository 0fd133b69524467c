// Operands of tileflow operators that are products or negations keep their grouping in
// the generated code (`a / (2 * b)` is not `a / 2 * b`): in scalar values, a chunk bound
// and the sizes and checks derived from it, and device values (test_operand_grouping.py).
#include <cstdlib>
#include <iostream>
#include <vector>

__cok__ {
  extern "C" void put(int* x, int v) { x[0] = v; }
}

__co__ int scalar(int a, int b, int c) {
  int r = a / (2 * b) + a % (b * c) * 1000 + (a / -b) * 100000 + ((~(3 * b)) << 20);
  return r + (a < b * c) * 7 + (a - b * c) / (c * -1);
}

// k * 2 chunks of a: the bound is a product, and so are the sizes derived from it
__co__ s32 [a.span] chunked(s32 [M] a, int k) {
  s32 [a.span] out;
  parallel p by 1 {
    with i in [k * 2] {                                         // CHECK: bound
      foreach i {
        t = dma.copy a.chunkat(i) => local;
        dma.copy t.data => out.chunkat(i);
      }
    }
  }
  return out;
}

// a device value: each instance writes (n * 3) / (p * 2 + 1)
__co__ s32 [4] device(int n) {
  s32 [4] out;
  parallel p by 4 {
    local s32 [1] v;
    call put(v, (n * 3) / (p * 2 + 1) - n / -(p + 1) + n % (2 * (p + 1)));
    dma.copy v => out.chunkat(p);
  }
  return out;
}

static int expect_scalar(int a, int b, int c) {
  int r = a / (2 * b) + a % (b * c) * 1000 + (a / -b) * 100000 + ((~(3 * b)) << 20);
  return r + (a < b * c) * 7 + (a - b * c) / (c * -1);
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? std::atoi(argv[1]) : 2;
  int bad = 0;
  for (int a : {97, -97, 5}) {
    for (int b : {3, -5}) {
      for (int c : {2, 7}) {
        if (scalar(a, b, c) != expect_scalar(a, b, c)) {
          std::cout << "scalar(" << a << ", " << b << ", " << c << ") = " << scalar(a, b, c)
                    << ", expected " << expect_scalar(a, b, c) << "\n";
          bad = 1;
        }
      }
    }
  }
  std::vector<int> v(8);
  for (int i = 0; i < 8; ++i) v[i] = i * i;
  try {
    auto r = chunked(choreo::make_spanview<1>(v.data(), {8}), k);
    for (int i = 0; i < 8; ++i)
      if (r[i] != v[i]) { std::cout << "chunked[" << i << "] = " << r[i] << "\n"; bad = 1; }
  } catch (const croktile::runtime_error& e) {
    std::cout << "runtime_error: " << e.what() << "\n";
    return 3;
  }
  auto d = device(11);
  for (int p = 0; p < 4; ++p) {
    const int want = (11 * 3) / (p * 2 + 1) - 11 / -(p + 1) + 11 % (2 * (p + 1));
    if (d[p] != want) { std::cout << "device[" << p << "] = " << d[p] << ", expected " << want << "\n"; bad = 1; }
  }
  std::cout << (bad ? "FAILED" : "ok") << "\n";
  return bad;
}
