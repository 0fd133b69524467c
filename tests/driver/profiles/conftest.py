"""Toolchain profile tests see only the profiles they write: no user config, no $CROKTILE_TOOLCHAINS."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import croktile_driver

PKG_PARENT = str(Path(croktile_driver.__file__).resolve().parent.parent)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """A config directory of our own (empty), and none of the variables that pick compilers."""
    config = tmp_path / "xdg-config"
    config.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    for name in ("CROKTILE_TOOLCHAINS", "CXX", "NVCC"):
        monkeypatch.delenv(name, raising=False)
    return config


def croktilec(*args, cwd, env=None) -> subprocess.CompletedProcess:
    """``croktilec`` as a user runs it, from where this test process imports croktile_driver."""
    full_env = dict(os.environ, PYTHONPATH=PKG_PARENT, LC_ALL="C")
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "croktile_driver", *map(str, args)], cwd=str(cwd),
                          env=full_env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr and "internal compiler error" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def run_croktilec():
    return croktilec
