// Runs croktile::wgmma over a 64 x N x K tile for several element types, widths and
// swizzles and prints the results, one line per case:
//   CASE <name> <variant> v0 v1 ...      (the stored accumulator)
//   FAIL <name> <variant> <why>          (where it differs from a double-precision product)
// Operands go from global memory into shared memory through croktile::swizzle::copy_2d
// (variant "copy"; a plain copy in the portable build) and, on the GPU, through TMA
// (variant "tma": croktile::tma::load_async completing on an mbarrier), whose shared bytes
// must equal copy_2d's; a TMA store of the loaded a must give back a. The K loop takes
// chunks of the buffer's row through wgmma::smem(row + k0), as generated code does: the
// first chunk with mma, the others with mma_async and one wait.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "croktile.h"
#include "croktile_mma.h"

#if defined(__CUDACC__)
#define DEV __device__
#else
#define DEV
#endif

using namespace croktile;
namespace wg = croktile::wgmma;

struct lcg {
  unsigned long long s;
  unsigned next() { return unsigned((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33); }
};

template <class TA, class TB, class TC, int N, int SW, bool NMAJOR>
struct tile {
  static constexpr int M = 64, K = SW / int(sizeof(TA));  // one buffer row of each operand
  static constexpr int IK = wg::detail::instruction_k<TA, TB, TC>();
  static constexpr int KC = 2 * IK <= K ? 2 * IK : IK;     // the chunk one mma call takes
  static_assert(sizeof(TA) == sizeof(TB), "one swizzle for both operands");
  static_assert(!NMAJOR || N * int(sizeof(TB)) == SW, "an N-major b is one swizzle row wide");
  static constexpr int b_rows = NMAJOR ? K : N, b_cols = NMAJOR ? N : K;  // b's buffer
};

// The body both builds run on operands already in shared memory (sa: 64 x K, sb: N x K,
// or K x N where NMAJOR).
template <class TA, class TB, class TC, int N, int SW, bool NMAJOR>
DEV void body(TA* sa, TB* sb, float* out, TC* out_c) {
  using X = tile<TA, TB, TC, N, SW, NMAJOR>;
  wg::acc<TC, 64, N> c;
  wg::fill(c, 0.5f);
  for (int k0 = 0; k0 < X::K; k0 += X::KC) {
    wg::tile<TA, 64, X::KC, SW> a = wg::smem(sa + k0);
    if constexpr (NMAJOR) {
      wg::tile<TB, X::KC, N, SW> b = wg::smem(sb + k0 * N);
      if (k0 == 0)
        wg::mma_nmajor(c, a, b);
      else
        wg::mma_nmajor_async(c, a, b);
    } else {
      wg::tile<TB, N, X::KC, SW> b = wg::smem(sb + k0);
      if (k0 == 0)
        wg::mma(c, a, b);
      else
        wg::mma_async(c, a, b);  // the rest in flight together
    }
  }
  wg::wait<0>();
  wg::for_each(c, [](TC& x) { x = wg::detail::convert<TC>(wg::detail::convert<double>(x) + 1.0); });
  wg::store(c, out, N, 1);
  wg::store(c, out_c, 1, 64);
}

#if defined(__CUDACC__)
#define CHECK_CUDA(x)                                                                               \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);          \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)

template <class TA, class TB, class TC, int N, int SW, bool NMAJOR>
__global__ void __launch_bounds__(128) kernel(const TA* a, const TB* b, float* out, TC* out_c,
                                              const __grid_constant__ CUtensorMap map_a,
                                              const __grid_constant__ CUtensorMap map_b,
                                              const __grid_constant__ CUtensorMap map_back, bool use_tma,
                                              unsigned* mismatches) {
  using X = tile<TA, TB, TC, N, SW, NMAJOR>;
  extern __shared__ unsigned char dynamic_smem[];
  // Swizzled buffers start on 1024 bytes (the shared window's address, not the pointer's).
  unsigned char* smem = dynamic_smem + (1024 - tma::shared_address(dynamic_smem) % 1024) % 1024;
  TA* sa = reinterpret_cast<TA*>(smem);
  TB* sb = reinterpret_cast<TB*>(smem + 64 * SW);
  unsigned char* check = smem + (64 + N) * SW;  // copy_2d's bytes, to compare with TMA's
  mbarrier::type& bar = *reinterpret_cast<mbarrier::type*>(smem + (64 + N + 64) * SW);
  if (use_tma) {
    if (threadIdx.x == 0) {
      mbarrier::init(&bar, 1);
      mbarrier::fence_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      mbarrier::arrive_expect_tx(&bar, (64 + N) * SW);
      tma::load_async(sa, &map_a, &bar, 0, 0);
      tma::load_async(sb, &map_b, &bar, 0, 0);
    }
    swizzle::copy_2d<TA, SW>(reinterpret_cast<TA*>(check), a, 64, X::K, X::K);
    mbarrier::wait_parity(&bar, 0);
    __syncthreads();
    for (int i = threadIdx.x; i < 64 * SW; i += 128)
      if (check[i] != smem[i]) atomicAdd(mismatches, 1u);
    if (threadIdx.x == 0) {  // a back to global memory through a TMA store
      tma::store_async(&map_back, sa, 0, 0);
      tma::store_commit();
      tma::store_wait<0>();
    }
  } else {
    swizzle::copy_2d<TA, SW>(sa, a, 64, X::K, X::K);
    swizzle::copy_2d<TB, SW>(sb, b, X::b_rows, X::b_cols, X::b_cols);
    __syncthreads();
  }
  body<TA, TB, TC, N, SW, NMAJOR>(sa, sb, out, out_c);
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, v.size() * sizeof(T) + 16));
  CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
CUtensorMap map_of(const T* p, int rows, int cols, int sw) {
  CUtensorMap m;
  const long long dims[] = {rows, cols}, strides[] = {cols, 1};
  const int box[] = {rows, cols};
  tma::make_map<T>(&m, p, 2, dims, strides, box, sw);
  return m;
}
#endif

template <class T>
double as_double(const T& x) { return wg::detail::convert<double>(x); }

template <class TA, class TB, class TC, int N, int SW, bool NMAJOR = false>
void run_case(const char* name) {
  using X = tile<TA, TB, TC, N, SW, NMAJOR>;
  constexpr int M = X::M, K = X::K;
  lcg r{0x243f6a8885a308d3ull ^ (unsigned long long)(N * 7 + SW)};
  auto sample = [&] { return double(int(r.next() % 17) - 8) / 8.0; };  // exact in every type
  std::vector<TA> a(M * K);
  std::vector<TB> b(N * K);
  for (auto& x : a) x = wg::detail::convert<TA>(sample());
  for (auto& x : b) x = wg::detail::convert<TB>(sample());
  const double rel = std::is_same<TC, float>::value ? 1e-6 : 4e-3;
  for (const char* variant : {"copy", "tma"}) {
    const bool use_tma = variant[0] == 't';
    std::vector<float> out(M * N, -1.f);
    std::vector<TC> out_c(M * N);
#if defined(__CUDACC__)
    TA* da = to_device(a);
    TB* db = to_device(b);
    std::vector<TA> back(M * K, wg::detail::convert<TA>(0));
    TA* dback = to_device(back);
    float* dout = to_device(out);
    TC* doutc = to_device(out_c);
    unsigned* dmis = to_device(std::vector<unsigned>(1, 0u));
    const CUtensorMap ma = map_of(da, M, K, SW), mb = map_of(db, X::b_rows, X::b_cols, SW),
                      mback = map_of(dback, M, K, SW);
    const int shared = (64 + N + 64) * SW + 8 + 1024;
    auto k = kernel<TA, TB, TC, N, SW, NMAJOR>;
    CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    k<<<1, 128, shared>>>(da, db, dout, doutc, ma, mb, mback, use_tma, dmis);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(out_c.data(), doutc, out_c.size() * sizeof(TC), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(back.data(), dback, back.size() * sizeof(TA), cudaMemcpyDeviceToHost));
    unsigned mismatches = 0;
    CHECK_CUDA(cudaMemcpy(&mismatches, dmis, sizeof mismatches, cudaMemcpyDeviceToHost));
    for (void* p : {(void*)da, (void*)db, (void*)dback, (void*)dout, (void*)doutc, (void*)dmis}) cudaFree(p);
    if (use_tma && mismatches) std::printf("FAIL %s tma: %u shared bytes differ from copy_2d's\n", name, mismatches);
    if (use_tma && std::memcmp(back.data(), a.data(), a.size() * sizeof(TA)))
      std::printf("FAIL %s tma: the TMA store did not give a back\n", name);
#else
    if (use_tma) continue;  // no TMA in the portable build
    std::vector<TA> sa(M * K);
    std::vector<TB> sb(N * K);
    swizzle::copy_2d<TA, SW>(sa.data(), a.data(), M, K, K);
    swizzle::copy_2d<TB, SW>(sb.data(), b.data(), X::b_rows, X::b_cols, X::b_cols);
    body<TA, TB, TC, N, SW, NMAJOR>(sa.data(), sb.data(), out.data(), out_c.data());
#endif
    std::string line = std::string("CASE ") + name + " " + variant;
    int bad = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = as_double(wg::detail::convert<TC>(0.5)) + 1.0, mag = std::fabs(want);
        for (int kk = 0; kk < K; ++kk) {
          const double p = as_double(a[i * K + kk]) * as_double(b[NMAJOR ? kk * N + j : j * K + kk]);
          want += p;
          mag += std::fabs(p);
        }
        const double got = as_double(out_c[j * M + i]);
        if ((std::fabs(got - want) > rel * mag || float(got) != out[i * N + j]) && bad++ < 3)
          std::printf("FAIL %s %s (%d, %d): got %.9g (as float %.9g), want %.9g\n", name, variant, i, j, got,
                      out[i * N + j], want);
        char buf[40];
        std::snprintf(buf, sizeof buf, " %.9g", got);
        line += buf;
      }
    std::printf("%s\n", line.c_str());
  }
}

int main() {
#if defined(__CUDACC__)
  {  // make_map names what the driver refused
    float* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, 4096));
    try {
      map_of(reinterpret_cast<const float*>(reinterpret_cast<const char*>(d) + 4), 8, 32, 128);
      std::printf("FAIL make_map accepted a global address that is not 16-byte aligned\n");
    } catch (const croktile::runtime_error& e) {
      if (!std::strstr(e.what(), "16-byte aligned")) std::printf("FAIL make_map's message: %s\n", e.what());
    }
    cudaFree(d);
  }
#endif
  run_case<f16, f16, float, 64, 128>("m64n64.f16.f16.f32.swz128");
  run_case<f16, f16, float, 96, 128>("m64n96.f16.f16.f32.swz128");
  run_case<f16, f16, f16, 256, 64>("m64n256.f16.f16.f16.swz64");
  run_case<bf16, bf16, float, 8, 32>("m64n8.bf16.bf16.f32.swz32");
  run_case<float, float, float, 40, 128>("m64n40.tf32.tf32.f32.swz128");
  run_case<f8_e4m3, f8_e4m3, float, 96, 32>("m64n96.e4m3.e4m3.f32.swz32");
  run_case<f8_e4m3, f8_e5m2, float, 128, 128>("m64n128.e4m3.e5m2.f32.swz128");
  run_case<f8_e5m2, f8_e4m3, f16, 128, 64>("m64n128.e5m2.e4m3.f16.swz64");
  run_case<f16, f16, float, 64, 128, true>("m64n64.f16.f16.f32.swz128.nmajor");
  run_case<bf16, bf16, float, 32, 64, true>("m64n32.bf16.bf16.f32.swz64.nmajor");
  run_case<f16, f16, f16, 16, 32, true>("m64n16.f16.f16.f16.swz32.nmajor");
  return 0;
}
