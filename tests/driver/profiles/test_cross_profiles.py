"""Cross profiles as the driver shows them; none of this needs the cross compilers.

* ``triple`` names the GNU cross compilers every job runs (``-###``), unless the profile
  names its own; $CXX (the build machine's compiler) does not replace them;
* ``sysroot`` reaches every compile, device compile and link;
* ``--print-toolchains`` says which compilers (and sysroot) of a profile are missing;
* ``--python-module`` and ``croktile.load`` refuse a profile that builds for another
  machine: their module is for the Python that runs them.
"""
from __future__ import annotations

import json

import pytest

from croktile_driver.driver.profiles import host_arch
from helpers.croktilec import fails, jobs_of, ok

from helpers.paths import REPO

ELE_ADD = REPO / "samples" / "ele_add.co.cpp"
LIMITS = "limits: {local_bytes: 65536, shared_bytes: 1048576}"


def jobs_by_kind(stderr: str) -> dict:
    """The device module's compile, the host compile and the link that ``-###`` printed."""
    out = {}
    for argv in jobs_of(stderr)[1:]:   # after the transpile
        kind = "device" if "-shared" in argv else "compile" if "-c" in argv else "link"
        assert kind not in out, stderr
        out[kind] = argv
    return out


@pytest.mark.parametrize("arch", ["aarch64", "riscv64"])
def test_triple_names_the_compilers_of_every_job(tmp_path, arch):
    res = ok("-###", "--profile", f"factor-{arch}", "-kt", ELE_ADD, "-o", "app", cwd=tmp_path,
             env={"CXX": "my-host-clang++"})
    jobs = jobs_by_kind(res.err)
    assert {kind: argv[0] for kind, argv in jobs.items()} == {
        "device": f"{arch}-linux-gnu-gcc", "compile": f"{arch}-linux-gnu-g++", "link": f"{arch}-linux-gnu-g++"}
    res = ok("-###", "--profile", f"cpu-{arch}", ELE_ADD, "-o", "app", cwd=tmp_path)
    assert {kind: argv[0] for kind, argv in jobs_by_kind(res.err).items()} == {
        "compile": f"{arch}-linux-gnu-g++", "link": f"{arch}-linux-gnu-g++"}


def test_named_compilers_win_over_the_triple(tmp_path):
    (tmp_path / "mine.yaml").write_text(
        "profiles:\n  arm: {target: factor, triple: aarch64-linux-gnu, cxx: clang++, "
        f"device_cc: /opt/arm/bin/gcc, flags: [--target=aarch64-linux-gnu], {LIMITS}}}\n")
    jobs = jobs_by_kind(ok("-###", "--toolchain-file", "mine.yaml", "--profile", "arm", ELE_ADD, cwd=tmp_path).err)
    assert jobs["device"][0] == "/opt/arm/bin/gcc" and jobs["compile"][0] == jobs["link"][0] == "clang++"


def test_sysroot_reaches_every_compile_and_link(tmp_path):
    (tmp_path / "mine.yaml").write_text(
        f"profiles:\n  arm: {{target: factor, triple: aarch64-linux-gnu, sysroot: /opt/sysroots/arm64, {LIMITS}}}\n")
    jobs = jobs_by_kind(ok("-###", "--toolchain-file", "mine.yaml", "--profile", "arm", ELE_ADD, cwd=tmp_path).err)
    assert sorted(jobs) == ["compile", "device", "link"]
    for argv in jobs.values():
        assert "--sysroot=/opt/sysroots/arm64" in argv, argv


def test_print_toolchains_says_what_is_missing(tmp_path):
    (tmp_path / "mine.yaml").write_text(
        f"profiles:\n  npu-mips: {{target: factor, triple: mips64el-linux-gnuabi64, sysroot: {tmp_path / 'none'}, "
        f"{LIMITS}}}\n")
    res = ok("--print-toolchains", "--toolchain-file", "mine.yaml", "--profile", "npu-mips", cwd=tmp_path)
    row = res.out.splitlines()[1]
    assert "mips64el-linux-gnuabi64-g++ [NOT FOUND]" in row and "device mips64el-linux-gnuabi64-gcc [NOT FOUND]" in row
    assert f"triple mips64el-linux-gnuabi64, sysroot {tmp_path / 'none'} [NOT FOUND]" in row
    assert res.out.splitlines()[2] == (
        f"npu-mips: missing mips64el-linux-gnuabi64-g++, mips64el-linux-gnuabi64-gcc, sysroot {tmp_path / 'none'} "
        "(a GNU cross toolchain for mips64el-linux-gnuabi64; Debian: g++-mips64el-linux-gnuabi64)")
    data = json.loads(ok("--print-toolchains", "--format=json", "--toolchain-file", "mine.yaml", "--profile",
                         "npu-mips", cwd=tmp_path).out)["profiles"]["npu-mips"]
    assert data["triple"] == "mips64el-linux-gnuabi64" and data["sysroot_found"] is False
    assert data["missing"] == ["mips64el-linux-gnuabi64-g++", "mips64el-linux-gnuabi64-gcc",
                               f"sysroot {tmp_path / 'none'}"]
    assert data["device_cc_given"] is False, "CMake builds such a device module with its own compiler"


def cross_message(profile: str, target: str) -> str:
    return (f"croktilec: error: --python-module (and croktile.load) build an extension module for the running "
            f"Python, on {host_arch()}; profile '{profile}' cross-compiles for {target}: build the module on that "
            "machine, or with croktile_add_python_module in a CMake project that finds its Python")


@pytest.mark.skipif(host_arch() == "aarch64", reason="this machine is an aarch64 one")
def test_python_module_is_for_the_running_python_only(tmp_path):
    tmp_path = tmp_path / "work"   # beside the empty config directory of conftest.py's clean_env
    tmp_path.mkdir()
    res = fails("--python-module", "--profile", "cpu-aarch64", ELE_ADD, "-o", "m.so", cwd=tmp_path)
    assert res.err == cross_message("cpu-aarch64", "aarch64-linux-gnu") + "\n"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "mine.yaml").write_text("profiles:\n  here: {target: cpu, sysroot: /opt/root}\n"
                                        f"  native: {{target: cpu, triple: {host_arch()}-linux-gnu}}\n")
    res = fails("--python-module", "--toolchain-file", "mine.yaml", "--profile", "here", ELE_ADD, cwd=tmp_path)
    assert res.err == cross_message("here", "the system in /opt/root") + "\n"
    # a triple of this machine's architecture builds for this Python
    ok("-###", "--python-module", "--toolchain-file", "mine.yaml", "--profile", "native", ELE_ADD, cwd=tmp_path)


@pytest.mark.skipif(host_arch() == "riscv64", reason="this machine is a riscv64 one")
def test_croktile_load_is_for_the_running_python_only(tmp_path, monkeypatch):
    import croktile
    monkeypatch.setenv("CROKTILE_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(croktile.BuildError) as info:
        croktile.load(ELE_ADD, profile="factor-riscv64", options=["-kt"])
    assert str(info.value) == cross_message("factor-riscv64", "riscv64-linux-gnu")
