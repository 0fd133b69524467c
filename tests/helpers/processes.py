"""The processes a test starts, signals and looks for.

A test that sends a signal sets up the dispositions it depends on: a suite started under
``nohup`` or as ``&`` in a script inherits SIGHUP or SIGINT ignored, and so would every
program it starts (``with_default_signals``).
"""
from __future__ import annotations

import os
import signal
import stat
from pathlib import Path
from typing import Iterable, List

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def with_default_signals(ignored: Iterable[int] = ()):
    """A ``preexec_fn`` for Popen: the child starts as from an interactive shell, every
    signal at its default and none blocked, except ``ignored`` (as ``nohup``, ``&`` give)."""
    ignored = tuple(ignored)

    def preexec() -> None:
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
    return preexec


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for a reaper we do not control)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _others() -> Iterable[Path]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            yield entry


def processes_with(text: str) -> List[int]:
    """Processes whose environment mentions ``text`` (croktilec's children get TMPDIR)."""
    found = []
    for entry in _others():
        try:
            if text.encode() in (entry / "environ").read_bytes() and running(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def holders_of(fd: int) -> List[int]:
    """The other processes that have the pipe or socket behind ``fd`` open."""
    st = os.fstat(fd)
    kind = "pipe" if stat.S_ISFIFO(st.st_mode) else "socket"
    link = f"{kind}:[{st.st_ino}]"
    found = []
    for entry in _others():
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for path in fds:
            try:
                if os.readlink(path) == link:
                    found.append(int(entry.name))
                    break
            except OSError:
                pass
    return found
