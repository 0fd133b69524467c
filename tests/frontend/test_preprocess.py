"""The preprocessor stage: macros and #if apply to __co__ code, #include passes through,
and every message keeps pointing at the user's file, line and column."""
from __future__ import annotations

import textwrap
from pathlib import Path

from helpers.inprocess import parse_diags

KERNEL = "__device__ void kernel(int *a, int n) {}\n"


def write(path, text: str):
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def only_errors(result):
    return [(d.line, d.col, d.msg) for d in parse_diags(result.err) if d.kind == "error"]


def test_define_used_in_co_code(tmp_path, croktilec):
    src = write(tmp_path / "define.co.cpp", """
        #define N 6
        #define HALF(x) ((x) / 2)
        __co__ void f(s32 [N, 8] a) {
          parallel p by N {
            with i in [HALF(8)] {
              foreach i {
                x = dma.copy a.chunkat(p, i) => local;
              }
            }
          }
        }
        """)
    r = croktilec("-fsyntax-only", src)
    assert (r.rc, r.err) == (0, "")
    r = croktilec("--dump-ir", src)
    assert r.rc == 0, r.err
    assert "parallel p by 6" in r.out
    assert "for i__0 in [0, 4)" in r.out


def test_conditional_on_an_unknown_macro_in_co_code(tmp_path, croktilec):
    """Only croktilec reads a __co__ function: `#ifdef X` there with X given by no -D or
    #define is false, as gcc would have it (in host code it is left for the C++ compiler)."""
    src = write(tmp_path / "ifdef.co.cpp", """
        __co__ s32 [4] f(s32 [4] a) {
          s32 [4] out;
          parallel p by 1 {
            foreach i in [4] {
        #ifdef DOUBLE_IT
              out.at(i) = a.at(i) * 2;
        #else
              out.at(i) = a.at(i) + 1;
        #endif
            }
          }
          return out;
        }
        #ifdef SOME_HOST_MACRO
        #error the host compiler decides this one
        #endif
        """)
    r = croktilec("--dump-ir", src)
    assert r.rc == 0, r.err
    assert "(a[i__0] + 1)" in r.out and "* 2" not in r.out, r.out
    r = croktilec("--dump-ir", "-DDOUBLE_IT", src)
    assert r.rc == 0, r.err
    assert "(a[i__0] * 2)" in r.out, r.out
    r = croktilec("-E", src)
    assert "#ifdef SOME_HOST_MACRO" in r.out


def test_command_line_define(tmp_path, croktilec):
    src = write(tmp_path / "dflag.co.cpp", """
        __co__ void f(s32 [16] a) {
          parallel p by TILES {
            x = dma.copy a.chunkat(p) => local;
          }
        }
        """)
    r = croktilec("-fsyntax-only", "-DTILES=4", src)
    assert (r.rc, r.err) == (0, "")
    r = croktilec("--dump-ir", "-D", "TILES=8", src)
    assert r.rc == 0 and "parallel p by 8" in r.out, r.err
    # a bound that does not divide the literal dimension is caught through the macro
    r = croktilec("-fsyntax-only", "-DTILES=3", src)
    assert r.rc == 1
    assert [(line, msg) for line, _, msg in only_errors(r)] == [
        (3, "dimension 0 of 'a' (16) is not divisible by the bound of 'p' (3)")]
    # without the macro the name is undefined, reported at its use
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert only_errors(r) == [(2, 17, "'TILES' was not declared in this scope")]
    # -U removes a definition made earlier on the command line
    r = croktilec("-fsyntax-only", "-DTILES=4", "-UTILES", src)
    assert r.rc == 1 and "'TILES' was not declared" in r.err


def test_if_0_removes_a_broken_function(tmp_path, croktilec):
    src = write(tmp_path / "if0.co.cpp", """
        __co__ void good() {}
        #if 0
        __co__ void broken( { this is not tileflow @@
          parallel p by { call ;
        #endif
        #ifdef NOT_DEFINED_ANYWHERE_ELSE
        __co__ void other() { int x = undefined_name; }
        #endif
        __co__ void after() {
          int y = nope;
        }
        """)
    r = croktilec("-fsyntax-only", "-UNOT_DEFINED_ANYWHERE_ELSE", src)
    assert r.rc == 1
    # only the error of the live function, at its original line
    assert only_errors(r) == [(10, 11, "'nope' was not declared in this scope")]


def test_error_after_include_keeps_original_line(tmp_path, croktilec):
    inc = tmp_path / "inc"
    inc.mkdir()
    write(inc / "helpers.h", """
        #pragma once
        // several lines that must not shift the line numbers of the including file
        int helper1();
        int helper2();
        int helper3();
        #define TILE 4
        """)
    src = write(tmp_path / "incl.co.cpp", """
        #include "helpers.h"
        #include <vector>
        #include <not_found_anywhere.h>

        __co__ void f(s32 [8] a) {
          parallel p by TILE {
            int bad = missing_name;
          }
        }
        """)
    r = croktilec("-fsyntax-only", "-I", inc, src)
    assert r.rc == 1
    assert only_errors(r) == [(7, 15, "'missing_name' was not declared in this scope")]
    d = parse_diags(r.err)[0]
    assert d.file == str(src)
    assert r.err.splitlines()[1] == "    int bad = missing_name;"


def test_header_beside_the_source_defines_macros(tmp_path, croktilec):
    write(tmp_path / "tiles.h", "#define TILE 4\n")
    src = write(tmp_path / "beside.co.cpp", """
        #include "tiles.h"
        __co__ void f(s32 [8] a) {
          parallel p by TILE {
            x = dma.copy a.chunkat(p) => local;
          }
        }
        """)
    r = croktilec("-fsyntax-only", src)
    assert (r.rc, r.err) == (0, "")


def test_dash_E_keeps_includes(tmp_path, croktilec):
    inc = tmp_path / "inc"
    inc.mkdir()
    write(inc / "cfg.h", "#define WIDTH 6\n")
    src = write(tmp_path / "pre.co.cpp", """
        #include "croktile.h"
        #include <vector>
        #include "cfg.h"
        #define N 6
        __co__ void f(s32 [N] a) {
          parallel p by WIDTH {}
        }
        """)
    r = croktilec("-E", "-I", inc, src)
    assert r.rc == 0, r.err
    lines = r.out.splitlines()
    for inc_line in ('#include "croktile.h"', "#include <vector>", '#include "cfg.h"'):
        assert inc_line in lines
    assert "__co__ void f(s32 [6] a) {" in lines
    assert "  parallel p by 6 {}" in lines
    assert "WIDTH" not in r.out.replace("#define WIDTH", "")
    # -o writes the same text to a file
    out = tmp_path / "pre.ii"
    r2 = croktilec("-E", "-I", inc, src, "-o", out)
    assert r2.rc == 0 and out.read_text() == r.out


def test_macro_expansion_keeps_user_columns(tmp_path, croktilec):
    src = write(tmp_path / "cols.co.cpp", """
        #define NUM_TILES 6
        __co__ void f() {
          parallel p by NUM_TILES { int z = NUM_TILES + bad; }
        }
        __co__ void g() {
          int w = NUM_TILES
        }
        """)
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert only_errors(r) == [
        (3, 49, "'bad' was not declared in this scope"),
        (6, 20, "expected ';' before '}'"),   # right after the macro name, as written
    ]
    lines = r.err.splitlines()
    assert lines[2].index("^") == lines[1].index("bad")


def test_macro_arguments_keep_their_own_columns(tmp_path, croktilec):
    """A macro's argument is the user's text moved: an error in it is at its own column;
    an error in a macro's body is at the macro's name, as gcc says it. An expansion that
    holds the text after it (`a + b` before ` + `) does not mislead the mapping."""
    src = write(tmp_path / "args.co.cpp", """
        #define PLUS_B a + b
        #define HALF(x) ((x) / 2)
        #define ADD(x, y) (x) + (y)
        #define ONE 1
        #define USES_BAD (bad6 + 1)
        __co__ void f() {
          int a = 1;
          int b = 2;
          int y = PLUS_B + HALF(bad1) + ADD(ONE, bad2) + bad3 + HALF(ONE + PLUS_B) + bad4;
          int z = PLUS_B + /* comment */ HALF(b) +   bad5 * ONE + USES_BAD;
        }
        """)
    r = croktilec("-fsyntax-only", src)
    line9 = "  int y = PLUS_B + HALF(bad1) + ADD(ONE, bad2) + bad3 + HALF(ONE + PLUS_B) + bad4;"
    line10 = "  int z = PLUS_B + /* comment */ HALF(b) +   bad5 * ONE + USES_BAD;"
    assert only_errors(r) == [
        (9, line9.index("bad1") + 1, "'bad1' was not declared in this scope"),
        (9, line9.index("bad2") + 1, "'bad2' was not declared in this scope"),
        (9, line9.index("bad3") + 1, "'bad3' was not declared in this scope"),
        (9, line9.index("bad4") + 1, "'bad4' was not declared in this scope"),
        (10, line10.index("bad5") + 1, "'bad5' was not declared in this scope"),
        (10, line10.index("USES_BAD") + 1, "'bad6' was not declared in this scope"),
    ]


def test_preprocessor_errors_are_gcc_style(tmp_path, croktilec):
    src = write(tmp_path / "pperr.co.cpp", """
        #define F(x) x
        int y = F(1, 2);
        #ifdef BOOM
        #error boom is set
        #endif
        """)
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert only_errors(r) == [(2, 9, 'macro "F" passed 2 arguments, but takes just 1')]
    r = croktilec("-fsyntax-only", "-DBOOM", src)
    assert (4, 1, "#error boom is set") in only_errors(r)

    unterminated = write(tmp_path / "unterminated.co.cpp", "#if 1\n__co__ void f() {}\n")
    r = croktilec("-fsyntax-only", unterminated)
    assert r.rc == 1 and only_errors(r) == [(1, 1, "unterminated #if")]
    assert r.err.splitlines()[1] == "#if 1"   # no blank line between message and source

    empty = write(tmp_path / "empty_if.co.cpp", "#if\n#endif\n__co__ void f() {}\n")
    r = croktilec("-fsyntax-only", empty)
    assert r.rc == 1 and only_errors(r) == [(1, 1, "#if with no expression")]
    assert "internal compiler error" not in r.err


def test_file_named_as_given(tmp_path, monkeypatch, croktilec):
    # with preprocessing active, messages still name the file exactly as it was passed
    # (pcpp itself would print absolute paths, shortened relative to the cwd)
    sub = tmp_path / "src"
    sub.mkdir()
    write(sub / "named.co.cpp", """
        #define N 4
        __co__ void f() {
          int x = N + bad;
        }
        """)
    monkeypatch.chdir(tmp_path)
    for given in ("src/named.co.cpp", "./src/named.co.cpp", str(sub / "named.co.cpp"),
                  "src/../src/named.co.cpp"):
        r = croktilec("-fsyntax-only", given)
        assert r.rc == 1
        assert r.err.startswith(f"{given}:3:15: error: 'bad' was not declared in this scope\n"), r.err
    r = croktilec("-E", "src/named.co.cpp")
    assert r.out.startswith('#line 1 "src/named.co.cpp"')


def _errors(result):
    return [(Path(d.file).name, d.line, d.col, d.msg) for d in parse_diags(result.err) if d.kind == "error"]


def test_file_including_itself_is_an_include_depth_error(tmp_path, croktilec):
    src = tmp_path / "self.co.cpp"
    src.write_text('#include "self.co.cpp"\n__co__ void f() {}\n')
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert _errors(r) == [("self.co.cpp", 1, 10, "#include nested depth 200 exceeds maximum of 200")]


def test_include_cycle_is_an_include_depth_error(tmp_path, croktilec):
    (tmp_path / "a.h").write_text('#define A 1\n#include "b.h"\n')
    (tmp_path / "b.h").write_text('  #  include "a.h"\n')
    src = tmp_path / "cycle.co.cpp"
    src.write_text('int x;\n#include "a.h"\n__co__ int f() { return A; }\n')
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    errors = _errors(r)
    assert len(errors) == 1 and errors[0][3] == "#include nested depth 200 exceeds maximum of 200", r.err
    assert errors[0][:3] in (("a.h", 2, 10), ("b.h", 1, 14)), r.err


def test_deep_but_finite_includes_and_macros_work(tmp_path, croktilec):
    depth = 150
    for k in range(depth):
        nested = f'#include "h{k + 1}.h"\n' if k + 1 < depth else "#define DEEPEST 7\n"
        (tmp_path / f"h{k}.h").write_text(nested)
    macros = "".join(f"#define M{k}(x) M{k - 1}(x)\n" for k in range(1, 1000))
    src = tmp_path / "deep.co.cpp"
    src.write_text('#include "h0.h"\n#define M0(x) x\n' + macros + "#if " + "(" * 2000 + "1" + ")" * 2000
                   + "\n__co__ int f() { return M999(DEEPEST); }\n#endif\n")
    r = croktilec("--dump-ir", src)
    assert (r.rc, r.err) == (0, "")
    assert "return 7" in r.out


def test_macro_nesting_too_deep_is_an_error(tmp_path, croktilec):
    levels = 30000
    macros = "".join(f"#define M{k}(x) M{k - 1}(x)\n" for k in range(1, levels))
    src = tmp_path / "macros.co.cpp"
    src.write_text("#define M0(x) x\n" + macros + f"__co__ int f() {{\n  return M{levels - 1}(1);\n}}\n")
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert _errors(r) == [("macros.co.cpp", levels + 2, 10, "macro expansion nested too deeply")]


def test_lines_after_conditionals_inside_co_code(tmp_path, croktilec):
    """#if inside a __co__ function leaves #line markers in its text; the lexer follows them."""
    src = write(tmp_path / "cond.co.cpp", """
        #define W 2
        __co__ void f(s32 [8] a) {
        #if W > 1
          int x = #p + #q;
        #else
          int y = 1;
        #endif
          int z = r;
        }
        """)
    r = croktilec("-fsyntax-only", src)
    assert only_errors(r) == [(4, 12, "'p' was not declared in this scope"),
                              (4, 17, "'q' was not declared in this scope"),
                              (8, 11, "'r' was not declared in this scope")]
