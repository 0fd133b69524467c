"""Building programs: -o, -c, objects, archives, plain C++ sources, -l/-L, -t/--profile."""
from __future__ import annotations

import subprocess

import pytest

from helpers.croktilec import fails, job, jobs_of, leftovers, ok, run_program
from helpers.programs import ADD_KERNEL, ADD_MAIN, ADD_PROGRAM


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The issue's program built once with ``-o add``."""
    d = tmp_path_factory.mktemp("build")
    (d / "add.co.cpp").write_text(ADD_PROGRAM)
    res = ok("add.co.cpp", "-o", "add", cwd=d)
    return d, res


def test_o_names_the_executable_and_it_runs(built):
    d, res = built
    exe = d / "add"
    assert exe.is_file()
    assert exe.stat().st_mode & 0o111, "the executable is executable"
    assert not (d / "a.out").exists()
    run = run_program(exe)
    assert run.returncode == 0 and run.stdout == "Test Passed\n", run
    # a successful build is quiet and leaves nothing beside its output
    assert res.out == "" and res.err == ""
    assert sorted(p.name for p in d.iterdir()) == ["add", "add.co.cpp"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    """kern.co.cpp (the __co__ function, no main), main.cpp (plain C++) and two archives."""
    d = tmp_path_factory.mktemp("link")
    (d / "kern.co.cpp").write_text(ADD_KERNEL)
    decl = ("#include <iostream>\n#include \"croktile.h\"\n"
            "croktile::spanned_data<int32_t, 2> add(croktile::spanned_view<int32_t, 2>, "
            "croktile::spanned_view<int32_t, 2>);\n"
            "int helper_from_lib();\nint helper_from_archive();\n")
    main = ADD_MAIN.replace('std::cout << "Test Passed\\n";',
                            'std::cout << helper_from_lib() << " " << helper_from_archive() << "\\n"; '
                            'std::cout << "Test Passed\\n";')
    (d / "main.cpp").write_text(decl + main)
    (d / "libdir").mkdir()
    (d / "h1.cpp").write_text("int helper_from_lib() { return 41; }\n")
    (d / "h2.cpp").write_text("int helper_from_archive() { return 42; }\n")
    for src, lib in (("h1.cpp", "libdir/libhelp.a"), ("h2.cpp", "other.a")):
        subprocess.run(["c++", "-c", src, "-o", src + ".o"], cwd=d, check=True)
        subprocess.run(["ar", "rcs", lib, src + ".o"], cwd=d, check=True)
    return d


def test_c_makes_an_object_and_no_executable(libs):
    d = libs
    ok("-c", "kern.co.cpp", "-o", "kern.o", cwd=d)
    data = (d / "kern.o").read_bytes()
    assert data[:4] == b"\x7fELF" and int.from_bytes(data[16:18], "little") == 1, "ET_REL: an object"
    assert not (d / "a.out").exists() and not (d / "kern").exists()
    assert leftovers(d) == []
    # the object defines the __co__ function and the __device__ kernel
    syms = subprocess.run(["nm", "-C", "kern.o"], cwd=d, capture_output=True, text=True).stdout
    assert " T add(" in syms and " T kernel(" in syms, syms


def test_link_object_plain_cpp_archive_and_l_L(libs):
    d = libs
    if not (d / "kern.o").exists():
        ok("-c", "kern.co.cpp", "-o", "kern.o", cwd=d)
    ok("main.cpp", "kern.o", "other.a", "-Llibdir", "-lhelp", "-o", "app", cwd=d)
    run = run_program(d / "app")
    assert run.stdout == "41 42\nTest Passed\n", run


def test_link_fails_without_the_library(libs):
    d = libs
    if not (d / "kern.o").exists():
        ok("-c", "kern.co.cpp", "-o", "kern.o", cwd=d)
    res = fails("main.cpp", "kern.o", "other.a", "-o", "app_nolib", cwd=d)
    assert "helper_from_lib" in res.err
    assert not (d / "app_nolib").exists()


def test_l_and_L_reach_the_link_job_after_the_objects(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "x.o").write_bytes(b"")
    res = ok("-###", "add.co.cpp", "x.o", "-L", "some dir", "-lm", "-l", "foo", "-o", "app", cwd=tmp_path)
    link = job(jobs_of(res.err), "link")
    assert "-Lsome dir" in link and "-lm" in link and "-lfoo" in link
    assert link.index("x.o") < link.index("-lm") < link.index("-lfoo")
    assert link[link.index("-o") + 1] == "app"
    compile_ = job(jobs_of(res.err), "compile")
    assert not any(a.startswith(("-l", "-L")) for a in compile_)


def test_two_inputs_with_one_stem_do_not_clash(tmp_path):
    """a/x.co.cpp and b/x.cpp get different temporaries (x.o would be overwritten)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.co.cpp").write_text(ADD_KERNEL)
    decl = ('#include <iostream>\n#include "croktile.h"\n'
            "croktile::spanned_data<int32_t, 2> add(croktile::spanned_view<int32_t, 2>, "
            "croktile::spanned_view<int32_t, 2>);\n")
    (tmp_path / "b" / "x.cpp").write_text(decl + ADD_MAIN)
    ok("a/x.co.cpp", "b/x.cpp", "-o", "app", cwd=tmp_path)
    assert run_program(tmp_path / "app").stdout == "Test Passed\n"


@pytest.fixture(scope="module")
def default_gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("gen")
    (d / "add.co.cpp").write_text(ADD_PROGRAM)
    ok("-S", "add.co.cpp", "-o", "default.gen.cpp", cwd=d)
    return (d / "default.gen.cpp").read_bytes()


@pytest.mark.parametrize("spelling", [["-t", "cpu"], ["-tcpu"], ["--target", "cpu"], ["--target=cpu"],
                                      ["--profile", "cpu"], ["--profile=cpu"]])
def test_target_and_profile_select_cpu(tmp_path, spelling, default_gen):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    res = ok(*spelling, "-v", "-S", "add.co.cpp", "-o", "sel.gen.cpp", cwd=tmp_path)
    tr = job(jobs_of(res.err), "transpile")
    assert tr[tr.index("-t") + 1] == "cpu" and tr[tr.index("--profile") + 1] == "cpu"
    # the generated source is the default target's, byte for byte
    assert (tmp_path / "sel.gen.cpp").read_bytes() == default_gen
