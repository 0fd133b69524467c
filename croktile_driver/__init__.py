"""Croktile: a gcc-style compiler driver for the Croktile tileflow DSL."""

__version__ = "0.1.0"
