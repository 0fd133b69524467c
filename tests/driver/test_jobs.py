"""-### and -v, and the flags that reach the compile job (and what they do there)."""
from __future__ import annotations

import os
import shlex
import threading

import pytest

from helpers.croktilec import fails, job, job_kind, jobs_of, leftovers, ok, run_program
from helpers.programs import ADD_PROGRAM


@pytest.fixture
def src(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    return tmp_path


def test_hash_hash_hash_prints_every_job_and_runs_none(src, tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    res = ok("-###", "add.co.cpp", "-o", "my app", cwd=src, env={"TMPDIR": str(tmpdir)})
    assert res.out == ""
    lines = [l for l in res.err.splitlines() if l.strip()]
    jobs = jobs_of(res.err)
    assert [job_kind(j) for j in jobs] == ["transpile", "compile", "link"]
    # shell-quoted: each line splits back into the argv, and quoting it again gives the line
    for line, argv in zip(lines, jobs):
        assert " ".join(shlex.quote(a) for a in argv) == line
    tr, cc, ln = jobs
    gen = tr[tr.index("-o") + 1]
    assert tr[-1] == "add.co.cpp" and gen.endswith(".gen.cpp")
    assert cc[cc.index("-c") + 1] == gen, "the compile job compiles what the transpile job writes"
    obj = cc[cc.index("-o") + 1]
    assert obj in ln and ln[ln.index("-o") + 1] == "my app"
    # nothing ran: no output, no temporaries, nothing left in $TMPDIR
    assert sorted(p.name for p in src.iterdir()) == ["add.co.cpp", "tmp"]
    assert list(tmpdir.iterdir()) == []


def test_hash_hash_hash_for_c_and_S(src):
    jobs = jobs_of(ok("-###", "-c", "add.co.cpp", cwd=src).err)
    assert [job_kind(j) for j in jobs] == ["transpile", "compile"]
    assert jobs[1][jobs[1].index("-o") + 1] == "add.o"
    jobs = jobs_of(ok("-###", "-S", "add.co.cpp", cwd=src).err)
    assert [job_kind(j) for j in jobs] == ["transpile"]
    assert jobs[0][jobs[0].index("-o") + 1] == "add.gen.cpp"
    assert sorted(p.name for p in src.iterdir()) == ["add.co.cpp"]


def test_v_prints_the_jobs_and_runs_them_leaving_nothing_behind(src, tmp_path):
    """Also: a default build writes a.out and leaves no temporaries in cwd or $TMPDIR."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    res = ok("-v", "add.co.cpp", cwd=src, env={"TMPDIR": str(tmpdir)})
    jobs = jobs_of(res.err)
    assert [job_kind(j) for j in jobs] == ["transpile", "compile", "link"]
    assert jobs[2][jobs[2].index("-o") + 1] == "a.out"
    assert run_program(src / "a.out").stdout == "Test Passed\n"
    assert sorted(p.name for p in src.iterdir()) == ["a.out", "add.co.cpp", "tmp"]
    assert list(tmpdir.iterdir()) == [], "the work directory is removed"
    # the jobs -v ran are the jobs -### prints (up to the temporary directory's name)
    dry = jobs_of(ok("-###", "add.co.cpp", cwd=src, env={"TMPDIR": str(tmpdir)}).err)

    def norm(j):
        return [os.path.basename(a) if a.startswith(str(tmpdir)) else a for a in j]
    assert [norm(j) for j in dry] == [norm(j) for j in jobs]


def test_save_temps_keeps_generated_source_and_object(src, tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    ok("--save-temps", "add.co.cpp", "-o", "app", cwd=src, env={"TMPDIR": str(tmpdir)})
    assert sorted(p.name for p in src.iterdir()) == ["add.co.cpp", "add.gen.cpp", "add.o", "app", "tmp"]
    assert '#line 1 "add.co.cpp"' in (src / "add.gen.cpp").read_text()
    assert (src / "add.o").read_bytes()[:4] == b"\x7fELF"
    assert run_program(src / "app").stdout == "Test Passed\n"
    assert list(tmpdir.iterdir()) == []
    # the saved source is the one -S writes
    ok("-S", "add.co.cpp", "-o", "s.cpp", cwd=src)
    assert (src / "s.cpp").read_bytes() == (src / "add.gen.cpp").read_bytes()


def _compile_job(cwd, *flags):
    return job(jobs_of(ok("-###", *flags, "add.co.cpp", "-o", "app", cwd=cwd).err), "compile")


@pytest.mark.parametrize("level", ["0", "1", "2", "3", "s"])
def test_O_level_replaces_the_profile_default(src, level):
    cc = _compile_job(src, f"-O{level}")
    assert [a for a in cc if a.startswith("-O")] == [f"-O{level}"]


def test_compile_flags_reach_the_compile_job(src):
    cc = _compile_job(src)
    assert "-O2" in cc and "-std=c++17" in cc, "the profile's flags"
    assert "-g" not in cc and "-w" not in cc and "-Werror" not in cc
    cc = _compile_job(src, "-g", "-std=c++20", "-w", "-Werror", "-Xcompiler", "-fno-exceptions",
                      "-Xcompiler", "-Wshadow", "-I", "inc dir", "-Iinc2", "-DFOO=1 2", "-UBAR")
    assert [a for a in cc if a.startswith("-std=")] == ["-std=c++20"]
    for flag in ("-g", "-w", "-Werror", "-fno-exceptions", "-Wshadow", "-Iinc dir", "-Iinc2", "-DFOO=1 2",
                 "-UBAR"):
        assert flag in cc, flag
    assert cc.index("-fno-exceptions") < cc.index("-Wshadow"), "-Xcompiler flags keep their order"
    assert cc.index("-Iinc dir") < cc.index("-Iinc2")


def test_preprocessor_flags_reach_both_jobs_in_order(src):
    jobs = jobs_of(ok("-###", "-UA", "-DA=1", "-DB", "-UB", "-Iinc", "add.co.cpp", cwd=src).err)
    for j in (job(jobs, "transpile"), job(jobs, "compile")):
        assert [a for a in j if a[:2] in ("-D", "-U")] == ["-UA", "-DA=1", "-DB", "-UB"], j
        assert "-Iinc" in j


PROBE = ADD_PROGRAM.replace('std::cout << "Test Passed\\n"; }', r'''
#ifdef __OPTIMIZE__
  std::cout << "optimized\n";
#else
  std::cout << "not optimized\n";
#endif
  std::cout << __cplusplus << "\n";
  std::cout << "Test Passed\n"; }''')


def test_O_std_g_take_effect(src):
    """-O0 vs the default -O2 (__OPTIMIZE__), -std=c++20 (__cplusplus), -g (.debug_info)."""
    (src / "probe.co.cpp").write_text(PROBE)
    ok("probe.co.cpp", "-c", "-o", "default.o", cwd=src)
    ok("default.o", "-o", "default", cwd=src)
    # also: our generated code is clean under -Werror with the usual warnings on
    ok("probe.co.cpp", "-c", "-O0", "-g", "-std=c++20", "-Werror", "-Xcompiler", "-Wall", "-Xcompiler", "-Wextra",
       "-o", "tuned.o", cwd=src)
    ok("tuned.o", "-o", "tuned", cwd=src)
    assert run_program(src / "default").stdout == "optimized\n201703\nTest Passed\n"
    assert run_program(src / "tuned").stdout == "not optimized\n202002\nTest Passed\n"
    assert b".debug_info" in (src / "tuned.o").read_bytes()
    assert b".debug_info" not in (src / "default.o").read_bytes()


WARNS = ADD_PROGRAM.replace("int main() {", "int main() { int unused_variable = 3;")


def test_Werror_w_and_Xcompiler_take_effect(src):
    (src / "warn.co.cpp").write_text(WARNS)
    # -Xcompiler -Wall enables the warning; it names the user's file
    res = ok("warn.co.cpp", "-Xcompiler", "-Wall", "-o", "w1", cwd=src)
    assert "warn.co.cpp:" in res.err and "unused_variable" in res.err
    assert run_program(src / "w1").stdout == "Test Passed\n"
    # -Werror makes it an error: no output
    res = fails("warn.co.cpp", "-Xcompiler", "-Wall", "-Werror", "-o", "w2", cwd=src)
    assert "unused_variable" in res.err and "error" in res.err
    assert not (src / "w2").exists()
    # -w silences it (and so -Werror has nothing to turn into an error)
    res = ok("warn.co.cpp", "-Xcompiler", "-Wall", "-w", "-Werror", "-o", "w3", cwd=src)
    assert "unused_variable" not in res.err
    assert leftovers(src) == []


TILEFLOW_WARNING = ADD_PROGRAM.replace(
    "    b = dma.copy rhs.chunkat(p, _) => local;\n",
    "    b = dma.copy rhs.chunkat(p, _) => local;\n    f = dma.copy.async rhs.chunkat(p, _) => local;\n")


def test_Werror_and_w_apply_to_tileflow_warnings(src):
    assert TILEFLOW_WARNING != ADD_PROGRAM
    (src / "aw.co.cpp").write_text(TILEFLOW_WARNING)
    line = next(i for i, l in enumerate(TILEFLOW_WARNING.splitlines(), 1) if "dma.copy.async" in l)
    res = ok("-S", "aw.co.cpp", "-o", "aw1.cpp", cwd=src)
    assert f"aw.co.cpp:{line}:5: warning:" in res.err and "never waited" in res.err
    res = fails("-S", "-Werror", "aw.co.cpp", "-o", "aw2.cpp", cwd=src)
    assert f"aw.co.cpp:{line}:5: error:" in res.err and "[-Werror]" in res.err
    res = ok("-S", "-w", "-Werror", "aw.co.cpp", "-o", "aw3.cpp", cwd=src)
    assert res.err == ""
    assert (src / "aw1.cpp").exists() and not (src / "aw2.cpp").exists() and (src / "aw3.cpp").exists()
    tr = job(jobs_of(ok("-###", "-w", "-Werror", "aw.co.cpp", cwd=src).err), "transpile")
    assert "-w" in tr and "-Werror" in tr


@pytest.mark.parametrize("stage", ["-S", "-c", "-fsyntax-only"])
def test_an_input_that_can_be_read_once_is_read_once(src, tmp_path, stage):
    """A FIFO (`mkfifo x.co.cpp; gen > x.co.cpp &`) gives its bytes once: the driver reads
    the source once and transpiles that text, rather than opening the file again (which
    waited for a writer that never came)."""
    fifo = src / "piped.co.cpp"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(ADD_PROGRAM,), daemon=True)
    writer.start()
    out = tmp_path / "piped.out"
    res = ok(stage, "piped.co.cpp", *(() if stage == "-fsyntax-only" else ("-o", out)), cwd=src)
    writer.join(timeout=5)
    assert not writer.is_alive()
    assert res.err == "", res
    if stage != "-fsyntax-only":
        assert out.stat().st_size > 0
