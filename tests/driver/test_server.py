"""The warm compile server (croktile_driver/driver/server.py, issue #22): a served run gives the bytes
a fresh process gives, only the user can reach the socket, a changed installation is never
served by an old server, and every failure falls back to a fresh run; a client's death or
signal ends its run, whatever signals the server inherited ignored (#36).

Each test has its own socket directory ($XDG_RUNTIME_DIR) and server, stopped at the end.
"""
from __future__ import annotations

import fcntl
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from helpers.processes import holders_of, running, with_default_signals
from helpers.programs import ADD_PROGRAM

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = [REPO / "samples" / "ele_add.co.cpp", REPO / "tests" / "language" / "data" / "fills.co.cpp",
            REPO / "tests" / "language" / "data" / "err_span_ops.co.cpp"]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the server listens on a Unix socket")

# the client as the console program runs it: the same settings, so the same socket name
CLIENT = ("import sys; from croktile_driver.driver import server; "
          "sys.argv = ['croktilec'] + sys.argv[1:]; rc = server.served(sys.argv[1:]); "
          "open(sys.argv[-1] + '.served', 'w').write(repr(rc)); raise SystemExit(rc or 0)")


def env_for(runtime_dir: Path, server: str = "1") -> dict:
    return dict(os.environ, XDG_RUNTIME_DIR=str(runtime_dir), CROKTILE_SERVER=server)


def socket_of(env: dict) -> str:
    return subprocess.run([sys.executable, "-P", "-c", "import sys; sys.argv = ['croktilec']; "
                           "from croktile_driver.driver import server; print(server.socket_path())"],
                          env=env, capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL).stdout.strip()


@pytest.fixture
def short_runtime_dir():
    """A runtime directory with a short path: a Unix socket's path is limited to 107 bytes,
    which a pytest-xdist worker's tmp_path (…/popen-gw0/test_…) can exceed."""
    path = Path(tempfile.mkdtemp(prefix="ckt-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def server(short_runtime_dir):
    yield from start_server(short_runtime_dir)


@pytest.fixture
def server_ignoring_sigint(short_runtime_dir):
    """A server started by a croktilec run from `nohup ... &` in a script: it inherited
    SIGINT and SIGHUP ignored."""
    yield from start_server(short_runtime_dir, ignored=(signal.SIGINT, signal.SIGHUP))


def start_server(runtime: Path, ignored=()):
    env = env_for(runtime)
    path = socket_of(env)
    proc = subprocess.Popen([sys.executable, "-P", "-m", "croktile_driver.driver.serve_main", path], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=with_default_signals(ignored))
    deadline = time.monotonic() + 120
    while not os.path.exists(path):
        assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)
    yield env, path, proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def run(argv, env, out: Path, client: bool):
    """One run, its output files and streams; with ``client`` through server.served only."""
    # -P: the installed package, as the server runs it, not the source tree in the directory
    cmd = [sys.executable, "-P", "-c", CLIENT] if client else [sys.executable, "-P", "-m", "croktile_driver"]
    with open(out.with_suffix(".stdout"), "wb") as so, open(out.with_suffix(".stderr"), "wb") as se:
        proc = subprocess.run(cmd + [str(a) for a in argv] + ["-o", str(out)], env=env, stdout=so, stderr=se,
                              stdin=subprocess.DEVNULL, cwd=str(REPO), timeout=300)
    served = out.with_name(out.name + ".served")
    return (proc.returncode, out.read_bytes() if out.exists() else None,
            out.with_suffix(".stdout").read_bytes(), out.with_suffix(".stderr").read_bytes(),
            served.read_text() if served.exists() else None)


@pytest.mark.parametrize("target", ["cpu", "factor"])
def test_served_runs_give_the_bytes_of_a_fresh_process(server, tmp_path, target):
    env, _, _ = server
    for program in PROGRAMS:
        flags = ["-Wimplicit-fill", "-S", "-t", target, program.relative_to(REPO)]
        rc, out, so, se, _ = run(flags, env_for(Path(env["XDG_RUNTIME_DIR"]), "0"),
                                 tmp_path / f"{program.stem}.fresh.cpp", client=False)
        served = run(flags, env, tmp_path / f"{program.stem}.served.cpp", client=True)
        assert served[4] == repr(rc), (program, served)          # served, with the fresh run's status
        assert served[:4] == (rc, out, so, se), program


def test_a_socket_directory_others_can_open_is_not_used(tmp_path):
    runtime = tmp_path / "run"
    (runtime / f"croktile-{os.getuid()}").mkdir(parents=True, mode=0o755)
    os.chmod(runtime / f"croktile-{os.getuid()}", 0o755)
    env = env_for(runtime)
    assert socket_of(env) == ""
    rc, out, _, _, served = run(["-S", REPO / "samples" / "ele_add.co.cpp"], env, tmp_path / "a.cpp", client=True)
    assert served == "None"
    res = subprocess.run([sys.executable, "-P", "-m", "croktile_driver", "-S", str(REPO / "samples" / "ele_add.co.cpp"),
                          "-o", str(tmp_path / "b.cpp")], env=env, capture_output=True, timeout=300)
    assert res.returncode == 0 and (tmp_path / "b.cpp").exists()


def test_the_socket_is_the_users_only(server):
    _, path, _ = server
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700


def test_no_process_serves_after_the_server_ends(server, tmp_path):
    """The spare child that waits for the next request ends with the server: after the
    server is killed nothing answers on its socket (the client then runs the job itself)."""
    env, path, proc = server
    rc, out, _, _, served = run(["-S", REPO / "samples" / "ele_add.co.cpp"], env, tmp_path / "a.cpp", client=True)
    assert (rc, served) == (0, "0") and out   # served: a spare took it, and the next spare waits
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while True:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
        except ConnectionRefusedError:
            break
        finally:
            probe.close()
        assert time.monotonic() < deadline, "a child of the killed server still accepts requests"
        time.sleep(0.1)
    rc, out, _, _, served = run(["-S", REPO / "samples" / "ele_add.co.cpp"], env, tmp_path / "b.cpp", client=True)
    assert (rc, served) == (0, "None") and out is None   # the client itself runs nothing: CLIENT only asks


def test_a_server_whose_socket_is_gone_ends(server):
    """A server nobody can reach any more (its socket removed, or replaced by another
    server's) ends within seconds instead of waiting out its idle time."""
    _, path, proc = server
    os.unlink(path)
    proc.wait(timeout=60)


def test_a_dead_server_falls_back_to_a_fresh_run(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = dict(env_for(runtime))
    path = socket_of(env)
    Path(path).touch()                        # a socket file nobody listens on
    out = tmp_path / "o.cpp"
    proc = subprocess.run([sys.executable, "-P", "-m", "croktile_driver", "-S", str(REPO / "samples" / "ele_add.co.cpp"),
                           "-o", str(out)], env=env, capture_output=True, timeout=300)
    assert proc.returncode == 0 and out.exists(), proc.stderr
    # the run started a server in the background: once it listens, removing its socket ends
    # it (one that has not replaced the file within seconds ends when it finds it gone)
    deadline = time.monotonic() + 10
    while Path(path).is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    Path(path).unlink(missing_ok=True)


def test_a_changed_installation_is_not_served_by_the_old_server(server, tmp_path):
    env, path, proc = server
    # the installed package, which the server runs (not a source tree on this process's path)
    marker = Path(subprocess.run([sys.executable, "-P", "-c", "import croktile_driver; print(croktile_driver.__file__)"],
                                 env=env, cwd="/", capture_output=True, text=True, check=True).stdout.strip())
    before = marker.stat()
    try:
        os.utime(marker, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        rc, out, _, _, served = run(["-S", REPO / "samples" / "ele_add.co.cpp"], env, tmp_path / "a.cpp",
                                    client=True)
        assert served == "None"               # the client runs the job itself ...
        proc.wait(timeout=30)                  # ... and the old server has ended
    finally:
        os.utime(marker, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_changed_user_profile_is_read_by_the_next_served_run(server, tmp_path):
    env, _, _ = server
    config = tmp_path / "config"
    (config / "croktile").mkdir(parents=True)
    env = dict(env, XDG_CONFIG_HOME=str(config))
    profiles = config / "croktile" / "toolchains.yaml"
    argv = ["-S", "--profile", "mine", REPO / "samples" / "ele_add.co.cpp"]
    profiles.write_text("profiles:\n  mine: {target: cpu, cxx: c++, flags: [-O2, -std=c++17]}\n")
    rc, out, _, _, served = run(argv, env, tmp_path / "a.cpp", client=True)
    assert (rc, served) == (0, "0") and out
    profiles.write_text("profiles: {}\n")
    rc, out, _, err, served = run(argv, env, tmp_path / "b.cpp", client=True)
    assert (rc, served, out) == (1, "1", None)
    assert b"mine" in err, err


def start_stuck_run(cmd, env, tmp_path: Path, stuck: str):
    """A served run that does not end by itself, its client, and the server's child doing
    it: ``stuck`` "reading" its input (a FIFO the test opened and wrote half a program to),
    or "writing" its output to stdout (a pipe the test does not read: 64 KiB fill it)."""
    keep = []
    if stuck == "reading":
        os.mkfifo(tmp_path / "slow.co.cpp")
        argv = ["-S", "slow.co.cpp", "-o", "out.cpp"]
    else:
        (tmp_path / "big.co.cpp").write_text(ADD_PROGRAM + "".join(f"int host_{i} = {i};\n" for i in range(50000)))
        argv = ["-S", "big.co.cpp", "-o", "-"]
    client = subprocess.Popen(cmd + argv, env=env, cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=with_default_signals())
    deadline = time.monotonic() + 60
    while True:
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        if stuck == "reading":
            try:   # opens once the child opened the FIFO to read it
                keep.append(os.open(tmp_path / "slow.co.cpp", os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                time.sleep(0.02)
                continue
            os.write(keep[-1], ADD_PROGRAM[:200].encode())
            break
        if int.from_bytes(fcntl.ioctl(client.stdout.fileno(), termios.FIONREAD, bytes(4)), sys.byteorder) >= 65536:
            break
        time.sleep(0.02)
    children = set(holders_of(client.stderr.fileno())) - {client.pid}
    assert len(children) == 1, children   # served: one process besides the client has its stderr
    return client, children.pop(), keep


def read_to_end(streams, timeout: float) -> list:
    """Everything left on ``streams``; fails unless all reach end of file within ``timeout``."""
    data = {s: b"" for s in streams}
    open_ = list(streams)
    deadline = time.monotonic() + timeout
    while open_:
        left = deadline - time.monotonic()
        assert left > 0, f"no end of file within {timeout} s: a process still holds the client's pipes"
        ready, _, _ = select.select(open_, [], [], left)
        for s in ready:
            chunk = os.read(s.fileno(), 65536)
            data[s] += chunk
            if not chunk:
                open_.remove(s)
    return [data[s] for s in streams]


def assert_gone_soon(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while running(pid):
        assert time.monotonic() < deadline, f"the server's child {pid} runs on after its client"
        time.sleep(0.02)


@pytest.mark.parametrize("stuck", ["reading", "writing"])
def test_a_killed_client_ends_its_run(server, tmp_path, stuck):
    """A client killed with SIGKILL (a build tool that gave up on a job) cannot pass the
    signal on: its run ends all the same. The pipes it was given reach end of file within
    seconds (the build tool waits for them), the server's child is gone, and no output or
    temporary is left."""
    env, _, _ = server
    client, child, keep = start_stuck_run([sys.executable, "-P", "-c", CLIENT], env, tmp_path, stuck)
    client.kill()
    client.wait(timeout=30)
    out, _ = read_to_end([client.stdout, client.stderr], timeout=3.0)
    assert_gone_soon(child)
    if stuck == "writing":   # stopped, not run to its end (about 1.2 MB) once the pipe had room
        assert len(out) <= 4 * 65536, len(out)   # (a busy machine lets a pipe-full or two through)
    for fd in keep:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{'slow' if stuck == 'reading' else 'big'}.co.cpp"]


def test_a_served_run_takes_the_clients_signals_not_the_servers(server_ignoring_sigint, tmp_path):
    """A server started with SIGINT ignored (from a script's background job) still serves
    an interactive croktilec whose ^C ends the run: the child starts with the client's
    dispositions, and stops as a fresh process does."""
    env, _, _ = server_ignoring_sigint
    client, child, keep = start_stuck_run([sys.executable, "-P", "-m", "croktile_driver"], env, tmp_path, "reading")
    client.send_signal(signal.SIGINT)   # the client waits in served(), its handler armed
    out, err = client.communicate(timeout=30)
    assert (client.returncode, out, err) == (128 + signal.SIGINT, b"", b"croktilec: interrupted by SIGINT\n")
    assert_gone_soon(child)
    for fd in keep:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.co.cpp"]
