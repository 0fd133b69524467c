// The sm_80 tensor-core forms, run and checked against products computed in main (with
// integer-valued inputs, so every form's result is exact; one f16 case with random
// fractions, checked within f32 rounding). tests/targets/cuda runs it on a GPU too.
// cuda-arch: sm_80

#define M 32
#define N 32
#define K 64

// f16 x f16 -> f32 (typed fill), operands from global memory: m16n8k16 tiles; a bias
// added to every element of the accumulator.
__co__ auto mm_f16_f32(f16 [M, K] lhs, f16 [K, N] rhs, f32 bias) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in K / 16 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(k, n#gn);
        mma.row.col mc, ma, mb;
      }
      mc += bias;
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// f16 -> f16: an untyped fill accumulates in f16; the fragment is declared at the block
// level and used by the block's four warps, each a 16 x 16 x 16 (WMMA) tile, and is
// refilled by `mma.fill mc, v` in each of them.
__co__ auto mm_f16_f16(f16 [M, K] lhs, f16 [K, N] rhs) {
  f16 [M, N] out;
  parallel {m, n} by [1, 1] : block {
    mc = mma.fill 0.0;
    parallel {g0, g1} by [2, 2] : group {
      mma.fill mc, 0;
      foreach k in K / 16 {
        ma = mma.load lhs.chunkat(m#g0, k);
        mb = mma.load rhs.chunkat(k, n#g1);
        mma.row.col mc, ma, mb;
      }
      mma.store mc, out.chunkat(m#g0, n#g1);
    }
  }
  return out;
}

// bf16 -> f32 with B given as N x K (row.row), operands copied to shared memory inside
// the warp level (which splits it around the block-wide copy).
__co__ auto mm_bf16_rr(bf16 [M, K] lhs, bf16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in K / 16 {
        ls = dma.copy lhs.chunkat(m, k) => shared;
        rs = dma.copy rhs.chunkat(n, k) => shared;
        ma = mma.load ls.chunkat(gm, _);
        mb = mma.load rs.chunkat(gn, _);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// f32 operands are tf32: m16n8k8, a block-level shared copy before the warp level.
__co__ auto mm_tf32(f32 [M, K] lhs, f32 [K, N] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 4] : block {
    mc = mma.fill.f32 0.0f;
    foreach k in K / 8 {
      ls = dma.copy lhs.chunkat(m, k) => shared;
      rs = dma.copy rhs.chunkat(k, n) => shared;
      parallel g by 1 : group {
        ma = mma.load ls;
        mb = mma.load rs;
        mma.row.col mc, ma, mb;
      }
    }
    parallel g by 1 : group {
      mma.store mc, out.chunkat(m, n);
    }
  }
  return out;
}

// s8 -> s32 into an array of accumulators picked by a run-time index.
__co__ auto mm_s8(s8 [M, K] lhs, s8 [K, N] rhs, int i) {
  s32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    frag.s32 mc[2][2] {0};
    parallel {gm, gn} by [1, 2] : group {
      foreach k in K / 32 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(k, n#gn);
        mma.row.col mc[1][i], ma, mb;
      }
      mma.store mc[1][i], out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// u8 -> s32 (untyped fill) stored into a shared buffer, then copied out with dma.copy.
__co__ auto mm_u8(u8 [M, K] lhs, u8 [K, N] rhs) {
  s32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    shared s32 [M / 2, N / 2] out_s;
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill 0;
      foreach k in K / 16 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(k, n#gn);
        mma.row.col mc, ma, mb;
      }
      mma.store mc, out_s.chunkat(gm, gn);
    }
    dma.copy out_s => out.chunkat(m, n);
  }
  return out;
}

// 2:4 sparse f16 A (packed M x K/2, u32 metadata from choreo::utils::SparsePolicy):
// mma.row.row.sp, m16n8k16.
__co__ auto mm_sparse(f16 [M, K / 2] packed, u32 [M, K / 16] meta, f16 [N, K] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach k in K / 16 {
        ma = mma.load packed.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(n#gn, k);
        me = mma.load meta.chunkat(m#gm, k);
        mma.row.row.sp mc, ma, mb, me;
      }
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// Integer values in [-4, 4] (u8: [0, 8]), different for each element and seed.
template <typename T, typename D>
void integers(D& d, int seed, bool is_unsigned = false) {
  for (size_t i = 0; i < d.shape()[0]; ++i)
    for (size_t j = 0; j < d.shape()[1]; ++j)
      d[i][j] = T((int)((i * 7 + j * 13 + seed * 5) % 9) - (is_unsigned ? 0 : 4));
}

// Prints "NAME ok" where every element of res is within tol of lhs * rhs + bias (rhs
// given as N x K where rhs_nk), else the first difference.
template <typename R, typename A, typename B>
void check(const char* name, const R& res, const A& lhs, const B& rhs, bool rhs_nk, double tol, double bias = 0) {
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double ref = bias;
      for (size_t k = 0; k < K; ++k)
        ref += (double)choreo::to_f32(lhs[i][k]) * choreo::to_f32(rhs_nk ? rhs[j][k] : rhs[k][j]);
      double got = (double)choreo::to_f32(res[i][j]);
      if (std::fabs(got - ref) > tol * (1 + std::fabs(ref))) {
        std::cout << name << " differs at [" << i << "][" << j << "]: " << got << " != " << ref << "\n";
        return;
      }
    }
  std::cout << name << " ok\n";
}

int main() {
  auto a16 = choreo::make_spandata<choreo::f16>(M, K);
  auto b16 = choreo::make_spandata<choreo::f16>(K, N);
  integers<choreo::f16>(a16, 1);
  integers<choreo::f16>(b16, 2);
  check("f16_f32_bias", mm_f16_f32(a16.view(), b16.view(), 0.5f), a16, b16, false, 0, 0.5);
  check("f16_f16", mm_f16_f16(a16.view(), b16.view()), a16, b16, false, 0);
  a16.fill_random(-1.0f, 1.0f);
  b16.fill_random(-1.0f, 1.0f);
  check("f16_f32_fractions", mm_f16_f32(a16.view(), b16.view(), 0.0f), a16, b16, false, 1e-5);

  auto abf = choreo::make_spandata<choreo::bf16>(M, K);
  auto bbf = choreo::make_spandata<choreo::bf16>(N, K);
  integers<choreo::bf16>(abf, 3);
  integers<choreo::bf16>(bbf, 4);
  check("bf16_row_row", mm_bf16_rr(abf.view(), bbf.view()), abf, bbf, true, 0);

  auto a32 = choreo::make_spandata<choreo::f32>(M, K);
  auto b32 = choreo::make_spandata<choreo::f32>(K, N);
  integers<float>(a32, 5);
  integers<float>(b32, 6);
  check("tf32", mm_tf32(a32.view(), b32.view()), a32, b32, false, 0);

  auto as8 = choreo::make_spandata<choreo::s8>(M, K);
  auto bs8 = choreo::make_spandata<choreo::s8>(K, N);
  integers<choreo::s8>(as8, 7);
  integers<choreo::s8>(bs8, 8);
  check("s8_s32_array", mm_s8(as8.view(), bs8.view(), 1), as8, bs8, false, 0);

  auto au8 = choreo::make_spandata<choreo::u8>(M, K);
  auto bu8 = choreo::make_spandata<choreo::u8>(K, N);
  integers<choreo::u8>(au8, 9, true);
  integers<choreo::u8>(bu8, 10, true);
  check("u8_s32_shared", mm_u8(au8.view(), bu8.view()), au8, bu8, false, 0);

  std::mt19937 gen(7);
  auto dense = choreo::make_spandata<choreo::f16>(M, K);
  auto brr = choreo::make_spandata<choreo::f16>(N, K);
  choreo::utils::SparsePolicy<choreo::f16>::init_structured_sparse_A(dense, gen);
  integers<choreo::f16>(brr, 11);
  auto packed = choreo::make_spandata<choreo::f16>(M, K / 2);
  auto meta = choreo::make_spandata<choreo::u32>(M, K / 16);
  choreo::utils::SparsePolicy<choreo::f16>::encode(dense, packed, meta);
  check("sparse_f16", mm_sparse(packed.view(), meta.view(), brr.view()), dense, brr, true, 1e-5);
}

// expect-output: f16_f32_bias ok
// expect-output: f16_f16 ok
// expect-output: f16_f32_fractions ok
// expect-output: bf16_row_row ok
// expect-output: tf32 ok
// expect-output: s8_s32_array ok
// expect-output: u8_s32_shared ok
// expect-output: sparse_f16 ok
