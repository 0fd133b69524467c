// The fp8 tensor-core forms (sm_89 and newer), dense and 2:4 sparse, run and checked
// against products computed in main with integer-valued inputs (exact in e4m3 and e5m2).
// tests/targets/cuda runs it on a GPU too.
// cuda-arch: sm_90a

#define M 32
#define N 32
#define K 64

// e4m3 x e4m3 -> f32: m16n8k32.
__co__ auto mm_e4m3(f8_e4m3 [M, K] lhs, f8_e4m3 [K, N] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in K / 32 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(k, n#gn);
        mma.row.col mc, ma, mb;
      }
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// e5m2 x e4m3 -> f16 (typed fill), B given as N x K.
__co__ auto mm_e5m2_rr(f8_e5m2 [M, K] lhs, f8_e4m3 [N, K] rhs) {
  f16 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f16 0.0f;
      foreach k in K / 32 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(n#gn, k);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// 2:4 sparse e4m3 A: m16n8k64, two metadata words per row and instruction.
__co__ auto mm_sparse_e4m3(f8_e4m3 [M, K / 2] packed, u32 [M, K / 32] meta, f8_e4m3 [N, K] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f32 0.0f;
      ma = mma.load packed.chunkat(m#gm, _);
      mb = mma.load rhs.chunkat(n#gn, _);
      me = mma.load meta.chunkat(m#gm, _);
      mma.row.row.sp mc, ma, mb, me;
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

template <typename T, typename D>
void integers(D& d, int seed) {
  for (size_t i = 0; i < d.shape()[0]; ++i)
    for (size_t j = 0; j < d.shape()[1]; ++j) d[i][j] = T((int)((i * 7 + j * 13 + seed * 5) % 9) - 4);
}

template <typename R, typename A, typename B>
void check(const char* name, const R& res, const A& lhs, const B& rhs, bool rhs_nk) {
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = 0;
      for (size_t k = 0; k < K; ++k)
        ref += (double)choreo::to_f32(lhs[i][k]) * choreo::to_f32(rhs_nk ? rhs[j][k] : rhs[k][j]);
      if ((double)choreo::to_f32(res[i][j]) != ref) {
        std::cout << name << " differs at [" << i << "][" << j << "]: " << choreo::to_f32(res[i][j]) << " != " << ref
                  << "\n";
        return;
      }
    }
  std::cout << name << " ok\n";
}

int main() {
  auto a = choreo::make_spandata<choreo::f8_e4m3>(M, K);
  auto b = choreo::make_spandata<choreo::f8_e4m3>(K, N);
  integers<choreo::f8_e4m3>(a, 1);
  integers<choreo::f8_e4m3>(b, 2);
  check("e4m3_f32", mm_e4m3(a.view(), b.view()), a, b, false);

  auto a52 = choreo::make_spandata<choreo::f8_e5m2>(M, K);
  auto bnk = choreo::make_spandata<choreo::f8_e4m3>(N, K);
  integers<choreo::f8_e5m2>(a52, 3);
  integers<choreo::f8_e4m3>(bnk, 4);
  check("e5m2_e4m3_f16_row_row", mm_e5m2_rr(a52.view(), bnk.view()), a52, bnk, true);

  std::mt19937 gen(5);
  auto dense = choreo::make_spandata<choreo::f8_e4m3>(M, K);
  choreo::utils::SparsePolicy<choreo::f8_e4m3>::init_structured_sparse_A_ones(dense, gen, true);
  auto packed = choreo::make_spandata<choreo::f8_e4m3>(M, K / 2);
  auto meta = choreo::make_spandata<choreo::u32>(M, K / 32);
  choreo::utils::SparsePolicy<choreo::f8_e4m3>::encode(dense, packed, meta);
  check("sparse_e4m3", mm_sparse_e4m3(packed.view(), meta.view(), bnk.view()), dense, bnk, true);
}

// expect-output: e4m3_f32 ok
// expect-output: e5m2_e4m3_f16_row_row ok
// expect-output: sparse_e4m3 ok
