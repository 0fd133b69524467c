"""A bad profile file is one error naming the file, line, column and key.

One case per file in cases/: the first line says what the error must start with,
``# expect-error: LINE:COL: message`` (after ``FILE:``), and the file is given to croktilec
both as --toolchain-file and as $CROKTILE_TOOLCHAINS, and read from the user config dir.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from croktile_driver.driver.profiles import ProfileError, load_profiles

CASES = sorted((Path(__file__).parent / "cases").glob("*.yaml"))


def expected_error(path: Path) -> str:
    first = path.read_bytes().split(b"\n")[0].decode("utf-8")   # not_utf8.yaml: only the first line is
    assert first.startswith("# expect-error: "), f"{path.name}: the first line names the error"
    expect = first[len("# expect-error: "):]
    return f"{path}{':' if expect[0].isdigit() else ': '}{expect}"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_error_names_file_line_and_key(case):
    with pytest.raises(ProfileError) as info:
        load_profiles([str(case)])
    message = str(info.value)
    assert message.startswith(expected_error(case)), message
    assert "\n" not in message


@pytest.mark.parametrize("case", CASES[:3], ids=[c.stem for c in CASES[:3]])
def test_same_error_from_the_environment_and_the_config_dir(case, monkeypatch, clean_env):
    monkeypatch.setenv("CROKTILE_TOOLCHAINS", str(case))
    with pytest.raises(ProfileError) as info:
        load_profiles()
    assert str(info.value).startswith(expected_error(case))
    monkeypatch.delenv("CROKTILE_TOOLCHAINS")
    user = clean_env / "croktile" / "toolchains.yaml"
    user.parent.mkdir()
    shutil.copy(case, user)
    with pytest.raises(ProfileError) as info:
        load_profiles()
    assert str(info.value).startswith(expected_error(user))


def test_the_driver_reports_it_in_one_line(tmp_path, run_croktilec):
    case = next(c for c in CASES if c.stem == "unknown_key")
    with pytest.raises(ProfileError) as info:
        load_profiles([str(case)])
    project = tmp_path / "project"
    project.mkdir()
    (project / "k.co.cpp").write_text("int main() {}\n")
    for argv in (["-c", "k.co.cpp"], ["--print-toolchains"], ["--print-toolchains", "--format=json"]):
        proc = run_croktilec("--toolchain-file", case, *argv, cwd=project)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr == f"croktilec: error: {info.value}\n"
    assert sorted(p.name for p in project.iterdir()) == ["k.co.cpp"]


def test_a_missing_file_named_by_the_environment_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CROKTILE_TOOLCHAINS", str(tmp_path / "nosuch.yaml"))
    with pytest.raises(ProfileError, match=r"nosuch\.yaml: No such file or directory"):
        load_profiles()
