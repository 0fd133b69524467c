"""A job that fails says which program failed and how, even when the program said nothing.

Compiler stubs stand in for c++ (through $CXX, and through a --toolchain-file profile):
silent failures, crashes by a signal, programs that are missing or cannot be executed,
at the compile job and at the link job.
"""
from __future__ import annotations

import signal

import pytest

from helpers.croktilec import fails, leftovers
from helpers.programs import ADD_PROGRAM

# (stub body, the message's tail after "<stub> ")
SILENT_FAILURES = [
    ("exit 1", "exited with status 1"),
    ("exit 3", "exited with status 3"),
    ("kill -SEGV $$", f"was killed by signal 11 ({signal.strsignal(signal.SIGSEGV)})"),
    ("kill -ABRT $$", f"was killed by signal 6 ({signal.strsignal(signal.SIGABRT)})"),
    ("kill -KILL $$", f"was killed by signal 9 ({signal.strsignal(signal.SIGKILL)})"),
]


def stub(directory, body: str, *, at_link: bool = False, name: str = "cc-stub"):
    """A compiler that runs ``body``; with ``at_link`` the compile job succeeds first."""
    path = directory / name
    pre = 'case " $* " in *" -c "*) for a; do [ "$prev" = -o ] && : > "$a"; prev=$a; done; exit 0;; esac\n' \
        if at_link else ""
    path.write_text(f"#!/bin/sh\n{pre}{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def src(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    return tmp_path


@pytest.mark.parametrize("at_link", [False, True], ids=["compile", "link"])
@pytest.mark.parametrize("body,how", SILENT_FAILURES, ids=[b for b, _ in SILENT_FAILURES])
def test_silent_failure_names_the_program_and_how_it_ended(src, body, how, at_link):
    cc = stub(src, body, at_link=at_link)
    res = fails("-o", "app", "add.co.cpp", cwd=src, env={"CXX": str(cc)})
    assert res.err == f"croktilec: error: {cc} {how}\n"
    assert not (src / "app").exists() and leftovers(src) == []


def test_the_program_is_named_as_the_profile_names_it(src):
    stub(src, "exit 1", name="my-cc")
    (src / "tc.yaml").write_text("profiles:\n  mine:\n    target: cpu\n    cxx: ./my-cc\n")
    res = fails("--toolchain-file", "tc.yaml", "--profile", "mine", "-c", "add.co.cpp", cwd=src)
    assert res.err == "croktilec: error: ./my-cc exited with status 1\n"


def test_a_failure_that_printed_its_own_message_gets_the_line_too(src):
    """The compiler's message first, then which program failed (as make and clang say)."""
    (src / "bad.co.cpp").write_text(ADD_PROGRAM.replace("int main() {", "int main() { undeclared_name;"))
    res = fails("-c", "bad.co.cpp", cwd=src)
    lines = res.err.splitlines()
    assert any("bad.co.cpp:" in l and "undeclared_name" in l for l in lines), res
    assert lines[-1] == "croktilec: error: c++ exited with status 1"


@pytest.mark.parametrize("kind", ["missing", "not executable", "no interpreter", "not a program", "directory"])
def test_a_compiler_that_cannot_run_is_one_line_naming_it(src, kind):
    cc = src / "cc-stub"
    if kind == "not executable":
        cc.write_text("#!/bin/sh\nexit 0\n")
        cc.chmod(0o644)
        reason = "Permission denied"
    elif kind == "no interpreter":
        cc.write_text("#!/nonexistent/interpreter\nexit 0\n")
        cc.chmod(0o755)
        reason = "No such file or directory"
    elif kind == "not a program":
        cc.write_text("exit 0\n")
        cc.chmod(0o755)
        reason = "Exec format error"
    elif kind == "directory":
        cc.mkdir()
        reason = "Permission denied"
    else:
        reason = "No such file or directory"
    res = fails("-o", "app", "add.co.cpp", cwd=src, env={"CXX": str(cc)})
    assert res.err == f"croktilec: error: cannot run '{cc}': {reason} (profile 'cpu')\n"
    assert not (src / "app").exists() and leftovers(src) == []
