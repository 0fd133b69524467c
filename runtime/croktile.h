// croktile.h - host runtime shared by Croktile host programs and generated code.
//
// Header-only, standard headers only, C++17. It must compile cleanly with
// g++/clang++ (-Wall -Wextra -Wpedantic) and as host code under nvcc, because
// generated CUDA/Cute sources include it next to user host code.
#pragma once

// Every generated translation unit includes this header before the user's host code,
// so the headers below are visible to host programs without an #include of their own
// (the spec's complete programs rely on it): the algorithms (std::fill_n, std::copy),
// the C library (abort, exit, printf, size_t), the streams (std::cout, std::cerr,
// std::endl), strings and the integer types.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <memory>
#if !defined(CROKTILE_NO_RANDOM)   // croktilec defines it for programs that use no random data
#include <random>
#endif
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// f16/bf16 and spanned_view element access may be used from device code when
// the header is compiled by nvcc; elsewhere the annotation must vanish.
#if defined(__CUDACC__)
#define CROKTILE_HOST_DEVICE __host__ __device__
#include <cuda_fp16.h>   // __half: the reference's host code mixes it with f16 (see f16)
#include <cuda_bf16.h>   // __nv_bfloat16, likewise with bf16
#include <cuda_fp8.h>    // __nv_fp8_e4m3 / e5m2: device buffers of the reference's host code
#else
#define CROKTILE_HOST_DEVICE
#endif

#include "croktile_memory.h"      // new_zeroed: owning data
#include "croktile_minifloat.h"   // the narrow element types; also float_bits/bits_float
#include "croktile_half.h"        // f16, bf16

namespace croktile {

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

// Separate type so callers can tell Croktile shape/usage failures apart, while
// `catch (const std::runtime_error&)` still works.
class runtime_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Element types (names match the DSL's fundamental types)
// ---------------------------------------------------------------------------

using s8 = std::int8_t;
using s16 = std::int16_t;
using s32 = std::int32_t;
using s64 = std::int64_t;
using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using f32 = float;
using f64 = double;

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559,
              "croktile needs IEEE-754 binary32 float");

namespace detail {

// The walk of every host-side box copy: for each position of the first `outer`
// dimensions of the box `ext` at `src_off` / `dst_off` (row-major order), calls
// f(s, t) with the element offsets of the box's corner there in the row-major
// source and destination arrays; the dimensions from `outer` on are f's to copy.
// An empty box calls nothing.
template <std::size_t Rank, typename F>
void for_each_box_slab(const long long (&src_shape)[Rank], const long long (&src_off)[Rank],
                       const long long (&dst_shape)[Rank], const long long (&dst_off)[Rank],
                       const long long (&ext)[Rank], std::size_t outer, F&& f) {
  long long total = 1;
  for (std::size_t d = 0; d < Rank; ++d) total *= ext[d];
  if (total <= 0) return;
  long long src_stride[Rank], dst_stride[Rank];
  src_stride[Rank - 1] = dst_stride[Rank - 1] = 1;
  for (std::size_t d = Rank - 1; d > 0; --d) {
    src_stride[d - 1] = src_stride[d] * src_shape[d];
    dst_stride[d - 1] = dst_stride[d] * dst_shape[d];
  }
  long long idx[Rank] = {};   // positions in the first `outer` dimensions; 0 beyond
  for (;;) {
    long long s = 0, t = 0;
    for (std::size_t d = 0; d < Rank; ++d) {
      s += (src_off[d] + idx[d]) * src_stride[d];
      t += (dst_off[d] + idx[d]) * dst_stride[d];
    }
    f(s, t);
    std::size_t d = outer;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace detail

}  // namespace croktile

// The reference compiler's host code uses CUDA's half type beside choreo::f16
// (`__half ref = 0.0f; ... __half2float(res[i][j])`). With nvcc, __half2float also takes
// an f16 (a template, so that a float argument still means CUDA's own overload); on the
// other targets, where CUDA's header is absent, __half is f16 and the two conversion
// functions are defined here (CROKTILE_NO_HALF_ALIAS leaves them out).
#if defined(__CUDACC__)
template <typename T, typename std::enable_if<std::is_same<T, croktile::f16>::value, int>::type = 0>
CROKTILE_HOST_DEVICE inline float __half2float(T h) { return static_cast<float>(h); }
#elif !defined(__CUDA_FP16_H__) && !defined(CROKTILE_NO_HALF_ALIAS)
using __half = croktile::f16;
using __nv_bfloat16 = croktile::bf16;
inline float __half2float(croktile::f16 h) { return static_cast<float>(h); }
inline croktile::f16 __float2half(float f) { return croktile::f16(f); }
inline float __bfloat162float(croktile::bf16 h) { return static_cast<float>(h); }
inline croktile::bf16 __float2bfloat16(float f) { return croktile::bf16(f); }
#endif

namespace croktile {

// ---------------------------------------------------------------------------
// Host helpers of the reference compiler's programs (choreo::choreo_assert, fill_random)
// ---------------------------------------------------------------------------

// Prints `file:line: choreo assertion abort: msg` and aborts when `cond` is false; the
// place is the caller's where the compiler has __builtin_FILE (gcc, clang, nvcc).
#if defined(__GNUC__) || defined(__clang__)
#define CROKTILE_CALLER_FILE __builtin_FILE()
#define CROKTILE_CALLER_LINE __builtin_LINE()
#else
#define CROKTILE_CALLER_FILE __FILE__
#define CROKTILE_CALLER_LINE __LINE__
#endif
inline void choreo_assert(bool cond, const char* msg, const char* file = CROKTILE_CALLER_FILE,
                          int line = CROKTILE_CALLER_LINE) {
  if (!cond) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s:%d: choreo assertion abort: %s\n", file, line, msg);
    std::abort();
  }
}

// Checks a sample of a matrix product's elements (at most max_i x max_j of them, spread
// evenly) against a float reference: |got - ref| <= base_tol + rel_tol * |ref|. `lhs` is
// M x K; `rhs` is K x N (row_col) or N x K (row_row), as the mma forms of that name read it.
template <bool RhsTransposed, typename A, typename B, typename C>
inline void verify_matmul_subset(const A& lhs, const B& rhs, const C& res, float base_tol, float rel_tol,
                                 std::size_t max_i, std::size_t max_j) {
  const std::size_t m = res.shape()[0], n = res.shape()[1], k = lhs.shape()[1];
  const std::size_t di = m / max_i ? m / max_i : 1, dj = n / max_j ? n / max_j : 1;
  for (std::size_t i = 0; i < m; i += di)
    for (std::size_t j = 0; j < n; j += dj) {
      float ref = 0.0f;
      for (std::size_t x = 0; x < k; ++x)
        ref += static_cast<float>(lhs[i][x]) * static_cast<float>(RhsTransposed ? rhs[j][x] : rhs[x][j]);
      const float got = static_cast<float>(res[i][j]);
      choreo_assert(std::fabs(got - ref) <= base_tol + rel_tol * std::fabs(ref), "values are not equal.");
    }
}
template <typename A, typename B, typename C>
inline void verify_matmul_row_col_subset(const A& lhs, const B& rhs, const C& res, float base_tol, float rel_tol,
                                         std::size_t max_i = 8, std::size_t max_j = 8) {
  verify_matmul_subset<false>(lhs, rhs, res, base_tol, rel_tol, max_i, max_j);
}
template <typename A, typename B, typename C>
inline void verify_matmul_row_row_subset(const A& lhs, const B& rhs, const C& res, float base_tol, float rel_tol,
                                         std::size_t max_i = 8, std::size_t max_j = 8) {
  verify_matmul_subset<true>(lhs, rhs, res, base_tol, rel_tol, max_i, max_j);
}

namespace detail {

// How many blocks (work-groups) share one instance of a kernel's outer level whose
// threads' nest of `trips` independent iterations the fast instance runs one per block
// (croktile_driver/toolchains/grid_split.py): all of them where the grid has fewer than
// 64 blocks per compute unit (a sweep found each step towards one iteration per block
// faster), else 1, the grid as written; 1 too where cuda's gridDim.x could not hold it.
inline long long split_for(long long grid, long long trips, long long units) {
  if (units <= 0 || grid <= 0 || trips <= 1 || grid >= 64 * units) return 1;
  return grid <= 2147483647LL / trips ? trips : 1;
}

// Integers of any width draw integers; the float types draw floats.
template <typename T>
struct is_int_like
    : std::integral_constant<bool, std::is_integral<T>::value || std::is_convertible<T, int>::value &&
                                                                      !std::is_convertible<T, float>::value> {};
template <int Bits, bool Signed>
struct is_int_like<small_int<Bits, Signed>> : std::true_type {};

#if !defined(CROKTILE_NO_RANDOM)
// One generator per process with a fixed seed: a program's random data is the same on
// every run and every target (CROKTILE_SEED=N picks another sequence).
inline std::mt19937_64& random_engine() {
  static std::mt19937_64 engine([] {
    const char* s = std::getenv("CROKTILE_SEED");
    return s ? std::strtoull(s, nullptr, 0) : 0x5eedc0deULL;
  }());
  return engine;
}

// Integers uniform in [lo, hi]; floats uniform in [lo, hi), rounded to T.
template <typename T, typename L, typename H>
void fill_random(T* p, std::size_t n, L lo, H hi) {
  auto& g = random_engine();
  if constexpr (is_int_like<T>::value) {
    std::uniform_int_distribution<long long> dist(static_cast<long long>(lo), static_cast<long long>(hi));
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(g));
  } else if constexpr (std::is_same<T, double>::value) {
    std::uniform_real_distribution<double> dist(static_cast<double>(lo), static_cast<double>(hi));
    for (std::size_t i = 0; i < n; ++i) p[i] = dist(g);
  } else {
    std::uniform_real_distribution<float> dist(static_cast<float>(lo), static_cast<float>(hi));
    for (std::size_t i = 0; i < n; ++i) p[i] = T(dist(g));
  }
}

#endif  // CROKTILE_NO_RANDOM

}  // namespace detail

// choreo::timing(f, opt): runs f `warmup` times, then `repeat` times, and returns the
// mean wall time of one of the timed runs in milliseconds. __co__ functions called with
// host data wait for their work, so the time includes the device's.
struct TimerOption {
  int warmup = 1;
  int repeat = 10;
};

template <typename F>
double timing(F&& f, const TimerOption& opt = TimerOption()) {
  for (int i = 0; i < opt.warmup; ++i) f();
  const int n = opt.repeat > 0 ? opt.repeat : 1;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
  return took.count() / n;
}

// ---------------------------------------------------------------------------
// Spanned data
// ---------------------------------------------------------------------------

template <typename T, std::size_t Rank>
class spanned_view;

namespace detail {

// std::array's accessors are host-only constexpr functions, which nvcc warns
// about in device code (without --expt-relaxed-constexpr); read the storage
// directly there. std::array<size_t, N> is a standard-layout wrapper of
// size_t[N], which the static_assert below pins down.
template <std::size_t Rank>
CROKTILE_HOST_DEVICE inline std::size_t extent(const std::array<std::size_t, Rank>& s,
                                               std::size_t d) {
#if defined(__CUDA_ARCH__)
  return reinterpret_cast<const std::size_t*>(&s)[d];
#else
  return s[d];
#endif
}
static_assert(sizeof(std::array<std::size_t, 3>) == 3 * sizeof(std::size_t) &&
                  std::is_standard_layout<std::array<std::size_t, 3>>::value,
              "unexpected std::array layout");

template <std::size_t Rank>
CROKTILE_HOST_DEVICE inline std::size_t product(const std::array<std::size_t, Rank>& s,
                                                std::size_t from = 0) {
  std::size_t n = 1;
  for (std::size_t d = from; d < Rank; ++d) n *= extent(s, d);
  return n;
}

// Shape with the leading dimension removed, i.e. the shape of `x[i]`.
template <std::size_t Rank>
CROKTILE_HOST_DEVICE inline std::array<std::size_t, Rank - 1> tail(
    const std::array<std::size_t, Rank>& s) {
  std::array<std::size_t, Rank - 1> t{};
#if defined(__CUDA_ARCH__)
  std::size_t* out = reinterpret_cast<std::size_t*>(&t);
#else
  std::size_t* out = t.data();
#endif
  for (std::size_t d = 1; d < Rank; ++d) out[d - 1] = extent(s, d);
  return t;
}

// Result of x[i]: an element reference at rank 1, a view of the sub-array otherwise.
template <typename T, std::size_t Rank>
using subscript_t =
    typename std::conditional<Rank == 1, T&, spanned_view<T, Rank - 1>>::type;

// Allocation size with overflow check: a wrapped-around size would silently
// allocate a tiny buffer that the caller then indexes out of bounds, and a byte
// count past 63 bits is std::bad_array_new_length from new[] (the generated
// code's size checks use the same limit).
template <typename T, std::size_t Rank>
inline std::size_t checked_count(const std::array<std::size_t, Rank>& s) {
  const std::size_t limit = std::size_t(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);
  std::size_t n = 1;
  for (std::size_t d : s) {
    if (d != 0 && n > limit / d)
      throw croktile::runtime_error("croktile: shape is too large: its size in bytes does not fit in 63 bits");
    n *= d;
  }
  return n;
}

template <typename D>
inline std::size_t to_dim(D d) {
  static_assert(std::is_integral<D>::value, "croktile: dimensions must be integers");
  if constexpr (std::is_signed<D>::value) {
    if (d < 0)
      throw croktile::runtime_error("croktile: negative dimension " + std::to_string(d));
  }
  return static_cast<std::size_t>(d);
}

}  // namespace detail

// Non-owning, row-major view: shape()[0] is the most significant (slowest)
// dimension, as for a C array a[shape[0]][shape[1]]... Constness is shallow
// (like std::span): a const view still grants write access to the elements;
// use spanned_view<const T, Rank> for read-only access.
template <typename T, std::size_t Rank>
class spanned_view {
  static_assert(Rank >= 1, "croktile: spanned_view needs rank >= 1");

public:
  using element_type = T;
  using value_type = typename std::remove_cv<T>::type;
  using shape_type = std::array<std::size_t, Rank>;

  CROKTILE_HOST_DEVICE constexpr spanned_view() : data_(nullptr), shape_{} {}
  CROKTILE_HOST_DEVICE spanned_view(T* data, const shape_type& shape)
      : data_(data), shape_(shape) {}

  // spanned_view<T> -> spanned_view<const T>, never the reverse.
  template <typename U,
            typename = typename std::enable_if<!std::is_same<U, T>::value &&
                                               std::is_convertible<U (*)[], T (*)[]>::value>::type>
  CROKTILE_HOST_DEVICE spanned_view(const spanned_view<U, Rank>& other)
      : data_(other.data_), shape_(other.shape_) {}

  CROKTILE_HOST_DEVICE static constexpr std::size_t rank() { return Rank; }
  CROKTILE_HOST_DEVICE const shape_type& shape() const { return shape_; }
  // shape(d) rather than shape()[d] in device code: std::array's operator[] is host-only there.
  CROKTILE_HOST_DEVICE std::size_t shape(std::size_t d) const { return detail::extent(shape_, d); }
  CROKTILE_HOST_DEVICE T* data() const { return data_; }
  CROKTILE_HOST_DEVICE std::size_t element_count() const { return detail::product(shape_); }
  CROKTILE_HOST_DEVICE std::size_t size() const { return element_count(); }
  CROKTILE_HOST_DEVICE bool empty() const { return element_count() == 0; }
  CROKTILE_HOST_DEVICE std::size_t bytes() const { return element_count() * sizeof(T); }

  // Every element set to T(v); random elements (integers in [lo, hi], floats in [lo, hi)).
  template <typename U>
  void fill(U v) const {
    std::fill(begin(), end(), static_cast<value_type>(v));
  }
#if !defined(CROKTILE_NO_RANDOM)
  template <typename L, typename H>
  void fill_random(L lo, H hi) const {
    detail::fill_random(data_, element_count(), lo, hi);
  }
#endif

  // Flat iteration over all elements in row-major order (std::fill, std::equal...).
  CROKTILE_HOST_DEVICE T* begin() const { return data_; }
  CROKTILE_HOST_DEVICE T* end() const { return data_ + element_count(); }

  // Unchecked, like C array indexing; x[i][j][k] walks down one rank per [].
  CROKTILE_HOST_DEVICE detail::subscript_t<T, Rank> operator[](std::size_t i) const {
    if constexpr (Rank == 1) {
      return data_[i];
    } else {
      return spanned_view<T, Rank - 1>(data_ + i * detail::product(shape_, 1),
                                       detail::tail(shape_));
    }
  }

private:
  template <typename, std::size_t>
  friend class spanned_view;

  T* data_;
  shape_type shape_;
};

// The tag of spanned_data's constructor that leaves the elements unset: generated
// code uses it for results the compiler shows are written in full before any read.
struct uninitialized_t {
  explicit uninitialized_t() = default;
};
inline constexpr uninitialized_t uninitialized{};

// Owning, zero-initialised, row-major buffer; the return type of __co__
// functions. Move-only: tensors can be large and an implicit deep copy in
// host code is almost always unintended. Use clone() for an explicit copy.
// A moved-from object is empty (null data, all-zero shape).
template <typename T, std::size_t Rank>
class spanned_data {
  static_assert(Rank >= 1, "croktile: spanned_data needs rank >= 1");
  static_assert(!std::is_const<T>::value, "croktile: spanned_data owns mutable storage");

public:
  using element_type = T;
  using value_type = T;
  using shape_type = std::array<std::size_t, Rank>;

  spanned_data() : shape_{} {}
  explicit spanned_data(const shape_type& shape)
      // zeroed, as new T[n]() value-initialises: zero for arithmetic types and f16/bf16
      : data_(detail::new_zeroed<T>(detail::checked_count<T>(shape))), shape_(shape) {}
  // elements left unset (default-initialised): the caller writes every one
  spanned_data(uninitialized_t, const shape_type& shape)
      : data_(detail::new_uninitialized<T>(detail::checked_count<T>(shape))), shape_(shape) {}
  // Storage whose every element the caller writes before reading (a device result copied
  // in): not zero-filled first, which for hundreds of MiB costs as much as the copy.
  struct overwritten_t {};
  spanned_data(const shape_type& shape, overwritten_t, const detail::block_kind& kind = detail::plain_blocks())
      : data_(detail::new_uninitialized<T>(detail::checked_count<T>(shape), kind)), shape_(shape) {}

  spanned_data(spanned_data&& other) noexcept
      : data_(std::move(other.data_)), shape_(other.shape_) {
    other.shape_ = shape_type{};
  }
  spanned_data& operator=(spanned_data&& other) noexcept {
    if (this != &other) {
      data_ = std::move(other.data_);
      shape_ = other.shape_;
      other.shape_ = shape_type{};
    }
    return *this;
  }
  spanned_data(const spanned_data&) = delete;
  spanned_data& operator=(const spanned_data&) = delete;

  spanned_data clone() const {
    spanned_data copy(shape_);
    const std::size_t n = element_count();
    for (std::size_t i = 0; i < n; ++i) copy.data_[i] = data_[i];
    return copy;
  }

  static constexpr std::size_t rank() { return Rank; }
  const shape_type& shape() const { return shape_; }
  std::size_t shape(std::size_t d) const { return shape_[d]; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t element_count() const { return detail::product(shape_); }
  std::size_t size() const { return element_count(); }
  bool empty() const { return element_count() == 0; }
  std::size_t bytes() const { return element_count() * sizeof(T); }

  template <typename U>
  void fill(U v) {
    std::fill(begin(), end(), static_cast<T>(v));
  }
#if !defined(CROKTILE_NO_RANDOM)
  template <typename L, typename H>
  void fill_random(L lo, H hi) {
    detail::fill_random(data(), element_count(), lo, hi);
  }
#endif

  T* begin() { return data(); }
  T* end() { return data() + element_count(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + element_count(); }

  // Gives up ownership of the memory (freed with detail::free_host) and leaves this empty.
  T* release() {
    shape_ = shape_type{};
    return data_.release();
  }

  spanned_view<T, Rank> view() { return spanned_view<T, Rank>(data(), shape_); }
  spanned_view<const T, Rank> view() const { return spanned_view<const T, Rank>(data(), shape_); }

  // Lets a result be passed straight to another __co__ function taking a view.
  operator spanned_view<T, Rank>() { return view(); }
  operator spanned_view<const T, Rank>() const { return view(); }

  detail::subscript_t<T, Rank> operator[](std::size_t i) { return view()[i]; }
  detail::subscript_t<const T, Rank> operator[](std::size_t i) const { return view()[i]; }

private:
  std::unique_ptr<T[], detail::host_delete<T>> data_;
  shape_type shape_;
};

// Attach a shape to caller-owned memory (no copy). The most significant
// dimension comes first: {6, 17, 128} matches `T a[6][17][128]`.
template <std::size_t Rank, typename T>
spanned_view<T, Rank> make_spanview(T* ptr, std::initializer_list<std::size_t> init) {
  if (init.size() != Rank)
    throw croktile::runtime_error("croktile::make_spanview: rank is " + std::to_string(Rank) +
                                  " but " + std::to_string(init.size()) +
                                  " dimensions were given");
  std::array<std::size_t, Rank> shape{};
  std::size_t d = 0;
  for (std::size_t v : init) shape[d++] = v;
  // A null pointer with a non-empty shape can only fault later, far from the cause.
  if (ptr == nullptr && detail::product(shape) != 0)
    throw croktile::runtime_error("croktile::make_spanview: null data pointer");
  return spanned_view<T, Rank>(ptr, shape);
}

#if defined(__CUDACC__)
// CUDA's own half types for croktile's (same bits): the reference's host code views a
// cudaMalloc'd `half*` as `make_spanview<2, choreo::f16>(p, {M, K})`.
template <std::size_t Rank, typename T, typename U,
          typename std::enable_if<(std::is_same<T, f16>::value && std::is_same<U, __half>::value) ||
                                      (std::is_same<T, bf16>::value && std::is_same<U, __nv_bfloat16>::value),
                                  int>::type = 0>
spanned_view<T, Rank> make_spanview(U* ptr, std::initializer_list<std::size_t> init) {
  return make_spanview<Rank, T>(reinterpret_cast<T*>(ptr), init);
}
#endif

// The reference's other spelling, element type first: make_spanview<f16, 2>(p, {M, K});
// p may also point at CUDA's own type of the same bits (half, __nv_fp8_e4m3).
template <typename T, std::size_t Rank, typename U,
          typename std::enable_if<sizeof(U) == sizeof(T) && !std::is_const<U>::value, int>::type = 0>
spanned_view<T, Rank> make_spanview(U* ptr, std::initializer_list<std::size_t> init) {
  return make_spanview<Rank, T>(reinterpret_cast<T*>(ptr), init);
}

// Allocate a zero-initialised owning buffer: make_spandata<f32>(6, 17, 128).
// Negative dimensions throw croktile::runtime_error.
template <typename T, typename... Dims>
spanned_data<T, sizeof...(Dims)> make_spandata(Dims... dims) {
  static_assert(sizeof...(Dims) >= 1, "croktile::make_spandata: give at least one dimension");
  return spanned_data<T, sizeof...(Dims)>(
      std::array<std::size_t, sizeof...(Dims)>{{detail::to_dim(dims)...}});
}

}  // namespace croktile

// The specification spells the namespace both ways.
namespace choreo = croktile;
// The reference's host code names its 8-bit float types unqualified (`f8_e4m3(x)`);
// CROKTILE_NO_GLOBAL_TYPES leaves these two names out of the global namespace.
#if !defined(CROKTILE_NO_GLOBAL_TYPES)
using f8_e4m3 = croktile::f8_e4m3;
using f8_e5m2 = croktile::f8_e5m2;
#endif

// 2:4 structured-sparse A operands for `mma.*.sp` (choreo::utils::SparsePolicy).
#if !defined(CROKTILE_NO_RANDOM)
#include "croktile_sparse.h"
#endif
