// croktile_mma_warp_portable.h - croktile::mma tiles on the portable targets: one call
// holds the whole tile, row-major. Included by croktile_mma_warp.h.
#pragma once

namespace croktile {
namespace mma {

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK>
struct frag {
  static_assert(detail::shape_ok<T, R, ROWS, COLS, IM, IN, IK>(),
                "croktile::mma::frag: the tile is not a whole number of the instruction's shape");
  static constexpr int rows = ROWS, cols = COLS;
  T x[ROWS * COLS];
  T& at(int i, int j) { return x[i * COLS + j]; }
  const T& at(int i, int j) const { return x[i * COLS + j]; }
};

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class V>
inline void fill(frag<T, ROWS, COLS, R, IM, IN, IK>& f, V value) {
  const T v = detail::operand_value<T, R>(value);
  for (T& x : f.x) x = v;
}

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void load(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0, long long s1) {
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) f.at(i, j) = detail::operand_value<T, R>(p[i * s0 + j * s1]);
}

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void store(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0, long long s1) {
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) p[i * s0 + j * s1] = detail::convert<E>(f.at(i, j));
}

// A partial tile (docs/language/spans.md): only its first `in_rows` x `in_cols` elements lie
// in the data; load reads zeros past them, store writes none there.
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void load_edge(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0, long long s1,
                      long long in_rows, long long in_cols) {
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j)
      f.at(i, j) = i < in_rows && j < in_cols ? detail::operand_value<T, R>(p[i * s0 + j * s1])
                                              : detail::convert<T>(0);
}
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void store_edge(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0, long long s1,
                       long long in_rows, long long in_cols) {
  for (int i = 0; i < ROWS && i < in_rows; ++i)
    for (int j = 0; j < COLS && j < in_cols; ++j) p[i * s0 + j * s1] = detail::convert<E>(f.at(i, j));
}

// Swizzled shared buffers are plain on the portable targets (croktile_swizzle.h).
template <int SW, class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void load_swizzled(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0, long long s1) {
  (void)swizzle::offset<SW>(0);
  load(f, p, s0, s1);
}
template <int SW, class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
inline void store_swizzled(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0, long long s1) {
  (void)swizzle::offset<SW>(0);
  store(f, p, s0, s1);
}

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class Op>
inline void for_each(frag<T, ROWS, COLS, R, IM, IN, IK>& f, Op op) {
  for (T& x : f.x) op(x);
}

namespace detail {
// c(i0.., j0..) += one instruction's product; `ak(i, kk)` and `bk(kk, j)` give the k-slice.
template <class TC, int IM, int IN, int IK, class CF, class AKFn, class BKFn>
inline void instruction(CF& c, int i0, int j0, AKFn ak, BKFn bk) {
  using S = sum_t<TC>;
  for (int i = 0; i < IM; ++i)
    for (int j = 0; j < IN; ++j) {
      S s = 0;
      for (int kk = 0; kk < IK; ++kk) s += ak(i0 + i, kk) * bk(kk, j0 + j);
      TC& acc = c.at(i0 + i, j0 + j);
      if constexpr (std::is_integral<TC>::value)
        acc = static_cast<TC>(static_cast<std::uint32_t>(static_cast<long long>(acc) + s));
      else
        acc = convert<TC>(convert<S>(acc) + s);
    }
}
}  // namespace detail

// c += a * b.
template <class TC, class TA, class TB, int M, int N, int K, int IM, int IN, int IK>
inline void mma(frag<TC, M, N, role::c, IM, IN, IK>& c, const frag<TA, M, K, role::a, IM, IN, IK>& a,
                const frag<TB, K, N, role::b, IM, IN, IK>& b) {
  static_assert(form<IM, IN, IK, TA, TB, TC, false>::exists,
                "croktile::mma::mma: no mma.sync instruction of this shape and these element types");
  static_assert(K % IK == 0, "croktile::mma::mma: K is not a multiple of the instruction's k");
  using S = detail::sum_t<TC>;
  for (int k0 = 0; k0 < K; k0 += IK)
    for (int i0 = 0; i0 < M; i0 += IM)
      for (int j0 = 0; j0 < N; j0 += IN)
        detail::instruction<TC, IM, IN, IK>(
            c, i0, j0, [&](int i, int kk) { return detail::convert<S>(a.at(i, k0 + kk)); },
            [&](int kk, int j) { return detail::convert<S>(b.at(k0 + kk, j)); });
}

// c += decompress(a, meta) * b: a holds the kept half of each group of 4 along k, meta
// (one or two u32 words per row and instruction) which of the 4 each one is.
template <class TC, class TA, class TB, int M, int N, int K, int KH, int MW, int IM, int IN, int IK>
inline void mma_sp(frag<TC, M, N, role::c, IM, IN, IK>& c, const frag<TA, M, KH, role::a, IM, IN, IK>& a,
                   const frag<TB, K, N, role::b, IM, IN, IK>& b,
                   const frag<std::uint32_t, M, MW, role::e, IM, IN, IK>& meta) {
  static_assert(form<IM, IN, IK, TA, TB, TC, true>::exists,
                "croktile::mma::mma_sp: no sparse mma instruction of this shape and these element types");
  static_assert(2 * KH == K && K % IK == 0, "croktile::mma::mma_sp: a must hold K/2 columns of b's K rows");
  constexpr int W = detail::meta_words<IK>();
  static_assert(MW == K / IK * W, "croktile::mma::mma_sp: the metadata tile has the wrong number of words");
  using S = detail::sum_t<TC>;
  for (int ki = 0; ki < K / IK; ++ki) {
    // The dense k-slice of a: zero where the metadata keeps nothing.
    for (int i0 = 0; i0 < M; i0 += IM)
      for (int j0 = 0; j0 < N; j0 += IN)
        detail::instruction<TC, IM, IN, IK>(
            c, i0, j0,
            [&](int i, int kk) {
              const std::uint32_t* words = &meta.at(i, ki * W);
              const int grp = kk / 4;
              S v = 0;
              for (int j = 0; j < 2; ++j)
                if (detail::meta_index(words, grp, j) == kk)
                  v += detail::convert<S>(a.at(i, ki * IK / 2 + 2 * grp + j));
              return v;
            },
            [&](int kk, int j) { return detail::convert<S>(b.at(ki * IK + kk, j)); });
  }
}

}  // namespace mma
}  // namespace croktile
