"""croktilec leaves <random> and the random/sparse helpers out of programs that use none
(toolchains/lean_headers.py): those compile faster, and a program whose host code does use
them, relying on croktile.h for <random> as before, still builds and runs."""
from __future__ import annotations

from helpers.croktilec import ok, run_program

KERNEL = r"""__co__ s32 [8] twice(s32 [8] a) {
  s32 [8] out;
  parallel p by 2 {
    x = dma.copy a.chunkat(p) => local;
    dma.copy x => out.chunkat(p);
  }
  return out;
}
"""
PLAIN = KERNEL + r"""int main() {
  auto a = croktile::make_spandata<croktile::s32>(8);
  a.fill(3);
  auto r = twice(a.view());
  std::cout << (r[7] == 3 ? "Test Passed" : "FAIL") << "\n";
}
"""
# std::mt19937 and fill_random without an #include of <random>: croktile.h brings it
RANDOM = KERNEL + r"""int main() {
  auto a = croktile::make_spandata<croktile::s32>(8);
  a.fill_random(1, 5);
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> pick(0, 7);
  const int i = pick(gen);
  auto r = twice(a.view());
  std::cout << (r[i] == a[i] && a[i] >= 1 && a[i] <= 5 ? "Test Passed" : "FAIL") << "\n";
}
"""
DEFINE = "#define CROKTILE_NO_RANDOM"


def _source(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    ok("-S", name, "-o", name + ".cpp", cwd=tmp_path)
    return (tmp_path / (name + ".cpp")).read_text()


def test_a_program_without_random_data_compiles_without_random(tmp_path):
    generated = _source(tmp_path, "plain.co.cpp", PLAIN)
    assert DEFINE in generated.split('#include "croktile.h"')[0]
    ok("plain.co.cpp", "-o", "plain", cwd=tmp_path)
    assert run_program(tmp_path / "plain").stdout == "Test Passed\n"


def test_a_program_using_random_gets_it_from_the_runtime(tmp_path):
    assert DEFINE not in _source(tmp_path, "random.co.cpp", RANDOM)
    ok("random.co.cpp", "-o", "random", cwd=tmp_path)
    assert run_program(tmp_path / "random").stdout == "Test Passed\n"


def test_a_header_of_the_users_own_keeps_the_whole_runtime(tmp_path):
    """The header may call fill_random where croktilec cannot see it."""
    (tmp_path / "fill.h").write_text("#pragma once\ntemplate <class D> void fill(D& d) { d.fill_random(1, 5); }\n")
    text = '#include "fill.h"\n' + PLAIN.replace("a.fill(3);", "fill(a); a.fill(3);")
    assert DEFINE not in _source(tmp_path, "own.co.cpp", text)
    ok("own.co.cpp", "-o", "own", cwd=tmp_path)
    assert run_program(tmp_path / "own").stdout == "Test Passed\n"
