"""Issue #11, run on the cpu target: a one-element ituple is its integer in initialisers,
call and template arguments (cases/ok_ituple_single_as_int.co.cpp checks every context),
and constants fold as 32-bit C++ ints (`1 << 31` is INT_MIN; cases/err_int_overflow.co.cpp
has the overflows)."""
from __future__ import annotations

import shutil

import pytest

from helpers.croktilec import ok, run_program

PROGRAM = r"""
#include <cstdio>
__device__ void store(int *x, int a, int b, int c) { x[0] = a; x[1] = b; x[2] = c; }
template <int N> __device__ void store_last(int *x) { x[3] = N; }

__co__ s32 [4, 4] singles(s32 [4, 4] a) {
  s32 [a.span] out;
  parallel p by 1 {
    with i in [4] {
      foreach i {
        local s32 [1, 4] t;
        int j = i;
        call store(t, j * 10, i, (1 << 31) / 65536);
        call store_last<{3}>(t);
        dma.copy t => out.chunkat(i, _);
      }
    }
  }
  return out;
}

int main() {
  static int a[4][4];
  auto r = singles(choreo::make_spanview<2>(&a[0][0], {4, 4}));
  for (int i = 0; i < 4; ++i) std::printf("%d %d %d %d\n", r[i][0], r[i][1], r[i][2], r[i][3]);
}
"""


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
def test_single_ituples_and_32_bit_constants_run_on_cpu(tmp_path):
    (tmp_path / "s.co.cpp").write_text(PROGRAM)
    ok("s.co.cpp", "-t", "cpu", "-o", "s", cwd=tmp_path)
    run = run_program(tmp_path / "s")
    assert run.returncode == 0, run
    assert run.stdout == "".join(f"{10 * i} {i} -32768 3\n" for i in range(4))
