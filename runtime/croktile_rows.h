// croktile_rows.h - row operations on accumulators, for the softmax of attention kept in
// registers (docs/language/tensor-cores.md, "Row operations and softmax"):
//
//   croktile::mma::rowvec<R> m;  croktile::wgmma::rowvec<64> m;   one f32 per row of a tile
//   row_fill(m, v)        m = v                    (v a value or a row vector)
//   row_max(m, x)         m = max(m, row max of x) (x an accumulator, a row vector or a value)
//   row_sum(l, x)         l += row sum of x
//   row_scale(x, f)       each row of x (an accumulator or a row vector) times its f
//   row_div(x, f)         ... divided by its f
//   row_exp(x, m, scale)  x = exp(scale * (x - m)) per row, as exp2 with log2(e) folded
//                         into the scale; 0 where x is -inf (m = -inf counts as 0)
//   mask_causal(s, r0, c0)  s(i, j) = -inf where c0 + j > r0 + i
//   mask_causal(s, r0, c0, p)  ... where c0 + j > r0 + i % p (rows that repeat every p:
//                         the queries of several heads packed into one tile)
//   mask_cols(s, n)       s(i, j) = -inf where j >= n (the keys past the data)
//   cvt(a, s)             the accumulator s as an A operand of f16 / bf16 (in registers)
//
// On the portable targets a row vector holds every row and a tile is row-major; on CUDA
// a warp group's row vector holds the two rows of its accumulator that the thread holds
// (16w + lane / 4, and 8 further), and a row's reduction ends with shuffles across the 4
// lanes that share the row. A warp's (mma.sync) tiles have row operations on the portable
// targets only.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "croktile_mma_warp.h"
#include "croktile_wgmma.h"

namespace croktile {
namespace rows {
constexpr float log2e = 1.4426950408889634f;

// exp(scale * (x - m)) = exp2(x * scale log2(e) - m * scale log2(e))
CROKTILE_HOST_DEVICE inline float exp_scaled(float x, float m, float scale) {
  const float s = scale * log2e;
  const float ms = m == -INFINITY ? 0.0f : m * s;
#if defined(__CUDA_ARCH__)
  return exp2f(fmaf(x, s, -ms));
#else
  return std::exp2(x * s - ms);
#endif
}

// A value as a per-row operand: the same in every row.
template <class V>
CROKTILE_HOST_DEVICE inline typename std::enable_if<std::is_arithmetic<V>::value, float>::type at(V v, int) {
  return static_cast<float>(v);
}

#if !defined(__CUDACC__)
// ---- portable: every row of a row-major tile ---------------------------------------------
template <int R>
struct vec {
  float x[R];
};
template <int R>
inline float at(const vec<R>& v, int i) { return v.x[i]; }

// The accumulators: rows, columns and element type.
template <class F>
struct tile : std::false_type {};
template <class T, int R, int C, int IM, int IN, int IK>
struct tile<mma::frag<T, R, C, mma::role::c, IM, IN, IK>> : std::true_type {
  using elem = T;
  static constexpr int rows = R, cols = C;
};
template <class T, int M, int N>
struct tile<wgmma::acc<T, M, N>> : std::true_type {
  using elem = T;
  static constexpr int rows = M, cols = N;
};

template <class F, class Op>
inline void each(F& s, Op op) {
  using T = typename tile<F>::elem;
  constexpr int C = tile<F>::cols;
  for (int i = 0; i < tile<F>::rows; ++i)
    for (int j = 0; j < C; ++j) s.x[i * C + j] = mma::detail::convert<T>(op(static_cast<float>(s.x[i * C + j]), i, j));
}

template <int R, class V>
inline void row_fill(vec<R>& d, const V& v) {
  for (int i = 0; i < R; ++i) d.x[i] = at(v, i);
}
template <int R, class X>
inline void row_max(vec<R>& d, const X& x) {
  if constexpr (tile<X>::value) {
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < tile<X>::cols; ++j) d.x[i] = std::fmax(d.x[i], static_cast<float>(x.x[i * tile<X>::cols + j]));
  } else {
    for (int i = 0; i < R; ++i) d.x[i] = std::fmax(d.x[i], at(x, i));
  }
}
template <int R, class X>
inline void row_sum(vec<R>& d, const X& x) {
  if constexpr (tile<X>::value) {
    for (int i = 0; i < R; ++i) {
      float s = 0;
      for (int j = 0; j < tile<X>::cols; ++j) s += static_cast<float>(x.x[i * tile<X>::cols + j]);
      d.x[i] += s;
    }
  } else {
    for (int i = 0; i < R; ++i) d.x[i] += at(x, i);
  }
}
// op(value, row, column) for each element of an accumulator or a row vector
template <class X, class Op>
inline void rowwise(X& x, Op op) {
  if constexpr (tile<X>::value)
    each(x, op);
  else
    for (int i = 0; i < int(sizeof(x.x) / sizeof(x.x[0])); ++i) x.x[i] = op(x.x[i], i, 0);
}
template <class X, class V>
inline void row_scale(X& x, const V& v) {
  rowwise(x, [&](float e, int i, int) { return e * at(v, i); });
}
template <class X, class V>
inline void row_div(X& x, const V& v) {
  rowwise(x, [&](float e, int i, int) { return e / at(v, i); });
}
template <class X, class V>
inline void row_exp(X& x, const V& m, float scale) {
  rowwise(x, [&](float e, int i, int) { return exp_scaled(e, at(m, i), scale); });
}
template <class F>
inline void mask_causal(F& s, long long r0, long long c0, long long period = 0) {
  each(s, [&](float e, int i, int j) { return c0 + j > r0 + (period > 0 ? i % period : i) ? -INFINITY : e; });
}
template <class F>
inline void mask_cols(F& s, long long n) {
  each(s, [&](float e, int, int j) { return j >= n ? -INFINITY : e; });
}
#endif
}  // namespace rows

#if !defined(__CUDACC__)
namespace mma {
template <int R>
using rowvec = rows::vec<R>;
using rows::mask_causal;
using rows::mask_cols;
using rows::row_div;
using rows::row_exp;
using rows::row_fill;
using rows::row_max;
using rows::row_scale;
using rows::row_sum;
template <class TA, class T, int R, int C, int IM, int IN, int IK>
inline void cvt(frag<TA, R, C, role::a, IM, IN, IK>& a, const frag<T, R, C, role::c, IM, IN, IK>& s) {
  for (int n = 0; n < R * C; ++n) a.x[n] = detail::convert<TA>(s.x[n]);
}
}  // namespace mma

namespace wgmma {
template <int R>
using rowvec = rows::vec<R>;
using rows::mask_causal;
using rows::mask_cols;
using rows::row_div;
using rows::row_exp;
using rows::row_fill;
using rows::row_max;
using rows::row_scale;
using rows::row_sum;
template <class TA, class T, int M, int K>
inline void cvt(areg<TA, M, K>& a, const acc<T, M, K>& s) {
  for (int n = 0; n < M * K; ++n) a.x[n] = detail::convert<TA>(s.x[n]);
}
}  // namespace wgmma
#else
// ---- CUDA: a warp group's accumulator (the wgmma D layout of croktile_wgmma.h) ------------
namespace wgmma {
template <int R>
struct rowvec {
  static_assert(R == 64, "croktile::wgmma::rowvec: a warp group's accumulator has 64 rows");
  float x[2];   // rows 16w + lane / 4 and 8 further
};

namespace detail {
template <class X>
struct is_acc : std::false_type {};
template <class T, int M, int N>
struct is_acc<acc<T, M, N>> : std::true_type {};

template <class V>
__device__ __forceinline__ float at(const V& v, int slot) {
  if constexpr (std::is_arithmetic<V>::value)
    return static_cast<float>(v);
  else
    return v.x[slot];
}
// op(value, row slot, element number) for each element of an accumulator or a row vector
template <class X, class Op>
__device__ __forceinline__ void rowwise(X& x, Op op) {
  if constexpr (is_acc<X>::value) {
#pragma unroll
    for (int n = 0; n < X::count; ++n) x.set(n, convert<typename std::remove_reference<decltype(x.get(0))>::type>(
                                                    op(static_cast<float>(x.get(n)), n / 2 % 2, n)));
  } else {
#pragma unroll
    for (int r = 0; r < 2; ++r) x.x[r] = op(x.x[r], r, 0);
  }
}
// The reduction of each of the thread's two rows over the four lanes that hold it.
template <class X, class Op>
__device__ __forceinline__ void reduce(float (&v)[2], const X& x, Op op) {
#pragma unroll
  for (int n = 0; n < X::count; ++n) v[n / 2 % 2] = op(v[n / 2 % 2], static_cast<float>(x.get(n)));
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    v[r] = op(v[r], __shfl_xor_sync(0xffffffffu, v[r], 1));
    v[r] = op(v[r], __shfl_xor_sync(0xffffffffu, v[r], 2));
  }
}
}  // namespace detail

template <int R, class V>
__device__ __forceinline__ void row_fill(rowvec<R>& d, const V& v) {
  for (int r = 0; r < 2; ++r) d.x[r] = detail::at(v, r);
}
template <int R, class X>
__device__ __forceinline__ void row_max(rowvec<R>& d, const X& x) {
  if constexpr (detail::is_acc<X>::value) {
    float v[2] = {-INFINITY, -INFINITY};
    detail::reduce(v, x, [](float a, float b) { return fmaxf(a, b); });
    for (int r = 0; r < 2; ++r) d.x[r] = fmaxf(d.x[r], v[r]);
  } else {
    for (int r = 0; r < 2; ++r) d.x[r] = fmaxf(d.x[r], detail::at(x, r));
  }
}
template <int R, class X>
__device__ __forceinline__ void row_sum(rowvec<R>& d, const X& x) {
  if constexpr (detail::is_acc<X>::value) {
    float v[2] = {0.0f, 0.0f};
    detail::reduce(v, x, [](float a, float b) { return a + b; });
    for (int r = 0; r < 2; ++r) d.x[r] += v[r];
  } else {
    for (int r = 0; r < 2; ++r) d.x[r] += detail::at(x, r);
  }
}
template <class X, class V>
__device__ __forceinline__ void row_scale(X& x, const V& v) {
  detail::rowwise(x, [&](float e, int r, int) { return e * detail::at(v, r); });
}
template <class X, class V>
__device__ __forceinline__ void row_div(X& x, const V& v) {
  float inv[2] = {1.0f / detail::at(v, 0), 1.0f / detail::at(v, 1)};
  detail::rowwise(x, [&](float e, int r, int) { return e * inv[r]; });
}
template <class X, class V>
__device__ __forceinline__ void row_exp(X& x, const V& m, float scale) {
  // exp2(x * s - m * s): one fma and one ex2 per element
  const float s = scale * rows::log2e;
  float ms[2];
  for (int r = 0; r < 2; ++r) ms[r] = detail::at(m, r) == -INFINITY ? 0.0f : detail::at(m, r) * s;
  detail::rowwise(x, [&](float e, int r, int) { return exp2f(fmaf(e, s, -ms[r])); });
}
template <class T, int M, int N>
__device__ __forceinline__ void mask_causal(acc<T, M, N>& s, long long r0, long long c0, long long period = 0) {
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) {
    int i, j;
    acc<T, M, N>::where(n, i, j);
    if (c0 + j > r0 + (period > 0 ? i % period : i)) s.set(n, detail::convert<T>(-INFINITY));
  }
}
template <class T, int M, int N>
__device__ __forceinline__ void mask_cols(acc<T, M, N>& s, long long cols) {
  if (cols >= N) return;   // a whole tile: nothing to mask
#pragma unroll
  for (int n = 0; n < acc<T, M, N>::count; ++n) {
    int i, j;
    acc<T, M, N>::where(n, i, j);
    if (j >= cols) s.set(n, detail::convert<T>(-INFINITY));
  }
}
// The accumulator's registers are the A operand's of an m64nNk16 in order: element pairs
// (2p, 2p + 1) are register p.
template <class TA, class T, int M, int K>
__device__ __forceinline__ void cvt(areg<TA, M, K>& a, const acc<T, M, K>& s) {
  ptx::fence_operands(a);
#pragma unroll
  for (int p = 0; p < K / 4; ++p) {
    const float lo = static_cast<float>(s.get(2 * p)), hi = static_cast<float>(s.get(2 * p + 1));
    if constexpr (std::is_same<TA, f16>::value)   // one instruction for the pair (the high half first)
      asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(a.w[p]) : "f"(hi), "f"(lo));
    else
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(a.w[p]) : "f"(hi), "f"(lo));
  }
}
}  // namespace wgmma
#endif
}  // namespace croktile
