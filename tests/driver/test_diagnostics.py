"""Errors point at the user's .co.cpp (#line), run-time shape checks name it too; bad
command lines get one gcc-style line and exit 1; --help/--version exit 0; no tracebacks."""
from __future__ import annotations

import pytest

from helpers.croktilec import fails, job, jobs_of, ok, run_program
from helpers.programs import ADD_CO_LINE, ADD_PROGRAM, KERNEL_LINE


def test_device_function_error_maps_to_the_co_cpp_line(tmp_path):
    bad = ADD_PROGRAM.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + undeclared_thing;")
    assert bad.splitlines()[KERNEL_LINE - 1].count("undeclared_thing") == 1
    (tmp_path / "bad.co.cpp").write_text(bad)
    res = fails("bad.co.cpp", "-o", "app", cwd=tmp_path)
    col = bad.splitlines()[KERNEL_LINE - 1].index("undeclared_thing") + 1
    assert f"bad.co.cpp:{KERNEL_LINE}:{col}: error:" in res.err, res.err
    assert ".gen.cpp" not in res.err
    assert not (tmp_path / "app").exists()


def test_host_error_after_the_co_function_maps_to_its_line(tmp_path):
    bad = ADD_PROGRAM.replace('std::cout << "Test Passed\\n"; }', 'std::cout << "Test Passed\\n";\n  oops(); }')
    line = next(i for i, l in enumerate(bad.splitlines(), 1) if "oops" in l)
    (tmp_path / "bad.co.cpp").write_text(bad)
    res = fails("-c", "bad.co.cpp", cwd=tmp_path)
    assert f"bad.co.cpp:{line}:3: error:" in res.err, res.err


SHAPE = ADD_PROGRAM.replace(
    "  auto r = add(choreo::make_spanview<2>(&a[0][0], {6,16}), choreo::make_spanview<2>(&b[0][0], {6,16}));",
    "  try { auto bad = add(choreo::make_spanview<2>(&a[0][0], {5,16}), choreo::make_spanview<2>(&b[0][0], {6,16})); "
    "std::cout << \"no error\\n\"; }\n"
    "  catch (const croktile::runtime_error &e) { std::cout << \"caught: \" << e.what() << \"\\n\"; }\n"
    "  catch (...) { std::cout << \"wrong exception type\\n\"; }\n"
    "  auto r = add(choreo::make_spanview<2>(&a[0][0], {6,16}), choreo::make_spanview<2>(&b[0][0], {6,16}));")


def test_runtime_shape_check_names_file_line_and_values(tmp_path):
    assert SHAPE != ADD_PROGRAM
    (tmp_path / "shape.co.cpp").write_text(SHAPE)
    ok("shape.co.cpp", "-o", "shape", cwd=tmp_path)
    run = run_program(tmp_path / "shape")
    assert run.returncode == 0, run
    first, second = run.stdout.splitlines()
    assert first.startswith("caught: "), run.stdout
    assert f"shape.co.cpp:{ADD_CO_LINE}:" in first
    assert "5" in first and "6" in first and "lhs" in first
    assert second == "Test Passed"


def test_version_and_help(tmp_path):
    res = ok("--version", cwd=tmp_path)
    assert res.out.startswith("croktilec") and res.err == ""
    for spelling in ("--help", "-h"):
        res = ok(spelling, cwd=tmp_path)
        for flag in ("-o", "-c", "-S", "--emit-source", "-E", "-fsyntax-only", "-MMD", "-MF", "-MT", "-###",
                     "-Xcompiler", "--save-temps", "--target", "--profile", "--version"):
            assert f"  {flag}" in res.out or f", {flag}" in res.out, flag
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, needle", [
    (["-t", "nosuch", "add.co.cpp"], "nosuch"),
    (["--target=nosuch", "-c", "add.co.cpp"], "nosuch"),
    (["--profile", "nosuch", "add.co.cpp"], "nosuch"),
    (["-t", "nosuch", "-fsyntax-only", "add.co.cpp"], "nosuch"),
    (["--profile", "nosuch", "-E", "add.co.cpp"], "nosuch"),
    (["--no-such-flag", "add.co.cpp"], "--no-such-flag"),
    (["add.co.cpp", "-o"], "-o"),
    (["missing.co.cpp"], "missing.co.cpp"),
    (["-c", "missing.co.cpp"], "missing.co.cpp"),
    (["-E", "missing.co.cpp"], "missing.co.cpp"),
    (["-S", "missing.co.cpp"], "missing.co.cpp"),
    ([], "no input files"),
    (["-c", "add.co.cpp", "add2.co.cpp", "-o", "x.o"], "-o"),
    (["add.co.cpp", "-o", "add.co.cpp"], "same as output"),
    (["-E", "add.co.cpp", "-o", "./add.co.cpp"], "same as output"),
    (["-S", "add2.co.cpp", "-o", "add2.co.cpp"], "same as output"),
])
def test_usage_errors_are_one_line_exit_1(tmp_path, argv, needle):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "add2.co.cpp").write_text(ADD_PROGRAM)
    res = fails(*argv, cwd=tmp_path)
    lines = res.err.splitlines()
    assert len(lines) == 1, res.err
    assert lines[0].startswith("croktilec: ") and "error" in lines[0] and needle in lines[0], res.err
    assert res.out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["add.co.cpp", "add2.co.cpp"]
    assert (tmp_path / "add.co.cpp").read_text() == ADD_PROGRAM == (tmp_path / "add2.co.cpp").read_text()


@pytest.mark.parametrize("text, needle", [
    ("profiles:\n  x: [1\n", "bad.yaml:3:1: invalid YAML"),
    ("- a list\n", "bad.yaml: expected a mapping"),
    ("profiles: [1]\n", "bad.yaml:1:11: 'profiles' must be a mapping"),
    ("profiles:\n  x: 5\n", "bad.yaml:2:6: profile 'x' must be a mapping"),
    ("profiles:\n  cpu:\n    flags: -O3\n", "bad.yaml:3:12: 'flags' of profile 'cpu' must be a list"),
    ("default: nosuch\n", "bad.yaml:1:10: the default toolchain profile 'nosuch' is not defined"),
    ("profiles:\n  z: {cxx: g++}\n", "bad.yaml:2:3: toolchain profile 'z' names no 'target'"),
])
def test_bad_toolchain_file_is_one_line_naming_file_and_line(tmp_path, text, needle):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "bad.yaml").write_text(text)
    res = fails("--toolchain-file", "bad.yaml", "add.co.cpp", cwd=tmp_path)
    assert res.err.splitlines() == [res.err.rstrip("\n")] and res.err.startswith("croktilec: error: ")
    assert needle in res.err, res.err


def test_toolchain_file_profile_reaches_the_jobs(tmp_path):
    (tmp_path / "add.co.cpp").write_text(ADD_PROGRAM)
    (tmp_path / "mine.yaml").write_text("profiles:\n  fast: {target: cpu, cxx: my-c++, flags: [-O3, -std=c++17]}\n")
    jobs = jobs_of(ok("--toolchain-file", "mine.yaml", "--profile", "fast", "-###", "add.co.cpp",
                      cwd=tmp_path, env={"CXX": ""}).err)
    cc = job(jobs, "compile")
    assert cc[0] == "my-c++" and "-O3" in cc and "-O2" not in cc
    tr = job(jobs, "transpile")
    assert tr[tr.index("--profile") + 1] == "fast" and tr[tr.index("--toolchain-file") + 1] == "mine.yaml"
    # a compiler that is not there is a one-line error, not a traceback
    res = fails("--toolchain-file", "mine.yaml", "--profile", "fast", "add.co.cpp", cwd=tmp_path, env={"CXX": ""})
    assert "my-c++" in res.err and not (tmp_path / "a.out").exists()
