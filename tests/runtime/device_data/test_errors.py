"""What the compiler says about device-data mistakes (issue #12).

``programs/mixed.co.cpp`` mixes host and device arguments in calls of a ``__co__``
function: no overload matches, and the C++ compiler of each target (g++ for cpu and
opencl, nvcc for cuda) reports every such call at its ``.co.cpp`` line, naming the
function; croktilec exits 1. ``programs/bad_parameters.co.cpp`` puts storage words on
parameters where only ``global`` on a spanned parameter is allowed: frontend diagnostics.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
from pathlib import Path
from typing import Dict, List

import pytest

from helpers.croktilec import run_croktilec
from helpers.platforms import opencl_problem

pytestmark = pytest.mark.device_data

HERE = Path(__file__).resolve().parent
MIXED = HERE / "programs" / "mixed.co.cpp"
BAD_PARAMETERS = HERE / "programs" / "bad_parameters.co.cpp"


def marked_lines(source: Path, marker: str) -> List[int]:
    return [i for i, line in enumerate(source.read_text().splitlines(), 1) if f"// {marker}" in line]


def compile_targets() -> Dict[str, str]:
    """The targets whose compiler is here, with why the others are not."""
    return {"cpu": "", "opencl": opencl_problem(), "cuda": "" if shutil.which("nvcc") else "nvcc is not installed"}


@pytest.fixture(scope="module")
def mixed_builds(tmp_path_factory):
    """mixed.co.cpp compiled (-c) for every target whose compiler is here, in parallel."""
    work = tmp_path_factory.mktemp("device-mixed")
    runnable = [t for t, problem in compile_targets().items() if not problem]

    def build(target: str):
        return run_croktilec("-t", target, "-c", MIXED, "-o", work / f"mixed.{target}.o", cwd=work, timeout=300)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(runnable)) as pool:
        return dict(zip(runnable, pool.map(build, runnable)))


def error_lines(target: str, stderr: str) -> List[int]:
    """The mixed.co.cpp lines of the compiler's 'no overload of add' errors."""
    if target == "cuda":
        pattern = r'mixed\.co\.cpp\((\d+)\): error: no instance of overloaded function "add" matches'
    else:
        pattern = r"mixed\.co\.cpp:(\d+):\d+: error: no matching function for call to 'add\("
    return [int(n) for n in re.findall(pattern, stderr)]


@pytest.mark.parametrize("target", ["cpu", "opencl", "cuda"])
def test_mixed_host_and_device_arguments(mixed_builds, target):
    problem = compile_targets()[target]
    if problem and target == "opencl" and os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
        pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
    if problem:
        pytest.skip(problem)
    res = mixed_builds[target]
    assert res.rc == 1, res
    assert error_lines(target, res.err) == marked_lines(MIXED, "MIXED"), res.err
    untyped = marked_lines(MIXED, "UNTYPED")
    if target == "opencl":   # make_device_view of a cl_mem needs the element type
        assert f"mixed.co.cpp:{untyped[0]}:" in res.err and "give the element type" in res.err, res.err
    else:
        assert "give the element type" not in res.err, res.err


def test_parameter_storage(tmp_path):
    """'local' and 'shared' parameters, and 'global' on a scalar, are errors at the word;
    'global' on a spanned parameter is accepted."""
    res = run_croktilec("-fsyntax-only", BAD_PARAMETERS, cwd=tmp_path)
    assert res.rc == 1, res
    lines = BAD_PARAMETERS.read_text().splitlines()
    expected = []
    for number in marked_lines(BAD_PARAMETERS, "ERROR"):
        text = lines[number - 1]
        word = re.search(r"\b(local|shared|global)\b", text)
        message = ("'global' on a scalar parameter is not allowed" if word.group(1) == "global"
                   else f"a '{word.group(1)}' parameter is not allowed")
        column = word.start() + 1
        expected += [f"{BAD_PARAMETERS}:{number}:{column}: error: {message}: only a spanned parameter may be "
                     "'global' (its data is in device memory)", text, " " * (column - 1) + "^"]
    assert res.err.splitlines() == expected
    assert res.out == ""
