"""The narrow element types of runtime/croktile_minifloat.h against the OCP MX formats.

Python computes every format's value table from the format's definition (sign, exponent
bias, which encodings are NaN/inf) and the rounding of each midpoint; a C++ program
checks the header against those tables exhaustively: every encoding decodes to its value,
re-encodes to itself, and every midpoint between neighbours (and the floats next to it)
rounds to the nearest, ties to the even encoding.
"""
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"

# name: (exponent bits, mantissa bits, specials, largest finite value from the OCP MX spec)
FORMATS = {
    "f8_e4m3": (4, 3, "nan_only", 448.0),
    "f8_e5m2": (5, 2, "ieee", 57344.0),
    "f6_e2m3": (2, 3, "none", 7.5),
    "f6_e3m2": (3, 2, "none", 28.0),
    "f4_e2m1": (2, 1, "none", 6.0),
}


def value(bits: int, e_bits: int, m_bits: int, special: str):
    """The value of an encoding: a Fraction, 'nan', or +-'inf'."""
    bias = 2 ** (e_bits - 1) - 1
    sign = -1 if bits >> (e_bits + m_bits) & 1 else 1
    e = bits >> m_bits & (2 ** e_bits - 1)
    m = bits & (2 ** m_bits - 1)
    if special == "ieee" and e == 2 ** e_bits - 1:
        return "nan" if m else ("inf" if sign > 0 else "-inf")
    if special == "nan_only" and e == 2 ** e_bits - 1 and m == 2 ** m_bits - 1:
        return "nan"
    if e == 0:
        return sign * Fraction(m, 2 ** m_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 2 ** m_bits)) * Fraction(2) ** (e - bias)


def c_float(v) -> str:
    if v == "nan":
        return "NAN"
    if v in ("inf", "-inf"):
        return ("-" if v[0] == "-" else "") + "INFINITY"
    return repr(float(v)) + "f"


def format_checks(name: str) -> str:
    e_bits, m_bits, special, largest = FORMATS[name]
    width = 1 + e_bits + m_bits
    values = [value(b, e_bits, m_bits, special) for b in range(2 ** width)]
    negative_zero = 1 << (width - 1)
    shown = ["-0.0f" if b == negative_zero else c_float(v) for b, v in enumerate(values)]
    finite = [v for v in values if isinstance(v, Fraction)]
    assert max(finite) == Fraction(largest), name   # the table agrees with the spec's max
    lines = [f"  {{ // {name}", f"    using T = croktile::{name};",
             f"    const float values[] = {{{', '.join(shown)}}};",
             f"    for (unsigned b = 0; b < {2 ** width}u; ++b) {{",
             "      const float got = float(T::from_bits(std::uint8_t(b)));",
             "      if (std::isnan(values[b])) { CHECK(std::isnan(got)); CHECK(std::isnan(float(T(got)))); continue; }",
             "      CHECK(same(got, values[b]));",
             "      CHECK(T(values[b]).bits == b);",
             "    }"]
    # Midpoints between neighbouring non-negative values: ties go to the even encoding;
    # the floats just beside a midpoint go to the nearer neighbour.
    pos = sorted({(v, b) for b, v in enumerate(values) if isinstance(v, Fraction) and v >= 0
                  and not (v == 0 and b)})
    for (lo, lo_bits), (hi, hi_bits) in zip(pos, pos[1:]):
        mid = (lo + hi) / 2
        even = lo_bits if lo_bits % 2 == 0 else hi_bits
        for sign, sbit in ((1, 0), (-1, 1 << (width - 1))):
            m = float(sign * mid)
            lines.append(f"    CHECK(T({m!r}f).bits == {even | sbit}u);")
            below, above = (lo_bits, hi_bits) if sign > 0 else (hi_bits, lo_bits)
            lines.append(f"    CHECK(T(std::nextafter({m!r}f, -INFINITY)).bits == {below | sbit}u);")
            lines.append(f"    CHECK(T(std::nextafter({m!r}f, INFINITY)).bits == {above | sbit}u);")
    # Past the largest value: infinity (ieee) or the largest value (saturation).
    top = [b for b, v in enumerate(values) if v == Fraction(largest)][0]
    over = top if special != "ieee" else [b for b, v in enumerate(values) if v == "inf"][0]
    big = float(largest) * 4
    lines.append(f"    CHECK(T({big!r}f).bits == {over}u);")
    lines.append(f"    CHECK(T(-{big!r}f).bits == {over | 1 << (width - 1)}u);")
    lines.append(f"    CHECK(T(INFINITY).bits == {over}u);")
    lines.append(f"    CHECK(T(1e-30f).bits == 0u && T(-1e-30f).bits == {1 << (width - 1)}u);")
    if special == "none":
        lines.append(f"    CHECK(T(NAN).bits == {top}u);")
    lines.append("  }")
    return "\n".join(lines)


PROGRAM = r"""
#include "croktile.h"
#include <cmath>
#include <cstdio>
#include <cstring>

static int failures = 0;
#define CHECK(cond) do { if (!(cond)) { std::printf("FAIL line %d: %s\n", __LINE__, #cond); ++failures; } } while (0)

static bool same(float a, float b) {   // equal, with the sign of zero
  return a == b && std::signbit(a) == std::signbit(b);
}

int main() {
  static_assert(sizeof(croktile::f8_e4m3) == 1 && sizeof(choreo::f4_e2m1) == 1, "one byte");
  static_assert(std::is_same<choreo::f8, choreo::f8_e4m3>::value, "f8 is e4m3");
CHECKS
  // the conversions under the names generated element code uses
  CHECK(croktile_f8_e4m3_to_f32(0x38) == 1.0f && croktile_f32_to_f8_e4m3(1.0f) == 0x38);
  CHECK(croktile_f8_e5m2_to_f32(0x3c) == 1.0f && croktile_f32_to_f8_e5m2(-1.0f) == 0xbc);
  CHECK(croktile_f4_e2m1_to_f32(0x7) == 6.0f && croktile_f32_to_f6_e3m2(0.0625f) == 0x1);
  // sub-byte integers wrap modulo 2^bits
  CHECK(int(croktile::s4(7)) == 7 && int(croktile::s4(8)) == -8 && int(croktile::s4(-9)) == 7);
  CHECK(int(croktile::u4(17)) == 1 && int(croktile::u6(63)) == 63 && int(croktile::s6(-32)) == -32);
  CHECK(int(croktile::s2(2)) == -2 && int(croktile::u2(5)) == 1 && int(croktile::u1(3)) == 1);
  // host API
  auto a = choreo::make_spandata<croktile::f8_e5m2>(3, 4);
  a.fill_random(-2.0f, 2.0f);
  bool in_range = true;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) in_range = in_range && float(a[i][j]) >= -2.0f && float(a[i][j]) <= 2.0f;
  CHECK(in_range);
  auto s = choreo::make_spandata<croktile::s4>(16);
  s.fill_random(-8, 7);
  a.view().fill(1.5f);
  CHECK(float(a[2][3]) == 1.5f && a.bytes() == 12);
  std::printf(failures ? "FAILED\n" : "ALL OK\n");
  return failures != 0;
}
"""


def _program(tmp_path: Path) -> Path:
    src = tmp_path / "minifloat_test.cpp"
    src.write_text(PROGRAM.replace("CHECKS", "\n".join(format_checks(n) for n in FORMATS)))
    return src


def test_tables_match_the_spec():
    assert value(0b0_1111_110, 4, 3, "nan_only") == 448 and value(0b0_0000_001, 4, 3, "nan_only") == Fraction(1, 512)
    assert value(0b0_11110_11, 5, 2, "ieee") == 57344 and value(0b0_00000_01, 5, 2, "ieee") == Fraction(1, 65536)
    assert value(0b0_11_111, 2, 3, "none") == Fraction(15, 2) and value(0b0_00_001, 2, 3, "none") == Fraction(1, 8)
    assert value(0b0_111_11, 3, 2, "none") == 28 and value(0b0_000_01, 3, 2, "none") == Fraction(1, 16)
    assert value(0b0_11_1, 2, 1, "none") == 6 and value(0b0_00_1, 2, 1, "none") == Fraction(1, 2)


@pytest.mark.parametrize("cxx", ["c++", "clang++"])
def test_minifloat_exhaustive(tmp_path, cxx):
    if shutil.which(cxx) is None:
        pytest.skip(f"{cxx} not installed")
    src = _program(tmp_path)
    exe = tmp_path / "minifloat_test"
    build = subprocess.run([cxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                            "-I", str(RUNTIME), str(src), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip().endswith("ALL OK"), run.stdout + run.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_minifloat_nvcc_compiles(tmp_path):
    src = _program(tmp_path)
    build = subprocess.run(["nvcc", "-std=c++17", "-x", "cu", "-c", "-I", str(RUNTIME), str(src),
                            "-o", str(tmp_path / "m.o")], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "warning" not in (build.stdout + build.stderr).lower(), build.stdout + build.stderr
