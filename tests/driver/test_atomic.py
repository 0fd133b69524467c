"""A failed run leaves no -o file, keeps the previous one intact, and leaves no temporaries."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.croktilec import fails, leftovers
from helpers.programs import ADD_PROGRAM

HOST_ERROR = ADD_PROGRAM.replace('std::cout << "Test Passed\\n"; }', 'std::cout << "Test Passed\\n"; no_such_call(); }')
TILEFLOW_ERROR = ADD_PROGRAM.replace("parallel p by 6 {", "parallel p by 6 {\n    q = dma.copy nothing => local;")

OLD = b"previous build output\n"


def _prepare(tmp_path, name, text, output):
    (tmp_path / name).write_text(text)
    out = tmp_path / output
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(OLD)
    os.utime(out, (1_000_000_000, 1_000_000_000))
    return out


def _assert_untouched(out: Path):
    assert out.read_bytes() == OLD, "the previous output was truncated or replaced"
    assert out.stat().st_mtime == 1_000_000_000


@pytest.mark.parametrize("stage", [[], ["-c"]], ids=["link", "compile"])
def test_cxx_error_in_host_code(tmp_path, stage):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    _prepare(tmp_path, "bad.co.cpp", HOST_ERROR, "out/app")
    res = fails(*stage, "bad.co.cpp", "-o", "out/app", "-MMD", cwd=tmp_path, env={"TMPDIR": str(tmpdir)})
    assert "no_such_call" in res.err
    _assert_untouched(tmp_path / "out" / "app")
    assert not (tmp_path / "out" / "app.d").exists()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["app"]
    assert leftovers(tmp_path) == []
    assert list(tmpdir.iterdir()) == []


def test_cxx_error_without_previous_output(tmp_path):
    (tmp_path / "bad.co.cpp").write_text(HOST_ERROR)
    fails("bad.co.cpp", "-o", "app", cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.co.cpp"]


@pytest.mark.parametrize("stage", [[], ["-c"], ["-S"], ["-E"]], ids=["link", "compile", "source", "preprocess"])
def test_tileflow_error(tmp_path, stage):
    out = _prepare(tmp_path, "bad.co.cpp", TILEFLOW_ERROR if stage != ["-E"] else "#error stop here\n", "app")
    res = fails(*stage, "bad.co.cpp", "-o", "app", cwd=tmp_path)
    assert "bad.co.cpp:" in res.err and "error" in res.err
    _assert_untouched(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app", "bad.co.cpp"]


def test_link_error_keeps_previous_executable(tmp_path):
    out = _prepare(tmp_path, "nomain.co.cpp", ADD_PROGRAM.replace("int main()", "int not_main()"), "app")
    res = fails("nomain.co.cpp", "-o", "app", cwd=tmp_path)
    assert "main" in res.err
    _assert_untouched(out)
    assert leftovers(tmp_path) == []


def test_one_bad_input_of_several_writes_no_object(tmp_path):
    """-c a.co.cpp b.co.cpp: b fails, so a.o does not appear either."""
    (tmp_path / "a.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "b.co.cpp").write_text(TILEFLOW_ERROR)
    fails("-c", "a.co.cpp", "b.co.cpp", cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.co.cpp", "b.co.cpp"]


def test_missing_output_directory_is_a_user_error(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    for stage in ([], ["-S"], ["-E"]):
        res = fails(*stage, "add.co.cpp", "-o", "no/such/dir/out", cwd=tmp_path)
        assert res.err.startswith("croktilec: error: ") and "no/such/dir/out" in res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["add.co.cpp"]
