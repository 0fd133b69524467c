// One program built for sm_80 and sm_90a (test_multi_arch.py): an mma.sync GEMM whose
// tiles come in through swizzled tma.copy, which the sm_90a build issues on the copy
// engine and the sm_80 build copies with the block's threads. main prints whether the
// product is right, or the croktile::runtime_error a call raised.
#include <cmath>
#include <iostream>

__co__ auto mm(f16 [32, 64] lhs, f16 [32, 64] rhs) {
  f32 [32, 32] out;
  parallel {bm, bn} by [2, 2] : block {
    shared f16 [16, 64] ls;
    shared f16 [16, 64] rs;
    tma.copy.swiz<128> lhs.chunkat(bm, _) => ls;
    tma.copy.swiz<128> rhs.chunkat(bn, _) => rs;
    parallel g by 2 : group {
      mc = mma.fill.f32 0.0f;
      foreach w in 4 {
        ma = mma.load.swiz<128> ls.chunkat(_, w);
        mb = mma.load.swiz<128> rs.chunkat(g, w);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(bm, bn#g);
    }
  }
  return out;
}

int main() {
  auto a = choreo::make_spandata<choreo::f16>(32, 64);
  auto b = choreo::make_spandata<choreo::f16>(32, 64);
  a.fill_random(-1.0f, 1.0f);
  b.fill_random(-1.0f, 1.0f);
  try {
    auto c = mm(a.view(), b.view());
    bool ok = true;
    for (size_t i = 0; i < 32; ++i)
      for (size_t j = 0; j < 32; ++j) {
        double ref = 0;
        for (size_t k = 0; k < 64; ++k) ref += (double)(float)a[i][k] * (float)b[j][k];
        ok = ok && std::fabs(c[i][j] - ref) <= 1e-5 * (1 + std::fabs(ref));
      }
    std::cout << "mm " << (ok ? "ok" : "differs") << "\n";
  } catch (const croktile::runtime_error& e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
}
