// Divisions over host values inside a parallel (`n / k`, a host-level `int per = cdiv(n, k)`)
// are the same for every instance: the cuda target passes each to the kernel, computed by
// the host at the launch (codegen/invariants.py). A divisor the kernel's own `if` keeps
// from being used (k == 0 here) must not make that early computation trap.
#include <iostream>

__co__ s32 [8] per_instance(s32 [8] a, int n, int k) {
  s32 [a.span] out{0};
  parallel p by 8 : block {
    parallel t by 1 : thread {
      if (k != 0) {
        out.at(p) = a.at(p) * (n / k) + n % k;
      }
    }
  }
  return out;
}

__co__ s32 [8] tiles_of(s32 [8] a, int k) {
  s32 [a.span] out{0};
  int per = cdiv(8, k);   // elements each of k instances takes
  parallel p by k : block {
    parallel t by 1 : thread {
      foreach i in [per] {
        if (p * per + i < 8) {
          out.at(p * per + i) = a.at(p * per + i) + per;
        }
      }
    }
  }
  return out;
}

int main() {
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto view = croktile::make_spanview<1>(a, {8});
  for (int k : {3, 0}) {
    auto r = per_instance(view, 20, k);
    std::cout << "per_instance k=" << k;
    for (int i = 0; i < 8; ++i) std::cout << " " << r.data()[i];
    std::cout << "\n";
  }
  // expect-output: per_instance k=3 8 14 20 26 32 38 44 50
  // expect-output: per_instance k=0 0 0 0 0 0 0 0 0
  for (int k : {3, 5}) {
    auto r = tiles_of(view, k);
    std::cout << "tiles_of k=" << k;
    for (int i = 0; i < 8; ++i) std::cout << " " << r.data()[i];
    std::cout << "\n";
  }
  // expect-output: tiles_of k=3 4 5 6 7 8 9 10 11
  // expect-output: tiles_of k=5 3 4 5 6 7 8 9 10
}
