"""Source bytes that are not UTF-8, and characters that do not print (issue #11).

Host C++ may hold any bytes in comments and string literals, as the C++ compiler accepts
them; they pass through to the generated file byte for byte. Elsewhere (host code outside
those, tileflow code) the first bad byte is an error at its line and column. A quoted
source line shows such bytes as <FF> and non-printing characters as <U+2028>, as clang
does, with the caret still under the column the diagnostic names.
"""
from __future__ import annotations

import subprocess

import pytest

from helpers.croktilec import croktilec_cmd, driver_env

from helpers.inprocess import parse_diags

KERNEL = b"__device__ void kernel(int n) {}\n"


def compile_bytes(tmp_path, croktilec, source: bytes, *args):
    src = tmp_path / "enc.co.cpp"
    src.write_bytes(source)
    return croktilec(*(args or ("-fsyntax-only",)), src)


def quoted(result, index=0):
    """(line, col, message, shown source line, caret line) of the index-th diagnostic."""
    d = parse_diags(result.err)[index]
    lines = result.err.splitlines()
    return d.line, d.col, d.msg, lines[d.index + 1], lines[d.index + 2]


HOST_PLACES = [
    b"// a comment \xff\xfe caf\xe9\n",
    b"/* a block\n   comment \x80\x81 */\n",
    b'static const char *s = "caf\xe9 \xc3\x28";\n',
    b"static const char c = '\xe9';\n",
    b'static const char *r = R"(\xff)";\n',
    b"#define HOST_ONLY \"\xfe\"\n",
]


@pytest.mark.parametrize("host", HOST_PLACES, ids=range(len(HOST_PLACES)))
def test_bad_bytes_where_cpp_accepts_them_pass_through(tmp_path, croktilec, host):
    source = host + KERNEL + (b"__co__ void f(s32 [8] a) {\n  // tileflow comment \xff\n"
                              b"  parallel p by 2 { call kernel(1); }\n}\n")
    r = compile_bytes(tmp_path, croktilec, source)
    assert (r.rc, r.err) == (0, "")
    generated = tmp_path / "enc.gen.cpp"
    r = compile_bytes(tmp_path, croktilec, source, "-S", "-t", "cpu", "-o", generated)
    assert r.rc == 0, r.err
    assert host in generated.read_bytes()   # byte for byte


@pytest.mark.parametrize("line, col, byte", [
    (b"\xff int x;", 1, "ff"),
    (b"int \x80x;", 5, "80"),
    (b"int x = 1; \xc3\x28", 12, "c3"),          # a lead byte without its continuation
    ("int größe = 1; \t".encode() + b"\xed\xa0\x80;", 17, "ed"),   # an encoded surrogate
])
def test_bad_byte_in_host_code_is_an_error_at_it(tmp_path, croktilec, line, col, byte):
    r = compile_bytes(tmp_path, croktilec, b"int ok;\n" + line + b"\nint after = \xff;\n")
    assert r.rc == 1
    assert [(d.line, d.col) for d in parse_diags(r.err)] == [(2, col)]   # the first bad byte only
    assert quoted(r)[2] == (f"invalid UTF-8 in C++ code: byte 0x{byte}; only comments and string "
                            "literals may hold such bytes")


@pytest.mark.parametrize("stmt, col, shown, caret, message", [
    (b"\xffint x = 1;", 3, "  <FF>int x = 1;", "  ^", "byte 0xff"),
    (b"int x = 1 \xfe\xfd;", 13, "  int x = 1 <FE><FD>;", "            ^", "bytes 0xfe 0xfd"),
    (b"\tint x = \xc3\x28;", 12, "  \tint x = <C3>(;", "  \t        ^", "byte 0xc3"),
    ("/* 注 */ int x = ".encode() + b"\xff;", 19,      # 注 takes two columns
     "  /* 注 */ int x = <FF>;", " " * 19 + "^", "byte 0xff"),
])
def test_bad_byte_in_tileflow_code_is_an_error_at_it(tmp_path, croktilec, stmt, col, shown, caret, message):
    r = compile_bytes(tmp_path, croktilec, KERNEL + b"__co__ void f(s32 [8] a) {\n  " + stmt + b"\n}\n")
    assert r.rc == 1
    errors = [d for d in parse_diags(r.err) if d.kind == "error"]
    assert [(d.line, d.col) for d in errors][:1] == [(3, col)], r.err
    assert quoted(r) == (3, col, f"invalid UTF-8 in tileflow code: {message}", shown, caret)


def test_bad_byte_in_the_function_header(tmp_path, croktilec):
    r = compile_bytes(tmp_path, croktilec, b"__co__ void f\xff(s32 [8] a) {}\n")
    assert r.rc == 1
    assert quoted(r)[:3] == (1, 14, "invalid UTF-8 in tileflow code: byte 0xff")


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u202e", "\u200b", "\x07", "\x0c", "\x0b", "\x85",
                                  "\x1b", "\x7f", "\ufeff"])
def test_non_printing_characters_are_escaped_in_the_quoted_line(tmp_path, croktilec, char):
    # the character stands in a comment before the error: the line keeps its layout
    source = KERNEL + ("__co__ void f(s32 [8] a) {\n"
                       f"  /*{char}*/ int x = y;\n"
                       f"  // {char} a comment line\n"
                       "  int z = w;\n}\n").encode()
    r = compile_bytes(tmp_path, croktilec, source)
    assert r.rc == 1
    esc = f"<U+{ord(char):04X}>"
    assert quoted(r, 0) == (3, 17, "'y' was not declared in this scope",
                            f"  /*{esc}*/ int x = y;", " " * (16 + len(esc) - 1) + "^")
    # lines are counted at '\n' only: the error after the comment line is on its own line
    assert quoted(r, 1) == (5, 11, "'w' was not declared in this scope", "  int z = w;", " " * 10 + "^")


def test_stray_non_printing_character_in_tileflow_code(tmp_path, croktilec):
    r = compile_bytes(tmp_path, croktilec, KERNEL + "__co__ void f() {\n  int x\u2028= 1;\n}\n".encode())
    assert r.rc == 1
    assert quoted(r) == (3, 8, "stray '<U+2028>' in tileflow code", "  int x<U+2028>= 1;", "       ^")


def test_wide_and_combining_characters_keep_the_caret_aligned(tmp_path, croktilec):
    # 注 takes two columns on a terminal, the combining accent none
    source = KERNEL + "__co__ void f() {\n  /* 注e\u0301 */ int x = y;\n}\n".encode()
    r = compile_bytes(tmp_path, croktilec, source)
    assert quoted(r) == (3, 21, "'y' was not declared in this scope",
                         "  /* 注e\u0301 */ int x = y;", " " * 20 + "^")


def test_header_with_bad_bytes_is_read(tmp_path, croktilec):
    (tmp_path / "tiles.h").write_bytes(b"// \xff\xfe\n#define TILE 4\n")
    source = b'#include "tiles.h"\n' + KERNEL + b"__co__ int f() { return TILE; }\n"
    r = compile_bytes(tmp_path, croktilec, source, "--dump-ir")
    assert r.rc == 0 and "return 4" in r.out, r.err


@pytest.mark.parametrize("out", [["-o", "-"], []])
def test_dash_E_writes_the_bytes_back(tmp_path, out):
    """As a user runs it: the bytes on standard output are the source's."""
    source = b"#define N 2\nconst char *s = \"\xff\xfe\";\n" + KERNEL + b"__co__ int f() { return N; }\n"
    (tmp_path / "enc.co.cpp").write_bytes(source)
    proc = subprocess.run(croktilec_cmd() + ["-E", "enc.co.cpp"] + out, cwd=tmp_path, env=driver_env(),
                          capture_output=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert b'\nconst char *s = "\xff\xfe";\n' in proc.stdout


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("first", [b"", b"#define N 8\n"], ids=["plain", "with-directives"])
def test_byte_order_mark_at_the_start_is_dropped_as_gcc_does(tmp_path, croktilec, first):
    """A UTF-8 BOM starting the file is not part of line 1: columns count from after it, and
    it does not reach the generated file (where, after croktile.h, C++ would reject it)."""
    source = BOM + first + b"int host_value;\n" + KERNEL + b"__co__ void f(s32 [8] a) { int q = zz; }\n"
    r = compile_bytes(tmp_path, croktilec, source)
    assert quoted(r)[:2] == (3 + (first != b""), 36), r.err
    assert quoted(r)[3:] == ("__co__ void f(s32 [8] a) { int q = zz; }", " " * 35 + "^")
    r = compile_bytes(tmp_path, croktilec, BOM + b"__co__ void f(s32 [8] a) { int q = yy; }\n")
    assert quoted(r) == (1, 36, "'yy' was not declared in this scope",
                         "__co__ void f(s32 [8] a) { int q = yy; }", " " * 35 + "^")
    ok = BOM + first + b"int host_value;\n" + KERNEL + b"__co__ void f(s32 [8] a) { int q = 1; }\n"
    generated = tmp_path / "enc.gen.cpp"
    r = compile_bytes(tmp_path, croktilec, ok, "-S", "-t", "cpu", "-o", generated)
    assert r.rc == 0, r.err
    assert BOM not in generated.read_bytes() and b"int host_value;" in generated.read_bytes()


def test_file_name_with_bytes_that_are_not_utf8_is_printed_as_those_bytes(tmp_path):
    """As gcc does: the name in 'FILE:LINE:COL' is the file's own bytes, not '\\udcff'."""
    name = b"bad\xff.co.cpp"
    (tmp_path / name.decode("utf-8", "surrogateescape")).write_bytes(
        b"__co__ void f(s32 [8] a) { int q = zz; }\n")
    proc = subprocess.run(croktilec_cmd() + ["-fsyntax-only", name], cwd=tmp_path, env=driver_env(),
                          capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith(name + b":1:36: error: 'zz' was not declared in this scope\n"), proc.stderr


@pytest.mark.parametrize("body, line, col", [
    (b"  void h(int n) { int y\xfe = n; }\n", 2, 24),
    (b"  // \xff in a comment\n  const char *s = \"\xfe\";\n  int \x80z;\n", 4, 7),
])
def test_bad_byte_in_cok_code_is_an_error_at_it(tmp_path, croktilec, body, line, col):
    """`__cok__` blocks are C++ too: bytes in their comments and strings pass, elsewhere the
    first is an error at it, as in host code."""
    r = compile_bytes(tmp_path, croktilec, b"__cok__ {\n" + body + b"}\nint after = \xff;\n")
    assert r.rc == 1
    assert [(d.line, d.col) for d in parse_diags(r.err)] == [(line, col)], r.err
    ok = b"__cok__ {\n  // \xff\n  const char *s = \"\xfe\";\n}\n" + KERNEL
    assert compile_bytes(tmp_path, croktilec, ok).rc == 0
