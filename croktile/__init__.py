"""Croktile from Python: ``croktile.load("kernels.co.cpp")`` builds a ``.co.cpp`` into an
extension module with the same driver, profiles and flags as ``croktilec``, cached by
content, and returns it; every host-callable ``__co__`` function is a Python function.
``croktile.autotune("gemm.co.cpp", {"BN": [128, 256]})`` runs the fastest build per key.
"""
from ._errors import ArgumentError, BuildError, Error
from ._load import cache_dir, load
from ._tune import Choice, Tuned, autotune

__all__ = ["load", "autotune", "Tuned", "Choice", "cache_dir", "Error", "ArgumentError", "BuildError"]
