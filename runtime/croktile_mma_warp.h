// croktile_mma_warp.h - warp-level tensor-core tiles: croktile::mma::frag and its
// fill / load / store / mma / mma_sp / for_each.
//
// load_swizzled<SW> / store_swizzled<SW> do the same on a shared buffer stored in the
// SW-byte swizzled layout of croktile_swizzle.h (what TMA and copy_2d write).
//
// A frag<T, ROWS, COLS, role, IM, IN, IK> is a tile held by one warp, made of the
// IM x IN x IK instructions of croktile_mma_forms.h. On CUDA every lane of the warp calls
// each function with the same arguments, and the lanes hold the registers in the PTX ISA's
// mma fragment layout (croktile_mma_warp_cuda.h); elsewhere (the portable targets) one
// call holds the whole tile as a plain row-major array and computes what the instructions
// compute: products exact, each instruction's k-slice summed in float (double for f64,
// integers exactly), added to the accumulator and rounded to its type per instruction.
#pragma once

#include <cstdint>
#include <type_traits>

#include "croktile_mma_forms.h"
#include "croktile_swizzle.h"

namespace croktile {
namespace mma {

// a: the M x K operand (the compressed M x K/2 one for mma_sp); b: the K x N operand;
// c: the M x N accumulator; e: the sparse metadata, a tile of the u32 metadata array.
enum class role { a, b, c, e };

namespace detail {

template <class T>
struct is_wide : std::integral_constant<bool, std::is_same<T, double>::value> {};

// A value of From as a To, through float (double where either side is double); integers
// convert directly.
template <class To, class From>
CROKTILE_HOST_DEVICE inline To convert(const From& x) {
  if constexpr (std::is_same<To, From>::value) {
    return x;
  } else if constexpr (std::is_integral<To>::value && std::is_integral<From>::value) {
    return static_cast<To>(x);
  } else if constexpr (is_wide<To>::value || is_wide<From>::value) {
    return static_cast<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(static_cast<float>(x));
  }
}

// float operands are tf32: rounded to 10 mantissa bits, to nearest with ties away from
// zero, as cvt.rna.tf32.f32 does.
CROKTILE_HOST_DEVICE inline float round_tf32(float x) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
#else
  std::uint32_t u = croktile::detail::float_bits(x);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return croktile::detail::bits_float(u);
#endif
}

// What an operand element holds once loaded: tf32 for float a and b operands.
template <class T, role R, class E>
CROKTILE_HOST_DEVICE inline T operand_value(const E& x) {
  T v = convert<T>(x);
  if constexpr (std::is_same<T, float>::value && (R == role::a || R == role::b)) v = round_tf32(v);
  return v;
}

// The type one instruction sums its k-slice in: exact for integers, double for f64.
template <class TC>
using sum_t = typename std::conditional<
    std::is_integral<TC>::value, long long,
    typename std::conditional<std::is_same<TC, double>::value, double, float>::type>::type;

template <class T, role R, int ROWS, int COLS, int IM, int IN, int IK>
CROKTILE_HOST_DEVICE constexpr bool shape_ok() {
  return R == role::a   ? ROWS % IM == 0 && (COLS % IK == 0 || COLS % (IK / 2) == 0)
         : R == role::b ? ROWS % IK == 0 && COLS % IN == 0
         : R == role::c ? ROWS % IM == 0 && COLS % IN == 0
                        : ROWS % IM == 0;
}

// Words of sparse metadata per row and instruction (2 bits per kept element: IK/4 bits
// with groups of 4 in the low bits of each word; the reference's u32 arrays hold one word
// per instruction, two for k64).
template <int IK>
CROKTILE_HOST_DEVICE constexpr int meta_words() { return IK >= 64 ? IK / 32 : 1; }

// Dense k of the kept element `j` (0 or 1) of group `grp` from a row's metadata words.
CROKTILE_HOST_DEVICE inline int meta_index(const std::uint32_t* words, int grp, int j) {
  const int bit = 4 * grp + 2 * j;
  return 4 * grp + int((words[bit / 32] >> (bit % 32)) & 3u);
}

}  // namespace detail

template <int IM, int IN, int IK, class TA, class TB, class TC, bool SPARSE = false>
CROKTILE_HOST_DEVICE constexpr bool form_exists() { return form<IM, IN, IK, TA, TB, TC, SPARSE>::exists; }

}  // namespace mma
}  // namespace croktile

#if defined(__CUDACC__)
#include "croktile_mma_warp_cuda.h"
#else
#include "croktile_mma_warp_portable.h"
#endif
