"""The C++ compiler's messages about generated code name real places of the user's file
(issue #36): every generated line is at the line of the statement it was generated for
(codegen/cxx.py: pin_lines), and a column the compiler counted in generated text is not shown
(driver/cxx_messages.py); messages about the user's own C++ keep theirs."""
from __future__ import annotations

import sys

import pytest

from croktile_driver.driver.cxx_messages import Remapper, generated_lines
from helpers.corpus import CORPUS
from helpers.croktilec import fails

USER = "#include <cstdio>\n__co__ void f() {\n  parallel p by 2 {}\n}\nint main() { return oops; }\n"
GENERATED = ('#include "croktile.h"\n'
             'static const char device[] = R"X(\n#line 9 "u.co.cpp"\n)X";   // opencl: the device program\n'
             '#line 2 "u.co.cpp"\n'
             'void f() {\n'
             '  #line 3 "u.co.cpp"\n'
             '  croktile::cpu::parallel_for(2, [&](long long p) {\n'
             '  });\n'
             '}\n'
             '#line 5 "u.co.cpp"\n'
             'int main() { return oops; }\n')


def test_a_column_in_generated_code_is_dropped_and_the_users_is_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "u.co.cpp").write_text(USER)
    output = ("u.co.cpp:3:40: error: something about the generated code\n"
              "    3 |   parallel p by 2 {}\n"
              "      |                                        ^\n"
              "u.co.cpp:5:21: error: 'oops' was not declared in this scope\n"
              "    5 | int main() { return oops; }\n"
              "      |                     ^~~~\n")
    assert Remapper(GENERATED).rewrite(output).splitlines() == [
        "u.co.cpp:3: error: something about the generated code",
        "  parallel p by 2 {}",
        "u.co.cpp:5:21: error: 'oops' was not declared in this scope",
        "    5 | int main() { return oops; }",
        "      |                     ^~~~"]


def test_directives_inside_a_raw_string_are_text():
    at = generated_lines(GENERATED)
    assert ("u.co.cpp", 9) not in at
    assert at[("u.co.cpp", 3)] == ["  croktile::cpu::parallel_for(2, [&](long long p) {"]


@pytest.mark.parametrize("case, target", [("mma/run_group4.co.cpp", "cuda"), ("events/pipeline.co.cpp", "cpu"),
                                          ("events/pipeline.co.cpp", "factor"), ("dma/dma_forms.co.cpp", "opencl")])
def test_every_generated_line_is_at_a_line_of_the_file(tmp_path, croktilec, case, target):
    """Lines after a `#line` counted on from it: a kernel's first lines claimed the lines
    after its `parallel` (other statements, or lines past the end of the file)."""
    src = CORPUS / case
    r = croktilec("-t", target, "-arch=sm_90a" if target == "cuda" else "-w", "-S", src, "-o", tmp_path / "out")
    assert r.rc == 0, r.err
    user = src.read_text().splitlines()
    for name in [p for p in tmp_path.iterdir()]:
        for (file, line), texts in generated_lines(name.read_text()).items():
            code = [t for t in texts if t.strip() and not t.lstrip().startswith("#") and any(c.isalnum() for c in t)]
            if file == str(src) and code:
                assert line <= len(user), (name.name, line, code)
                if len(code) > 1 or code[0] != user[line - 1]:   # generated code: its statement's line
                    assert user[line - 1].strip(), (name.name, line, code)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's <sys/types.h> declares 'uint'")
def test_a_compiler_error_in_generated_code_has_no_made_up_column(tmp_path):
    """`uint` is glibc's type: a __co__ function of that name is the C++ compiler's error
    (the runtime does not reserve the C library's names), which gcc put at 1:158."""
    (tmp_path / "u.co.cpp").write_text("__co__ s32 [8] uint(s32 [8] a) {\n  s32 [8] out;\n"
                                       "  parallel p by 2 {\n    x = dma.copy a.chunkat(p) => local;\n"
                                       "    dma.copy x.data => out.chunkat(p);\n  }\n  return out;\n}\n"
                                       "int main() { return 0; }\n")
    res = fails("-c", "u.co.cpp", cwd=tmp_path)
    errors = [l for l in res.err.splitlines() if "u.co.cpp:" in l and "error:" in l]
    assert errors and all(l.startswith("u.co.cpp:1: error:") for l in errors), res.err
    assert "__co__ s32 [8] uint(s32 [8] a) {" in res.err
