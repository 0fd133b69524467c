// croktile_wgmma.h - warp-group tensor-core tiles (sm_90a wgmma): an accumulator in the
// registers of the 128 threads of a warp group, operands read by the tensor cores from
// swizzled shared memory through descriptors.
//
//   croktile::wgmma::acc<T, 64, N> c;          fill(c, v), store(c, p, s0, s1), for_each(c, op)
//   croktile::wgmma::tile<T, ROWS, COLS, SW> t = croktile::wgmma::smem(ptr);
//   croktile::wgmma::mma(c, a, b);             c += a * b^T: a is 64 x K, b is N x K
//                                              (both K-major, "mma.row.row")
//   croktile::wgmma::mma_async(c, a, b); ...; croktile::wgmma::wait<N>();   the same, pipelined
//   croktile::wgmma::mma_nmajor(c, a, b)       c += a * b, b a K x N tile stored N-major
//                                              ("mma.row.col"; f16/bf16, N a power of 2 with
//                                              N * sizeof(T) <= SW), and mma_nmajor_async
// A tile is ROWS x COLS elements of a shared buffer in the SW-byte swizzled layout
// (croktile_swizzle.h: rows of SW bytes, the buffer aligned to 8 of them); ptr points at
// its element (0, 0), which may sit inside a row (a chunk along K). On CUDA all 128
// threads of a warp group (4 consecutive warps, the first a multiple of 4) call every
// function with the same arguments; on the portable targets one call holds the tile, and
// shared buffers are plain row-major with rows of SW bytes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croktile_mma_warp.h"
#include "croktile_swizzle.h"

namespace croktile {
namespace wgmma {

namespace detail {
using croktile::mma::detail::convert;
using croktile::mma::detail::sum_t;

// The instruction's k for these operand types; 0 where wgmma has no such form.
template <class TA, class TB, class TC>
CROKTILE_HOST_DEVICE constexpr int instruction_k() {
  constexpr bool f8a = std::is_same<TA, f8_e4m3>::value || std::is_same<TA, f8_e5m2>::value;
  constexpr bool f8b = std::is_same<TB, f8_e4m3>::value || std::is_same<TB, f8_e5m2>::value;
  constexpr bool f32c = std::is_same<TC, float>::value, f16c = std::is_same<TC, f16>::value;
  if constexpr (std::is_same<TA, f16>::value && std::is_same<TB, f16>::value && (f32c || f16c)) return 16;
  if constexpr (std::is_same<TA, bf16>::value && std::is_same<TB, bf16>::value && f32c) return 16;
  if constexpr (std::is_same<TA, float>::value && std::is_same<TB, float>::value && f32c) return 8;  // tf32
  if constexpr (f8a && f8b && (f32c || f16c)) return 32;
  return 0;
}

// tf32 as wgmma reads it from shared memory: the low 13 mantissa bits ignored.
template <class T>
CROKTILE_HOST_DEVICE inline T operand(T x) {
  if constexpr (std::is_same<T, float>::value)
    return croktile::detail::bits_float(croktile::detail::float_bits(x) & 0xffffe000u);
  else
    return x;
}
}  // namespace detail

// A pointer to element (0, 0) of a shared tile; converts to the tile type it is given to.
template <class T>
struct smem_ref {
  T* p;
};
template <class T>
CROKTILE_HOST_DEVICE inline smem_ref<T> smem(T* p) { return {p}; }

template <class T, int ROWS, int COLS, int SW>
struct tile {
  static_assert(SW == 32 || SW == 64 || SW == 128,
                "croktile::wgmma::tile: wgmma operands need a 32, 64 or 128-byte swizzled layout");
  static_assert(COLS * int(sizeof(T)) <= SW, "croktile::wgmma::tile: a tile's row must fit the swizzle's row");
  static constexpr int pitch = SW / int(sizeof(T));  // elements per buffer row
  const T* p;
  template <class U>
  CROKTILE_HOST_DEVICE tile(smem_ref<U> r) : p(r.p) {
    static_assert(std::is_same<typename std::remove_const<U>::type, T>::value,
                  "croktile::wgmma::tile: the buffer's element type is not the tile's");
  }
};

#if !defined(__CUDACC__)
// ---- portable: one call holds the tile --------------------------------------------------
template <class T, int M, int N>
struct acc {
  static_assert(M == 64 && N % 8 == 0 && N >= 8 && N <= 256, "croktile::wgmma::acc: M is 64, N a multiple of 8 up to 256");
  T x[M * N];
};

template <class T, int M, int N, class V>
inline void fill(acc<T, M, N>& c, V v) {
  for (T& x : c.x) x = detail::convert<T>(v);
}
template <class T, int M, int N, class E>
inline void store(const acc<T, M, N>& c, E* p, long long s0, long long s1) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) p[i * s0 + j * s1] = detail::convert<E>(c.x[i * N + j]);
}
// A partial tile: only its first in_rows x in_cols elements lie in the data.
template <class T, int M, int N, class E>
inline void store_edge(const acc<T, M, N>& c, E* p, long long s0, long long s1, long long in_rows, long long in_cols) {
  for (int i = 0; i < M && i < in_rows; ++i)
    for (int j = 0; j < N && j < in_cols; ++j) p[i * s0 + j * s1] = detail::convert<E>(c.x[i * N + j]);
}
template <class T, int M, int N, class Op>
inline void for_each(acc<T, M, N>& c, Op op) {
  for (T& x : c.x) op(x);
}

// An A operand in registers (mma.cvt of an accumulator): 64 x K of f16 or bf16.
template <class T, int M, int K>
struct areg {
  static_assert(M == 64 && K % 16 == 0, "croktile::wgmma::areg: a warp group's A operand is 64 x (a multiple of 16)");
  T x[M * K];
};

namespace detail {
// c += a * b one instruction's k at a time, as the tensor cores round; a(i, k), b(k, j).
template <int IK, class TC, int M, int N, int K, class AF, class BF>
inline void multiply(acc<TC, M, N>& c, AF a, BF b) {
  using S = sum_t<TC>;
  for (int k0 = 0; k0 < K; k0 += IK)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        S s = 0;
        for (int kk = k0; kk < k0 + IK; ++kk) s += convert<S>(a(i, kk)) * convert<S>(b(kk, j));
        TC& x = c.x[i * N + j];
        x = convert<TC>(convert<S>(x) + s);
      }
}
}  // namespace detail

// c += a * b^T, one instruction's k at a time as the tensor cores round.
template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
inline void mma(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a, const tile<TB, N, K, SWB>& b) {
  constexpr int IK = detail::instruction_k<TA, TB, TC>();
  static_assert(IK != 0, "croktile::wgmma::mma: no wgmma instruction for these element types");
  static_assert(K % IK == 0, "croktile::wgmma::mma: K is not a multiple of the instruction's k");
  detail::multiply<IK, TC, M, N, K>(c, [&](int i, int k) { return detail::operand(a.p[i * a.pitch + k]); },
                                    [&](int k, int j) { return detail::operand(b.p[j * b.pitch + k]); });
}
// c += a * b, b a K x N tile (N contiguous, "mma.row.col").
template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
inline void mma_nmajor(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a, const tile<TB, K, N, SWB>& b) {
  constexpr int IK = detail::instruction_k<TA, TB, TC>();
  static_assert(IK == 16, "croktile::wgmma::mma_nmajor: an N-major b needs f16 or bf16 operands");
  static_assert(K % IK == 0, "croktile::wgmma::mma_nmajor: K is not a multiple of the instruction's k");
  static_assert((N & (N - 1)) == 0, "croktile::wgmma::mma_nmajor: N must be a power of 2");
  detail::multiply<IK, TC, M, N, K>(c, [&](int i, int k) { return a.p[i * a.pitch + k]; },
                                    [&](int k, int j) { return b.p[k * b.pitch + j]; });
}
// The same with A in registers.
template <class TC, class TA, class TB, int M, int N, int K, int SWB>
inline void mma(acc<TC, M, N>& c, const areg<TA, M, K>& a, const tile<TB, N, K, SWB>& b) {
  static_assert(detail::instruction_k<TA, TB, TC>() == 16, "croktile::wgmma::mma: an A in registers is f16 or bf16");
  detail::multiply<16, TC, M, N, K>(c, [&](int i, int k) { return a.x[i * K + k]; },
                                    [&](int k, int j) { return b.p[j * b.pitch + k]; });
}
template <class TC, class TA, class TB, int M, int N, int K, int SWB>
inline void mma_nmajor(acc<TC, M, N>& c, const areg<TA, M, K>& a, const tile<TB, K, N, SWB>& b) {
  static_assert(detail::instruction_k<TA, TB, TC>() == 16, "croktile::wgmma::mma_nmajor: an A in registers is f16 or bf16");
  detail::multiply<16, TC, M, N, K>(c, [&](int i, int k) { return a.x[i * K + k]; },
                                    [&](int k, int j) { return b.p[k * b.pitch + j]; });
}

// The portable mma is done when it returns.
template <class TC, class A, class TB, int M, int N, int K, int SWB>
inline void mma_async(acc<TC, M, N>& c, const A& a, const tile<TB, N, K, SWB>& b) {
  mma(c, a, b);
}
template <class TC, class A, class TB, int M, int N, int K, int SWB>
inline void mma_nmajor_async(acc<TC, M, N>& c, const A& a, const tile<TB, K, N, SWB>& b) {
  mma_nmajor(c, a, b);
}
template <int N>
inline void wait() {}
template <class TC, int M, int N>
inline void settle(acc<TC, M, N>&) {}
#else
// ---- CUDA: the accumulator in the wgmma D layout ------------------------------------------
// Thread (warp w of the group, g = lane / 4, t = lane % 4) holds rows 16w + g (+ 8),
// columns 8i + 2t (+ 1): element 4i + 2r + c.
template <class T, int M, int N>
struct acc {
  static_assert(M == 64 && N % 8 == 0 && N >= 8 && N <= 256, "croktile::wgmma::acc: M is 64, N a multiple of 8 up to 256");
  static constexpr int count = N / 2;
  using word = typename std::conditional<sizeof(T) == 4, T, std::uint32_t>::type;
  word w[count * int(sizeof(T)) / 4];
  __device__ __forceinline__ T get(int n) const {
    T v;
    memcpy(&v, reinterpret_cast<const char*>(w) + n * sizeof(T), sizeof(T));
    return v;
  }
  __device__ __forceinline__ void set(int n, const T& v) { memcpy(reinterpret_cast<char*>(w) + n * sizeof(T), &v, sizeof(T)); }
  __device__ static void where(int n, int& row, int& col) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    row = 16 * warp + lane / 4 + 8 * (n / 2 % 2);
    col = 8 * (n / 4) + 2 * (lane % 4) + n % 2;
  }
};

template <class T, int M, int N, class V>
__device__ __forceinline__ void fill(acc<T, M, N>& c, V v) {
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) c.set(n, detail::convert<T>(v));
}
namespace detail {
template <int Bytes>
struct word_of;
template <> struct word_of<2> { using type = std::uint16_t; };
template <> struct word_of<4> { using type = std::uint32_t; };
template <> struct word_of<8> { using type = std::uint64_t; };
}  // namespace detail

/// Stores c at p (row stride s0, column stride s1). A thread's elements n and n + 1 (n
/// even) are neighbours in a row, so where rows are contiguous (s1 == 1) and the pairs
/// aligned, each pair leaves in one store of twice the element's size: half the store
/// instructions and shared-memory wavefronts of an epilogue.
template <class T, int M, int N, class E>
__device__ __forceinline__ void store(const acc<T, M, N>& c, E* p, long long s0, long long s1) {
  using pair = typename detail::word_of<2 * sizeof(E)>::type;
  if (s1 == 1 && s0 % 2 == 0 && reinterpret_cast<std::uintptr_t>(p) % sizeof(pair) == 0) {
#pragma unroll
    for (int n = 0; n < acc<T, M, N>::count; n += 2) {
      int i, j;
      acc<T, M, N>::where(n, i, j);
      const E two[2] = {detail::convert<E>(c.get(n)), detail::convert<E>(c.get(n + 1))};
      pair w;
      memcpy(&w, two, sizeof(w));
      *reinterpret_cast<pair*>(p + i * s0 + j) = w;
    }
    return;
  }
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) {
    int i, j;
    acc<T, M, N>::where(n, i, j);
    p[i * s0 + j * s1] = detail::convert<E>(c.get(n));
  }
}
/// A partial tile: only its first in_rows x in_cols elements lie in the data (no store past them).
template <class T, int M, int N, class E>
__device__ __forceinline__ void store_edge(const acc<T, M, N>& c, E* p, long long s0, long long s1, long long in_rows,
                                           long long in_cols) {
  if (in_rows >= M && in_cols >= N) return store(c, p, s0, s1);   // a whole tile: the paired stores
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) {
    int i, j;
    acc<T, M, N>::where(n, i, j);
    if (i < in_rows && j < in_cols) p[i * s0 + j * s1] = detail::convert<E>(c.get(n));
  }
}
template <class T, int M, int N, class Op>
__device__ __forceinline__ void for_each(acc<T, M, N>& c, Op op) {
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) {
    T v = c.get(n);
    op(v);
    c.set(n, v);
  }
}

namespace ptx {
// The shared-memory matrix descriptor of a swizzled operand at p: start address, leading
// byte offset (K-major: unused; N-major: the next atom along N, which a tile of one
// buffer row never reaches), stride byte offset (the next 8 rows), layout type.
template <int SW>
__device__ __forceinline__ std::uint64_t descriptor(const void* p) {
  const std::uint64_t addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  constexpr std::uint64_t layout = SW == 128 ? 1 : SW == 64 ? 2 : 3;
  return ((addr & 0x3ffff) >> 4) | (std::uint64_t(1) << 16) | (std::uint64_t((8 * SW) >> 4) << 32) | (layout << 62);
}

/// Pins the accumulator's registers in place: the compiler may not move accesses of them
/// across this point (it would otherwise read them between a wgmma and its wait, and
/// ptxas then serializes the warp group's multiplies).
template <class Acc>
__device__ __forceinline__ void fence_operands(Acc& c) {
#pragma unroll
  for (int i = 0; i < int(sizeof(c.w) / sizeof(c.w[0])); ++i) {
    if constexpr (sizeof(c.w[0]) == 4 && std::is_floating_point<typename std::remove_reference<decltype(c.w[0])>::type>::value)
      asm volatile("" : "+f"(c.w[i])::"memory");
    else
      asm volatile("" : "+r"(c.w[i])::"memory");
  }
}

/// wgmma.fence: orders register accesses to the accumulator before the next wgmma.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
/// wgmma.commit_group: closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
/// wgmma.wait_group N: waits until at most N committed groups are pending.
template <int N>
__device__ __forceinline__ void wait_group() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }

// Operand lists for R accumulator registers (R = 2 .. 128), then descA, descB, scale-d.
#define CROKTILE_WGMMA_D2(C, d) \
  C(d[0]), C(d[1])
#define CROKTILE_WGMMA_REGS2 "{" \
  "%0,%1" "}"
#define CROKTILE_WGMMA_ARGS2 "%2, %3, p, 1, 1"
#define CROKTILE_WGMMA_SCALE2 "%4"
#define CROKTILE_WGMMA_D4(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3])
#define CROKTILE_WGMMA_REGS4 "{" \
  "%0,%1,%2,%3" "}"
#define CROKTILE_WGMMA_ARGS4 "%4, %5, p, 1, 1"
#define CROKTILE_WGMMA_SCALE4 "%6"
#define CROKTILE_WGMMA_D8(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7])
#define CROKTILE_WGMMA_REGS8 "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7" "}"
#define CROKTILE_WGMMA_ARGS8 "%8, %9, p, 1, 1"
#define CROKTILE_WGMMA_SCALE8 "%10"
#define CROKTILE_WGMMA_D16(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), C(d[8]), C(d[9]),  \
  C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15])
#define CROKTILE_WGMMA_REGS16 "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15" "}"
#define CROKTILE_WGMMA_ARGS16 "%16, %17, p, 1, 1"
#define CROKTILE_WGMMA_SCALE16 "%18"
#define CROKTILE_WGMMA_D32(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), C(d[8]), C(d[9]),  \
  C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15]), C(d[16]), C(d[17]), C(d[18]),  \
  C(d[19]), C(d[20]), C(d[21]), C(d[22]), C(d[23]), C(d[24]), C(d[25]), C(d[26]), C(d[27]),  \
  C(d[28]), C(d[29]), C(d[30]), C(d[31])
#define CROKTILE_WGMMA_REGS32 "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24," \
  "%25,%26,%27,%28,%29,%30,%31" "}"
#define CROKTILE_WGMMA_ARGS32 "%32, %33, p, 1, 1"
#define CROKTILE_WGMMA_SCALE32 "%34"
#define CROKTILE_WGMMA_D64(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), C(d[8]), C(d[9]),  \
  C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15]), C(d[16]), C(d[17]), C(d[18]),  \
  C(d[19]), C(d[20]), C(d[21]), C(d[22]), C(d[23]), C(d[24]), C(d[25]), C(d[26]), C(d[27]),  \
  C(d[28]), C(d[29]), C(d[30]), C(d[31]), C(d[32]), C(d[33]), C(d[34]), C(d[35]), C(d[36]),  \
  C(d[37]), C(d[38]), C(d[39]), C(d[40]), C(d[41]), C(d[42]), C(d[43]), C(d[44]), C(d[45]),  \
  C(d[46]), C(d[47]), C(d[48]), C(d[49]), C(d[50]), C(d[51]), C(d[52]), C(d[53]), C(d[54]),  \
  C(d[55]), C(d[56]), C(d[57]), C(d[58]), C(d[59]), C(d[60]), C(d[61]), C(d[62]), C(d[63])
#define CROKTILE_WGMMA_REGS64 "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24," \
  "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46," \
  "%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63" "}"
#define CROKTILE_WGMMA_ARGS64 "%64, %65, p, 1, 1"
#define CROKTILE_WGMMA_SCALE64 "%66"
#define CROKTILE_WGMMA_D128(C, d) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), C(d[8]), C(d[9]),  \
  C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15]), C(d[16]), C(d[17]), C(d[18]),  \
  C(d[19]), C(d[20]), C(d[21]), C(d[22]), C(d[23]), C(d[24]), C(d[25]), C(d[26]), C(d[27]),  \
  C(d[28]), C(d[29]), C(d[30]), C(d[31]), C(d[32]), C(d[33]), C(d[34]), C(d[35]), C(d[36]),  \
  C(d[37]), C(d[38]), C(d[39]), C(d[40]), C(d[41]), C(d[42]), C(d[43]), C(d[44]), C(d[45]),  \
  C(d[46]), C(d[47]), C(d[48]), C(d[49]), C(d[50]), C(d[51]), C(d[52]), C(d[53]), C(d[54]),  \
  C(d[55]), C(d[56]), C(d[57]), C(d[58]), C(d[59]), C(d[60]), C(d[61]), C(d[62]), C(d[63]),  \
  C(d[64]), C(d[65]), C(d[66]), C(d[67]), C(d[68]), C(d[69]), C(d[70]), C(d[71]), C(d[72]),  \
  C(d[73]), C(d[74]), C(d[75]), C(d[76]), C(d[77]), C(d[78]), C(d[79]), C(d[80]), C(d[81]),  \
  C(d[82]), C(d[83]), C(d[84]), C(d[85]), C(d[86]), C(d[87]), C(d[88]), C(d[89]), C(d[90]),  \
  C(d[91]), C(d[92]), C(d[93]), C(d[94]), C(d[95]), C(d[96]), C(d[97]), C(d[98]), C(d[99]),  \
  C(d[100]), C(d[101]), C(d[102]), C(d[103]), C(d[104]), C(d[105]), C(d[106]), C(d[107]),  \
  C(d[108]), C(d[109]), C(d[110]), C(d[111]), C(d[112]), C(d[113]), C(d[114]), C(d[115]),  \
  C(d[116]), C(d[117]), C(d[118]), C(d[119]), C(d[120]), C(d[121]), C(d[122]), C(d[123]),  \
  C(d[124]), C(d[125]), C(d[126]), C(d[127])
#define CROKTILE_WGMMA_REGS128 "{" \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24," \
  "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46," \
  "%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68," \
  "%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90," \
  "%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109," \
  "%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127" "}"
#define CROKTILE_WGMMA_ARGS128 "%128, %129, p, 1, 1"
#define CROKTILE_WGMMA_SCALE128 "%130"

#define CROKTILE_WGMMA_ASM(R, C, INSTR, TAIL)                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " CROKTILE_WGMMA_SCALE##R ", 0;\n" INSTR " "      \
               CROKTILE_WGMMA_REGS##R ", " CROKTILE_WGMMA_ARGS##R TAIL ";\n}\n"                    \
               : CROKTILE_WGMMA_D##R(C, d)                                                          \
               : "l"(da), "l"(db), "r"(1))

// One wgmma.mma_async of width NW (8 .. 256, a power of 2) on the registers at d.
template <int NW, class TA, class TB, class TC, bool NMAJOR>
struct instruction;

// f32 accumulators: NW / 2 "f" registers; f16: NW / 4 "r" registers (two halves each).
#define CROKTILE_WGMMA_INSTRUCTION_F32(TA, TB, NMAJOR, K, TYPES, TAIL)                                              \
  template <int NW>                                                                                       \
  struct instruction<NW, TA, TB, float, NMAJOR> {                                                                 \
    __device__ __forceinline__ static void run(float* d, std::uint64_t da, std::uint64_t db) {            \
      if constexpr (NW == 8) CROKTILE_WGMMA_ASM(4, "+f", "wgmma.mma_async.sync.aligned.m64n8k" #K ".f32" TYPES, TAIL);     \
      if constexpr (NW == 16) CROKTILE_WGMMA_ASM(8, "+f", "wgmma.mma_async.sync.aligned.m64n16k" #K ".f32" TYPES, TAIL);   \
      if constexpr (NW == 32) CROKTILE_WGMMA_ASM(16, "+f", "wgmma.mma_async.sync.aligned.m64n32k" #K ".f32" TYPES, TAIL);  \
      if constexpr (NW == 64) CROKTILE_WGMMA_ASM(32, "+f", "wgmma.mma_async.sync.aligned.m64n64k" #K ".f32" TYPES, TAIL);  \
      if constexpr (NW == 128) CROKTILE_WGMMA_ASM(64, "+f", "wgmma.mma_async.sync.aligned.m64n128k" #K ".f32" TYPES, TAIL); \
      if constexpr (NW == 256) CROKTILE_WGMMA_ASM(128, "+f", "wgmma.mma_async.sync.aligned.m64n256k" #K ".f32" TYPES, TAIL); \
    }                                                                                                     \
  };
#define CROKTILE_WGMMA_INSTRUCTION_F16(TA, TB, NMAJOR, K, TYPES, TAIL)                                                    \
  template <int NW>                                                                                             \
  struct instruction<NW, TA, TB, f16, NMAJOR> {                                                                         \
    __device__ __forceinline__ static void run(std::uint32_t* d, std::uint64_t da, std::uint64_t db) {          \
      if constexpr (NW == 8) CROKTILE_WGMMA_ASM(2, "+r", "wgmma.mma_async.sync.aligned.m64n8k" #K ".f16" TYPES, TAIL);     \
      if constexpr (NW == 16) CROKTILE_WGMMA_ASM(4, "+r", "wgmma.mma_async.sync.aligned.m64n16k" #K ".f16" TYPES, TAIL);   \
      if constexpr (NW == 32) CROKTILE_WGMMA_ASM(8, "+r", "wgmma.mma_async.sync.aligned.m64n32k" #K ".f16" TYPES, TAIL);   \
      if constexpr (NW == 64) CROKTILE_WGMMA_ASM(16, "+r", "wgmma.mma_async.sync.aligned.m64n64k" #K ".f16" TYPES, TAIL);  \
      if constexpr (NW == 128) CROKTILE_WGMMA_ASM(32, "+r", "wgmma.mma_async.sync.aligned.m64n128k" #K ".f16" TYPES, TAIL); \
      if constexpr (NW == 256) CROKTILE_WGMMA_ASM(64, "+r", "wgmma.mma_async.sync.aligned.m64n256k" #K ".f16" TYPES, TAIL); \
    }                                                                                                           \
  };
// f16 and bf16 take the transpose flags (b N-major: 1); tf32 and fp8 have none (K-major).
CROKTILE_WGMMA_INSTRUCTION_F32(f16, f16, false, 16, ".f16.f16", ", 0, 0")
CROKTILE_WGMMA_INSTRUCTION_F16(f16, f16, false, 16, ".f16.f16", ", 0, 0")
CROKTILE_WGMMA_INSTRUCTION_F32(bf16, bf16, false, 16, ".bf16.bf16", ", 0, 0")
CROKTILE_WGMMA_INSTRUCTION_F32(f16, f16, true, 16, ".f16.f16", ", 0, 1")
CROKTILE_WGMMA_INSTRUCTION_F16(f16, f16, true, 16, ".f16.f16", ", 0, 1")
CROKTILE_WGMMA_INSTRUCTION_F32(bf16, bf16, true, 16, ".bf16.bf16", ", 0, 1")
CROKTILE_WGMMA_INSTRUCTION_F32(float, float, false, 8, ".tf32.tf32", "")
CROKTILE_WGMMA_INSTRUCTION_F32(f8_e4m3, f8_e4m3, false, 32, ".e4m3.e4m3", "")
CROKTILE_WGMMA_INSTRUCTION_F32(f8_e4m3, f8_e5m2, false, 32, ".e4m3.e5m2", "")
CROKTILE_WGMMA_INSTRUCTION_F32(f8_e5m2, f8_e4m3, false, 32, ".e5m2.e4m3", "")
CROKTILE_WGMMA_INSTRUCTION_F32(f8_e5m2, f8_e5m2, false, 32, ".e5m2.e5m2", "")
CROKTILE_WGMMA_INSTRUCTION_F16(f8_e4m3, f8_e4m3, false, 32, ".e4m3.e4m3", "")
CROKTILE_WGMMA_INSTRUCTION_F16(f8_e4m3, f8_e5m2, false, 32, ".e4m3.e5m2", "")
CROKTILE_WGMMA_INSTRUCTION_F16(f8_e5m2, f8_e4m3, false, 32, ".e5m2.e4m3", "")
CROKTILE_WGMMA_INSTRUCTION_F16(f8_e5m2, f8_e5m2, false, 32, ".e5m2.e5m2", "")
#undef CROKTILE_WGMMA_INSTRUCTION_F32
#undef CROKTILE_WGMMA_INSTRUCTION_F16

// Columns [N0, N) of the accumulator as instructions of width 256, 128, ..., 8: b's rows
// N0.. start N0 rows (whole 8-row swizzle atoms) further.
template <int N0, int N, class TA, class TB, class TC, int SWB, class Acc>
__device__ __forceinline__ void columns(Acc& c, std::uint64_t da, const TB* b) {
  if constexpr (N0 < N) {
    constexpr int left = N - N0;
    constexpr int NW = left >= 256 ? 256 : left >= 128 ? 128 : left >= 64 ? 64 : left >= 32 ? 32 : left >= 16 ? 16 : 8;
    instruction<NW, TA, TB, TC, false>::run(c.w + N0 / 2 * int(sizeof(TC)) / int(sizeof(c.w[0])), da,
                                     descriptor<SWB>(b + N0 * (SWB / int(sizeof(TB)))));
    columns<N0 + NW, N, TA, TB, TC, SWB>(c, da, b);
  }
}
}  // namespace ptx

// c += a * b^T started: wgmma.fence, one wgmma.mma_async per instruction k and
// accumulator piece, commit. c's registers belong to the tensor cores until wait<N>()
// says its group is done (pipelines keep N groups in flight).
template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
__device__ __forceinline__ void mma_async(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a, const tile<TB, N, K, SWB>& b) {
  constexpr int IK = detail::instruction_k<TA, TB, TC>();
  static_assert(IK != 0, "croktile::wgmma::mma: no wgmma instruction for these element types");
  static_assert(K % IK == 0, "croktile::wgmma::mma: K is not a multiple of the instruction's k");
  ptx::fence_operands(c);
  ptx::fence();
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += IK) {
    const std::uint64_t da = ptx::descriptor<SWA>(a.p + k0);
    ptx::columns<0, N, TA, TB, TC, SWB>(c, da, b.p + k0);
  }
  ptx::commit_group();
  ptx::fence_operands(c);
}

/// Waits until at most N groups of mma_async are still running.
template <int N>
__device__ __forceinline__ void wait() { ptx::wait_group<N>(); }

/// Waits for every multiply into c; the compiler may read c's registers only after it.
template <class TC, int M, int N>
__device__ __forceinline__ void settle(acc<TC, M, N>& c) {
  ptx::wait_group<0>();
  ptx::fence_operands(c);
}

// c += a * b^T, finished on return.
template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
__device__ __forceinline__ void mma(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a, const tile<TB, N, K, SWB>& b) {
  mma_async(c, a, b);
  wait<0>();
}

// c += a * b started, b a K x N tile stored N-major ("mma.row.col"): f16 and bf16 only,
// N a power of 2 whose row fits the swizzle (one instruction per k).
template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
__device__ __forceinline__ void mma_nmajor_async(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a,
                                                 const tile<TB, K, N, SWB>& b) {
  constexpr int IK = detail::instruction_k<TA, TB, TC>();
  static_assert(IK == 16, "croktile::wgmma::mma_nmajor: an N-major b needs f16 or bf16 operands");
  static_assert(K % IK == 0, "croktile::wgmma::mma_nmajor: K is not a multiple of the instruction's k");
  static_assert((N & (N - 1)) == 0, "croktile::wgmma::mma_nmajor: N must be a power of 2");
  ptx::fence();
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += IK)
    ptx::instruction<N, TA, TB, TC, true>::run(c.w, ptx::descriptor<SWA>(a.p + k0),
                                               ptx::descriptor<SWB>(b.p + k0 * b.pitch));
  ptx::commit_group();
}

template <class TC, class TA, class TB, int M, int N, int K, int SWA, int SWB>
__device__ __forceinline__ void mma_nmajor(acc<TC, M, N>& c, const tile<TA, M, K, SWA>& a, const tile<TB, K, N, SWB>& b) {
  mma_nmajor_async(c, a, b);
  wait<0>();
}
// ---- A in registers (mma.cvt of an accumulator): wgmma's register-A form ----------------
// Thread (warp w, lane) holds the A elements of the accumulator layout: register 4k + q of
// step k is rows 16w + lane / 4 (+ 8 for q odd), columns 16k + 2 (lane % 4) (+ 8 for q >= 2).
template <class T, int M, int K>
struct areg {
  static_assert(M == 64 && K % 16 == 0 && sizeof(T) == 2,
                "croktile::wgmma::areg: a warp group's A operand is 64 x (a multiple of 16) of f16 or bf16");
  std::uint32_t w[K / 4];
};

namespace ptx {
#define CROKTILE_WGMMA_RS_ARGS4 "{%4,%5,%6,%7}, %8, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE4 "%9"
#define CROKTILE_WGMMA_RS_ARGS8 "{%8,%9,%10,%11}, %12, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE8 "%13"
#define CROKTILE_WGMMA_RS_ARGS16 "{%16,%17,%18,%19}, %20, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE16 "%21"
#define CROKTILE_WGMMA_RS_ARGS32 "{%32,%33,%34,%35}, %36, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE32 "%37"
#define CROKTILE_WGMMA_RS_ARGS64 "{%64,%65,%66,%67}, %68, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE64 "%69"
#define CROKTILE_WGMMA_RS_ARGS128 "{%128,%129,%130,%131}, %132, p, 1, 1"
#define CROKTILE_WGMMA_RS_SCALE128 "%133"
#define CROKTILE_WGMMA_RS_ASM(R, INSTR, TAIL)                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " CROKTILE_WGMMA_RS_SCALE##R ", 0;\n" INSTR " "    \
               CROKTILE_WGMMA_REGS##R ", " CROKTILE_WGMMA_RS_ARGS##R TAIL ";\n}\n"               \
               : CROKTILE_WGMMA_D##R("+f", d)                                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

// One register-A wgmma.mma_async of width NW into f32 accumulators; b K-major or N-major.
template <int NW, class TA, bool NMAJOR>
struct rs_instruction;
#define CROKTILE_WGMMA_RS_INSTRUCTION(TA, NMAJOR, TYPES, TAIL)                                               \
  template <int NW>                                                                                        \
  struct rs_instruction<NW, TA, NMAJOR> {                                                                  \
    __device__ __forceinline__ static void run(float* d, const std::uint32_t* a, std::uint64_t db) {       \
      if constexpr (NW == 8) CROKTILE_WGMMA_RS_ASM(4, "wgmma.mma_async.sync.aligned.m64n8k16.f32" TYPES, TAIL);     \
      if constexpr (NW == 16) CROKTILE_WGMMA_RS_ASM(8, "wgmma.mma_async.sync.aligned.m64n16k16.f32" TYPES, TAIL);   \
      if constexpr (NW == 32) CROKTILE_WGMMA_RS_ASM(16, "wgmma.mma_async.sync.aligned.m64n32k16.f32" TYPES, TAIL);  \
      if constexpr (NW == 64) CROKTILE_WGMMA_RS_ASM(32, "wgmma.mma_async.sync.aligned.m64n64k16.f32" TYPES, TAIL);  \
      if constexpr (NW == 128) CROKTILE_WGMMA_RS_ASM(64, "wgmma.mma_async.sync.aligned.m64n128k16.f32" TYPES, TAIL); \
      if constexpr (NW == 256) CROKTILE_WGMMA_RS_ASM(128, "wgmma.mma_async.sync.aligned.m64n256k16.f32" TYPES, TAIL); \
    }                                                                                                      \
  };
CROKTILE_WGMMA_RS_INSTRUCTION(f16, false, ".f16.f16", ", 0")
CROKTILE_WGMMA_RS_INSTRUCTION(f16, true, ".f16.f16", ", 1")
CROKTILE_WGMMA_RS_INSTRUCTION(bf16, false, ".bf16.bf16", ", 0")
CROKTILE_WGMMA_RS_INSTRUCTION(bf16, true, ".bf16.bf16", ", 1")
#undef CROKTILE_WGMMA_RS_INSTRUCTION

template <bool NMAJOR, class TA, class TB, int M, int N, int K, int SWB, class BT>
__device__ __forceinline__ void mma_rs_async(acc<float, M, N>& c, const areg<TA, M, K>& a, const BT& b) {
  static_assert(std::is_same<TA, TB>::value && (std::is_same<TA, f16>::value || std::is_same<TA, bf16>::value),
                "croktile::wgmma: an A in registers multiplies a B of its own type, f16 or bf16, into f32");
  static_assert((N & (N - 1)) == 0 && N <= 256, "croktile::wgmma: with A in registers N is a power of 2 up to 256");
  // a's registers are set (mma.cvt) before the fence, and stay as they are while it runs
  auto& regs = const_cast<areg<TA, M, K>&>(a);
  fence_operands(regs);
  fence_operands(c);
  fence();
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += 16)
    rs_instruction<N, TA, NMAJOR>::run(c.w, a.w + k0 / 4, descriptor<SWB>(b.p + (NMAJOR ? k0 * b.pitch : k0)));
  commit_group();
  fence_operands(c);
  fence_operands(regs);
}
}  // namespace ptx

template <class TC, class TA, class TB, int M, int N, int K, int SWB>
__device__ __forceinline__ void mma_async(acc<TC, M, N>& c, const areg<TA, M, K>& a, const tile<TB, N, K, SWB>& b) {
  ptx::mma_rs_async<false, TA, TB, M, N, K, SWB>(c, a, b);
}
template <class TC, class TA, class TB, int M, int N, int K, int SWB>
__device__ __forceinline__ void mma(acc<TC, M, N>& c, const areg<TA, M, K>& a, const tile<TB, N, K, SWB>& b) {
  mma_async(c, a, b);
  wait<0>();
}
template <class TC, class TA, class TB, int M, int N, int K, int SWB>
__device__ __forceinline__ void mma_nmajor_async(acc<TC, M, N>& c, const areg<TA, M, K>& a,
                                                 const tile<TB, K, N, SWB>& b) {
  ptx::mma_rs_async<true, TA, TB, M, N, K, SWB>(c, a, b);
}
template <class TC, class TA, class TB, int M, int N, int K, int SWB>
__device__ __forceinline__ void mma_nmajor(acc<TC, M, N>& c, const areg<TA, M, K>& a, const tile<TB, K, N, SWB>& b) {
  mma_nmajor_async(c, a, b);
  wait<0>();
}
#endif

}  // namespace wgmma
}  // namespace croktile
