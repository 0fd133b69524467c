"""Builds one test program for every target that can run it here (cpu, factor and, where
PoCL is usable, opencl), in parallel: the run-time tests compare the targets' behaviour."""
from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path
from typing import Dict, Tuple

import pytest

from . import shared_builds
from .croktilec import run_croktilec
from .platforms import opencl_problem

TARGETS = ["cpu", "factor", "opencl"]
# factor-sim with a slow, really asynchronous DMA engine: each copy waits this long in its engine,
# on 3 cores, so that a `wait` that did not wait lets a later read see data not landed yet
SLOW_DMA = {"CROKTILE_FACTOR_DMA_LATENCY_US": "300", "CROKTILE_FACTOR_CORES": "3"}

Built = Tuple[Dict[str, Path], str]   # the executables by target, and why opencl is missing


def build_for_targets(source: Path, work: Path, wanted=TARGETS, shared=None, options=()) -> Built:
    """``source`` built with ``-o`` (and ``options``, croktilec flags such as ``-O1``) for each
    runnable target of ``wanted``; a target that cannot run here is left out
    (``CROKTILE_REQUIRE_OPENCL=1`` makes a missing opencl a failure). With ``shared`` (the
    session's tmp_path_factory) the builds are the session's shared ones
    (shared_builds.build), for programs another test file builds alike."""
    problem = opencl_problem() if "opencl" in wanted else ""
    if problem and os.environ.get("CROKTILE_REQUIRE_OPENCL") == "1":
        pytest.fail(f"CROKTILE_REQUIRE_OPENCL=1, but {problem}")
    targets = [t for t in TARGETS if t in wanted and (t != "opencl" or not problem)]

    def build(target: str) -> Path:
        name = f"{source.name.split('.')[0]}.{target}"
        if shared is not None:
            res, exe = shared_builds.build(shared, "-t", target, *options, source, name=name)
        else:
            exe = work / name
            res = run_croktilec("-t", target, *options, source, "-o", exe, cwd=work, timeout=300)
        assert res.rc == 0, res
        return exe
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(targets)) as pool:
        return dict(zip(targets, pool.map(build, targets))), problem


def program(built: Built, target: str) -> Path:
    """The executable for ``target``, or a skip saying why it cannot run here."""
    exes, problem = built
    if target not in exes:
        pytest.skip(problem)
    return exes[target]
