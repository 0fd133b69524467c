"""Croktile from Python: ``croktile.load("kernels.co.cpp")`` builds a ``.co.cpp`` into an
extension module with the same driver, profiles and flags as ``croktilec``, cached by
content, and returns it; every host-callable ``__co__`` function is a Python function.
"""
from ._errors import ArgumentError, BuildError, Error
from ._load import cache_dir, load

__all__ = ["load", "cache_dir", "Error", "ArgumentError", "BuildError"]
