"""Every way the spec lets a __co__ function name its result builds and runs on cpu:
a declared shape, `auto`, and a rank-only `mdspan<N>` return type, each returning data
or the future of a copy into global data (found by the grammar-based fuzzer: `auto` of a
future was rejected and a rank-only type crashed the code generator)."""
from __future__ import annotations

import shutil

import pytest

from helpers.croktilec import ok, run_program

RETURN_TYPES = ["s32 [4, 2]", "auto", "s32 mdspan<2>"]

PROGRAM = r"""
__co__ {ret} copy_{name}(s32 [4, 2] a) {{
  {body}
}}
"""

BODIES = {
    "data": "s32 [a.span] g;\n  dma.copy a => g;\n  return g;",
    "future": "g = dma.copy a => global;\n  return g;",
}

MAIN = r"""
int main() {
  int a[4][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  auto in = croktile::make_spanview<2>(&a[0][0], {4, 2});
%s
}
"""


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
def test_every_return_form_builds_and_returns_the_data(tmp_path):
    functions, calls = [], []
    for i, ret in enumerate(RETURN_TYPES):
        for body_name, body in BODIES.items():
            name = f"{i}_{body_name}"
            functions.append(PROGRAM.format(ret=ret, name=name, body=body))
            calls.append(f'  {{ auto r = copy_{name}(in); std::printf("{name} %zu %zu %d %d\\n", '
                         f"r.shape()[0], r.shape()[1], r[0][1], r[3][0]); }}")
    (tmp_path / "r.co.cpp").write_text("".join(functions) + MAIN % "\n".join(calls))
    ok("r.co.cpp", "-t", "cpu", "-o", "r", cwd=tmp_path)
    run = run_program(tmp_path / "r")
    assert run.returncode == 0, run
    expected = [f"{i}_{b} 4 2 2 7" for i in range(len(RETURN_TYPES)) for b in BODIES]
    assert run.stdout.splitlines() == expected
