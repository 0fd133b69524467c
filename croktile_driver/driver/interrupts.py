"""SIGINT, SIGTERM and SIGHUP end a run cleanly: children stopped, temporaries removed,
one line on stderr, exit status 128 + the signal's number, never a Python traceback.

The handler is installed before croktilec imports anything heavy: when the program
is croktilec itself, as this module is imported (by the package's ``__init__``, the
first code of ours any entry point runs), else when ``cli.main`` is called. Until ``main`` arms it, a signal is held. This module imports only what the
interpreter has loaded at start-up. The handler raises ``Interrupted`` in
the main thread; it unwinds through the ``finally`` blocks that remove what the run
created. Steps that must not be cut in half (creating a temporary and recording it,
renaming outputs into place, removing the work directory) run under ``deferred()``,
which holds a signal back until they are done. After the first signal later ones are
ignored, so the cleanup runs to its end.

Children run in their own process group (``run_child``): a terminal's ^C reaches only
croktilec, which passes the signal on to the whole group (the compiler and the
programs it started) and waits for them, so they can remove their own temporaries.
"""
from __future__ import annotations

import os
import sys

# `signal`'s C module: the same functions and numbers without the enum classes `signal`
# builds as it is imported (about a millisecond of every croktilec start, the served ones too)
import _signal

SIGNALS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
# how long a child may take to exit after the signal is passed on, before SIGKILL
STOP_GRACE_S = 5.0


class Interrupted(BaseException):
    """A signal ended the run (a BaseException: no ``except Exception`` swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum

    def message(self) -> str:
        import signal
        return f"croktilec: interrupted by {signal.Signals(self.signum).name}"


class _State:
    received = 0        # the first signal, 0 while none came
    raised = False      # Interrupted was raised for it (the run is unwinding)
    defer_depth = 0
    held = False        # install(held=True) ran: arm() only lifts the hold


state = _State()


def _handler(signum, frame) -> None:
    if state.received:
        return   # already stopping: let the cleanup finish
    state.received = signum
    if state.defer_depth == 0:
        _raise()


def _raise() -> None:
    state.raised = True
    raise Interrupted(state.received)


def interrupt(signum: int) -> None:
    """The run ends as if ``signum`` came now, whatever its disposition (a served run
    whose client died: server.py), held back like a signal inside ``deferred``.
    Call it from a signal handler, where raising reaches the main thread."""
    _handler(signum, None)


def check() -> None:
    """Raises ``Interrupted`` if a signal came and was held back (call it before a commit)."""
    if state.received and not state.raised:
        _raise()


class deferred:
    """Holds signals back while the block runs; a signal that came meanwhile is raised
    as ``Interrupted`` when the outermost deferred block ends (even after an exception)."""

    def __enter__(self) -> None:
        state.defer_depth += 1

    def __exit__(self, *exc) -> None:
        state.defer_depth -= 1
        if state.defer_depth == 0:
            check()


def started_as_croktilec() -> bool:
    """This process is croktilec (the console script, ``python -m croktile_driver``), not a
    program that imports the package: then the handler goes in while ``cli`` is imported."""
    prog = sys.argv[0] if sys.argv else ""
    # this module is croktile_driver/driver/interrupts.py; the entry point is the top package's
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package = __package__.rpartition(".")[0]   # croktile_driver
    main_module = os.path.join(package_dir, "__main__.py")
    if prog == "-m":   # `python -m croktile_driver` while the package itself is imported
        orig = list(getattr(sys, "orig_argv", ()))
        return any(a == "-m" and b == package for a, b in zip(orig, orig[1:])) or \
            any(a == "-m" + package for a in orig)
    return os.path.basename(prog) == "croktilec" or prog == main_module


def install(held: bool = False) -> dict:
    """Installs the handler (main thread only) and returns the handlers it replaced.
    ``held``: signals are recorded, not raised, until ``arm()``.

    A signal the parent set to be ignored stays ignored (``nohup``, ``&`` in a script)."""
    state.received, state.raised, state.held = 0, False, held
    state.defer_depth = 1 if held else 0
    previous = {}
    try:
        for signum in SIGNALS:
            current = _signal.getsignal(signum)
            if current != _signal.SIG_IGN:
                previous[signum] = _signal.signal(signum, _handler)
    except ValueError:   # not the main thread: an embedding program handles signals
        restore(previous)
        return {}
    return previous


def arm() -> dict:
    """From here on a signal raises ``Interrupted`` (one held since start-up too).
    Returns the handlers replaced, where ``install`` had not run yet."""
    if state.held:   # since start-up: a signal held (or an interrupt()) is raised now
        state.held = False
        state.defer_depth = 0
        check()
        return {}
    return install()


def restore(previous: dict) -> None:
    for signum, handler in previous.items():
        _signal.signal(signum, handler)


def ignore_from_now() -> None:
    """The run is over: later signals are ignored. The interpreter's shutdown puts Python
    handlers back to the default, so a second signal arriving then killed croktilec by
    that signal instead of letting it exit with 128 + the first one."""
    for signum in SIGNALS:
        if _signal.getsignal(signum) is _handler:
            _signal.signal(signum, _signal.SIG_IGN)
    if not state.raised:
        state.received = 0   # one held back meanwhile is dropped too


def report(exc: Interrupted) -> int:
    """The one line, and the exit status."""
    try:
        print(exc.message(), file=sys.stderr, flush=True)
    except (OSError, ValueError):   # SIGHUP: the terminal may be gone
        pass
    return exc.exit_status


# Popen's process_group is new in Python 3.11; before, the child calls setpgid itself
_OWN_GROUP = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}


# children started from other threads (jobs run side by side): the main thread stops
# them when a signal unwinds it (stop_children); after that no thread starts one
_live: set = set()
_stopped = False


class _StartLock:
    """Made on first use: `threading` is not among the modules loaded at start-up."""
    lock = None

    @classmethod
    def get(cls):
        if cls.lock is None:
            import threading
            cls.lock = threading.Lock()
        return cls.lock


def _in_main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


def run_child(argv, env=None, stderr=None) -> int:
    """Runs a program in its own process group and returns its exit status (negative: the
    signal that killed it). On a signal, the group gets it too and is waited for.
    `stderr`: a file that takes its error output (to show it reworded)."""
    return run_children([argv], env=env, stderrs=[stderr])[0]


def stop_children() -> None:
    """Stops every child still running (from any thread), as a signal's unwinding does."""
    global _stopped
    with _StartLock.get():
        _stopped = True
        procs = list(_live)
    for proc in procs:
        stop_group(proc, state.received or _signal.SIGTERM)


def run_children(argvs, env=None, stderrs=None):
    """Runs programs at once, each as run_child does, and returns their exit statuses in
    order; on a signal every group gets it and is waited for. `stderrs`: a file per program."""
    import subprocess
    procs = []
    main = _in_main_thread()
    try:
        for i, argv in enumerate(argvs):
            # a child is never started without being recorded: the main thread holds
            # signals back meanwhile, another thread the lock that stop_children takes
            with (deferred() if main else _StartLock.get()):
                if not main and _stopped:
                    raise Interrupted(state.received or _signal.SIGTERM)
                procs.append(subprocess.Popen(argv, env=env, stderr=stderrs[i] if stderrs else None, **_OWN_GROUP))
                _live.add(procs[-1])
        return [p.wait() for p in procs]
    except BaseException:
        for p in procs:
            stop_group(p, state.received or _signal.SIGTERM)
        raise
    finally:
        for p in procs:
            _live.discard(p)


def stop_group(proc, signum: int) -> None:
    """Passes ``signum`` to the child's process group, waits for the child, then kills
    what is left of the group (nothing runs on after croktilec exits)."""
    import subprocess
    _kill_group(proc.pid, signum)
    _kill_group(proc.pid, _signal.SIGCONT)   # a stopped child (^Z, SIGTTOU) must run to act on it
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, _signal.SIGKILL)
        proc.wait()
    _kill_group(proc.pid, _signal.SIGKILL)


def _kill_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


if started_as_croktilec():
    install(held=True)   # held until cli.main() is ready to report it
