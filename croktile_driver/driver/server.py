"""The warm compile server: a transpile (`-S`, `-E`, `-fsyntax-only`, `--dump-*`) served by
a process that has the driver imported already, as build tools with daemons do.

A fresh `croktilec -S` spends most of its time starting Python and importing the
frontend and a toolchain (bench/bench_transpile.py); the work itself is a few ms. So the
console program first asks a server of the same installation for the run:

- the client sends its argv, working directory, environment and umask, and passes its
  stdin, stdout and stderr (SCM_RIGHTS) over a Unix socket in a directory only its user
  can open (mode 0700, owned by the user: checked, else no server is used);
- the server forks a child per request; the child takes the client's descriptors,
  directory and environment and runs ``cli.main`` as a fresh process would, so output,
  diagnostics and exit status are the same bytes; its pid comes back first, so a
  signal the client gets is passed on to it; it starts with the client's ignored
  signals ignored, the others at their default; a client that dies (SIGKILL) ends its
  run: the child lets go of the client's streams and stops as on SIGHUP;
- the socket's name hashes the interpreter, the package's location, and the settings
  that shape text output (encodings, flags); before each request the server compares the
  modification times and sizes of the installed package and its profile file with those
  it started with, and exits when they changed (the client then runs the job itself);
  profile files named on the command line or in the user's configuration are read by
  each child, as by a fresh process;
- on any failure to connect, or a server that ends before it answers, the client runs
  the job itself: the server can only make a run faster, never fail one. Where no server
  runs, the client starts one in the background for the next run; it exits after
  ``IDLE_S`` without requests. ``CROKTILE_SERVER=0`` turns all of this off.

The client imports only what the interpreter has at start-up (and ``_socket``).
"""
from __future__ import annotations

import os
import sys

IDLE_S = 900.0
CHECK_S = 2.0   # how often an idle server looks whether its socket is still its own
_serving = False   # set in the server's children: a run there is done there
# the stages served: where starting Python costs more than the work
SERVED_FLAGS = frozenset(("-S", "--emit-source", "-E", "-fsyntax-only", "--dump-ast", "--dump-ir"))
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # croktile_driver/, not driver/


def _text_settings() -> tuple:
    """What makes one interpreter print other bytes than another for the same text."""
    streams = tuple((s.encoding, s.errors) if s is not None else None for s in (sys.stdin, sys.stdout, sys.stderr))
    return (sys.executable, _PACKAGE, sys.version, sys.getfilesystemencoding(), tuple(sys.flags), streams)


def _socket_dir() -> str:
    """A directory only this user can open, created if missing; '' where that cannot be had."""
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    path = os.path.join(base, f"croktile-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return ""
    try:
        st = os.lstat(path)
    except OSError:
        return ""
    import stat
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return ""
    return path


def socket_path() -> str:
    import zlib
    directory = _socket_dir()
    if not directory:
        return ""
    key = zlib.adler32(repr(_text_settings()).encode("utf-8", "surrogateescape"))
    return os.path.join(directory, f"server-{key:08x}.sock")


def fingerprint() -> tuple:
    """Modification times and sizes of the installed package's files and profiles."""
    out = []
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            st = os.stat(os.path.join(root, name))
            out.append((root, name, st.st_mtime_ns, st.st_size))
    from ..paths import toolchains_file
    st = os.stat(toolchains_file())
    out.append((toolchains_file(), st.st_mtime_ns, st.st_size))
    return tuple(out)


# -- the client -------------------------------------------------------------------------

def served(argv) -> "int | None":
    """The exit status of the run done by a server, or None: then run it here."""
    if _serving or os.environ.get("CROKTILE_SERVER", "1") == "0" or os.name != "posix" or "--debug" in argv:
        return None
    if not SERVED_FLAGS.intersection(argv):
        return None
    path = socket_path()
    if not path:
        return None
    import marshal
    # `socket`'s C module: the client needs a connection and one message with descriptors,
    # not the enum classes `socket` builds as it is imported (a few ms of every served run)
    import _socket
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.connect(path)
        streams = [(s.encoding, s.errors) for s in (sys.stdin, sys.stdout, sys.stderr)]
        request = marshal.dumps((list(argv), sys.argv[0], os.getcwd(), dict(os.environ), _umask(), streams,
                                 _ignored_signals()))
        fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))   # a C int array
        message = len(request).to_bytes(8, "little") + request
        sent = conn.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        conn.sendall(message[sent:])
        pid = int.from_bytes(_recv(conn, 8), "little")
    except OSError:
        conn.close()
        _start_server(path)
        return None
    from . import interrupts
    try:
        while True:
            try:
                reply = _recv(conn, 4)
                return int.from_bytes(reply, "little", signed=True)
            except interrupts.Interrupted as exc:   # the child stops and reports it
                interrupts.state.received, interrupts.state.raised = 0, False
                os.kill(pid, exc.signum)
    except OSError:
        return None   # the server ended without an answer: run the job here
    finally:
        conn.close()


def _ignored_signals() -> list:
    """The signals this process was started with ignored (``nohup``, ``&`` in a script):
    the child ignores them too, as this process does (``interrupts.install``)."""
    import _signal
    from .interrupts import SIGNALS
    return [signum for signum in SIGNALS if _signal.getsignal(signum) == _signal.SIG_IGN]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _recv(conn, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return data


def _start_server(path: str) -> None:
    import subprocess
    try:
        subprocess.Popen([sys.executable, "-m", "croktile_driver.driver.serve_main", path], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True, cwd="/")
    except OSError:
        pass


# -- the server -------------------------------------------------------------------------

def serve(path: str, main) -> None:
    """Serves runs on ``path``; ``main`` is the driver's entry (cli.main, given by
    serve_main.py, so that this module never imports cli, which imports it).

    A spare child, forked before a request comes, waits for the next one (``_spare``): a
    run does not wait for the fork. It tells the server when it took a request, and the
    server forks the next spare."""
    import gc
    import signal
    import socket
    # taken before the warm-up imports the rest of the package: an installation that
    # changes meanwhile is not served by a server that may have imported part of the old one
    started = fingerprint()
    _warm_up(main)   # what a transpile imports and loads, once here: each child starts from it
    if fingerprint() != started:
        return
    # what the warm-up left is never collected: a child's collections do not walk (and so
    # copy, page by page) the server's memory
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temp = f"{path}.{os.getpid()}"
    old_mask = os.umask(0o177)   # the socket: read and write for the user only
    try:
        listener.bind(temp)
    finally:
        os.umask(old_mask)
    listener.listen(64)
    os.rename(temp, path)        # the server of this name from now on
    mine = os.stat(path).st_ino
    alive_r, alive_w = os.pipe()   # end of file on alive_r: the server has ended, and so do spares
    try:
        while True:
            took_r, took_w = os.pipe()
            if os.fork() == 0:
                os.close(alive_w)
                os.close(took_r)
                _spare(listener, alive_r, took_w, started, main)
            os.close(took_w)
            took = _wait_for_request(took_r, path, mine)
            os.close(took_r)
            if took != b"s":   # idle, replaced, a changed installation, or a spare that died
                return
    finally:
        os.close(alive_w)
        listener.close()
        try:
            if os.stat(path).st_ino == mine:   # not a newer server's socket
                os.unlink(path)
        except OSError:
            pass


def _wait_for_request(took: int, path: str, mine: int) -> bytes:
    """What the spare said on ``took`` (b"s": it took a request), or b"" once the server
    has been idle for IDLE_S or its socket is no longer at ``path`` (removed, or another
    server's: a server that cannot be reached ends instead of waiting out IDLE_S)."""
    import select
    import time
    deadline = time.monotonic() + IDLE_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([took], [], [], min(CHECK_S, deadline - time.monotonic()))
        if ready:
            return os.read(took, 1)
        try:
            if os.stat(path).st_ino != mine:
                return b""
        except OSError:
            return b""
    return b""


def _spare(listener, alive, took: int, started: tuple, main) -> None:
    """A child that waits for the next request and runs it; never returns. The server's
    files are compared with those it started with once a request came: when they changed
    (clients then run the job themselves) the server ends."""
    import select
    try:
        ready, _, _ = select.select([listener, alive], [], [])
        if alive in ready:   # the server ended
            os._exit(0)
        conn, _ = listener.accept()
        same = fingerprint() == started
        os.write(took, b"s" if same else b"x")
        os.close(took)
        os.close(alive)
        listener.close()
        if not same:
            conn.close()
            os._exit(0)
    except BaseException:
        os._exit(2)
    _child(conn, main)


WARM_UP = """__cok__ { extern "C" void k(int* a, int* b, int n) { for (int i = 0; i < n; ++i) b[i] = a[i]; } }
__co__ s32 [4, 8] f(s32 [4, 8] a) {
  s32 [a.span] out;
  parallel p by 2 {
    with i in [2] {
      foreach i {
        t = dma.copy a.chunkat(p # i, _) => local;
        local s32 [t.span] u;
        call k(t.data, u, 8);
        dma.copy u => out.chunkat(p # i, _);
      }
    }
  }
  return out;
}
"""


def _warm_up(main) -> None:
    """One transpile per target, so that each child finds the lazy imports done, the parser
    tables loaded and the regular expressions compiled."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "warm_up.co.cpp")
        with open(src, "w") as f:
            f.write(WARM_UP)
        for target in ("cpu", "cuda", "factor"):
            main(["-S", "-t", target, src, "-o", os.path.join(tmp, f"out.{target}")])
        main(["-fsyntax-only", "-t", "opencl", src])


def _child(conn, main) -> None:
    """Runs one request as a fresh croktilec process would, and never returns."""
    import marshal
    import signal
    import socket
    global _serving
    _serving = True
    status = 2
    try:
        conn.settimeout(10.0)
        head, fds, _, _ = socket.recv_fds(conn, 8, 3)
        size = int.from_bytes(head, "little")
        argv, prog, cwd, env, umask, streams, ignored = marshal.loads(_recv(conn, size))
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _take_signals(ignored)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        os.umask(umask)
        sys.argv = [prog] + argv
        _reopen_streams(streams)
        conn.settimeout(None)
        conn.sendall(os.getpid().to_bytes(8, "little"))
        _end_with_client(conn)
        status = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        os._exit(2)   # no answer: the client runs the job itself
    signal.signal(getattr(signal, _WAKE), signal.SIG_IGN)   # the run is over: the client may go
    try:
        conn.sendall(int(status).to_bytes(4, "little", signed=True))
    finally:
        os._exit(0)


def _take_signals(ignored) -> None:
    """The dispositions a fresh croktilec would start with: the client's ignored signals
    ignored, the others at their default (not the server's, which may have been started
    from a shell that ignores SIGINT), then the handler, holding signals until ``main``."""
    import signal
    from . import interrupts
    for signum in interrupts.SIGNALS:
        signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
    interrupts.install(held=True)


# the signal the watcher wakes the main thread with: its default action is to do nothing,
# so one that comes after the run ended (the handler taken back) is harmless
_WAKE = "SIGURG"


def _end_with_client(conn) -> None:
    """A client that dies (SIGKILL: it cannot pass a signal on) ends its run. A build tool
    that killed it waits for end of file on the pipes it gave it, so the child must not
    hold them, nor go on writing outputs for nobody.

    A thread waits for the connection to close (the client sends nothing after its
    request). It points the standard streams at /dev/null, which lets go of the client's
    pipes whatever the main thread is doing (a write blocked on a full pipe included),
    then wakes the main thread with a signal whose handler ends the run as a SIGHUP would:
    temporaries removed, no output renamed into place (``interrupts.interrupt``)."""
    import select
    import signal
    import socket
    import threading
    from . import interrupts
    wake = getattr(signal, _WAKE)
    main_thread = threading.get_ident()

    def watch() -> None:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        while True:
            poller.poll()
            try:
                if conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT):
                    return   # not an end: the client sends nothing more, this is not ours to read
                break
            except BlockingIOError:
                continue     # still connected
            except OSError:
                break        # reset: gone
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        signal.pthread_kill(main_thread, wake)

    signal.signal(wake, lambda signum, frame: interrupts.interrupt(signal.SIGHUP))
    threading.Thread(target=watch, name="croktile-client-watch", daemon=True).start()


def _reopen_streams(settings) -> None:
    """Python's standard streams over the client's descriptors, with the client's encodings
    and the buffering a fresh process gives them (stderr by line, stdout by line on a tty)."""
    import io
    for fd, name, (encoding, errors) in zip((0, 1, 2), ("stdin", "stdout", "stderr"), settings):
        mode = "r" if fd == 0 else "w"
        stream = io.open(fd, mode, encoding=encoding, errors=errors, closefd=False,
                         newline=None if fd == 0 else "\n")
        if fd:
            stream.reconfigure(line_buffering=fd == 2 or os.isatty(fd))
        setattr(sys, name, stream)
