"""Stopping early: -S/--emit-source, -E, -fsyntax-only; and what -D, -U, -I do."""
from __future__ import annotations

import os
import stat

import pytest

from helpers.croktilec import fails, leftovers, ok, run_program
from helpers.programs import ADD_PROGRAM


def _files(d):
    return sorted(p.name for p in d.iterdir())


def test_S_writes_generated_cxx_with_line_directives(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    ok("-S", "add.co.cpp", "-o", "out.cpp", cwd=tmp_path)
    gen = (tmp_path / "out.cpp").read_text()
    assert '#line 1 "add.co.cpp"' in gen
    # the user's device function is copied through, the __co__ function became C++
    assert "__device__ void kernel(int *a, int *b, int *c, int n)" in gen
    assert "__co__" not in gen
    assert "add(croktile::spanned_view<int32_t, 2> lhs, croktile::spanned_view<int32_t, 2> rhs)" in gen
    assert _files(tmp_path) == ["add.co.cpp", "out.cpp"], "no object, no executable"


def test_S_and_emit_source_default_name_and_determinism(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    ok("-S", "add.co.cpp", cwd=tmp_path)
    assert _files(tmp_path) == ["add.co.cpp", "add.gen.cpp"]
    first = (tmp_path / "add.gen.cpp").read_bytes()
    os.unlink(tmp_path / "add.gen.cpp")
    ok("--emit-source", "add.co.cpp", cwd=tmp_path)
    second = (tmp_path / "add.gen.cpp").read_bytes()
    assert first == second, "the same input gives byte-identical generated source"
    # the directory it runs in and a fresh process's hash seed do not matter either
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "add.co.cpp").write_text(ADD_PROGRAM)
    ok("-S", "add.co.cpp", "-o", "third.cpp", cwd=tmp_path / "sub", env={"PYTHONHASHSEED": "12345"})
    assert (tmp_path / "sub" / "third.cpp").read_bytes() == first


def test_S_to_stdout(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    res = ok("-S", "add.co.cpp", "-o", "-", cwd=tmp_path)
    assert '#line 1 "add.co.cpp"' in res.out
    assert _files(tmp_path) == ["add.co.cpp"]


@pytest.mark.parametrize("stage", ["-S", "-E"])
def test_output_that_is_not_a_regular_file_is_written_not_replaced(tmp_path, stage):
    """-o /dev/null (here: a FIFO) must be written through, never renamed over."""
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    chunks = []
    try:
        ok(stage, "add.co.cpp", "-o", "out.fifo", cwd=tmp_path)
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(fd)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a file"
    assert b"add.co.cpp" in b"".join(chunks)
    assert leftovers(tmp_path) == []


E_SOURCE = r"""#include <iostream>
#include "myheader.h"
#define ROWS 6
#define TWICE(x) ((x) * 2)
__device__ void kernel(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) c[i] = a[i] + b[i]; }
__co__ s32 [ROWS, COLS] add(s32 [ROWS, COLS] lhs, s32 [ROWS, COLS] rhs) {
  s32 [lhs.span] out;
  parallel p by ROWS {
    a = dma.copy lhs.chunkat(p, _) => local;
    b = dma.copy rhs.chunkat(p, _) => local;
    local s32 [a.span] c;
    call kernel(a.data, b.data, c, |a.span|);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}
int main() {
  int a[ROWS][COLS] = {}, b[ROWS][COLS] = {};
  auto r = add(choreo::make_spanview<2>(&a[0][0], {ROWS, COLS}), choreo::make_spanview<2>(&b[0][0], {ROWS, COLS}));
#ifdef GREETING
  std::cout << "greeting " << TWICE(GREETING) << "\n";
#else
  std::cout << "no greeting\n";
#endif
  std::cout << "cols " << r.shape()[1] << " header " << from_my_header() << "\n";
}
"""


def test_E_expands_macros_and_keeps_includes(tmp_path):
    (tmp_path / "e.co.cpp").write_text(E_SOURCE)
    (tmp_path / "myheader.h").write_text("inline int from_my_header() { return 7; }\n")
    res = ok("-E", "e.co.cpp", "-DCOLS=16", "-DGREETING=21", cwd=tmp_path)
    out = res.out
    # macros reach the __co__ code and the host code
    assert "__co__ s32 [6, 16] add(s32 [6, 16] lhs, s32 [6, 16] rhs)" in out
    assert "parallel p by 6" in out
    assert '"greeting " << ((21) * 2)' in out
    assert "no greeting" not in out
    # #include lines stay for the target compiler, the header's text is not pasted in
    assert "#include <iostream>" in out and '#include "myheader.h"' in out
    assert "from_my_header" in out and "inline int from_my_header" not in out
    assert _files(tmp_path) == ["e.co.cpp", "myheader.h"]
    # -U undoes an earlier -D, in __co__ code and host code alike
    res = ok("-E", "e.co.cpp", "-DCOLS=16", "-DGREETING=21", "-UGREETING", cwd=tmp_path)
    assert "no greeting" in res.out and "greeting \"" not in res.out
    # ... and in command-line order, as in gcc: -U then -D defines it
    res = ok("-E", "e.co.cpp", "-DCOLS=16", "-UGREETING", "-DGREETING=21", cwd=tmp_path)
    assert res.out == out
    # -E -o writes the same text to a file
    ok("-E", "e.co.cpp", "-DCOLS=16", "-DGREETING=21", "-o", "e.i", cwd=tmp_path)
    assert (tmp_path / "e.i").read_text() == out


def test_D_U_I_reach_the_program(tmp_path):
    (tmp_path / "e.co.cpp").write_text(E_SOURCE)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "myheader.h").write_text("inline int from_my_header() { return 7; }\n")
    ok("e.co.cpp", "-D", "COLS=16", "-DGREETING=21", "-I", "inc", "-o", "e", cwd=tmp_path)
    assert run_program(tmp_path / "e").stdout == "greeting 42\ncols 16 header 7\n"
    # without -I the header is not found: gcc's fatal error at the user's #include
    res = fails("e.co.cpp", "-DCOLS=16", "-o", "e2", cwd=tmp_path)
    assert "e.co.cpp:2:" in res.err and "myheader.h" in res.err
    assert not (tmp_path / "e2").exists()


def test_include_beside_the_source_is_found(tmp_path):
    """#include "x.h" finds x.h next to the .co.cpp, though the compiler reads a generated file."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "e.co.cpp").write_text(E_SOURCE)
    (tmp_path / "src" / "myheader.h").write_text("inline int from_my_header() { return 9; }\n")
    ok("src/e.co.cpp", "-DCOLS=16", "-DGREETING=1", "-UGREETING", "-o", "e", cwd=tmp_path)
    assert run_program(tmp_path / "e").stdout == "no greeting\ncols 16 header 9\n"


TILEFLOW_ERROR = ADD_PROGRAM.replace("call kernel(a.data, b.data, c, |a.span|);",
                                     "call kernel(a.data, b.data, undefined_buffer, |a.span|);")


def test_fsyntax_only_checks_and_writes_nothing(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "bad.co.cpp").write_text(TILEFLOW_ERROR)
    res = ok("-fsyntax-only", "add.co.cpp", cwd=tmp_path)
    assert res.out == "" and res.err == ""
    res = fails("-fsyntax-only", "bad.co.cpp", "-o", "x", cwd=tmp_path)
    line = next(i for i, l in enumerate(TILEFLOW_ERROR.splitlines(), 1) if "undefined_buffer" in l)
    assert f"bad.co.cpp:{line}:" in res.err and "undefined_buffer" in res.err
    assert _files(tmp_path) == ["add.co.cpp", "bad.co.cpp"]
