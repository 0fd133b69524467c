"""--dump-ast and --dump-ir on the spec's element-wise addition."""
from __future__ import annotations

from helpers.corpus import CORPUS

ELE_ADD = CORPUS / "spec" / "spec1_ele_add.co.cpp"


def test_dump_ast(croktilec):
    r = croktilec("--dump-ast", ELE_ADD)
    assert r.rc == 0 and r.err == "", r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("CoFunction <8:1>")
    for node in ("ParallelStmt", "WithStmt", "ForeachStmt", "DmaCopy", "CallStmt", "ReturnStmt"):
        assert node in r.out, node
    # every node carries the user's line:column
    assert all("<" in line and ">" in line for line in lines)


def test_dump_ir(croktilec):
    r = croktilec("--dump-ir", ELE_ADD)
    assert r.rc == 0 and r.err == "", r.err
    assert r.out.startswith("func ele_add(s32 [6, 17, 128] lhs, s32 [6, 17, 128] rhs) -> s32 [6, 17, 128]")
    assert "parallel p by 6" in r.out
    assert "return output" in r.out


def test_dump_ast_and_ir_together(croktilec):
    r = croktilec("--dump-ast", "--dump-ir", ELE_ADD)
    assert r.rc == 0 and r.err == ""
    assert "CoFunction" in r.out and "func ele_add(" in r.out


def test_dump_to_file(tmp_path, croktilec):
    out = tmp_path / "ele_add.ir"
    r = croktilec("--dump-ir", ELE_ADD, "-o", out)
    assert r.rc == 0 and r.out == "" and r.err == ""
    assert out.read_text().startswith("func ele_add(")


def test_dump_ir_stops_on_errors(tmp_path, croktilec):
    bad = tmp_path / "bad.co.cpp"
    bad.write_text("__co__ void f() { call k(); }\n")
    out = tmp_path / "bad.ir"
    r = croktilec("--dump-ir", bad, "-o", out)
    assert r.rc == 1 and r.out == ""
    assert "can only be called inside 'parallel'" in r.err
    assert not out.exists()   # no half-written output


def test_syntax_only_of_clean_file_is_silent(croktilec):
    r = croktilec("-fsyntax-only", ELE_ADD)
    assert (r.rc, r.out, r.err) == (0, "", "")


def test_missing_input(tmp_path, croktilec):
    r = croktilec("-fsyntax-only", tmp_path / "nope.co.cpp")
    assert r.rc == 1
    assert "nope.co.cpp: No such file or directory" in r.err
    assert "Traceback" not in r.err
