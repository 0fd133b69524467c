"""An exclusive lock on a file: concurrent builds of one cached artefact (a Python module,
nanobind's library) wait for each other instead of building it twice."""
from __future__ import annotations

import os
from typing import Optional


class file_lock:
    """An exclusive fcntl lock on `path` (created), held for the ``with`` block."""

    def __init__(self, path: str):
        self.path = path
        self.fd: Optional[int] = None

    def __enter__(self):
        import fcntl
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        import fcntl
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        return False
