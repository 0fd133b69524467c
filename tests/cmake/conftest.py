"""The package as users get it: a wheel built from this checkout, installed into a fresh venv.

Built and installed once per test session (the ``croktile`` fixture). Each CMake project
then finds the package through ``croktilec --cmake-dir`` (or scikit-build-core's entry
point) and the croktilec installed beside it, in a clean environment: no $CXX, $NVCC,
$CROKTILE_TOOLCHAINS, and an empty user config directory.
"""
from __future__ import annotations

import os
import shutil
import sys

import pytest

from cmake_helpers import REPO, Install, run


@pytest.fixture(scope="session")
def croktile(tmp_path_factory) -> Install:
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    root = tmp_path_factory.mktemp("croktile-install")
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", root / "wheels", REPO])
    wheel, = (root / "wheels").glob("croktile-*.whl")
    run([sys.executable, "-m", "venv", root / "venv"])
    venv = root / "venv"
    run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel])
    config = root / "xdg-config"
    config.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("CXX", "NVCC", "CROKTILE_TOOLCHAINS", "PYTHONPATH", "CMAKE_PREFIX_PATH",
                        "CMAKE_GENERATOR", "MAKEFLAGS")}
    env.update(XDG_CONFIG_HOME=str(config), LC_ALL="C")
    return Install(root, venv, wheel, env)
