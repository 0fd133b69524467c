// croktile_mma_warp_cuda.h - croktile::mma tiles in tensor-core registers: each lane
// holds its part of every instruction's operand in the PTX ISA's mma fragment layout, so
// mma() is a sequence of mma.sync instructions with no data movement between lanes.
// All 32 lanes of the warp call every function, with the same arguments. Included by
// croktile_mma_warp.h.
//
// The layouts (g = lane / 4, t = lane % 4; a lane's "register" is 4 bytes, 8 for f64):
//  a: blocks of IM rows by W columns, W = 4 elements per register (min. IK); the lane holds
//     rows g and g + 8 (IM = 16), columns t*E .. t*E+E-1 (E: elements per register);
//  b: blocks of W rows (k) by 8 columns; the lane holds column g, rows t*E ..;
//  c: blocks of IM x 8; the lane holds rows g (and g + 8), columns 2t, 2t+1;
//  e: one metadata register per IM rows and instruction.
#pragma once

#include <cstring>

namespace croktile {
namespace mma {
namespace detail {

template <class T, role R, int ROWS, int COLS, int IM, int IN, int IK>
struct lanes {
  static constexpr int elem_per_reg = sizeof(T) >= 4 ? 1 : 4 / int(sizeof(T));
  static constexpr int block_w = 4 * elem_per_reg < IK ? 4 * elem_per_reg : IK;  // k per block
  static constexpr int row_regs = IM / 8;                                          // g, g + 8
  static constexpr int k_blocks = (R == role::a ? COLS : ROWS) / block_w;
  static constexpr int count =
      R == role::a   ? ROWS / IM * k_blocks * row_regs * elem_per_reg
      : R == role::b ? COLS / 8 * k_blocks * elem_per_reg
      : R == role::c ? ROWS / IM * (COLS / 8) * row_regs * 2
                     : ROWS / IM * (COLS / meta_words<IK>());
  // The logical (row, col) of element n of lane (g, t); false where it is padding.
  __device__ static bool where(int n, int g, int t, int& row, int& col) {
    if constexpr (R == role::a) {
      const int e = n % elem_per_reg, r = n / elem_per_reg % row_regs;
      const int kb = n / (elem_per_reg * row_regs) % k_blocks, mb = n / (elem_per_reg * row_regs * k_blocks);
      const int kk = t * elem_per_reg + e;
      row = mb * IM + g + 8 * r;
      col = kb * block_w + kk;
      return kk < block_w;
    } else if constexpr (R == role::b) {
      const int e = n % elem_per_reg, kb = n / elem_per_reg % k_blocks, nb = n / (elem_per_reg * k_blocks);
      const int kk = t * elem_per_reg + e;
      row = kb * block_w + kk;
      col = nb * 8 + g;
      return kk < block_w;
    } else {
      const int c = n % 2, r = n / 2 % row_regs, nb = n / (2 * row_regs) % (COLS / 8);
      const int mb = n / (2 * row_regs * (COLS / 8));
      row = mb * IM + g + 8 * r;
      col = nb * 8 + 2 * t + c;
      return true;
    }
  }
};

// Registers are 4-byte words (8-byte for f64) holding the lane's elements in order.
template <class T>
using word_t = typename std::conditional<sizeof(T) == 8, T, std::uint32_t>::type;

__device__ __forceinline__ int lane_id() { return threadIdx.x % 32; }

// __isShared through PTX: nvcc's intrinsic breaks on pointers to class types.
__device__ __forceinline__ bool in_shared(const void* p) {
  unsigned r;
  asm("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "l"(p));
  return r != 0;
}

// Where element q of a SW-byte swizzled shared buffer (croktile_swizzle.h; the buffer
// aligned to 8 of its rows) really sits; q itself where SW is 0.
template <int SW, class E>
__device__ __forceinline__ E* swizzled(E* q) {
  if constexpr (SW == 0) {
    return q;
  } else {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(q));
    return reinterpret_cast<E*>(reinterpret_cast<char*>(const_cast<typename std::remove_const<E>::type*>(q)) +
                                (int(swizzle::offset<SW>(a)) - int(a)));
  }
}

}  // namespace detail

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK>
struct frag {
  static_assert(detail::shape_ok<T, R, ROWS, COLS, IM, IN, IK>(),
                "croktile::mma::frag: the tile is not a whole number of the instruction's shape");
  using layout = detail::lanes<T, R, ROWS, COLS, IM, IN, IK>;
  using word = detail::word_t<T>;
  static constexpr int rows = ROWS, cols = COLS, count = layout::count;
  static constexpr int words = (count * int(sizeof(T)) + int(sizeof(word)) - 1) / int(sizeof(word));
  word w[words];
  __device__ __forceinline__ T get(int n) const {
    T v;
    memcpy(&v, reinterpret_cast<const char*>(w) + n * sizeof(T), sizeof(T));
    return v;
  }
  __device__ __forceinline__ void set(int n, const T& v) {
    memcpy(reinterpret_cast<char*>(w) + n * sizeof(T), &v, sizeof(T));
  }
};

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class V>
__device__ __forceinline__ void fill(frag<T, ROWS, COLS, R, IM, IN, IK>& f, V value) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
  const T v = detail::operand_value<T, R>(value);
  const int g = detail::lane_id() / 4, t = detail::lane_id() % 4;
#pragma unroll
  for (int n = 0; n < F::count; ++n) {
    int i, j;
    f.set(n, F::layout::where(n, g, t, i, j) ? v : detail::convert<T>(0));
  }
}

namespace detail {

// ldmatrix: each register of a and b is an 8 x 4-byte piece of the tile; x4 loads four.
// V(x, y), the piece as its lanes see it (lane (g, t) holds V(g, t*E ..)), is row-major in
// memory for the plain form and column-major (16-bit elements only) for .trans.
template <int N>
__device__ __forceinline__ void ldmatrix(std::uint32_t* r, const void* row_address, bool trans) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  if constexpr (N == 4) {
    if (trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  } else if constexpr (N == 2) {
    if (trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                   : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  } else {
    if (trans)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
  }
}

// Whether ldmatrix can load f from p: shared memory, 16-byte aligned rows of 16 bytes
// along the direction a lane's register runs (or across it, .trans, for 16-bit types).
template <class F, class T, role R, class E>
__device__ __forceinline__ int ldmatrix_mode(const E* p, long long s0, long long s1) {
  if constexpr (!std::is_same<T, E>::value || sizeof(T) > 4 || (R != role::a && R != role::b) ||
                F::layout::block_w != 4 * F::layout::elem_per_reg)
    return 0;
  else {
    if (!in_shared(p) || reinterpret_cast<unsigned long long>(p) % 16) return 0;
    const long long along = R == role::a ? s1 : s0, across = R == role::a ? s0 : s1;
    if (along == 1 && (across * sizeof(T)) % 16 == 0) return 1;
    if (sizeof(T) == 2 && across == 1 && (along * sizeof(T)) % 16 == 0) return 2;
    return 0;
  }
}

template <class F, role R, int N, int SW, class E>
__device__ __forceinline__ void ldmatrix_words(F& f, int w0, const E* p, long long s0, long long s1, bool trans) {
  // The register word w0 + q is the piece whose element (0, 0) sits at n = (w0 + q) * E.
  const int lane = lane_id(), q = lane / 8 % N, x = lane % 8;
  int i, j;
  F::layout::where((w0 + q) * F::layout::elem_per_reg, 0, 0, i, j);
  // Plain: lane x points at the piece's row x; trans: at its column x.
  if (R == role::a) (trans ? j : i) += x;
  else (trans ? i : j) += x;
  ldmatrix<N>(reinterpret_cast<std::uint32_t*>(f.w) + w0, swizzled<SW>(p + i * s0 + j * s1), trans);
}

// Stores two adjacent elements (4 or 8 bytes, aligned to that) with one instruction.
template <class E>
__device__ __forceinline__ void store_pair(E* q, const E* v) {
  if constexpr (sizeof(E) == 2) {
    std::uint32_t w;
    memcpy(&w, v, 4);
    asm volatile("st.b32 [%0], %1;" ::"l"(q), "r"(w) : "memory");
  } else {
    std::uint32_t w[2];
    memcpy(w, v, 8);
    asm volatile("st.v2.b32 [%0], {%1, %2};" ::"l"(q), "r"(w[0]), "r"(w[1]) : "memory");
  }
}

}  // namespace detail

// Element (i, j) of the tile is p[i * s0 + j * s1] of a shared buffer stored SW-byte
// swizzled (rows of SW bytes, aligned to 8 rows; croktile_swizzle.h), converted to T.
template <int SW, class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void load_swizzled(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0,
                                              long long s1) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
  const int g = detail::lane_id() / 4, t = detail::lane_id() % 4;
  if constexpr (R == role::e) {
    // The metadata registers as the reference's u32 arrays feed them: k16, k32 (16-bit
    // data): rows g and g + 8 in the low and high halves (k32: lane t0 the words' low
    // halves, t1 the high ones); k64: the four words of rows g, g + 8 in lanes t0..t3.
    constexpr int W = detail::meta_words<IK>();
#pragma unroll
    for (int n = 0; n < F::count; ++n) {
      const int per = COLS / W, mb = n / per, ki = n % per;
      const E* r0 = p + (mb * IM + g) * s0 + ki * W * s1;
      const E* r1 = r0 + 8 * s0;
      std::uint32_t v;
      if constexpr (W == 2) {
        v = std::uint32_t((t & 1 ? r1 : r0)[(t >> 1) * s1]);
      } else if constexpr (IK == 16) {
        v = (std::uint32_t(*r1) << 16) | (std::uint32_t(*r0) & 0xffffu);
      } else {
        const std::uint32_t a0 = std::uint32_t(*r0), a1 = std::uint32_t(*r1);
        v = t == 0 ? (a1 << 16) | (a0 & 0xffffu) : t == 1 ? (a1 & 0xffff0000u) | (a0 >> 16) : 0u;
      }
      f.set(n, v);
    }
  } else {
    const int mode = detail::ldmatrix_mode<F, T, R>(p, s0, s1);
    if (mode) {
      constexpr int words = F::words;
#pragma unroll
      for (int w0 = 0; w0 + 4 <= words; w0 += 4) detail::ldmatrix_words<F, R, 4, SW>(f, w0, p, s0, s1, mode == 2);
      if constexpr (words % 4 >= 2) detail::ldmatrix_words<F, R, 2, SW>(f, words / 4 * 4, p, s0, s1, mode == 2);
      if constexpr (words % 2) detail::ldmatrix_words<F, R, 1, SW>(f, words - 1, p, s0, s1, mode == 2);
      if constexpr (std::is_same<T, float>::value) {
#pragma unroll
        for (int n = 0; n < F::count; ++n) f.set(n, detail::round_tf32(f.get(n)));
      }
      return;
    }
#pragma unroll
    for (int n = 0; n < F::count; ++n) {
      int i, j;
      const bool real = F::layout::where(n, g, t, i, j);
      f.set(n, real ? detail::operand_value<T, R>(*detail::swizzled<SW>(p + i * s0 + j * s1)) : detail::convert<T>(0));
    }
  }
}

// Element (i, j) of the tile is p[i * s0 + j * s1]; converted to T (tf32 for float a, b).
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void load(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0, long long s1) {
  load_swizzled<0>(f, p, s0, s1);
}

// p[i * s0 + j * s1] = element (i, j), converted to E, into a SW-byte swizzled shared
// buffer (SW 0: any memory).
template <int SW, class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void store_swizzled(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0,
                                               long long s1) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
  static_assert(R != role::e, "croktile::mma::store: metadata tiles are not stored");
  const int g = detail::lane_id() / 4, t = detail::lane_id() % 4;
  if constexpr (R == role::c && (sizeof(E) == 2 || sizeof(E) == 4)) {
    // A lane's accumulator elements come in pairs of adjacent columns: one 4- or 8-byte
    // store each where the row is contiguous and the pair aligned (through PTX: the
    // compiler splits such a store again when both branches store the same values).
    if (s1 == 1) {
#pragma unroll
      for (int n = 0; n < F::count; n += 2) {
        int i, j;
        F::layout::where(n, g, t, i, j);
        E* q = detail::swizzled<SW>(p + i * s0 + j);
        const E v[2] = {detail::convert<E>(f.get(n)), detail::convert<E>(f.get(n + 1))};
        if (reinterpret_cast<unsigned long long>(q) % (2 * sizeof(E)) == 0) {
          detail::store_pair(q, v);
        } else {
          q[0] = v[0];
          q[1] = v[1];
        }
      }
      return;
    }
  }
#pragma unroll
  for (int n = 0; n < F::count; ++n) {
    int i, j;
    if (F::layout::where(n, g, t, i, j)) *detail::swizzled<SW>(p + i * s0 + j * s1) = detail::convert<E>(f.get(n));
  }
}

template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void store(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0, long long s1) {
  store_swizzled<0>(f, p, s0, s1);
}

// A partial tile (docs/language/spans.md): only its first `in_rows` x `in_cols` elements lie
// in the data; load reads zeros past them, store writes none there (element by element).
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void load_edge(frag<T, ROWS, COLS, R, IM, IN, IK>& f, const E* p, long long s0,
                                          long long s1, long long in_rows, long long in_cols) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
  static_assert(R != role::e, "croktile::mma::load_edge: metadata tiles are whole");
  if (in_rows >= ROWS && in_cols >= COLS) return load(f, p, s0, s1);   // a whole tile
  const int g = detail::lane_id() / 4, t = detail::lane_id() % 4;
#pragma unroll
  for (int n = 0; n < F::count; ++n) {
    int i, j;
    const bool real = F::layout::where(n, g, t, i, j) && i < in_rows && j < in_cols;
    f.set(n, real ? detail::operand_value<T, R>(p[i * s0 + j * s1]) : detail::convert<T>(0));
  }
}
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class E>
__device__ __forceinline__ void store_edge(const frag<T, ROWS, COLS, R, IM, IN, IK>& f, E* p, long long s0,
                                           long long s1, long long in_rows, long long in_cols) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
  if (in_rows >= ROWS && in_cols >= COLS) return store(f, p, s0, s1);   // a whole tile
  const int g = detail::lane_id() / 4, t = detail::lane_id() % 4;
#pragma unroll
  for (int n = 0; n < F::count; ++n) {
    int i, j;
    if (F::layout::where(n, g, t, i, j) && i < in_rows && j < in_cols) p[i * s0 + j * s1] = detail::convert<E>(f.get(n));
  }
}

// op(T&) on every element this lane holds (padding too for m8n8k4 operands).
template <class T, int ROWS, int COLS, role R, int IM, int IN, int IK, class Op>
__device__ __forceinline__ void for_each(frag<T, ROWS, COLS, R, IM, IN, IK>& f, Op op) {
  using F = frag<T, ROWS, COLS, R, IM, IN, IK>;
#pragma unroll
  for (int n = 0; n < F::count; ++n) {
    T v = f.get(n);
    op(v);
    f.set(n, v);
  }
}

// c += a * b: one mma.sync per IM x IN x IK piece.
template <class TC, class TA, class TB, int M, int N, int K, int IM, int IN, int IK>
__device__ __forceinline__ void mma(frag<TC, M, N, role::c, IM, IN, IK>& c,
                                    const frag<TA, M, K, role::a, IM, IN, IK>& a,
                                    const frag<TB, K, N, role::b, IM, IN, IK>& b) {
  using I = form<IM, IN, IK, TA, TB, TC, false>;
  static_assert(I::exists, "croktile::mma::mma: no mma.sync instruction of this shape and these element types");
  static_assert(K % IK == 0, "croktile::mma::mma: K is not a multiple of the instruction's k");
  using LA = typename frag<TA, M, K, role::a, IM, IN, IK>::layout;
  using LB = typename frag<TB, K, N, role::b, IM, IN, IK>::layout;
  constexpr int a_regs = IK / LA::block_w * LA::row_regs, b_regs = IK / LB::block_w;
  constexpr int c_regs = IM / 8 * 2 * int(sizeof(TC)) / int(sizeof(detail::word_t<TC>));
#pragma unroll
  for (int ki = 0; ki < K / IK; ++ki)
#pragma unroll
    for (int mi = 0; mi < M / IM; ++mi)
#pragma unroll
      for (int ni = 0; ni < N / IN; ++ni)
        I::run(c.w + (mi * (N / IN) + ni) * c_regs, a.w + (mi * (K / IK) + ki) * a_regs,
               b.w + (ni * (K / IK) + ki) * b_regs, 0u);
}

// c += decompress(a, meta) * b (2:4 sparse a: M x K/2 kept values, meta from the
// reference's u32 metadata arrays).
template <class TC, class TA, class TB, int M, int N, int K, int KH, int MW, int IM, int IN, int IK>
__device__ __forceinline__ void mma_sp(frag<TC, M, N, role::c, IM, IN, IK>& c,
                                       const frag<TA, M, KH, role::a, IM, IN, IK>& a,
                                       const frag<TB, K, N, role::b, IM, IN, IK>& b,
                                       const frag<std::uint32_t, M, MW, role::e, IM, IN, IK>& meta) {
  using I = form<IM, IN, IK, TA, TB, TC, true>;
  static_assert(I::exists, "croktile::mma::mma_sp: no sparse mma instruction of this shape and these element types");
  static_assert(2 * KH == K && K % IK == 0, "croktile::mma::mma_sp: a must hold K/2 columns of b's K rows");
  static_assert(MW == K / IK * detail::meta_words<IK>(),
                "croktile::mma::mma_sp: the metadata tile has the wrong number of words");
  using LA = typename frag<TA, M, KH, role::a, IM, IN, IK>::layout;
  using LB = typename frag<TB, K, N, role::b, IM, IN, IK>::layout;
  constexpr int a_regs = IK / 2 / LA::block_w * LA::row_regs, b_regs = IK / LB::block_w;
  constexpr int c_regs = IM / 8 * 2;
#pragma unroll
  for (int ki = 0; ki < K / IK; ++ki)
#pragma unroll
    for (int mi = 0; mi < M / IM; ++mi)
#pragma unroll
      for (int ni = 0; ni < N / IN; ++ni)
        I::run(c.w + (mi * (N / IN) + ni) * c_regs, a.w + (mi * (K / IK) + ki) * a_regs,
               b.w + (ni * (K / IK) + ki) * b_regs, meta.get(mi * (K / IK) + ki));
}

}  // namespace mma
}  // namespace croktile
