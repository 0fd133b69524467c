"""samples/cmake, built with Ninja and with Unix Makefiles: it runs, a second build does nothing,
and editing a header that one kernel includes rebuilds that kernel and nothing else.

The sample's second kernel (vmul) runs on the opencl target where OpenCL can run here,
else on cpu (a warning says so; with CROKTILE_REQUIRE_OPENCL=1, as scripts/test.sh sets
where it installed PoCL, that is a failure)."""
from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path

import pytest

from cmake_helpers import copy_sample, need, ninja_explain, opencl_runs_here, run, steps

GENERATORS = {"Ninja": "ninja", "Unix Makefiles": "make"}


def vmul_target(croktile) -> str:
    if not croktile.profile("-t", "opencl")["supported"]:
        why = "croktilec has no opencl code generator"
    else:
        why = opencl_runs_here()
    if why:
        if os.environ.get("CROKTILE_REQUIRE_OPENCL"):
            pytest.fail(f"CROKTILE_REQUIRE_OPENCL is set, but {why}")
        warnings.warn(f"samples/cmake: vmul built for cpu, not opencl: {why}")
        return "cpu"
    return "opencl"


@pytest.fixture(scope="module", params=list(GENERATORS))
def sample(request, croktile, tmp_path_factory):
    """The sample configured and built once per generator: (source, build, first build output)."""
    need(GENERATORS[request.param])
    root = tmp_path_factory.mktemp(request.param.replace(" ", "-"))
    source = copy_sample(root / "src")
    build = root / "build"
    launcher = root / "launcher.sh"   # CMAKE_CXX_COMPILER_LAUNCHER applies to the kernels too
    launcher.write_text(f'#!/bin/sh\necho "$@" >> "{root / "launched.log"}"\nexec "$@"\n')
    launcher.chmod(0o755)
    croktile.configure(source, build, request.param, f"-DSAMPLE_VMUL_TARGET={vmul_target(croktile)}",
                       "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}")
    first = croktile.build(build, "--parallel", "2").stdout
    return request.param, source, build, first


def test_it_builds_and_runs(sample):
    generator, source, build, first = sample
    did = steps(first)
    assert sorted(did["transpiled"]) == ["vadd.co.cpp", "vmul.co.cpp"]
    assert len(did["compiled"]) == 4, did     # two generated sources, main.cpp, reference.cpp
    proc = run([build / "sample"], cwd=build)
    assert proc.stdout == "Test Passed\n"


def test_generated_sources_are_ordinary_cmake_sources(sample):
    generator, source, build, first = sample
    commands = json.loads((build / "compile_commands.json").read_text())
    files = {Path(c["file"]).name for c in commands}
    assert {"vadd.gen.cpp", "vmul.gen.cpp", "main.cpp", "reference.cpp"} <= files
    launched = (build.parent / "launched.log").read_text()
    assert "vadd.gen.cpp" in launched and "vmul.gen.cpp" in launched, "the compiler launcher ran them"
    header = (build / "croktile" / "vadd" / "include" / "vadd.h").read_text()
    assert "#pragma once" in header and '#include "croktile.h"' in header
    assert "croktile::spanned_data<int32_t, 2> vadd(croktile::spanned_view<int32_t, 2> lhs, " \
           "croktile::spanned_view<int32_t, 2> rhs);" in header


def no_op(croktile, generator, build) -> None:
    if generator == "Ninja":
        assert ninja_explain(build, croktile.env).strip().splitlines()[-1] == "ninja: no work to do."
    did = steps(croktile.build(build).stdout)
    assert did == {"transpiled": [], "compiled": [], "linked": []}, did


def test_a_second_build_does_nothing(croktile, sample):
    generator, source, build, first = sample
    no_op(croktile, generator, build)


def test_editing_a_kernels_header_rebuilds_that_kernel_only(croktile, sample):
    generator, source, build, first = sample
    header = source / "kernels" / "tile.h"
    built = (build / "sample").stat().st_mtime_ns
    time.sleep(0.01)
    header.write_text(header.read_text() + "// edited\n")
    assert header.stat().st_mtime_ns > built
    did = steps(croktile.build(build).stdout)
    assert did["transpiled"] == ["vadd.co.cpp"]
    assert [Path(o).name for o in did["compiled"]] == ["vadd.gen.cpp.o"], \
        "main.cpp includes vadd.h, which did not change: it is not recompiled"
    assert "sample" in did["linked"]
    assert run([build / "sample"], cwd=build).stdout == "Test Passed\n"
    no_op(croktile, generator, build)


def test_editing_a_kernel_source_reruns_its_transpile(croktile, sample):
    generator, source, build, first = sample
    kernel = source / "kernels" / "vmul.co.cpp"
    time.sleep(0.01)
    kernel.write_text(kernel.read_text().replace("c[i] = a[i] * b[i];", "c[i] = b[i] * a[i];"))
    did = steps(croktile.build(build).stdout)
    assert did["transpiled"] == ["vmul.co.cpp"]
    assert [Path(o).name for o in did["compiled"]] == ["vmul.gen.cpp.o"]
    assert run([build / "sample"], cwd=build).stdout == "Test Passed\n"
    no_op(croktile, generator, build)


def test_reconfiguring_changes_nothing(croktile, sample):
    generator, source, build, first = sample
    run(["cmake", build], env=croktile.env)
    no_op(croktile, generator, build)
