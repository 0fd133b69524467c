"""Files that are not toolchain files: huge, endless, not regular, YAML bombs, deep nesting.

Each is one line naming the file (and the line and column where there is one), at once,
from libyaml's loader and from PyYAML's own, and through croktilec with exit status 1.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import yaml

from croktile_driver.driver import profiles
from croktile_driver.driver.profiles import ProfileError, load_profiles

from .test_profile_errors import CASES, expected_error

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(profiles.__file__)))

BOMB_CASES = [c for c in CASES if c.stem.startswith(("alias_", "nesting_", "limit_too_many", "not_utf8",
                                                      "control_character"))]


@pytest.fixture(params=["libyaml", "pure-python"])
def loader(request, monkeypatch):
    """Both loaders PyYAML may use (libyaml's is missing where PyYAML was built without it)."""
    if request.param == "pure-python":
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    elif not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML without libyaml")
    return request.param


def error_of(path) -> str:
    start = time.monotonic()
    with pytest.raises(ProfileError) as info:
        load_profiles([str(path)])
    assert time.monotonic() - start < 5, "refused at once, not after expanding or reading it all"
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("case", BOMB_CASES, ids=[c.stem for c in BOMB_CASES])
def test_cases_with_either_loader(case, loader):
    assert error_of(case).startswith(expected_error(case))


def test_a_deep_nesting_of_a_megabyte_is_refused_at_its_limit(tmp_path, loader):
    for opener in ("[", "{a: ", "- "):
        path = tmp_path / "deep.yaml"
        text = opener * ((profiles.MAX_FILE_BYTES - 100) // len(opener))
        path.write_text(text if opener != "- " else "\n".join(" " * i + "-" for i in range(1000)))
        message = error_of(path)
        assert f"nested more than {profiles.MAX_NESTING} levels deep" in message, message


def test_anchors_are_refused_even_when_not_used(tmp_path, loader):
    path = tmp_path / "anchor.yaml"
    path.write_text("profiles:\n  mine: &m {target: cpu}\n")
    assert error_of(path) == f"{path}:2:9: anchors and aliases are not allowed in toolchain files"


def test_a_file_over_the_size_limit(tmp_path, loader):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:   # 100 MB (sparse): only the first MiB is read
        fh.truncate(100 * 1000 * 1000)
    assert error_of(big) == f"{big}: file is larger than 1 MiB; not a toolchain file"
    just = tmp_path / "just.yaml"
    just.write_text("# padding\n" * (profiles.MAX_FILE_BYTES // 10) + "profiles: {mine: {target: cpu}}\n")
    assert just.stat().st_size > profiles.MAX_FILE_BYTES
    assert "file is larger than 1 MiB" in error_of(just)
    just.write_text("# padding\n" * (profiles.MAX_FILE_BYTES // 10 - 4) + "profiles: {mine: {target: cpu}}\n")
    assert "mine" in load_profiles([str(just)])["profiles"]


def test_a_megabyte_of_profiles_loads_in_linear_time(tmp_path):
    """Tens of thousands of small profiles fit in the size limit; each one's position was
    looked up by a walk over all the others (quadratic: 30,000 took over a minute)."""
    path = tmp_path / "many.yaml"
    count = (profiles.MAX_FILE_BYTES - 100) // len("  p00000: {target: cpu}\n")
    path.write_text("profiles:\n" + "".join(f"  p{i:05}: {{target: cpu}}\n" for i in range(count)))
    start = time.monotonic()
    assert len(load_profiles([str(path)])["profiles"]) > count
    path.write_text("profiles:\n" + "".join(f"  p{i:05}: {{cxx: c++}}\n" for i in range(count)))
    with pytest.raises(ProfileError) as info:   # the one without a target, located at once
        load_profiles([str(path)])
    assert str(info.value) == f"{path}:2:3: toolchain profile 'p00000' names no 'target'"
    assert time.monotonic() - start < 30


def test_devices_and_directories(tmp_path):
    assert error_of("/dev/zero") == "/dev/zero: file is larger than 1 MiB; not a toolchain file"
    assert error_of(tmp_path) == f"{tmp_path}: Is a directory"
    assert load_profiles(["/dev/null"])["default"] == "cpu", "an empty file adds nothing"


def test_a_pipe_is_read_like_a_file(tmp_path):
    """`--toolchain-file <(generate-profiles)`: process substitution gives a pipe."""
    project = tmp_path / "project"
    project.mkdir()
    read_end, write_end = os.pipe()
    os.write(write_end, b"profiles:\n  piped: {target: cpu, cxx: g++}\n")
    os.close(write_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "croktile_driver", "--toolchain-file", f"/dev/fd/{read_end}",
                               "--print-toolchains", "--profile", "piped"], cwd=project, pass_fds=[read_end],
                              env=dict(os.environ, PYTHONPATH=PKG_PARENT), capture_output=True, text=True,
                              timeout=60)
    finally:
        os.close(read_end)
    assert proc.returncode == 0 and proc.stderr == "", proc
    assert proc.stdout.startswith("profile") and "piped" in proc.stdout


@pytest.mark.parametrize("name", ["/dev/zero", "alias_bomb", "nesting_too_deep"])
def test_the_driver_reports_it_in_one_line(tmp_path, run_croktilec, name):
    path = name if name.startswith("/") else next(str(c) for c in CASES if c.stem == name)
    project = tmp_path / "project"
    project.mkdir()
    (project / "k.co.cpp").write_text("int main() {}\n")
    start = time.monotonic()
    proc = run_croktilec("--toolchain-file", path, "-c", "k.co.cpp", cwd=project)
    assert time.monotonic() - start < 30
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"croktilec: error: {path}") and proc.stderr.count("\n") == 1, proc.stderr
    assert sorted(p.name for p in project.iterdir()) == ["k.co.cpp"]
