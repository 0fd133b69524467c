// A pipelined loop feeding warp-level tensor cores (issue #39): the block copies each K
// step's tiles of A and B into shared memory with `dma.copy.async` (cp.async on cuda),
// `pipelined(3)` keeps two steps in flight, and its four warps multiply from them
// (mma.sync m16n8k16). Integer-valued inputs: the products are exact. K = 80 is 5 steps,
// K = 16 one step (a loop shorter than its stages). samples/gemm is the wgmma and TMA
// form, samples/attention the 2-stage one.
// cuda-arch: sm_80
#include <iostream>

__co__ auto mm(f16 [32, K] lhs, f16 [K, 32] rhs) {
  f32 [32, 32] out;
  parallel p by 1 : block {
    mc = mma.fill.f32 0.0f;
    foreach k in [K / 16] : pipelined(3) {
      a = dma.copy.async lhs.subspan(32, 16).at(0, k) => shared;
      b = dma.copy.async rhs.subspan(16, 32).at(k, 0) => shared;
      parallel {gm, gn} by [2, 2] : group {
        ma = mma.load a.data.chunkat(gm, _);
        mb = mma.load b.data.chunkat(_, gn);
        mma.row.col mc, ma, mb;
      }
    }
    parallel {gm, gn} by [2, 2] : group {
      mma.store mc, out.chunkat(gm, gn);
    }
  }
  return out;
}

// a[i][k] = (i + 2k) % 5 - 2, b[k][j] = (3k + j) % 7 - 3: the result against a product
// computed here
static bool check(size_t K) {
  auto a = croktile::make_spandata<croktile::f16>(32, K);
  auto b = croktile::make_spandata<croktile::f16>(K, 32);
  for (size_t i = 0; i < 32; ++i)
    for (size_t k = 0; k < K; ++k) a[i][k] = (float)((int)((i + 2 * k) % 5) - 2);
  for (size_t k = 0; k < K; ++k)
    for (size_t j = 0; j < 32; ++j) b[k][j] = (float)((int)((3 * k + j) % 7) - 3);
  auto c = mm(a.view(), b.view());
  for (size_t i = 0; i < 32; ++i)
    for (size_t j = 0; j < 32; ++j) {
      float ref = 0;
      for (size_t k = 0; k < K; ++k) ref += (float)a[i][k] * (float)b[k][j];
      if (c[i][j] != ref) return false;
    }
  return true;
}

int main() {
  std::cout << "K=80 " << (check(80) ? "ok" : "differs") << "\n";
  std::cout << "K=16 " << (check(16) ? "ok" : "differs") << "\n";
  // expect-output: K=80 ok
  // expect-output: K=16 ok
}
