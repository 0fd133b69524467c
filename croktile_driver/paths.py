"""Where the data files are: inside the installed wheel, or at the top of a checkout."""
from __future__ import annotations

import os

_PKG = os.path.dirname(os.path.abspath(__file__))


def data_dir() -> str:
    installed = os.path.join(_PKG, "data")
    if os.path.isdir(installed):
        return installed
    return os.path.dirname(_PKG)  # a source checkout: runtime/, cmake/ sit beside the package


def runtime_dir() -> str:
    return os.path.join(data_dir(), "runtime")


def cmake_dir() -> str:
    return os.path.join(data_dir(), "cmake")


def toolchains_file() -> str:
    return os.path.join(data_dir(), "toolchains.yaml")


def user_toolchains_file() -> str:
    """The user's own profiles: ``${XDG_CONFIG_HOME:-~/.config}/croktile/toolchains.yaml``."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "croktile", "toolchains.yaml")


def cache_dir() -> str:
    """Where built Python modules (and nanobind's library) are cached: ``$CROKTILE_CACHE_DIR``,
    else ``${XDG_CACHE_HOME:-~/.cache}/croktile``."""
    explicit = os.environ.get("CROKTILE_CACHE_DIR")
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "croktile")
