"""SIGINT, SIGTERM and SIGHUP: one line, exit 128 + the signal, nothing left behind.

Each test starts croktilec as a user does, with $TMPDIR a fresh directory, and sends
the signal at a known moment: while a compiler stub runs (it writes its pid, a
grandchild's pid, a temporary file of its own and a partial output, then sleeps),
while croktilec imports its modules, and at a sweep of moments through a real build.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from croktile_driver.driver import interrupts

from helpers.croktilec import croktilec_cmd, driver_env
from helpers.processes import processes_with, running, with_default_signals
from helpers.programs import ADD_PROGRAM

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
IDS = [s.name for s in SIGNALS]

# A compiler that takes its time: it records its pid and a background child's, makes a
# temporary file of its own in $TMPDIR, writes part of its output, and waits.
STUB = r"""#!/bin/sh
{trap}
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
{sleep_on}
printf partial > "$out"
mktemp > "$STUB_DIR/own-temp"
sleep 60 &
echo $! > "$STUB_DIR/grandchild"
echo $$ > "$STUB_DIR/pid"
wait
"""


def write_stub(directory: Path, *, ignore_signals: bool = False, at_link: bool = False) -> Path:
    """``at_link``: the compile job succeeds at once and the link job hangs."""
    stub = directory / "slow-cc"
    sleep_on = 'case " $* " in *" -c "*) : > "$out"; exit 0;; esac' if at_link else ""
    stub.write_text(STUB.format(trap="trap '' INT TERM HUP" if ignore_signals else "", sleep_on=sleep_on))
    stub.chmod(0o755)
    return stub


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "add.co.cpp").write_text(ADD_PROGRAM)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    state = tmp_path / "stub"
    state.mkdir()
    return src, tmpdir, state


def start(argv, cwd, env, ignored=()):
    """croktilec as a shell starts it: the signals at their default, whatever this process
    inherited (``nohup``), except ``ignored``."""
    return popen(croktilec_cmd() + [str(a) for a in argv], cwd, env, ignored)


def popen(cmd, cwd, env, ignored=()):
    return subprocess.Popen(cmd, cwd=str(cwd), env=driver_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=with_default_signals(ignored))


def wait_for(path: Path, proc, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, f"{path} was never written"
        time.sleep(0.01)


def assert_clean_interrupt(proc, sig, src: Path, tmpdir: Path, stderr: str) -> None:
    assert proc.returncode == 128 + sig, (proc.returncode, stderr)
    assert stderr == f"croktilec: interrupted by {sig.name}\n"
    assert_nothing_left(src, tmpdir)


def assert_nothing_left(src: Path, tmpdir: Path) -> None:
    assert sorted(p.name for p in src.iterdir()) == ["add.co.cpp"], "no output, no temporaries"
    assert list(tmpdir.iterdir()) == [], "no croktile-* work directory, no compiler temporaries"
    assert processes_with(str(tmpdir)) == [], "no child runs on"


@pytest.mark.parametrize("at_link", [False, True], ids=["compile", "link"])
@pytest.mark.parametrize("sig", SIGNALS, ids=IDS)
def test_signal_while_the_compiler_runs_stops_it_and_removes_everything(project, sig, at_link):
    src, tmpdir, state = project
    stub = write_stub(state.parent, at_link=at_link)
    proc = start(["-t", "cpu", "-o", "app", "add.co.cpp"], src,
                 {"TMPDIR": str(tmpdir), "CXX": str(stub), "STUB_DIR": str(state)})
    wait_for(state / "pid", proc)
    own_temp = Path((state / "own-temp").read_text().strip())
    assert own_temp.exists() and str(own_temp).startswith(str(tmpdir))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert_clean_interrupt(proc, sig, src, tmpdir, err)
    for name in ("pid", "grandchild"):
        assert not running(int((state / name).read_text())), f"the compiler's {name} was stopped"


def test_a_compiler_that_ignores_the_signal_is_killed(project):
    src, tmpdir, state = project
    stub = write_stub(state.parent, ignore_signals=True)
    proc = start(["-o", "app", "add.co.cpp"], src,
                 {"TMPDIR": str(tmpdir), "CXX": str(stub), "STUB_DIR": str(state)})
    wait_for(state / "pid", proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert_clean_interrupt(proc, signal.SIGTERM, src, tmpdir, err)
    assert not running(int((state / "pid").read_text()))


def test_signals_ignored_at_start_stay_ignored_and_the_others_still_clean_up(project):
    """Started as `nohup croktilec ... &` from a script (SIGHUP and SIGINT ignored, which its
    compiler inherits): those signals do not end the run, as in gcc and make, but a
    SIGTERM still does, and leaves nothing behind."""
    src, tmpdir, state = project
    stub = write_stub(state.parent)
    proc = start(["-t", "cpu", "-o", "app", "add.co.cpp"], src,
                 {"TMPDIR": str(tmpdir), "CXX": str(stub), "STUB_DIR": str(state)},
                 ignored=(signal.SIGINT, signal.SIGHUP))
    wait_for(state / "pid", proc)
    for sig in (signal.SIGINT, signal.SIGHUP):
        proc.send_signal(sig)
    time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    assert running(int((state / "pid").read_text()))
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert_clean_interrupt(proc, signal.SIGTERM, src, tmpdir, err)
    assert not running(int((state / "pid").read_text()))


# What pip writes for the console script `croktilec = croktile_driver.cli:main`.
CONSOLE_SCRIPT = """import re
import sys
from croktile_driver.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


@pytest.mark.parametrize("after", ["croktile_driver.driver.interrupts", "croktile_driver.cli", "croktile_driver.driver.options"])
@pytest.mark.parametrize("entry", ["module", "console-script"])
@pytest.mark.parametrize("sig", SIGNALS, ids=IDS)
def test_signal_while_croktilec_imports_its_modules(project, sig, entry, after):
    """Right after one of croktilec's first modules is imported (-X importtime says
    when), as `python -m croktile_driver` and as the console script run it: while the
    entry module is still being imported, when main() starts, during main's imports."""
    src, tmpdir, state = project
    argv = ["-t", "cpu", "-o", "app", "add.co.cpp"]
    if entry == "module":
        cmd = [sys.executable, "-X", "importtime", "-m", "croktile_driver", *argv]
    else:
        script = state / "croktilec"
        script.write_text(CONSOLE_SCRIPT)
        cmd = [sys.executable, "-X", "importtime", str(script), *argv]
    proc = popen(cmd, src, {"TMPDIR": str(tmpdir)})
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.split("|")[-1].strip() == after:
            break
    assert lines and lines[-1].split("|")[-1].strip() == after, lines
    proc.send_signal(sig)
    rest = proc.stderr.read()
    proc.wait(timeout=60)
    err = "".join(l for l in (lines + rest.splitlines(True)) if not l.startswith("import time:"))
    assert_clean_interrupt(proc, sig, src, tmpdir, err)


def _interrupts_import_line() -> int:
    """The line of croktile_driver/__init__.py that imports the signal handler's module."""
    init = Path(__file__).resolve().parents[2] / "croktile_driver" / "__init__.py"
    return next(i for i, line in enumerate(init.read_text().splitlines(), 1) if "import interrupts" in line)


@pytest.mark.parametrize("sig", SIGNALS, ids=IDS)
def test_signal_at_any_moment_of_a_real_build(project, sig):
    """A sweep through start-up, the frontend and the compiler: every outcome is clean.

    Before the interpreter runs croktilec's first line the signal's default action ends
    it (killed by the signal, nothing printed, nothing created); a traceback there would
    come from the interpreter's own start-up, which no program can prevent."""
    src, tmpdir, _ = project
    handled = 0
    for delay in (0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2):
        proc = start(["-t", "cpu", "-o", "app", "add.co.cpp"], src, {"TMPDIR": str(tmpdir)})
        time.sleep(delay)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0:   # finished before the signal: a whole program
            assert (src / "app").is_file()
            (src / "app").unlink()
        elif proc.returncode == -sig:
            # Nothing printed, or the interpreter's KeyboardInterrupt from before
            # croktilec's handler is in: runpy still finding the module, or the package's
            # first statement importing the module that installs it (no other frame of ours).
            frames = re.findall(r'File "([^"]+)", line (\d+)', err)
            first_import = (os.path.join("croktile_driver", "__init__.py"), _interrupts_import_line())
            assert err == "" or (frames and all(f.startswith("<frozen") or (f.endswith(first_import[0]) and
                                                                             int(n) == first_import[1])
                                                for f, n in frames)), (delay, err)
        elif "Fatal Python error: init_" in err:   # the interpreter's own start-up (its streams, site)
            assert "croktile" not in err, (delay, err)
        else:
            assert proc.returncode == 128 + sig, (delay, proc.returncode, err)
            assert err == f"croktilec: interrupted by {sig.name}\n", (delay, err)
            handled += 1
        assert_nothing_left(src, tmpdir)
    assert handled >= 3, "most moments fall inside croktilec"


def test_a_stopped_compiler_is_woken_to_act_on_the_signal(project):
    """A compiler stopped (^Z reaches only croktilec's group; SIGTTOU) gets SIGCONT with
    the signal, so it ends at once instead of after the grace period."""
    src, tmpdir, state = project
    stub = state.parent / "stopping-cc"
    stub.write_text('#!/bin/sh\necho $$ > "$STUB_DIR/pid"\nkill -STOP $$\nsleep 60\n')
    stub.chmod(0o755)
    proc = start(["-o", "app", "add.co.cpp"], src, {"TMPDIR": str(tmpdir), "CXX": str(stub), "STUB_DIR": str(state)})
    wait_for(state / "pid", proc)
    pid = int((state / "pid").read_text())
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        time.sleep(0.01)
    start_time = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start_time < interrupts.STOP_GRACE_S - 1
    assert_clean_interrupt(proc, signal.SIGTERM, src, tmpdir, err)
    assert not running(pid)


def test_later_signals_do_not_change_how_it_ends(project):
    """Signals that follow the first (an impatient user, a supervisor's TERM after INT)
    are ignored up to the process's very end: the interpreter's shutdown put the default
    handlers back, and a signal arriving then killed croktilec by that signal."""
    src, tmpdir, state = project
    stub = write_stub(state.parent)
    proc = start(["-t", "cpu", "-o", "app", "add.co.cpp"], src,
                 {"TMPDIR": str(tmpdir), "CXX": str(stub), "STUB_DIR": str(state)})
    wait_for(state / "pid", proc)
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.readline()   # its report: the run is over, the process is ending
    while proc.poll() is None:
        for later in (signal.SIGTERM, signal.SIGHUP):
            try:
                proc.send_signal(later)
            except ProcessLookupError:
                break
        time.sleep(0.0002)
    err += proc.communicate(timeout=60)[1]
    assert_clean_interrupt(proc, signal.SIGINT, src, tmpdir, err)
