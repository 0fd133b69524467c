// croktile_half.h - the 16-bit float storage types croktile::f16 and croktile::bf16.
//
// Self-contained beside croktile_minifloat.h (its bit conversions), C++17: croktile.h
// includes it, and so does code that needs the types without the host runtime (the
// tensor-core headers in the factor target's device module).
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "croktile_minifloat.h"

namespace croktile {
namespace detail {
struct from_bits_t {};
}  // namespace detail

// Storage types for half precision. Arithmetic and comparison go through the
// implicit conversion to float; no operator overloads are declared on purpose,
// because together with the implicit float constructor they would make mixed
// expressions like `h + 1.0f` ambiguous.
// Default constructor is trivial so arrays of them can live in CUDA shared
// memory and value-initialisation yields +0.0.
struct f16 {
  std::uint16_t bits;

  f16() = default;
  CROKTILE_HOST_DEVICE f16(float f) : bits(detail::float_to_f16_bits(f)) {}
  CROKTILE_HOST_DEVICE constexpr f16(detail::from_bits_t, std::uint16_t b) : bits(b) {}

  CROKTILE_HOST_DEVICE static constexpr f16 from_bits(std::uint16_t b) {
    return f16(detail::from_bits_t{}, b);
  }
  CROKTILE_HOST_DEVICE operator float() const { return detail::f16_bits_to_float(bits); }
#if defined(__CUDACC__)
  // CUDA's half type converts in, and explicitly out: the reference's host code assigns
  // `__float2half(x)` to f16 elements. An implicit conversion to __half would make
  // `a * b` of two f16 ambiguous (float's or __half's operator).
  CROKTILE_HOST_DEVICE f16(__half h) : bits(__half_as_ushort(h)) {}
  CROKTILE_HOST_DEVICE explicit operator __half() const { return __ushort_as_half(bits); }
#endif

  CROKTILE_HOST_DEVICE f16& operator+=(float v) { return *this = f16(float(*this) + v); }
  CROKTILE_HOST_DEVICE f16& operator-=(float v) { return *this = f16(float(*this) - v); }
  CROKTILE_HOST_DEVICE f16& operator*=(float v) { return *this = f16(float(*this) * v); }
  CROKTILE_HOST_DEVICE f16& operator/=(float v) { return *this = f16(float(*this) / v); }
};

struct bf16 {
  std::uint16_t bits;

  bf16() = default;
  CROKTILE_HOST_DEVICE bf16(float f) : bits(detail::float_to_bf16_bits(f)) {}
  CROKTILE_HOST_DEVICE constexpr bf16(detail::from_bits_t, std::uint16_t b) : bits(b) {}

  CROKTILE_HOST_DEVICE static constexpr bf16 from_bits(std::uint16_t b) {
    return bf16(detail::from_bits_t{}, b);
  }
  CROKTILE_HOST_DEVICE operator float() const { return detail::bf16_bits_to_float(bits); }
#if defined(__CUDACC__)
  CROKTILE_HOST_DEVICE bf16(__nv_bfloat16 h) : bits(__bfloat16_as_ushort(h)) {}
  CROKTILE_HOST_DEVICE explicit operator __nv_bfloat16() const { return __ushort_as_bfloat16(bits); }
#endif

  CROKTILE_HOST_DEVICE bf16& operator+=(float v) { return *this = bf16(float(*this) + v); }
  CROKTILE_HOST_DEVICE bf16& operator-=(float v) { return *this = bf16(float(*this) - v); }
  CROKTILE_HOST_DEVICE bf16& operator*=(float v) { return *this = bf16(float(*this) * v); }
  CROKTILE_HOST_DEVICE bf16& operator/=(float v) { return *this = bf16(float(*this) / v); }
};

// Layout is relied on when buffers are handed to device kernels as raw 16-bit data.
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2, "f16/bf16 must be 2 bytes");
static_assert(std::is_trivially_copyable<f16>::value && std::is_trivially_copyable<bf16>::value,
              "f16/bf16 must be trivially copyable");
static_assert(std::is_trivially_default_constructible<f16>::value &&
                  std::is_trivially_default_constructible<bf16>::value,
              "f16/bf16 must be trivially default constructible");

}  // namespace croktile
