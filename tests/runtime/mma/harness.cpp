// Runs every croktile::mma form (the list comes from mma_cases.inc, which the tests write
// from croktile_driver/frontend/mma_forms.py) over a tile of several instructions and
// prints the results, one line per case:
//   CASE <form> <variant> v0 v1 ...      (the stored accumulator, as float)
//   FAIL <form> <variant> <why>          (where it differs from a double-precision product)
// Built with g++ it runs the portable implementation; built with nvcc (-x cu) it runs one
// warp on the GPU, operands read from global memory ("g" variants) and from shared memory
// ("s" variants, ldmatrix) and from shared memory in the swizzled layout that TMA writes
// ("z" variants: croktile::swizzle::copy_2d, load_swizzled, and the accumulator through
// store_swizzled; an operand whose row is not 32, 64 or 128 bytes stays unswizzled).
// Variants: rc = b stored N x K (k contiguous), rr = b stored K x N; the accumulator
// starts from fill (rc) or from a load (rr), and gets +1 through for_each before it is
// stored.
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
namespace cm = croktile::mma;

struct lcg {
  unsigned long long s;
  unsigned next() { return unsigned((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33); }
};

template <class T>
T sample(lcg& r, bool nonzero = false) {
  if constexpr (std::is_same<T, std::int8_t>::value) {
    int v = int(r.next() % 15) - 7;
    return T(nonzero && !v ? 3 : v);
  } else if constexpr (std::is_same<T, std::uint8_t>::value) {
    unsigned v = r.next() % 16;
    return T(nonzero && !v ? 5 : v);
  } else if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    // More bits than tf32 holds, so the operand rounding shows.
    T v = T(int(r.next() % 2001) - 1000) / T(997);
    return nonzero && v == 0 ? T(0.5) : v;
  } else {
    // Multiples of 1/8 in [-1, 1]: exact in every narrow float type.
    int v = int(r.next() % 17) - 8;
    return T(float(nonzero && !v ? 3 : v) / 8.f);
  }
}

template <int IM, int IN, int IK, class TA, class TB, class TC, bool SP>
struct tile {
  static constexpr int M = 2 * IM, N = 2 * IN, K = IK * (IK >= 16 ? 2 : 32 / IK);
  static constexpr int KA = SP ? K / 2 : K;                  // a's stored columns
  static constexpr int MW = SP ? K / IK * cm::detail::meta_words<IK>() : 1;
  static constexpr int pad_a = 16 / int(sizeof(TA)), pad_b = 16 / int(sizeof(TB));
  static constexpr int lda = KA + pad_a;                     // a: M x KA, row-major
  static constexpr int ldb_rc = K + pad_b;                   // b as N x K
  static constexpr int ldb_rr = N + pad_b;                   // b as K x N
  using A = cm::frag<TA, M, KA, cm::role::a, IM, IN, IK>;
  using B = cm::frag<TB, K, N, cm::role::b, IM, IN, IK>;
  using C = cm::frag<TC, M, N, cm::role::c, IM, IN, IK>;
  using E = cm::frag<std::uint32_t, M, MW, cm::role::e, IM, IN, IK>;
  // The swizzles of compact shared copies (rows of 32, 64 or 128 bytes; else none).
  static constexpr int sw(int bytes) { return bytes == 32 || bytes == 64 || bytes == 128 ? bytes : 0; }
  static constexpr int swa = sw(KA * int(sizeof(TA))), swb_rc = sw(K * int(sizeof(TB))),
                       swb_rr = sw(N * int(sizeof(TB))), swc = sw(N * int(sizeof(TC)));
};

// The body every build runs: load, (sparse) mma, +1, store. a's rows are lda apart; SWA,
// SWB: the operands' shared swizzles (0: plain memory).
template <int IM, int IN, int IK, class TA, class TB, class TC, bool SP, int SWA = 0, int SWB = 0>
DEV void body(const TA* a, long long lda, const TB* b, long long sb0, long long sb1, const std::uint32_t* meta,
              const TC* c_init, float* out, TC* out_c) {
  using X = tile<IM, IN, IK, TA, TB, TC, SP>;
  typename X::A fa;
  typename X::B fb;
  typename X::C fc;
  cm::load_swizzled<SWA>(fa, a, lda, 1);
  cm::load_swizzled<SWB>(fb, b, sb0, sb1);
  if (c_init)
    cm::load(fc, c_init, X::N, 1);
  else
    cm::fill(fc, 0.25f);
  if constexpr (SP) {
    typename X::E fe;
    cm::load(fe, meta, X::MW, 1);
    cm::mma_sp(fc, fa, fb, fe);
  } else {
    cm::mma(fc, fa, fb);
  }
  cm::for_each(fc, [](TC& x) { x = cm::detail::convert<TC>(cm::detail::convert<double>(x) + 1.0); });
  cm::store(fc, out, X::N, 1);
#if defined(__CUDACC__)
  if constexpr (SWA || SWB) {  // through a swizzled shared tile, read back unswizzled
    __shared__ alignas(1024) TC sc[X::M * X::N];
    cm::store_swizzled<X::swc>(fc, sc, X::N, 1);
    __syncwarp();
    for (int n = threadIdx.x; n < X::M * X::N; n += 32)
      out_c[n % X::N * X::M + n / X::N] =
          *reinterpret_cast<const TC*>(reinterpret_cast<const char*>(sc) + swizzle::offset<X::swc>(n * sizeof(TC)));
    return;
  }
#endif
  cm::store(fc, out_c, 1, X::M);  // column-major, in the accumulator's own type
}

#if defined(__CUDACC__)
// memory: 'g' global, 's' shared (a plain copy), 'z' shared, swizzled compact copies.
template <int IM, int IN, int IK, class TA, class TB, class TC, bool SP>
__global__ void kernel(const TA* a, const TB* b, long long sb0, long long sb1, long long b_elems, bool rr,
                       const std::uint32_t* meta, const TC* c_init, float* out, TC* out_c, char memory) {
  using X = tile<IM, IN, IK, TA, TB, TC, SP>;
  __shared__ alignas(1024) TA sa[X::M * X::lda];
  __shared__ alignas(1024) TB sbuf[X::K * (X::K + X::pad_b + X::N)];
  if (memory == 's') {
    for (int i = threadIdx.x; i < X::M * X::lda; i += 32) sa[i] = a[i];
    for (long long i = threadIdx.x; i < b_elems; i += 32) sbuf[i] = b[i];
    __syncwarp();
    a = sa;
    b = sbuf;
  } else if (memory == 'z') {
    swizzle::copy_2d<TA, X::swa>(sa, a, X::M, X::KA, X::lda);
    if (rr)
      swizzle::copy_2d<TB, X::swb_rr>(sbuf, b, X::K, X::N, X::ldb_rr);
    else
      swizzle::copy_2d<TB, X::swb_rc>(sbuf, b, X::N, X::K, X::ldb_rc);
    __syncwarp();
    if (rr)
      body<IM, IN, IK, TA, TB, TC, SP, X::swa, X::swb_rr>(sa, X::KA, sbuf, X::N, 1, meta, c_init, out, out_c);
    else
      body<IM, IN, IK, TA, TB, TC, SP, X::swa, X::swb_rc>(sa, X::KA, sbuf, 1, X::K, meta, c_init, out, out_c);
    return;
  }
  body<IM, IN, IK, TA, TB, TC, SP>(a, X::lda, b, sb0, sb1, meta, c_init, out, out_c);
}

#define CHECK_CUDA(x)                                                              \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

template <class T>
T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, v.size() * sizeof(T) + 16));
  CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
#endif

template <class T>
double as_double(const T& x) { return cm::detail::convert<double>(x); }

template <int IM, int IN, int IK, class TA, class TB, class TC, bool SP>
void run_case(const char* name) {
  using X = tile<IM, IN, IK, TA, TB, TC, SP>;
  constexpr int M = X::M, N = X::N, K = X::K;
  lcg r{0x9e3779b97f4a7c15ull ^ (unsigned long long)(IM * 131 + IN * 17 + IK + SP * 7)};
  // Dense a (2:4 sparse where SP), its stored form, and the metadata words.
  std::vector<double> dense_a(M * K, 0.0);
  std::vector<TA> a(M * X::lda, cm::detail::convert<TA>(0));
  std::vector<std::uint32_t> meta(M * X::MW, 0u);
  for (int i = 0; i < M; ++i) {
    if (!SP) {
      for (int k = 0; k < K; ++k) {
        a[i * X::lda + k] = sample<TA>(r);
        dense_a[i * K + k] = as_double(cm::detail::operand_value<TA, cm::role::a>(a[i * X::lda + k]));
      }
      continue;
    }
    constexpr int W = cm::detail::meta_words<IK>();
    for (int grp = 0; grp < K / 4; ++grp) {
      const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
      const int* pr = pairs[r.next() % 6];
      const int ki = grp * 4 / IK, local = grp % (IK / 4);
      for (int j = 0; j < 2; ++j) {
        const TA v = sample<TA>(r, true);
        a[i * X::lda + grp * 2 + j] = v;
        dense_a[i * K + grp * 4 + pr[j]] = as_double(v);
        const int bit = 4 * local + 2 * j;
        meta[i * X::MW + ki * W + bit / 32] |= std::uint32_t(pr[j]) << (bit % 32);
      }
    }
  }
  std::vector<TB> b_rc(N * X::ldb_rc, cm::detail::convert<TB>(0)), b_rr(K * X::ldb_rr, cm::detail::convert<TB>(0));
  std::vector<double> dense_b(K * N);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      const TB v = sample<TB>(r);
      b_rc[j * X::ldb_rc + k] = v;
      b_rr[k * X::ldb_rr + j] = v;
      dense_b[k * N + j] = as_double(cm::detail::operand_value<TB, cm::role::b>(v));
    }
  std::vector<TC> c_init(M * N);
  for (auto& x : c_init) x = cm::detail::convert<TC>(double(int(r.next() % 9) - 4) / 4.0);

  // Tolerance: relative to the sum of |products| (f16 accumulators round per instruction).
  const double rel = std::is_integral<TC>::value ? 0.0
                     : std::is_same<TC, double>::value ? 1e-12
                     : std::is_same<TC, float>::value  ? 1e-5
                                                       : 4e-3;
  struct variant { const char* tag; bool rr; char memory; };
  const variant variants[] = {{"rc.g", false, 'g'}, {"rr.g", true, 'g'}, {"rc.s", false, 's'},
                              {"rr.s", true, 's'},  {"rc.z", false, 'z'}, {"rr.z", true, 'z'}};
  for (const variant& v : variants) {
#if !defined(__CUDACC__)
    if (v.memory != 'g') continue;  // the portable build has one memory
#endif
    const std::vector<TB>& b = v.rr ? b_rr : b_rc;
    const long long sb0 = v.rr ? X::ldb_rr : 1, sb1 = v.rr ? 1 : X::ldb_rc;
    std::vector<float> out(M * N, -1.f);
    std::vector<TC> out_c(M * N);
#if defined(__CUDACC__)
    TA* da = to_device(a);
    TB* db = to_device(b);
    std::uint32_t* dm = to_device(meta);
    TC* dc = to_device(c_init);
    float* dout = to_device(out);
    TC* doutc = to_device(out_c);
    kernel<IM, IN, IK, TA, TB, TC, SP><<<1, 32>>>(da, db, sb0, sb1, (long long)b.size(), v.rr, dm,
                                                  v.rr ? dc : nullptr, dout, doutc, v.memory);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(out_c.data(), doutc, out_c.size() * sizeof(TC), cudaMemcpyDeviceToHost));
    for (void* p : {(void*)da, (void*)db, (void*)dm, (void*)dc, (void*)dout, (void*)doutc}) cudaFree(p);
#else
    body<IM, IN, IK, TA, TB, TC, SP>(a.data(), X::lda, b.data(), sb0, sb1, meta.data(),
                                     v.rr ? c_init.data() : nullptr, out.data(), out_c.data());
#endif
    std::string line = std::string("CASE ") + name + " " + v.tag;
    int bad = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = (v.rr ? as_double(c_init[i * N + j]) : as_double(cm::detail::convert<TC>(0.25))) + 1.0;
        double mag = std::fabs(want);
        for (int k = 0; k < K; ++k) {
          want += dense_a[i * K + k] * dense_b[k * N + j];
          mag += std::fabs(dense_a[i * K + k] * dense_b[k * N + j]);
        }
        const double got = as_double(out_c[j * M + i]);  // the column-major store
        if (std::fabs(got - want) > rel * mag || float(got) != out[i * N + j]) {
          if (bad++ < 3)
            std::printf("FAIL %s %s (%d, %d): got %.17g (as float %.9g), want %.17g\n", name, v.tag, i, j, got,
                        out[i * N + j], want);
        }
        char buf[40];
        std::snprintf(buf, sizeof buf, " %.17g", got);
        line += buf;
      }
    std::printf("%s\n", line.c_str());
  }
}

int main() {
#define CASE(IM, IN, IK, TA, TB, TC, SP, NAME) run_case<IM, IN, IK, TA, TB, TC, SP>(NAME);
#include "mma_cases.inc"
#undef CASE
  return 0;
}
