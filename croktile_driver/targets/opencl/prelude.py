"""The OpenCL C prelude every generated device program starts with."""
from __future__ import annotations




PRELUDE = r"""// Croktile OpenCL C prelude (OpenCL C 1.2)
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef float f32;
typedef uint4 croktile_vec16;      // the generated copies' 16-byte vectors
typedef event_t croktile_event_t;   // the generated kernels' events, whatever __cok__ code names event_t
// an instance's own event: takes the flag, returns what it held
static inline unsigned int croktile_take_private(unsigned int* p) { const unsigned int v = *p; *p = 0u; return v; }
#ifndef __device__
#define __device__
#endif
#define CROKTILE_OPENCL 1
// The narrow element types are bytes on the device (uchar); these convert them as
// runtime/croktile_minifloat.h does: special 0 none, 1 NaN only (e4m3), 2 IEEE (e5m2).
static inline float croktile_mf_to_float(uint bits, int E, int M, int special) {
  const int bias = (1 << (E - 1)) - 1;
  const uint ones = (1u << E) - 1u, mones = (1u << M) - 1u;
  const float sign = (bits >> (E + M)) & 1u ? -1.0f : 1.0f;
  const uint e = (bits >> M) & ones, m = bits & mones;
  if (special == 2 && e == ones) return m ? as_float(0x7fc00000u) : sign * as_float(0x7f800000u);
  if (special == 1 && e == ones && m == mones) return as_float(0x7fc00000u);
  if (e == 0) return sign * (float)m * as_float((uint)(127 + 1 - bias - M) << 23);
  return sign * (float)((1u << M) | m) * as_float((uint)(127 + (int)e - bias - M) << 23);
}
static inline uchar croktile_mf_from_float(float f, int E, int M, int special) {
  const int bias = (1 << (E - 1)) - 1;
  const uint ones = (1u << E) - 1u, mones = (1u << M) - 1u;
  const uint inf_mag = ones << M;
  const uint max_mag = special == 2 ? ((ones - 1u) << M) | mones : special == 1 ? (ones << M) | (mones - 1u)
                                                                             : (ones << M) | mones;
  const uint nan_mag = special == 2 ? inf_mag | (1u << (M - 1)) : (ones << M) | mones;
  const uint x = as_uint(f), a = x & 0x7fffffffu, sign = (x >> 31) ? 1u << (E + M) : 0u;
  if (a > 0x7f800000u) return (uchar)(special == 0 ? max_mag : sign | nan_mag);
  if (a == 0x7f800000u) return (uchar)(sign | (special == 2 ? inf_mag : max_mag));
  uint sig = a >= 0x00800000u ? (a & 0x7fffffu) | 0x800000u : a;
  const int ex = a >= 0x00800000u ? (int)(a >> 23) - 127 : -126;
  int e = ex < 1 - bias ? 1 - bias : ex;
  const int shift = 23 + e - M - ex;
  uint n = 0;
  if (shift < 32) {
    n = sig >> shift;
    const uint rem = sig & ((1u << shift) - 1u), hw = 1u << (shift - 1);
    if (rem > hw || (rem == hw && (n & 1u))) ++n;
  }
  if (n == (2u << M)) { n >>= 1; ++e; }
  uint mag = n;
  if (n >= (1u << M)) mag = e + bias > (int)ones ? (ones + 1u) << M : ((uint)(e + bias) << M) | (n & mones);
  if (mag > max_mag) mag = special == 2 ? inf_mag : max_mag;
  return (uchar)(sign | mag);
}
// the same under the names of f16's conversions (croktile_f16_to_float)
#define croktile_f8_e4m3_to_float(b) croktile_mf_to_float((b), 4, 3, 1)
#define croktile_f8_e5m2_to_float(b) croktile_mf_to_float((b), 5, 2, 2)
#define croktile_f6_e2m3_to_float(b) croktile_mf_to_float((b), 2, 3, 0)
#define croktile_f6_e3m2_to_float(b) croktile_mf_to_float((b), 3, 2, 0)
#define croktile_f4_e2m1_to_float(b) croktile_mf_to_float((b), 2, 1, 0)
#define croktile_float_to_f8_e4m3(f) croktile_mf_from_float((f), 4, 3, 1)
#define croktile_float_to_f8_e5m2(f) croktile_mf_from_float((f), 5, 2, 2)
#define croktile_float_to_f6_e2m3(f) croktile_mf_from_float((f), 2, 3, 0)
#define croktile_float_to_f6_e3m2(f) croktile_mf_from_float((f), 3, 2, 0)
#define croktile_float_to_f4_e2m1(f) croktile_mf_from_float((f), 2, 1, 0)
#define croktile_f8_e4m3_to_f32(b) croktile_mf_to_float((b), 4, 3, 1)
#define croktile_f8_e5m2_to_f32(b) croktile_mf_to_float((b), 5, 2, 2)
#define croktile_f6_e2m3_to_f32(b) croktile_mf_to_float((b), 2, 3, 0)
#define croktile_f6_e3m2_to_f32(b) croktile_mf_to_float((b), 3, 2, 0)
#define croktile_f4_e2m1_to_f32(b) croktile_mf_to_float((b), 2, 1, 0)
#define croktile_f32_to_f8_e4m3(f) croktile_mf_from_float((f), 4, 3, 1)
#define croktile_f32_to_f8_e5m2(f) croktile_mf_from_float((f), 5, 2, 2)
#define croktile_f32_to_f6_e2m3(f) croktile_mf_from_float((f), 2, 3, 0)
#define croktile_f32_to_f6_e3m2(f) croktile_mf_from_float((f), 3, 2, 0)
#define croktile_f32_to_f4_e2m1(f) croktile_mf_from_float((f), 2, 1, 0)
static inline long croktile_min(long a, long b) { return a < b ? a : b; }
static inline long croktile_max(long a, long b) { return a > b ? a : b; }
// f16/bf16 elements (ushort bits) <-> float, rounding to nearest even as runtime/croktile.h does.
static inline float croktile_f16_to_float(ushort h) {
  uint sign = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return as_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return as_float(sign);
    uint fe = 113;
    while ((m & 0x400u) == 0) { m <<= 1; --fe; }
    return as_float(sign | (fe << 23) | ((m & 0x3ffu) << 13));
  }
  return as_float(sign | ((e + 112u) << 23) | (m << 13));
}
static inline ushort croktile_float_to_f16(float f) {
  uint x = as_uint(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return (ushort)(a > 0x7f800000u ? (sign | 0x7e00u | ((a >> 13) & 0x3ffu)) : (sign | 0x7c00u));
  if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u);
  if (a < 0x38800000u) {
    if (a <= 0x33000000u) return (ushort)sign;
    uint e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint h = m >> shift, rem = m & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (h & 1u))) ++h;
    return (ushort)(sign | h);
  }
  uint h = (a - 0x38000000u) >> 13, rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (ushort)(sign | h);
}
static inline float croktile_bf16_to_float(ushort b) { return as_float((uint)b << 16); }
static inline ushort croktile_float_to_bf16(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
// A failed runtime check: the first one in a launch records its id and values.
static void croktile_check_fail(__global int* err, int id, long v0, long v1, long v2, long v3) {
  if (atomic_cmpxchg(err, 0, id + 1) == 0) {
    __global long* v = (__global long*)(err + 2);
    v[0] = v0; v[1] = v1; v[2] = v2; v[3] = v3;
  }
}
"""
