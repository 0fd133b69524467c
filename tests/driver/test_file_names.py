"""File names with '"', '\\', a newline, a space, '??' (a trigraph), '$' and '#'.

They reach the generated sources in #line markers and string literals (escaped as C++
requires), come back out of the compiler's and croktilec's diagnostics and the run-time
checks as the user wrote them, and are spelled for make in depfiles. Each name is built,
run and made to fail on cpu, and its generated sources (-S) are checked on every target;
opencl (PoCL; skipped without an OpenCL platform unless CROKTILE_REQUIRE_OPENCL=1) and
factor, whose builds cost twice cpu's, build and run one name that holds every one of
these characters at once (an escaping slip for any of them breaks that build as surely).
"""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from helpers.croktilec import fails, ok, run_program

NAMES = ['a"b', "a\\b", "a\nb", "sp ace", "q??-x", "d$l#h", "end\\"]
IDS = ["quote", "backslash", "newline", "space", "trigraph", "dollar-hash", "trailing-backslash"]
# every character of NAMES in one name (the trailing backslash last)
ALL_IN_ONE = 'a"b\\c\nd sp??-x$l#h\\'
# (target, name) for the tests that build: every name on cpu, the combined one elsewhere
BUILT = [pytest.param("cpu", n, id=f"cpu-{i}") for n, i in zip(NAMES, IDS)] + \
    [pytest.param(t, ALL_IN_ONE, id=f"{t}-all-in-one") for t in ("opencl", "factor")]

PROGRAM = r"""#include <iostream>
__cok__ {
  extern "C" void kernel(int * a, int * b, int * c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}
__co__ s32 [6, 16] add(s32 [6, 16] lhs, s32 [6, 16] rhs) {
  s32 [lhs.span] out;
  parallel p by 6 {
    a = dma.copy lhs.chunkat(p, _) => local;
    b = dma.copy rhs.chunkat(p, _) => local;
    local s32 [a.span] c;
    call kernel(a.data, b.data, c, |a.span|);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}
int main() {
  static int a[6][16], b[6][16];
  for (int i = 0; i < 96; ++i) { (&a[0][0])[i] = i; (&b[0][0])[i] = 2 * i; }
  try { add(choreo::make_spanview<2>(&a[0][0], {5, 16}), choreo::make_spanview<2>(&b[0][0], {6, 16})); }
  catch (const croktile::runtime_error &e) { std::cout << "caught: " << e.what() << "\n"; }
  auto r = add(choreo::make_spanview<2>(&a[0][0], {6, 16}), choreo::make_spanview<2>(&b[0][0], {6, 16}));
  for (int i = 0; i < 6; ++i) for (int j = 0; j < 16; ++j) if (r[i][j] != 3 * a[i][j]) { std::cout << "FAIL\n"; return 1; }
  std::cout << "Test Passed\n";
}
"""
CO_LINE = 7          # the __co__ function's parameters: the shape check points here
HOST_LINE = 19       # a line of main
KERNEL_LINE = 4      # the __cok__ kernel's body


@pytest.fixture(scope="module")
def opencl_problem():
    from helpers.platforms import opencl_problem
    return opencl_problem()


def need(target: str, opencl_problem: str) -> None:
    """Skips (or, with CROKTILE_REQUIRE_OPENCL=1, fails) an opencl test without a platform."""
    if target == "opencl" and opencl_problem:
        if os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {opencl_problem}")
        pytest.skip(opencl_problem)


@pytest.fixture(params=["cpu", "opencl", "factor"])
def target(request, opencl_problem):
    need(request.param, opencl_problem)
    return request.param


def source(directory, stem: str, text: str = PROGRAM) -> str:
    name = stem + ".co.cpp"
    (directory / name).write_text(text)
    return name


@pytest.mark.parametrize("target, stem", BUILT)
def test_the_program_builds_runs_and_its_checks_name_the_file(tmp_path, stem, target, opencl_problem):
    need(target, opencl_problem)
    name = source(tmp_path, stem)
    built = ok("-t", target, name, "-o", "app", cwd=tmp_path)
    assert built.err == "", "no compiler complains (factor's assembler did of a newline)"
    run = run_program(tmp_path / "app")
    assert run.returncode == 0, run
    assert run.stdout.startswith(f"caught: {name}:{CO_LINE}:"), run.stdout
    assert run.stdout.endswith("Test Passed\n")


@pytest.mark.parametrize("stem", NAMES, ids=IDS)
def test_the_generated_source_says_the_name_once_per_marker(tmp_path, stem, target):
    """-S: every #line marker and string literal of the file name is one line, escaped."""
    name = source(tmp_path, stem)
    ok("-t", target, "-S", name, "-o", "gen.cpp", cwd=tmp_path)
    texts = [(tmp_path / "gen.cpp").read_text()]
    if target == "opencl":
        texts.append((tmp_path / "gen.cl").read_text())
    for text in texts:
        markers = [l for l in text.splitlines() if l.startswith("#line")]
        assert markers, "the generated source has #line markers"
        for marker in markers:
            assert marker.count('"') - marker.count('\\"') == 2, marker


@pytest.mark.parametrize("target, stem", BUILT)
def test_errors_name_the_file(tmp_path, stem, target, opencl_problem):
    """croktilec's own error, the C++ compiler's (through #line) and the device code's
    (on opencl clang's, on factor the device module's compiler), each at the right line of
    the file as named."""
    need(target, opencl_problem)
    tileflow = PROGRAM.replace("call kernel(a.data", "call kernel(undeclared.data")
    name = source(tmp_path, stem, tileflow)
    res = fails("-t", target, "-c", name, cwd=tmp_path)
    assert f"{name}:13:17: error:" in res.err, res.err
    host = PROGRAM.replace("  static int a[6][16], b[6][16];", "  static int a[6][16], b[6][16]; oops();")
    both = host.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + undeclared_x;")
    name = source(tmp_path, stem, both)
    res = fails("-t", target, "-c", name, cwd=tmp_path)
    assert f"{name}:{KERNEL_LINE}:" in res.err and "undeclared_x" in res.err, res.err
    if target != "cpu":   # the device program is compiled first and its error ends the build
        name = source(tmp_path, stem, host)
        res = fails("-t", target, "-c", name, cwd=tmp_path)
    assert f"{name}:{HOST_LINE}:34: error:" in res.err, res.err   # on cpu: the same compile's


DEP_NAMES = [n for n in NAMES if "\n" not in n] + ["t\tab"]


@pytest.mark.parametrize("stem", DEP_NAMES, ids=[i for n, i in zip(NAMES, IDS) if "\n" not in n] + ["tab"])
def test_depfiles_spell_the_names_for_make(tmp_path, stem):
    """make reads the depfile: up to date after the build, out of date once the .co.cpp changes."""
    from croktile_driver.driver.jobs import make_escape, make_words
    name = source(tmp_path, stem)
    obj, dep = stem + ".o", stem + ".d"
    ok("-c", "-MMD", name, "-o", obj, cwd=tmp_path)
    words = make_words((tmp_path / dep).read_text())
    assert words[:2] == [obj + ":", name], words
    if "\t" in stem:   # gcc's spelling of a tab, which make does not read: the round trip only
        return
    target = make_escape(obj)
    (tmp_path / "Makefile").write_text(f"all: {target}\n{target}:\n\t@echo rebuild\ninclude {make_escape(dep)}\n")
    make = subprocess.run(["make"], cwd=tmp_path, capture_output=True, text=True)
    assert make.returncode == 0 and "rebuild" not in make.stdout, make
    past = time.time() - 1000
    os.utime(tmp_path / obj, (past, past))
    make = subprocess.run(["make"], cwd=tmp_path, capture_output=True, text=True)
    assert make.returncode == 0 and make.stdout == "rebuild\n", make


def test_a_newline_has_no_spelling_in_a_depfile(tmp_path):
    name = source(tmp_path, "a\nb")
    res = fails("-c", "-MMD", name, "-o", "x.o", cwd=tmp_path)
    assert res.err == ("croktilec: error: cannot write 'x.d': make has no spelling for the newline in the "
                       "file name 'a\\nb.co.cpp'\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("name", NAMES + ["t\tab", "c:olon", "pc%", "two\\\\ sp", "é"])
def test_make_words_read_back_what_make_escape_writes(name):
    from croktile_driver.driver.jobs import make_escape, make_words
    if "\n" in name:
        return
    assert make_words(f"{make_escape('out.o')}: {make_escape(name)} \\\n  {make_escape(name + 'x')}\n") == \
        ["out.o:", name, name + "x"]


def test_make_words_read_what_gcc_writes(tmp_path):
    """The depfile gcc writes for headers with such names (what the driver reads back)."""
    headers = ["sp ace.h", "a\\ b.h", "d$l.h", "h#sh.h", "bs\\.h", "c:olon.h"]
    for h in headers:
        (tmp_path / h).write_text("\n")
    (tmp_path / "m.cpp").write_text("".join(f'#include "{h}"\n' for h in headers))
    subprocess.run(["c++", "-MMD", "-MF", "m.d", "-c", "m.cpp", "-o", "o ut.o"], cwd=tmp_path, check=True)
    from croktile_driver.driver.jobs import make_words
    assert make_words((tmp_path / "m.d").read_text()) == ["o ut.o:", "m.cpp", *headers]


@pytest.mark.parametrize("stem", NAMES, ids=IDS)
def test_names_survive_macro_expansion(tmp_path, stem):
    """With macros to expand the preprocessor writes the markers: the same names come out,
    and __FILE__ in host code is the name as given."""
    text = "#define ROWS 6\n" + PROGRAM.replace("s32 [6, 16] lhs", "s32 [ROWS, 16] lhs").replace(
        'std::cout << "Test Passed\\n";', 'std::cout << __FILE__ << "\\nTest Passed\\n";')
    name = source(tmp_path, stem, text)
    ok("-DUNUSED=1", name, "-o", "app", cwd=tmp_path)
    run = run_program(tmp_path / "app")
    assert run.stdout.startswith(f"caught: {name}:{CO_LINE + 1}:"), run.stdout
    assert run.stdout.endswith(f"\n{name}\nTest Passed\n"), run.stdout
    name = source(tmp_path, stem, text.replace("call kernel(a.data", "call kernel(undeclared.data"))
    res = fails("-DUNUSED=1", "-c", name, cwd=tmp_path)
    assert f"{name}:14:17: error:" in res.err, res.err
