"""Fixtures of the Python package tests: one cache directory per test session, shared by
every test (nanobind's library and each module are built once per session)."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def croktile_cache(tmp_path_factory):
    """$CROKTILE_CACHE_DIR for this session (subprocesses inherit it)."""
    path = tmp_path_factory.mktemp("croktile-cache")
    saved = os.environ.get("CROKTILE_CACHE_DIR")
    os.environ["CROKTILE_CACHE_DIR"] = str(path)
    yield path
    if saved is None:
        os.environ.pop("CROKTILE_CACHE_DIR", None)
    else:
        os.environ["CROKTILE_CACHE_DIR"] = saved
