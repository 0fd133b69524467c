"""Outputs appear whole or not at all: write beside the target, then rename."""
from __future__ import annotations

import os
import sys
import tempfile

from . import interrupts


class OutputError(OSError):
    """An output cannot be written (a user error: a missing or read-only directory)."""


def is_special(path: str) -> bool:
    """An existing output that is not a regular file (/dev/null, a FIFO, /dev/stdout): it is
    written through, never replaced by a rename (which would put a file in its place)."""
    return os.path.exists(path) and not os.path.isfile(path)


def write_atomic(path: str, data, mode: int = 0o644) -> None:
    payload = encode(data) if isinstance(data, str) else data
    if is_special(path):
        try:
            with open(path, "wb") as fh:
                fh.write(payload)
        except OSError as exc:
            raise OutputError(exc.errno, f"cannot write '{path}': {exc.strerror}") from None
        return
    directory = os.path.dirname(os.path.abspath(path))
    with interrupts.deferred():   # the temporary is removed again whatever happens
        try:
            fd, tmp = tempfile.mkstemp(prefix=".croktile-", dir=directory)
        except OSError as exc:
            raise OutputError(exc.errno, f"cannot write '{path}': {exc.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.chmod(tmp, mode & ~_umask())
            interrupts.check()   # a signal came while writing: no output
            os.replace(tmp, path)
        except BaseException as exc:
            if os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(exc, OSError) and not isinstance(exc, OutputError):
                raise OutputError(exc.errno, f"cannot write '{path}': {exc.strerror}") from None
            raise


def encode(text: str) -> bytes:
    """UTF-8, with the bytes of the source that were not UTF-8 (read with surrogateescape)
    written back as they were: host code passes through byte for byte."""
    return text.encode("utf-8", "surrogateescape")


def write_stdout(text: str) -> None:
    """Writes generated text to standard output as ``write_atomic`` writes it to a file
    (a caller's in-memory text stream, which has no bytes below it, takes the text)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(encode(text))
    buffer.flush()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
