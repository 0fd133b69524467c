// The portable targets (cpu, factor, opencl) compute the tensor-core forms with the same
// accumulation types and rounding: on random fractions, where the precision and order of
// the sums show in the low bits, each result has the same bits on all three.
// Built on each, it prints a digest of each result's bits, five different lines, which the
// factor and opencl builds must print as cpu does; a GPU sums in its own order inside an
// instruction, so it is compiled for cuda but not run there.
// cuda-arch: sm_90a
// expect-same-output: 5

#define M 32
#define N 32
#define K 64

// f16 accumulator (rounded per instruction), scaled by a parameter; m16n8k16.
__co__ auto f16_acc(f16 [M, K] lhs, f16 [K, N] rhs, f32 scale) {
  f16 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill 0.0;
      foreach k in K / 16 {
        ma = mma.load lhs.chunkat(m#gm, k);
        mb = mma.load rhs.chunkat(k, n#gn);
        mma.row.col mc, ma, mb;
      }
      mc *= scale;
      mma.store mc, out.chunkat(m#gm, n#gn);
    }
  }
  return out;
}

// f32 operands rounded to tf32 (m16n8k8), B given N x K.
__co__ auto tf32_rr(f32 [M, K] lhs, f32 [N, K] rhs) {
  f32 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel g by 1 : group {
      mc = mma.fill.f32 0.0f;
      foreach k in K / 8 {
        ma = mma.load lhs.chunkat(m, k);
        mb = mma.load rhs.chunkat(n, k);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.chunkat(m, n);
    }
  }
  return out;
}

// e4m3 x e5m2 -> f16 (m16n8k32).
__co__ auto fp8_f16(f8_e4m3 [M, K] lhs, f8_e5m2 [K, N] rhs) {
  f16 [M, N] out;
  parallel {m, n} by [2, 2] : block {
    parallel {gm, gn} by [1, 2] : group {
      mc = mma.fill.f16 0.0f;
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

// 2:4 sparse bf16 A (m16n8k16), f32 accumulator.
__co__ auto sparse_bf16(bf16 [M, K / 2] packed, u32 [M, K / 16] meta, bf16 [N, K] rhs) {
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

// A warp group's f16 multiply into an f32 accumulator, from shared tiles of 64 columns.
__co__ auto wgmma_f16(f16 [64, 128] lhs, f16 [64, 128] rhs) {
  f32 [64, 64] out;
  parallel b by 1 : block {
    shared f16 [64, 64] ls;
    shared f16 [64, 64] rs;
    mc = mma.fill.f32 0.0f;
    foreach k in 2 {
      dma.copy.swiz<128> lhs.chunkat(_, k) => ls;
      dma.copy.swiz<128> rhs.chunkat(_, k) => rs;
      foreach w in 4 {
        parallel p by 1 : group-4 {
          ma = mma.load.swiz<128> ls.chunkat(_, w);
          mb = mma.load.swiz<128> rs.chunkat(_, w);
          mma.row.row mc, ma, mb;
        }
      }
    }
    shared f32 [64, 64] os;
    mma.store mc, os;
    dma.copy os => out;
  }
  return out;
}

// FNV-1a of the result's bytes.
template <typename D>
void digest(const char* name, const D& d) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&d[0][0]);
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < d.shape()[0] * d.shape()[1] * sizeof(d[0][0]); ++i) h = (h ^ p[i]) * 1099511628211ull;
  std::cout << name << " " << std::hex << h << std::dec << "\n";
}

int main() {
  auto a16 = choreo::make_spandata<choreo::f16>(M, K);
  auto b16 = choreo::make_spandata<choreo::f16>(K, N);
  a16.fill_random(-1.0f, 1.0f);
  b16.fill_random(-1.0f, 1.0f);
  digest("f16_acc", f16_acc(a16.view(), b16.view(), 0.3f));

  auto a32 = choreo::make_spandata<choreo::f32>(M, K);
  auto b32 = choreo::make_spandata<choreo::f32>(N, K);
  a32.fill_random(-1.0f, 1.0f);
  b32.fill_random(-1.0f, 1.0f);
  digest("tf32_rr", tf32_rr(a32.view(), b32.view()));

  auto a8 = choreo::make_spandata<choreo::f8_e4m3>(M, K);
  auto b8 = choreo::make_spandata<choreo::f8_e5m2>(K, N);
  a8.fill_random(-2.0f, 2.0f);
  b8.fill_random(-2.0f, 2.0f);
  digest("fp8_f16", fp8_f16(a8.view(), b8.view()));

  std::mt19937 gen(3);
  auto dense = choreo::make_spandata<choreo::bf16>(M, K);
  auto brr = choreo::make_spandata<choreo::bf16>(N, K);
  choreo::utils::SparsePolicy<choreo::bf16>::init_structured_sparse_A(dense, gen);
  brr.fill_random(-1.0f, 1.0f);
  auto packed = choreo::make_spandata<choreo::bf16>(M, K / 2);
  auto meta = choreo::make_spandata<choreo::u32>(M, K / 16);
  choreo::utils::SparsePolicy<choreo::bf16>::encode(dense, packed, meta);
  digest("sparse_bf16", sparse_bf16(packed.view(), meta.view(), brr.view()));

  auto aw = choreo::make_spandata<choreo::f16>(64, 128);
  auto bw = choreo::make_spandata<choreo::f16>(64, 128);
  aw.fill_random(-1.0f, 1.0f);
  bw.fill_random(-1.0f, 1.0f);
  digest("wgmma_f16", wgmma_f16(aw.view(), bw.view()));
}
