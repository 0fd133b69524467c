"""runtime/croktile_sparse.h, the 2:4 sparse host helpers of the reference's programs
(choreo::utils::SparsePolicy): a host program (g++, warnings are errors) packs matrices
whose packed values and metadata words are worked out by hand here (the layout
croktile::mma::mma_sp reads: a 4-bit field per group of 4, bits 0-1 the first kept
position, 2-3 the second, the fields of a strip from bit 0 up, fp8's 64 columns in a low
and a high u32), checks what the init functions make, and stops with a message on a
group that is not 2:4 sparse. The reference's mma.sp programs run on cpu with it
(scripts/ref_gpu_run.py -k sp_)."""
import shutil
import subprocess
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"

PROGRAM = r"""
#include "croktile.h"
#include <cstdio>
#include <cstring>

using croktile::f16;
static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

template <typename T, typename D>
void set_row(D& d, size_t r, std::initializer_list<float> v) {
  size_t j = 0;
  for (float x : v) d[r][j++] = T(x);
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "overfull") == 0) {
    auto d = croktile::make_spandata<f16>(1, 16);
    set_row<f16>(d, 0, {1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0});
    auto p = croktile::make_spandata<f16>(1, 8);
    auto m = croktile::make_spandata<croktile::u32>(1, 1);
    choreo::utils::SparsePolicy<f16>::encode(d, p, m);
    return 0;
  }
  {  // 16-bit values: one word per 16 columns; groups with fewer than 2 nonzeros keep
     // their nonzero (or position 0) and position 3 (0 and 3 where the nonzero is at 3)
    auto d = croktile::make_spandata<f16>(2, 16);
    set_row<f16>(d, 0, {1, 2, 0, 0, 0, 3, 0, 4, 5, 0, 6, 0, 0, 0, 7, 8});
    set_row<f16>(d, 1, {0, 0, 0, 0, 0, 0, 0, 9, 0, 9, 0, 0, 9, 0, 0, 9});
    auto p = croktile::make_spandata<f16>(2, 8);
    auto m = croktile::make_spandata<croktile::u32>(2, 1);
    std::vector<croktile::u32> rows;
    choreo::utils::SparsePolicy<f16>::encode(d, p, m, &rows);
    const float want0[] = {1, 2, 3, 4, 5, 6, 7, 8}, want1[] = {0, 0, 0, 9, 9, 0, 9, 9};
    for (int j = 0; j < 8; ++j) CHECK(float(p[0][j]) == want0[j] && float(p[1][j]) == want1[j]);
    CHECK(m[0][0] == 0xE8D4u);
    CHECK(m[1][0] == 0xCDCCu);
    CHECK(rows.size() == 2 && rows[0] == 0xE8D4u && rows[1] == 0xCDCCu);
  }
  {  // SparsePolicyK32: one word per 32 columns
    auto d = croktile::make_spandata<croktile::bf16>(1, 32);
    for (int g = 0; g < 8; ++g) { d[0][4 * g + 1] = croktile::bf16(1.0f); d[0][4 * g + 2] = croktile::bf16(2.0f); }
    auto p = croktile::make_spandata<croktile::bf16>(1, 16);
    auto m = croktile::make_spandata<croktile::u32>(1, 1);
    choreo::utils::SparsePolicyK32<croktile::bf16>::encode(d, p, m);
    CHECK(m[0][0] == 0x99999999u);
    CHECK(float(p[0][14]) == 1.0f && float(p[0][15]) == 2.0f);
  }
  {  // fp8: 64 columns in two words, the low one first
    auto d = croktile::make_spandata<croktile::f8_e4m3>(1, 128);
    for (int g = 0; g < 32; ++g) {
      const int first = (g % 16) < 8 ? 0 : 2;
      d[0][4 * g + first] = croktile::f8_e4m3(float(g % 5 + 1));
      d[0][4 * g + first + 1] = croktile::f8_e4m3(-1.0f);
    }
    auto p = croktile::make_spandata<croktile::f8_e4m3>(1, 64);
    auto m = croktile::make_spandata<croktile::u32>(1, 4);
    choreo::utils::SparsePolicy<croktile::f8_e4m3>::encode(d, p, m);
    CHECK(m[0][0] == 0x44444444u && m[0][1] == 0xEEEEEEEEu && m[0][2] == 0x44444444u && m[0][3] == 0xEEEEEEEEu);
    CHECK(float(p[0][2 * 31]) == float(31 % 5 + 1) && float(p[0][2 * 31 + 1]) == -1.0f);
  }
  {  // random 2:4 matrices: two nonzeros in [-1, 1] per group; ones at given positions
    std::mt19937 gen(1);
    auto d = croktile::make_spandata<f16>(8, 64);
    choreo::utils::SparsePolicy<f16>::init_structured_sparse_A(d, gen);
    auto ones = croktile::make_spandata<croktile::f8_e5m2>(8, 64);
    choreo::utils::SparsePolicy<croktile::f8_e5m2>::init_structured_sparse_A_ones(ones, gen, false, 2, 0);
    auto rnd = croktile::make_spandata<croktile::f8_e5m2>(8, 64);
    choreo::utils::SparsePolicy<croktile::f8_e5m2>::init_structured_sparse_A_ones(rnd, gen, true);
    for (int i = 0; i < 8; ++i)
      for (int g = 0; g < 16; ++g) {
        int nz = 0, ones_at = 0, rnd_ones = 0;
        for (int k = 0; k < 4; ++k) {
          const float v = float(d[i][4 * g + k]);
          nz += v != 0.0f;
          CHECK(v >= -1.0f && v <= 1.0f);
          if (float(ones[i][4 * g + k]) == 1.0f) ones_at |= 1 << k;
          rnd_ones += float(rnd[i][4 * g + k]) == 1.0f;
        }
        CHECK(nz == 2);
        CHECK(ones_at == 0x5);
        CHECK(rnd_ones == 2);
      }
  }
  CHECK(choreo::to_f32(croktile::bf16(1.5f)) == 1.5f);
  CHECK(choreo::utils::from_f32<croktile::f8_e4m3>(448.0f).bits == 0x7e);
  std::printf("%s\n", failures ? "failed" : "ok");
  return failures != 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed")
    work = tmp_path_factory.mktemp("sparse")
    (work / "sparse.cpp").write_text(PROGRAM)
    exe = work / "sparse"
    subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME}", str(work / "sparse.cpp"),
                    "-o", str(exe)], check=True)
    return exe


def test_packed_values_and_metadata_words(program):
    run = subprocess.run([str(program)], capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "ok\n"), run.stdout


def test_a_group_with_three_nonzeros_stops_the_program(program):
    run = subprocess.run([str(program), "overfull"], capture_output=True, text=True)
    assert run.returncode != 0
    assert "a group of 4 has more than 2 nonzeros (not 2:4 sparse)" in run.stderr
