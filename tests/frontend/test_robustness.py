"""Absurd but possible input gets a diagnostic, never an internal compiler error."""
from __future__ import annotations

from helpers.inprocess import parse_diags


def test_very_deep_expression_is_an_error(tmp_path, croktilec):
    src = tmp_path / "deep.co.cpp"
    src.write_text("__co__ void f(s32 [4] a) {\n"
                   "  int x = " + " + ".join(["1"] * 3000) + ";\n"
                   "  sp : a" + ".span" * 2000 + ";\n"
                   "  int ok = 1 + 2;\n"
                   "}\n")
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1, r.err
    assert "internal compiler error" not in r.err
    errors = [(d.line, d.msg) for d in parse_diags(r.err) if d.kind == "error"]
    assert errors == [(2, "statement too complex: its expressions are nested too deeply"),
                      (3, "statement too complex: its expressions are nested too deeply")]
    r = croktilec("--dump-ast", src)
    assert r.rc == 0 and "internal compiler error" not in r.err
    assert r.out.count("BinOp") == 2999 + 1   # and the `1 + 2` of line 4


def test_many_parentheses(tmp_path, croktilec):
    src = tmp_path / "parens.co.cpp"
    src.write_text("__co__ int f() { return " + "(" * 5000 + "7" + ")" * 5000 + "; }\n")
    r = croktilec("-fsyntax-only", src)
    assert (r.rc, r.err) == (0, "")


def test_binary_and_empty_files(tmp_path, croktilec):
    empty = tmp_path / "empty.co.cpp"
    empty.write_text("")
    r = croktilec("-fsyntax-only", empty)
    assert (r.rc, r.err) == (0, "")
    binary = tmp_path / "binary.co.cpp"
    binary.write_bytes(b"\xff\xfe\x00__co__ void f() {}\x00")
    r = croktilec("-fsyntax-only", binary)
    assert r.rc == 1, r.err
    assert [(d.line, d.col, d.msg) for d in parse_diags(r.err)] == [
        (1, 1, "invalid UTF-8 in C++ code: byte 0xff; only comments and string literals may hold such bytes")]


def test_unterminated_literals_and_comments(tmp_path, croktilec):
    for i, text in enumerate(['const char *s = "abc\n__co__ void f() {}\n',
                              "/* never closed\n__co__ void f() {}\n",
                              'auto r = R"(never closed\n__co__ void f() {}\n',
                              "__co__ void f() { /* open\n}\n",
                              "__co__ void f(\n",
                              "__cok__\n",
                              "__co__\n"]):
        src = tmp_path / f"lit{i}.co.cpp"
        src.write_text(text)
        r = croktilec("-fsyntax-only", src)
        assert r.rc in (0, 1), (text, r.err)
        assert "internal compiler error" not in r.err and "Traceback" not in r.err, (text, r.err)


def test_integer_constants_of_any_length(tmp_path, croktilec):
    """Python refuses to convert more than 4300 decimal digits; the lexer never asks it to."""
    for digits in ("9" * 4301, "1" + "0" * 100_000, "0x" + "f" * 5000, "0b" + "1" * 5000):
        src = tmp_path / "long.co.cpp"
        src.write_text(f"__co__ int f() {{\n  int a = 1 + {digits};\n  return a;\n}}\n")
        r = croktilec("-fsyntax-only", src)
        assert r.rc == 1, r.err
        assert [(d.line, d.col, d.msg) for d in parse_diags(r.err)] == [
            (2, 15, "integer constant is too large for type 'int' (the largest is 2147483647)")]
    src.write_text(f"__co__ int f() {{\n  return {'0' * 5000}7;\n}}\n")   # long, but small
    r = croktilec("--dump-ir", src)
    assert r.rc == 0 and "return 7" in r.out, r.err


def test_cxx_constants_parse_but_are_no_int(tmp_path, croktilec):
    """A 64-bit or suffixed constant is C++: it parses (the reference's parse/int64.co),
    and its use in tileflow code is the error, at the constant."""
    src = tmp_path / "wide.co.cpp"
    src.write_text("__co__ void f() {\n  x = 12345678910;\n  z = 18446744073709551615ULL;\n}\n")
    r = croktilec("--dump-ast", src)
    assert r.rc == 0 and "value=12345678910" in r.out and "value=18446744073709551615" in r.out, r.err
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert [(d.line, d.col, d.msg) for d in parse_diags(r.err)] == [
        (2, 7, "integer constant is too large for type 'int' (the largest is 2147483647)"),
        (3, 7, "invalid suffix 'ULL' on integer constant; tileflow integers are 'int', written without a suffix")]
