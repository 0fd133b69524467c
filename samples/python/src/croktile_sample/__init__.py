"""Croktile kernels in a wheel: the functions of kernels/*.co.cpp, built by
croktile_add_python_module into the extension module croktile_sample._kernels."""
from ._kernels import ArgumentError, Error, row_sums, saxpy

__all__ = ["saxpy", "row_sums", "Error", "ArgumentError"]
