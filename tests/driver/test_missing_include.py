"""A quoted #include that no include path resolves is gcc's fatal error at its line, in
every mode, before any error its absence causes; system headers, and headers inside an
#if on a macro only the target compiler knows, are left to the target compiler."""
from __future__ import annotations

import pytest

from helpers.croktilec import run_croktilec

PROGRAM = """#include <vector>
#include "mykernels.h"
#ifdef __CUDACC__
#include "cuda_only.h"
#endif
// #include "in_a_comment.h"
__co__ s32 [TILES] twice(s32 [TILES] a) {
  s32 [a.span] out;
  foreach i in [TILES] out.at(i) = a.at(i) * 2;
  return out;
}
int main() { return 0; }
"""

FATAL = ("k.co.cpp:2:10: fatal error: mykernels.h: No such file or directory\n"
         '#include "mykernels.h"\n'
         "         ^\n")


@pytest.mark.parametrize("mode", [["-fsyntax-only"], ["-S"], ["-E"], ["-c"], []])
def test_a_missing_quoted_header_is_named_at_its_line(tmp_path, mode):
    (tmp_path / "k.co.cpp").write_text(PROGRAM)
    res = run_croktilec(*mode, "k.co.cpp", "-o", "out", cwd=tmp_path)
    assert res.rc == 1, res
    assert res.err == FATAL, res   # one message: nothing about 'TILES', nothing from g++
    assert not (tmp_path / "out").exists()


def test_the_header_found_on_an_include_path_builds(tmp_path):
    (tmp_path / "k.co.cpp").write_text(PROGRAM)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "mykernels.h").write_text("#define TILES 4\n")
    res = run_croktilec("-Iinc", "k.co.cpp", "-o", "app", cwd=tmp_path)
    assert res.rc == 0, res
    assert (tmp_path / "app").exists()


def test_the_runtime_headers_need_no_include_path(tmp_path):
    (tmp_path / "k.co.cpp").write_text('#include "croktile.h"\n#define TILES 4\n' + PROGRAM.split("\n", 2)[2])
    res = run_croktilec("-fsyntax-only", "k.co.cpp", cwd=tmp_path)
    assert res.rc == 0, res
