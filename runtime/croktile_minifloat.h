// croktile_minifloat.h - the narrow element types: 8-, 6- and 4-bit floats (OCP MX
// formats) and the sub-byte integers, as one-byte storage types; and the bit conversions
// of float, f16 and bf16 that croktile.h's types use too.
//
// Self-contained (croktile.h includes it; so does the factor target's device code), C++17;
// the types are usable in host code and in CUDA device code. Every type takes one byte:
// sub-byte values are not packed (README, "Host code and element types").
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef CROKTILE_HOST_DEVICE
#if defined(__CUDACC__)
#define CROKTILE_HOST_DEVICE __host__ __device__
#else
#define CROKTILE_HOST_DEVICE
#endif
#endif

namespace croktile {
namespace detail {

// memcpy is the only portable bit cast before C++20; device code has an intrinsic for it.
// croktile.h uses these too.
CROKTILE_HOST_DEVICE inline std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

CROKTILE_HOST_DEVICE inline float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// f16 and bf16 as bits, for croktile.h's types and the factor target's device code.

// binary32 -> binary16, round to nearest, ties to even: one instruction on the GPU (an
// epilogue converts every accumulator element), the same rounding spelled out elsewhere.
CROKTILE_HOST_DEVICE inline std::uint16_t float_to_f16_bits(float f) {
#if defined(__CUDA_ARCH__)
  std::uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    if (a > 0x7f800000u)  // NaN: keep the top payload bits, force quiet so it stays NaN
      return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  }
  // 65520 is the midpoint between 65504 (max f16) and 2^16; it ties to the
  // even neighbour, which is infinity.
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (a < 0x38800000u) {  // below 2^-14: f16 subnormal or zero
    // Below 2^-25 everything rounds to zero; exactly 2^-25 ties to even (zero).
    if (a <= 0x33000000u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t e = a >> 23;
    const std::uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - e;  // 14..24
    std::uint32_t h = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) ++h;  // may carry into the smallest normal: correct
    return static_cast<std::uint16_t>(sign | h);
  }
  // Normal: rebias exponent (127 -> 15) and drop 13 mantissa bits.
  std::uint32_t h = (a - 0x38000000u) >> 13;
  const std::uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry into exponent is correct
  return static_cast<std::uint16_t>(sign | h);
#endif
}

// binary16 -> binary32 is exact.
CROKTILE_HOST_DEVICE inline float f16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return bits_float(sign);
    // Subnormal f16 is a normal f32: normalise the mantissa.
    std::uint32_t fe = 113;  // biased f32 exponent of 2^-14
    while ((m & 0x400u) == 0) {
      m <<= 1;
      --fe;
    }
    return bits_float(sign | (fe << 23) | ((m & 0x3ffu) << 13));
  }
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

// binary32 -> bfloat16, round to nearest, ties to even. bf16 shares f32's
// exponent range, so subnormals and overflow fall out of the rounding add.
CROKTILE_HOST_DEVICE inline std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)  // NaN: truncation could yield inf, so force quiet
    return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

CROKTILE_HOST_DEVICE inline float bf16_bits_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

// What an all-ones exponent field means in a small float format.
enum class mf_special {
  none = 0,      // nothing: it holds normal numbers (f6_e2m3, f6_e3m2, f4_e2m1)
  nan_only = 1,  // only the all-ones exponent and mantissa is NaN, no infinity (f8_e4m3 "fn")
  ieee = 2,      // IEEE 754: infinity and NaNs (f8_e5m2)
};

// (croktile_factor.h and the OpenCL prelude of targets/opencl/ repeat these values.)

// A sign bit, E exponent bits (bias 2^(E-1) - 1) and M mantissa bits in the low bits of a byte.
template <int E, int M, mf_special S>
struct mf_format {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr std::uint32_t sign_bit = 1u << (E + M);
  static constexpr std::uint32_t exp_ones = (1u << E) - 1u;
  static constexpr std::uint32_t man_ones = (1u << M) - 1u;
  // magnitudes (the bits without the sign)
  static constexpr std::uint32_t inf_mag = exp_ones << M;  // ieee only
  static constexpr std::uint32_t max_mag =
      S == mf_special::ieee       ? ((exp_ones - 1u) << M) | man_ones
      : S == mf_special::nan_only ? (exp_ones << M) | (man_ones - 1u)
                                  : (exp_ones << M) | man_ones;
  static constexpr std::uint32_t nan_mag =
      S == mf_special::ieee ? inf_mag | (1u << (M - 1)) : (exp_ones << M) | man_ones;
};

// Exact: every value of these formats is a float. 2^k for -126 <= k <= 127.
CROKTILE_HOST_DEVICE inline float pow2f(int k) {
  return bits_float(static_cast<std::uint32_t>(127 + k) << 23);
}

template <int E, int M, mf_special S>
CROKTILE_HOST_DEVICE inline float mf_to_float(std::uint32_t bits) {
  using F = mf_format<E, M, S>;
  const float sign = (bits & F::sign_bit) ? -1.0f : 1.0f;
  const std::uint32_t e = (bits >> M) & F::exp_ones;
  const std::uint32_t m = bits & F::man_ones;
  if (S == mf_special::ieee && e == F::exp_ones)
    return m ? bits_float(0x7fc00000u) : sign * bits_float(0x7f800000u);
  if (S == mf_special::nan_only && e == F::exp_ones && m == F::man_ones) return bits_float(0x7fc00000u);
  if (e == 0) return sign * static_cast<float>(m) * pow2f(1 - F::bias - M);
  return sign * static_cast<float>((1u << M) | m) * pow2f(static_cast<int>(e) - F::bias - M);
}

// float -> format, round to nearest, ties to even. Past the largest finite value:
// infinity where the format has one (ieee), else the largest finite value of that sign
// (saturation, as CUDA's satfinite conversions). NaN: the format's NaN; formats without
// NaN get the largest positive value (as PTX cvt .satfinite does).
template <int E, int M, mf_special S>
CROKTILE_HOST_DEVICE inline std::uint8_t float_to_mf(float f) {
  using F = mf_format<E, M, S>;
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 31) ? F::sign_bit : 0u;
  const std::uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u)
    return static_cast<std::uint8_t>(S == mf_special::none ? F::max_mag : sign | F::nan_mag);
  if (a == 0x7f800000u)
    return static_cast<std::uint8_t>(sign | (S == mf_special::ieee ? F::inf_mag : F::max_mag));
  // a = sig * 2^(ex - 23)
  std::uint32_t sig;
  int ex;
  if (a >= 0x00800000u) {
    sig = (a & 0x7fffffu) | 0x800000u;
    ex = static_cast<int>(a >> 23) - 127;
  } else {
    sig = a;
    ex = -126;
  }
  const int emin = 1 - F::bias;
  int e = ex < emin ? emin : ex;  // the target binade; its quantum is 2^(e - M)
  const int shift = 23 + e - M - ex;  // >= 23 - M > 0
  std::uint32_t n = 0;
  if (shift < 32) {
    n = sig >> shift;
    const std::uint32_t rem = sig & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (n & 1u))) ++n;
  }
  if (n == (2u << M)) {  // rounded up into the next binade
    n >>= 1;
    ++e;
  }
  std::uint32_t mag;
  if (n < (1u << M)) {
    mag = n;  // subnormal or zero (e == emin)
  } else {
    const int field = e + F::bias;
    mag = field > static_cast<int>(F::exp_ones) ? (F::exp_ones + 1u) << M
                                                : (static_cast<std::uint32_t>(field) << M) | (n & F::man_ones);
  }
  if (mag > F::max_mag) mag = S == mf_special::ieee ? F::inf_mag : F::max_mag;
  return static_cast<std::uint8_t>(sign | mag);
}

struct mf_from_bits_t {};

}  // namespace detail

// A small float in the low bits of one byte. Arithmetic and comparison go through the
// implicit conversion to float, as for f16 (no operator overloads: they would make
// `x + 1.0f` ambiguous). The default constructor is trivial; value-initialised it is +0.
template <int E, int M, detail::mf_special S>
struct minifloat {
  std::uint8_t bits;

  minifloat() = default;
  CROKTILE_HOST_DEVICE minifloat(float f) : bits(detail::float_to_mf<E, M, S>(f)) {}
  CROKTILE_HOST_DEVICE constexpr minifloat(detail::mf_from_bits_t, std::uint8_t b) : bits(b) {}

  CROKTILE_HOST_DEVICE static constexpr minifloat from_bits(std::uint8_t b) {
    return minifloat(detail::mf_from_bits_t{}, b);
  }
  CROKTILE_HOST_DEVICE operator float() const { return detail::mf_to_float<E, M, S>(bits); }

  CROKTILE_HOST_DEVICE minifloat& operator+=(float v) { return *this = minifloat(float(*this) + v); }
  CROKTILE_HOST_DEVICE minifloat& operator-=(float v) { return *this = minifloat(float(*this) - v); }
  CROKTILE_HOST_DEVICE minifloat& operator*=(float v) { return *this = minifloat(float(*this) * v); }
  CROKTILE_HOST_DEVICE minifloat& operator/=(float v) { return *this = minifloat(float(*this) / v); }
};

using f8_e4m3 = minifloat<4, 3, detail::mf_special::nan_only>;  // max 448, NaN 0x7f, no inf
using f8_e5m2 = minifloat<5, 2, detail::mf_special::ieee>;      // max 57344, inf 0x7c, NaN 0x7e
using f6_e2m3 = minifloat<2, 3, detail::mf_special::none>;      // max 7.5
using f6_e3m2 = minifloat<3, 2, detail::mf_special::none>;      // max 28
using f4_e2m1 = minifloat<2, 1, detail::mf_special::none>;      // max 6
using f8 = f8_e4m3;

// An integer of Bits bits (two's complement when Signed) in one byte. Conversion from
// int wraps modulo 2^Bits, as a narrowing cast to s8/u8 does; arithmetic goes through int.
template <int Bits, bool Signed>
struct small_int {
  std::uint8_t bits;

  small_int() = default;
  CROKTILE_HOST_DEVICE small_int(int v) : bits(static_cast<std::uint8_t>(static_cast<unsigned>(v) & mask)) {}
  CROKTILE_HOST_DEVICE operator int() const {
    if (Signed && (bits & (1u << (Bits - 1)))) return static_cast<int>(bits) - (1 << Bits);
    return static_cast<int>(bits);
  }
  CROKTILE_HOST_DEVICE small_int& operator+=(int v) { return *this = small_int(int(*this) + v); }
  CROKTILE_HOST_DEVICE small_int& operator-=(int v) { return *this = small_int(int(*this) - v); }
  CROKTILE_HOST_DEVICE small_int& operator*=(int v) { return *this = small_int(int(*this) * v); }

private:
  static constexpr unsigned mask = (1u << Bits) - 1u;
};

using s6 = small_int<6, true>;
using u6 = small_int<6, false>;
using s4 = small_int<4, true>;
using u4 = small_int<4, false>;
using s2 = small_int<2, true>;
using u2 = small_int<2, false>;
using u1 = small_int<1, false>;
using bin1 = small_int<1, false>;

static_assert(sizeof(f8_e4m3) == 1 && sizeof(f4_e2m1) == 1 && sizeof(s4) == 1, "one byte each");
static_assert(std::is_trivially_copyable<f8_e4m3>::value && std::is_trivially_default_constructible<f8_e4m3>::value &&
                  std::is_trivially_copyable<s4>::value && std::is_trivially_default_constructible<s4>::value,
              "narrow types must be trivial");

}  // namespace croktile

// The conversions under the names generated element code uses on every target (the OpenCL
// prelude defines the same names over bytes): croktile_f8_e4m3_to_f32(bits) and
// croktile_f32_to_f8_e4m3(value), and so on for each float type; also spelled as f16's
// (croktile_f8_e4m3_to_float, croktile_float_to_f8_e4m3).
#define CROKTILE_MF_CONVERSIONS(T)                                                          \
  CROKTILE_HOST_DEVICE inline float croktile_##T##_to_f32(std::uint8_t b) {                 \
    return float(croktile::T::from_bits(b));                                                \
  }                                                                                         \
  CROKTILE_HOST_DEVICE inline std::uint8_t croktile_f32_to_##T(float f) { return croktile::T(f).bits; } \
  CROKTILE_HOST_DEVICE inline float croktile_##T##_to_float(std::uint8_t b) { return croktile_##T##_to_f32(b); } \
  CROKTILE_HOST_DEVICE inline std::uint8_t croktile_float_to_##T(float f) { return croktile_f32_to_##T(f); }
CROKTILE_MF_CONVERSIONS(f8_e4m3)
CROKTILE_MF_CONVERSIONS(f8_e5m2)
CROKTILE_MF_CONVERSIONS(f6_e2m3)
CROKTILE_MF_CONVERSIONS(f6_e3m2)
CROKTILE_MF_CONVERSIONS(f4_e2m1)
#undef CROKTILE_MF_CONVERSIONS
