"""An i-tuple literal `{a, b}` is an operand wherever a named i-tuple may stand (issue #11).

Each operand position is compiled twice: once with the literal, once with a named i-tuple
of the same values whose name is as long as the literal, so that every column matches.
Both forms must give the same IR (``--dump-ir``) or the same diagnostics.
"""
from __future__ import annotations

import shutil

import pytest

from helpers.croktilec import ok, run_program

from helpers.inprocess import parse_diags

LITERAL = "{2, 4}"
NAMED = "tt2_4_"   # as long as LITERAL: columns of both forms agree
assert len(LITERAL) == len(NAMED)

PROGRAM = """__device__ void kernel(int *a, int n) {}
__co__ s32 [8, 16] f(s32 [8, 16] a, int n) {
  s32 [8, 16] out;
  tt2_4_ = {2, 4};
  sp = a.span;
  parallel p by 2 {
    with {i, j} in [2, 4] {
      foreach i, j {
        STMT
      }
    }
  }
  return out;
}
"""

# statements with T where an i-tuple stands
ACCEPTED = [
    "x : sp / T;", "x = sp + T;", "x = sp - T;", "x = sp * T;", "x = sp % T;",
    "x = a.span / T;", "x = T * 2;", "x = T + T;", "x = T / {1, 2};", "x = {1, 2} * T;",
    "x = sp / (T * {1, 1});", "ituple x = T;", "mdspan<2> x : T;", "x : T;",
    "local s32 [sp / T] x;", "with w in T { }", "x = sp / T / T;",
    "c = dma.copy a.chunkat(p, _) => local; y = c.span / T;", "x = T * sp;",
    "local s32 [T] x;", "x : [T, 1];",
]
REJECTED = [
    "x = T == T;", "x = T < T;", "x = -T;", "x = p ? T : T;",
    "x = |T|;", "x = T.span;", "x = T[0];",
    "x : sp / T / {1, 2, 3};", "c = dma.copy a.chunkat(p, T) => local;",
    "call kernel<T>(0, 1);", "call kernel(T, 1);", "int x = T;", "x = sp / (T - T);",
    "foreach i if (T) { }",
]


def compile_both(tmp_path, croktilec, stmt: str):
    results = []
    for form in (LITERAL, NAMED):
        src = tmp_path / "t.co.cpp"
        src.write_text(PROGRAM.replace("STMT", stmt.replace("T", form)))
        results.append(croktilec("--dump-ir", src))
    return results


def diagnostics(result):
    """(line, col, kind, message); a message that names the i-tuple names nothing for a literal."""
    return [(d.line, d.col, d.kind, d.msg.replace(f" '{NAMED}'", "")) for d in parse_diags(result.err)]


@pytest.mark.parametrize("stmt", ACCEPTED)
def test_literal_lowers_as_the_named_ituple(tmp_path, croktilec, stmt):
    literal, named = compile_both(tmp_path, croktilec, stmt)
    assert (named.rc, named.err) == (0, ""), named.err
    assert (literal.rc, literal.err) == (0, ""), literal.err
    assert literal.out == named.out


@pytest.mark.parametrize("stmt", REJECTED)
def test_literal_is_rejected_as_the_named_ituple(tmp_path, croktilec, stmt):
    literal, named = compile_both(tmp_path, croktilec, stmt)
    assert named.rc == 1 and diagnostics(named), named.err
    assert "expected" not in named.err, named.err   # a semantic error, not a syntax error
    assert literal.rc == 1
    assert diagnostics(literal) == diagnostics(named)


def test_operand_positions_cover_the_grammar():
    """Both lists hold the tuple in every position: left and right operand, call argument,
    template argument, bound, definition, declaration."""
    joined = " ".join(ACCEPTED + REJECTED)
    for pattern in ("/ T", "+ T", "- T", "* T", "% T", "T *", "(T", "<T>", "in T", "[T", "? T"):
        assert pattern in joined, pattern


TILED_ADD = r"""#include <iostream>
__device__ void kernel(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) c[i] = a[i] + b[i]; }
__co__ s32 [6, 16] add(s32 [6, 16] lhs, s32 [6, 16] rhs) {
  s32 [lhs.span] out;
  GRID_DEF
  parallel p by 1 {
    with {i, j} in lhs.span / TILE {
      foreach i, j {
        a = dma.copy lhs.chunkat(i, j) => local;
        b = dma.copy rhs.chunkat(i, j) => local;
        local s32 [a.span] c;
        call kernel(a.data, b.data, c, |a.span|);
        dma.copy c => out.chunkat(i, j);
      }
    }
  }
  return out;
}
int main() { int a[6][16], b[6][16]; for (int i=0;i<96;++i){(&a[0][0])[i]=i;(&b[0][0])[i]=3*i+1;}
  auto r = add(croktile::make_spanview<2>(&a[0][0], {6,16}), croktile::make_spanview<2>(&b[0][0], {6,16}));
  for (int i=0;i<6;++i) for(int j=0;j<16;++j) if (r[i][j] != a[i][j]+b[i][j]) { std::cout << "FAIL\n"; return 1; }
  std::cout << "Test Passed\n"; }
"""


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
@pytest.mark.parametrize("form", ["literal", "named"])
def test_literal_program_runs_on_cpu(tmp_path, form):
    """`with {i, j} in lhs.span / {3, 4}`: [3, 4] tiles, each added by the kernel."""
    grid_def, tile = ("", "{3, 4}") if form == "literal" else ("tile = {3, 4};", "tile")
    (tmp_path / "add.co.cpp").write_text(TILED_ADD.replace("GRID_DEF", grid_def).replace("TILE", tile))
    ok("add.co.cpp", "-t", "cpu", "-o", "add", cwd=tmp_path)
    run = run_program(tmp_path / "add")
    assert (run.returncode, run.stdout) == (0, "Test Passed\n"), run
