"""croktile_add_python_module (issue #14): samples/python, a scikit-build-core project,
builds a wheel with Croktile kernels inside (against the croktile wheel installed in a fresh
venv), which is installed into another fresh venv and imported there by its own tests."""
from __future__ import annotations

import shutil
import sys
import zipfile

import pytest

from cmake_helpers import REPO, run

pytestmark = pytest.mark.python


def test_sample_wheel_builds_and_imports(croktile, tmp_path):
    py = croktile.python
    run([py, "-m", "pip", "install", "--quiet", "scikit-build-core==1.1.2", "nanobind==2.9.2"], env=croktile.env)
    project = tmp_path / "project"
    shutil.copytree(REPO / "samples" / "python", project)
    run([py, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps", "-w", tmp_path / "dist", project],
        env=croktile.env, timeout=600)
    wheel, = (tmp_path / "dist").glob("croktile_sample-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("croktile_sample/_kernels.") and n.endswith(".so") for n in names)
    stub = zipfile.ZipFile(wheel).read("croktile_sample/_kernels.pyi").decode()
    assert "def saxpy(x: ArrayLike, y: ArrayLike, alpha: float, *, stream: Any = None) -> Any:" in stub
    assert "x: f32 [N]" in stub

    fresh = tmp_path / "fresh"
    run([sys.executable, "-m", "venv", fresh])
    run([fresh / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, "numpy==2.4.6", "pytest==9.0.3"],
        env=croktile.env)
    # the wheel's own tests, run from outside the project so that the installed package is imported
    res = run([fresh / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "--basetemp", tmp_path / "wheel-tests-tmp", project / "tests"],
              cwd=tmp_path, env=croktile.env, check=False)
    assert res.returncode == 0, res.stdout
    assert "3 passed" in res.stdout
