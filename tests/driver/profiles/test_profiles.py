"""Built-in profiles, user files that add and override them, -t/--profile selection, $CXX/$NVCC,
and what ``croktilec --print-toolchains`` tells people and build systems."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from croktile_driver.driver.profiles import ProfileError, load_profiles, select_profile


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def pick(target=None, name=None, files=()):
    return select_profile(load_profiles(list(files)), target, name)


def test_built_in_profiles():
    table = load_profiles()["profiles"]
    assert load_profiles()["default"] == "cpu"
    assert table["cpu"]["target"] == "cpu" and table["cpu"]["cxx"] == "c++"
    for name, arch, shared in (("cuda-sm80", "sm_80", 166912), ("cuda-sm90a", "sm_90a", 232448)):
        assert table[name]["target"] == "cuda" and table[name]["cxx"] == "nvcc"
        assert table[name]["arch"] == arch and table[name]["limits"]["shared_bytes"] == shared
    assert table["opencl-pocl"]["target"] == "opencl" and "OpenCL" in table["opencl-pocl"]["libs"]
    factor = table["factor-sim"]
    assert (factor["target"], factor["cxx"], pick(name="factor-sim")["device_cc"]) == ("factor", "c++", "cc")
    assert factor["limits"] == {"local_bytes": 65536, "shared_bytes": 1048576}


@pytest.mark.parametrize("target, profile", [(None, "cpu"), ("cpu", "cpu"), ("cuda", "cuda-sm80"),
                                             ("opencl", "opencl-pocl"), ("factor", "factor-sim")])
def test_each_target_has_a_default_profile(target, profile):
    assert pick(target)["name"] == profile


def test_a_user_file_adds_profiles_and_overrides_single_fields(tmp_path):
    mine = write(tmp_path / "mine.yaml", """
profiles:
  cuda-sm90a:
    limits: {shared_bytes: 200000}   # one limit: the rest of the profile stays
  cpu-fast:
    target: cpu
    cxx: clang++
    flags: [-O3, -std=c++20]
""")
    table = load_profiles([mine])["profiles"]
    assert table["cuda-sm90a"] == dict(load_profiles()["profiles"]["cuda-sm90a"], limits={"shared_bytes": 200000})
    assert table["cpu-fast"]["flags"] == ["-O3", "-std=c++20"]
    assert pick(name="cpu-fast", files=[mine])["cxx"] == "clang++"
    assert pick("cpu", files=[mine])["name"] == "cpu", "the profile named like the target stays its default"


def test_limits_merge_key_by_key(tmp_path):
    mine = write(tmp_path / "mine.yaml", "profiles:\n  factor-sim:\n    limits: {local_bytes: 1024}\n")
    assert load_profiles([mine])["profiles"]["factor-sim"]["limits"] == {"local_bytes": 1024, "shared_bytes": 1048576}


def test_later_files_win_config_dir_then_environment_then_command_line(tmp_path, monkeypatch, clean_env):
    def flags_file(name, flag):
        return write(tmp_path / name, f"profiles:\n  cpu:\n    flags: [{flag}]\n")
    write(clean_env / "croktile" / "toolchains.yaml", "profiles:\n  cpu:\n    flags: [-O1]\n")
    assert pick()["flags"] == ["-O1"]
    env_a, env_b = flags_file("a.yaml", "-Os"), flags_file("b.yaml", "-O0")
    monkeypatch.setenv("CROKTILE_TOOLCHAINS", env_a)
    assert pick()["flags"] == ["-Os"]
    monkeypatch.setenv("CROKTILE_TOOLCHAINS", os.pathsep.join([env_a, env_b]))
    assert pick()["flags"] == ["-O0"]
    assert pick(files=[flags_file("c.yaml", "-O3")])["flags"] == ["-O3"]
    assert load_profiles()["files"][1:] == [str(clean_env / "croktile" / "toolchains.yaml"), env_a, env_b]


def test_the_config_dir_defaults_to_dot_config(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".config" / "croktile" / "toolchains.yaml", "default: mine\nprofiles:\n  mine: {target: cpu}\n")
    assert pick()["name"] == "mine"


def test_default_for_target_and_a_new_default(tmp_path):
    mine = write(tmp_path / "mine.yaml", "default: cuda-sm90a\nprofiles:\n  cuda-sm90a: {default_for_target: true}\n")
    assert pick("cuda", files=[mine])["name"] == "cuda-sm90a"
    assert pick(files=[mine])["name"] == "cuda-sm90a"
    off = write(tmp_path / "off.yaml", "profiles:\n  cpu: {default_for_target: false}\n  cpu-2: {target: cpu}\n")
    assert pick("cpu", files=[off])["name"] == "cpu-2"


@pytest.mark.parametrize("target, name, needle", [
    ("gpu", None, "unknown target 'gpu' (known: cpu, cuda, opencl, factor)"),
    (None, "nosuch", "unknown toolchain profile 'nosuch' (known: cpu, cpu-aarch64, cpu-riscv64, cuda-sm80"),
    ("cpu", "cuda-sm80", "profile 'cuda-sm80' is for target 'cuda', not 'cpu'"),
])
def test_selection_errors(target, name, needle):
    with pytest.raises(ProfileError) as info:
        pick(target, name)
    assert needle in str(info.value)


def test_CXX_replaces_the_default_cxx_only(tmp_path, monkeypatch):
    mine = write(tmp_path / "mine.yaml", """
profiles:
  pinned: {target: cpu, cxx: g++-12}
  stubborn: {target: cpu, honour_env_cxx: false}
""")
    monkeypatch.setenv("CXX", "clang++")
    monkeypatch.setenv("NVCC", "/opt/cuda/bin/nvcc")
    assert pick("cpu")["cxx"] == "clang++"
    assert pick("opencl")["cxx"] == "clang++" and pick("factor")["cxx"] == "clang++"
    assert pick("cuda")["cxx"] == "/opt/cuda/bin/nvcc", "cuda: $NVCC, never $CXX"
    assert pick(name="pinned", files=[mine])["cxx"] == "g++-12", "a profile that names its compiler keeps it"
    assert pick(name="stubborn", files=[mine])["cxx"] == "c++"
    monkeypatch.delenv("NVCC")
    assert pick("cuda")["cxx"] == "nvcc"


def test_CXX_reaches_the_compile_job(tmp_path, run_croktilec):
    (tmp_path / "k.co.cpp").write_text("int main() { return 0; }\n")
    proc = run_croktilec("-###", "k.co.cpp", cwd=tmp_path, env={"CXX": "my-clang++"})
    assert proc.returncode == 0
    assert [line.split()[0] for line in proc.stderr.splitlines()][1:] == ["my-clang++", "my-clang++"]


# -- croktilec --print-toolchains -------------------------------------------------------

def test_print_toolchains_lists_targets_compilers_and_limits(tmp_path, run_croktilec):
    mine = write(tmp_path / "mine.yaml", "profiles:\n  ghost: {target: cpu, cxx: no-such-compiler-here}\n")
    proc = run_croktilec("--print-toolchains", "--toolchain-file", mine, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines()[1:-1]}
    assert set(rows) >= {"cpu", "cuda-sm80", "cuda-sm90a", "opencl-pocl", "factor-sim", "ghost"}
    assert rows["cpu"].split()[1] == "*" and "default" in proc.stdout.splitlines()[-1]
    assert "no-such-compiler-here [NOT FOUND]" in rows["ghost"]
    assert f"c++ [{shutil.which('c++')}]" in rows["cpu"]
    assert "arch sm_90a" in rows["cuda-sm90a"] and "shared_bytes=232448" in rows["cuda-sm90a"]
    assert "device cc [" in rows["factor-sim"] and "local_bytes=65536" in rows["factor-sim"]
    assert mine in proc.stdout.splitlines()[-1], "the files the profiles came from"


def test_print_toolchains_json_for_build_systems(tmp_path, run_croktilec):
    proc = run_croktilec("--print-toolchains", "--format=json", cwd=tmp_path, env={"NVCC": "no-nvcc-here"})
    data = json.loads(proc.stdout)
    assert data["default"] == "cpu" and data["selected"] is None
    cpu, cuda = data["profiles"]["cpu"], data["profiles"]["cuda-sm80"]
    assert cpu["supported"] is True and cpu["source_suffix"] == ".cpp" and cpu["cxx_path"] == shutil.which("c++")
    assert cuda["cxx"] == "no-nvcc-here" and cuda["cxx_path"] is None and cuda["arch"] == "sm_80"
    assert cuda["limits"] == {"shared_bytes": 166912}
    one = json.loads(run_croktilec("--print-toolchains", "--format=json", "-t", "opencl", cwd=tmp_path).stdout)
    assert one["selected"] == "opencl-pocl" and list(one["profiles"]) == ["opencl-pocl"]


@pytest.mark.parametrize("argv, needle", [
    (["-t", "gpu"], "unknown target 'gpu'"),
    (["--profile", "nosuch"], "unknown toolchain profile 'nosuch'"),
    (["--format=yaml"], "unknown --format 'yaml' (text or json)"),
])
def test_print_toolchains_errors(tmp_path, run_croktilec, argv, needle):
    proc = run_croktilec("--print-toolchains", *argv, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("croktilec: error: ") and needle in proc.stderr
