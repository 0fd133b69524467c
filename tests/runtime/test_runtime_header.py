"""Tests for the header-only host runtime runtime/croktile.h.

A small C++ program exercising the public API is compiled with the host C++
compiler (warnings are errors) and run; the same program must also compile as
CUDA host code under nvcc, since generated CUDA sources include the header.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "runtime"

PROGRAM = r"""
#include "croktile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <type_traits>
#include <utility>

static int failures = 0;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::printf("FAIL line %d: %s\n", __LINE__, #cond);                  \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

// Both namespace spellings name the same entities.
static_assert(std::is_same<choreo::s32, croktile::s32>::value, "alias");
static_assert(std::is_same<choreo::f16, croktile::f16>::value, "alias");
static_assert(std::is_same<croktile::s8, std::int8_t>::value, "s8");
static_assert(std::is_same<croktile::s16, std::int16_t>::value, "s16");
static_assert(std::is_same<croktile::s32, std::int32_t>::value, "s32");
static_assert(std::is_same<croktile::u8, std::uint8_t>::value, "u8");
static_assert(std::is_same<croktile::u16, std::uint16_t>::value, "u16");
static_assert(std::is_same<croktile::u32, std::uint32_t>::value, "u32");
static_assert(std::is_same<croktile::f32, float>::value, "f32");
static_assert(sizeof(croktile::f16) == 2 && sizeof(croktile::bf16) == 2, "2 bytes");
static_assert(std::is_base_of<std::runtime_error, croktile::runtime_error>::value, "error");
static_assert(croktile::spanned_view<int, 3>::rank() == 3, "rank");
static_assert(croktile::spanned_data<float, 2>::rank() == 2, "rank");
static_assert(!std::is_copy_constructible<croktile::spanned_data<int, 1>>::value, "move-only");
static_assert(std::is_nothrow_move_constructible<croktile::spanned_data<int, 1>>::value, "move");
static_assert(std::is_same<decltype(std::declval<croktile::spanned_view<int, 1>>()[0]), int&>::value,
              "rank-1 [] yields a reference");
static_assert(std::is_same<decltype(std::declval<const croktile::spanned_data<int, 2>&>()[0][0]),
                           const int&>::value,
              "const spanned_data is read-only");

static float bits_to_float(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static std::uint32_t float_to_bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }

// Independent reference for float -> f16 value: scale so the f16 ulp is 1 and
// round with nearbyint (round-half-even in the default rounding mode).
static double ref_f16_value(float f) {
  double a = std::fabs(static_cast<double>(f));
  double r;
  if (a >= 65520.0) {
    r = INFINITY;
  } else if (a < std::ldexp(1.0, -14)) {
    r = std::nearbyint(std::ldexp(a, 24)) * std::ldexp(1.0, -24);
  } else {
    int e;
    std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    r = std::ldexp(std::nearbyint(std::ldexp(a, 11 - e)), e - 11);
  }
  return std::signbit(f) ? -r : r;
}

static void test_spanview() {
  choreo::s32 a[6][17][128] = {{{0}}};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 17; ++j)
      for (int k = 0; k < 128; ++k) a[i][j][k] = i * 10000 + j * 200 + k;

  auto v = choreo::make_spanview<3>(&a[0][0][0], {6, 17, 128});
  static_assert(std::is_same<decltype(v), croktile::spanned_view<int, 3>>::value, "type");
  CHECK(v.shape()[0] == 6 && v.shape()[1] == 17 && v.shape()[2] == 128);
  CHECK(v.shape(2) == 128);
  CHECK(v.element_count() == 6u * 17u * 128u);
  CHECK(v.size() == v.element_count());
  CHECK(v.data() == &a[0][0][0]);
  CHECK(decltype(v)::rank() == 3);
  bool all = true;
  for (size_t i = 0; i < v.shape()[0]; ++i)
    for (size_t j = 0; j < v.shape()[1]; ++j)
      for (size_t k = 0; k < v.shape()[2]; ++k)
        if (v[i][j][k] != a[i][j][k] || &v[i][j][k] != &a[i][j][k]) all = false;
  CHECK(all);

  // Sub-views carry the trailing shape and write through.
  auto row = v[2];
  CHECK(row.shape()[0] == 17 && row.shape()[1] == 128 && row.element_count() == 17u * 128u);
  v[5][16][127] = -7;
  CHECK(a[5][16][127] == -7);

  // croktile:: spelling, rank 2, const element type.
  const float cf[2][3] = {{1, 2, 3}, {4, 5, 6}};
  auto cv = croktile::make_spanview<2>(&cf[0][0], {2, 3});
  static_assert(std::is_same<decltype(cv[1][2]), const float&>::value, "const view");
  CHECK(cv[1][2] == 6.0f && cv[0][1] == 2.0f);

  // view<T> converts to view<const T>.
  croktile::spanned_view<const int, 3> ro = v;
  CHECK(ro[1][2][3] == a[1][2][3]);
  CHECK(std::distance(v.begin(), v.end()) == 6 * 17 * 128);
}

static void test_rank_mismatch() {
  int buf[8] = {0};
  bool caught_croktile = false, caught_std = false;
  try {
    (void)choreo::make_spanview<3>(buf, {2, 4});
  } catch (const croktile::runtime_error& e) {
    caught_croktile = std::strlen(e.what()) > 0;
  }
  try {
    (void)croktile::make_spanview<1>(buf, {2, 2, 2});
  } catch (const std::runtime_error&) {
    caught_std = true;
  }
  CHECK(caught_croktile);
  CHECK(caught_std);
}

static croktile::spanned_data<int, 2> produce() {
  auto d = croktile::make_spandata<int>(3, 4);
  d[2][3] = 42;
  return d;
}

static int sum_view(croktile::spanned_view<const int, 2> v) {
  int s = 0;
  for (size_t i = 0; i < v.shape()[0]; ++i)
    for (size_t j = 0; j < v.shape()[1]; ++j) s += v[i][j];
  return s;
}

static void test_spandata() {
  croktile::spanned_data<float, 3> d(std::array<size_t, 3>{{2, 3, 5}});
  CHECK(d.shape()[0] == 2 && d.shape()[1] == 3 && d.shape()[2] == 5);
  CHECK(d.element_count() == 30 && d.size() == 30);
  bool zero = true;
  for (size_t i = 0; i < d.element_count(); ++i) zero = zero && d.data()[i] == 0.0f;
  CHECK(zero);
  d[1][2][4] = 9.5f;
  CHECK(d.data()[29] == 9.5f);

  auto v = d.view();
  static_assert(std::is_same<decltype(v), croktile::spanned_view<float, 3>>::value, "view type");
  CHECK(v.data() == d.data() && v[1][2][4] == 9.5f && v.shape() == d.shape());

  // Move transfers ownership and leaves the source empty.
  float* p = d.data();
  croktile::spanned_data<float, 3> m(std::move(d));
  CHECK(m.data() == p && m[1][2][4] == 9.5f && m.element_count() == 30);
  CHECK(d.data() == nullptr && d.element_count() == 0);
  croktile::spanned_data<float, 3> m2;
  m2 = std::move(m);
  CHECK(m2.data() == p && m.data() == nullptr);

  auto c = m2.clone();
  CHECK(c.data() != m2.data() && c[1][2][4] == 9.5f && c.shape() == m2.shape());

  auto r = produce();
  CHECK(r[2][3] == 42 && r.shape()[0] == 3 && r.shape()[1] == 4);
  CHECK(sum_view(r) == 42);  // implicit conversion to a view

  auto s = choreo::make_spandata<choreo::s32>(6, 17, 128);
  static_assert(std::is_same<decltype(s), croktile::spanned_data<int, 3>>::value, "make_spandata");
  CHECK(s.element_count() == 6u * 17u * 128u);
  CHECK(std::all_of(s.begin(), s.end(), [](int x) { return x == 0; }));

  auto h = croktile::make_spandata<croktile::f16>(4u, size_t{2});
  CHECK(float(h[3][1]) == 0.0f && h[3][1].bits == 0);

  bool neg_threw = false;
  try {
    (void)croktile::make_spandata<int>(2, -1);
  } catch (const croktile::runtime_error&) {
    neg_threw = true;
  }
  CHECK(neg_threw);
}

static void test_f16() {
  using croktile::f16;
  struct { float in; unsigned bits; float back; } cases[] = {
      {1.0f, 0x3c00, 1.0f},
      {-2.0f, 0xc000, -2.0f},
      {0.0f, 0x0000, 0.0f},
      {65504.0f, 0x7bff, 65504.0f},
      {65519.0f, 0x7bff, 65504.0f},        // below the midpoint: max finite
      {65520.0f, 0x7c00, INFINITY},        // midpoint ties to even: inf
      {1e-7f, 0x0002, bits_to_float(0x34000000)},  // subnormal, 2 * 2^-24
      {5.9604645e-08f, 0x0001, 5.9604645e-08f},     // 2^-24, smallest subnormal
      {2.9802322e-08f, 0x0000, 0.0f},      // 2^-25 ties to even: zero
      {bits_to_float(0x33c00000u), 0x0002, bits_to_float(0x34000000u)},  // 1.5*2^-24 ties up
      {bits_to_float(0x34200000u), 0x0002, bits_to_float(0x34000000u)},  // 2.5*2^-24 ties down
      {bits_to_float(0x387fc000u), 0x03ff, bits_to_float(0x387fc000u)},  // largest subnormal
      {bits_to_float(0x387fe000u), 0x0400, 6.1035156e-05f},  // 1023.5*2^-24 ties up into normals
      {6.1035156e-05f, 0x0400, 6.1035156e-05f},     // 2^-14, smallest normal
      {3.14159f, 0x4248, 3.140625f},
      {0.1f, 0x2e66, 0.0999755859375f},
      {1.00048828125f, 0x3c00, 1.0f},      // 1 + 2^-11 ties to even (down)
      {1.00146484375f, 0x3c02, 1.001953125f},  // 1 + 3*2^-11 ties to even (up)
      {INFINITY, 0x7c00, INFINITY},
      {-INFINITY, 0xfc00, -INFINITY},
  };
  for (const auto& c : cases) {
    f16 h = c.in;
    if (h.bits != c.bits || float(h) != c.back)
      std::printf("FAIL f16(%g): bits 0x%04x (want 0x%04x) back %g (want %g)\n", c.in,
                  unsigned(h.bits), c.bits, double(float(h)), double(c.back));
    CHECK(h.bits == c.bits);
    CHECK(float(h) == c.back);
  }
  CHECK(f16(-0.0f).bits == 0x8000 && std::signbit(float(f16(-0.0f))));
  f16 n = std::nanf("");
  CHECK((n.bits & 0x7c00) == 0x7c00 && (n.bits & 0x3ff) != 0);
  CHECK(std::isnan(float(n)));
  f16 nn = bits_to_float(0x7f800001u);  // signalling NaN with low payload must stay NaN
  CHECK(std::isnan(float(nn)));

  // Every f16 bit pattern survives f16 -> float -> f16 (NaNs stay NaN).
  bool round_trip = true;
  for (unsigned b = 0; b < 0x10000u; ++b) {
    f16 h = f16::from_bits(static_cast<std::uint16_t>(b));
    float f = h;
    f16 back = f;
    if (std::isnan(f) ? !std::isnan(float(back)) : back.bits != b) round_trip = false;
  }
  CHECK(round_trip);

  // float -> f16 against an independent reference over a sweep of float bit patterns.
  bool sweep = true;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 4093) {
    float f = bits_to_float(static_cast<std::uint32_t>(u));
    if (std::isnan(f)) continue;
    double want = ref_f16_value(f);
    float got = f16(f);
    if (static_cast<double>(got) != want || std::signbit(got) != std::signbit(want)) {
      if (sweep) std::printf("FAIL f16 sweep at 0x%08x: got %g want %g\n", unsigned(u),
                             double(got), want);
      sweep = false;
    }
  }
  CHECK(sweep);

  // Arithmetic and comparisons go through float.
  f16 a = 1.5f, b = 2.0f;
  f16 c = a + b;
  CHECK(float(c) == 3.5f && a < b && b == 2.0f && a != b);
  c += 1.0f;
  c *= b;
  CHECK(c == 9.0f);
  choreo::f16 arr[4] = {0};
  CHECK(arr[3].bits == 0 && arr[0] == 0.0f);
}

static void test_bf16() {
  using croktile::bf16;
  struct { float in; unsigned bits; float back; } cases[] = {
      {1.0f, 0x3f80, 1.0f},
      {-2.0f, 0xc000, -2.0f},
      {3.14159f, 0x4049, 3.140625f},
      {1.00390625f, 0x3f80, 1.0f},         // 1 + 2^-8 ties to even (down)
      {1.01171875f, 0x3f82, 1.015625f},    // 1 + 3*2^-8 ties to even (up)
      {65504.0f, 0x4780, 65536.0f},
      {3.4028235e38f, 0x7f80, INFINITY},   // FLT_MAX rounds up to inf
      {INFINITY, 0x7f80, INFINITY},
      {-INFINITY, 0xff80, -INFINITY},
      {bits_to_float(0x00010000u), 0x0001, bits_to_float(0x00010000u)},  // subnormal kept
  };
  for (const auto& c : cases) {
    bf16 h = c.in;
    if (h.bits != c.bits || float(h) != c.back)
      std::printf("FAIL bf16(%g): bits 0x%04x (want 0x%04x) back %g (want %g)\n", c.in,
                  unsigned(h.bits), c.bits, double(float(h)), double(c.back));
    CHECK(h.bits == c.bits);
    CHECK(float(h) == c.back);
  }
  bf16 n = std::nanf("");
  CHECK(std::isnan(float(n)));
  bf16 nn = bits_to_float(0x7f800001u);  // truncation alone would give inf
  CHECK(std::isnan(float(nn)));
  bf16 neg_nan = bits_to_float(0xffc00000u);
  CHECK(std::isnan(float(neg_nan)) && (neg_nan.bits & 0x8000));
  CHECK(bf16(-0.0f).bits == 0x8000);

  bool round_trip = true;
  for (unsigned b = 0; b < 0x10000u; ++b) {
    bf16 h = bf16::from_bits(static_cast<std::uint16_t>(b));
    float f = h;
    bf16 back = f;
    if (std::isnan(f) ? !std::isnan(float(back)) : back.bits != b) round_trip = false;
  }
  CHECK(round_trip);

  bf16 a = 3.0f;
  a += 0.5f;
  CHECK(a == 3.5f && float_to_bits(float(a)) == 0x40600000u);
  choreo::bf16 arr[3] = {};
  CHECK(arr[2].bits == 0);
}

// Large results reuse the memory of freed ones (croktile_memory.h's block cache): a zeroed
// result made from a reused block is zero, an overwritten one gets the same memory back.
static void test_result_memory_reuse() {
  using croktile::spanned_data;
  const std::array<std::size_t, 2> shape{1024, 2048};   // 8 MiB of floats
  float* first = nullptr;
  {
    spanned_data<float, 2> d(shape);
    CHECK(d.data()[0] == 0.0f && d.data()[d.size() - 1] == 0.0f);
    d.fill(7.0f);
    first = d.data();
  }
  {
    spanned_data<float, 2> zeroed(shape);
    CHECK(zeroed.data() == first);
    bool zero = true;
    for (float v : zeroed) zero = zero && v == 0.0f;
    CHECK(zero);
  }
  {
    spanned_data<float, 2> reused(shape, spanned_data<float, 2>::overwritten_t{});
    CHECK(reused.data() == first);
    float* kept = reused.release();
    croktile::detail::free_host(kept);   // what the host backend does with adopted memory
  }
  spanned_data<float, 2> again(croktile::uninitialized, shape);
  CHECK(again.data() == first);
  spanned_data<float, 1> small({16});   // small data: plain new[], freed with delete[]
  CHECK(small.data()[15] == 0.0f);
}

#if defined(__CUDACC__)
// Device-side use of the header: must compile without warnings.
__global__ void device_use(croktile::spanned_view<float, 3> v, croktile::f16* h,
                           croktile::bf16* b, float* out) {
  h[0] = v[0][1][2];
  b[0] = float(h[0]) * 2.0f;
  out[0] = float(b[0]) + float(v.element_count()) + float(v.shape(1));
}
#endif

int main() {
  test_spanview();
  test_rank_mismatch();
  test_spandata();
  test_f16();
  test_bf16();
  test_result_memory_reuse();
  if (failures) {
    std::printf("%d FAILURES\n", failures);
    return 1;
  }
  std::cout << "ALL OK" << std::endl;
  return 0;
}
"""


def _write_program(tmp_path: Path) -> Path:
    src = tmp_path / "runtime_test.cpp"
    src.write_text(PROGRAM)
    return src


def test_header_host_compile_and_run(tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = _write_program(tmp_path)
    exe = tmp_path / "runtime_test"
    cmd = [cxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
           "-I", str(RUNTIME), str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    assert build.stderr == "", build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FAIL" not in run.stdout, run.stdout
    assert run.stdout.strip().endswith("ALL OK"), run.stdout


@pytest.mark.skipif(shutil.which("clang++") is None, reason="clang++ not installed")
def test_header_clang_compile_and_run(tmp_path):
    src = _write_program(tmp_path)
    exe = tmp_path / "runtime_test_clang"
    cmd = ["clang++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
           "-I", str(RUNTIME), str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("ALL OK"), run.stdout


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_header_nvcc_compile(tmp_path):
    src = _write_program(tmp_path)
    obj = tmp_path / "runtime_test.o"
    cmd = ["nvcc", "-std=c++17", "-x", "cu", "-c", "-I", str(RUNTIME),
           "-Xcompiler", "-Wall,-Wextra", str(src), "-o", str(obj)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "warning" not in (build.stdout + build.stderr).lower(), build.stdout + build.stderr
    assert obj.exists()
