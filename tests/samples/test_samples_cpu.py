"""Every program in ``samples/`` builds with croktilec (target cpu), runs, and passes.

Each sample's ``main`` checks every element of its result against a plain C++
reference and prints ``Test Passed``; a non-zero exit or a missing line fails
here. The generated source must also be byte-identical from run to run (DESIGN
section 6: build caches depend on it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from helpers import shared_builds

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "samples").glob("*.co.cpp"))
EXPECTED = {"ele_add", "matmul", "masking", "where", "symbolic", "pipeline"}


def _name(path: Path) -> str:
    return path.name[: -len(".co.cpp")]


def _driver() -> Tuple[List[str], Dict[str, str]]:
    """Run the same croktile_driver this test process imports: the working tree's
    (python -m, PYTHONPATH=repo) when that is what pytest sees, else the installed
    ``croktilec``."""
    env = dict(os.environ)
    import croktile_driver
    if Path(croktile_driver.__file__).resolve().parent.parent == REPO:
        env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [env.get("PYTHONPATH")] if p])
        return [sys.executable, "-m", "croktile_driver"], env
    exe = shutil.which("croktilec")
    return ([exe] if exe else [sys.executable, "-m", "croktile_driver"]), env


def croktilec(*args: str, cwd: Path, hash_seed: str = "") -> subprocess.CompletedProcess:
    cmd, env = _driver()
    if hash_seed:
        env["PYTHONHASHSEED"] = hash_seed  # set iteration order must not leak into the output
    return subprocess.run(cmd + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_expected_samples_exist():
    assert EXPECTED <= {_name(p) for p in SAMPLES}


@pytest.mark.parametrize("src", SAMPLES, ids=[_name(p) for p in SAMPLES])
def test_sample_builds_and_passes(src: Path, tmp_path_factory):
    # the session's shared cpu build, which test_samples_cross.py runs as its x86-64 reference too
    build, exe = shared_builds.cpu_build(tmp_path_factory, src)
    assert build.rc == 0, f"croktilec failed:\n{build.out}{build.err}"
    run = subprocess.run([str(exe)], cwd=exe.parent, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{src.name} exited {run.returncode}:\n{run.stdout}{run.stderr}"
    assert "Test Passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("src", SAMPLES, ids=[_name(p) for p in SAMPLES])
def test_generated_source_is_deterministic(src: Path, tmp_path: Path):
    outputs = []
    for i, seed in enumerate(("1", "2")):
        out = tmp_path / f"gen{i}.cpp"
        res = croktilec("-S", str(src), "-o", str(out), cwd=tmp_path, hash_seed=seed)
        assert res.returncode == 0, f"croktilec -S failed:\n{res.stdout}{res.stderr}"
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1], f"-S output for {src.name} differs between two runs"


def test_spec_program_needs_no_includes():
    """samples/ele_add is spec 1's complete program, with no #include lines as the spec
    prints it, so building it (above, and on every other target in test_samples_targets.py)
    shows that the implicitly included croktile.h provides what its host code uses."""
    src = REPO / "samples" / "ele_add.co.cpp"
    includes = [line for line in src.read_text().splitlines() if line.lstrip().startswith("#include")]
    assert includes == [], f"{src.name} must stay without #include lines, as the spec prints it: {includes}"
