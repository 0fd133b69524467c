"""The documentation site built for the tests: once per test session.

``build_site`` runs ``mkdocs build --strict`` (the generator docs/contributing-docs.md
chose) into a folder; ``shared_site`` builds the checkout's site once for the whole
session, also when pytest-xdist spreads the files that read it over several workers: the
build lives in the session's base temporary directory, which the workers share, and a
lock makes a second asker wait for the build in progress and then read it.
"""
from __future__ import annotations

import fcntl
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def build_site(out: Path, path: str = "") -> Path:
    """``mkdocs build --strict`` into out (PATH: that of the croktilec to draw with)."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (pip install '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PATH=path or os.environ["PATH"])
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
                         cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, f"mkdocs build --strict failed:\n{res.stdout}{res.stderr}"
    return out


def _session_root(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_site(tmp_path_factory) -> Path:
    """The checkout's site, built by the first test of the session that asks for it."""
    root = _session_root(tmp_path_factory)
    out, record = root / "docs-site", root / "docs-site.result"
    with open(root / "docs-site.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # held until the with block closes the file
        if not record.exists():
            try:
                build_site(out)
                record.write_text("ok")
            except pytest.skip.Exception as e:
                record.write_text(f"skip\n{e.msg}")
            except BaseException as e:
                record.write_text(f"fail\n{e}")
        result = record.read_text()
    kind, _, msg = result.partition("\n")
    if kind == "skip":
        pytest.skip(msg)
    if kind == "fail":
        pytest.fail(msg, pytrace=False)
    return out
