"""The warm compile server (croktile_driver/driver/server.py, issue #22): a served run gives the bytes
a fresh process gives, only the user can reach the socket, a changed installation is never
served by an old server, and every failure falls back to a fresh run.

Each test has its own socket directory ($XDG_RUNTIME_DIR) and server, stopped at the end.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

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
    runtime = short_runtime_dir
    env = env_for(runtime)
    path = socket_of(env)
    proc = subprocess.Popen([sys.executable, "-P", "-m", "croktile_driver.driver.serve_main", path], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
