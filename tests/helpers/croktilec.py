"""``croktilec`` as a user runs it, in a subprocess.

The driver runs as ``python -m croktile_driver`` from the same place this test process
imports ``croktile_driver`` from (the checkout, or the installed package under
``scripts/test.sh``), so the tests exercise the code they were collected against.
``CROKTILEC="croktilec"`` (any command line) runs another driver instead.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import croktile_driver

PKG_PARENT = str(Path(croktile_driver.__file__).resolve().parent.parent)


def croktilec_cmd() -> List[str]:
    override = os.environ.get("CROKTILEC")
    if override:
        return shlex.split(override)
    return [sys.executable, "-m", "croktile_driver"]


def driver_env(extra: Optional[dict] = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("CROKTILE_TOOLCHAINS", None)   # only the built-in profiles
    env["LC_ALL"] = "C"                   # plain quotes in the compiler's messages
    if extra:
        env.update(extra)
    return env


class Result:
    def __init__(self, proc: subprocess.CompletedProcess, argv: List[str]):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.argv = argv

    def __repr__(self) -> str:
        return f"Result(rc={self.rc}, argv={self.argv!r})\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def run_croktilec(*args, cwd, env: Optional[dict] = None, timeout: float = 120) -> Result:
    argv = croktilec_cmd() + [str(a) for a in args]
    proc = subprocess.run(argv, cwd=str(cwd), env=driver_env(env), capture_output=True, text=True,
                          timeout=timeout)
    res = Result(proc, argv)
    # never a Python traceback, whatever the input
    assert "Traceback (most recent call last)" not in res.err, res
    assert "internal compiler error" not in res.err, res
    return res


def ok(*args, cwd, env=None) -> Result:
    res = run_croktilec(*args, cwd=cwd, env=env)
    assert res.rc == 0, res
    return res


def fails(*args, cwd, env=None) -> Result:
    res = run_croktilec(*args, cwd=cwd, env=env)
    assert res.rc == 1, res
    return res


def run_program(path, cwd=None) -> subprocess.CompletedProcess:
    path = Path(path)
    return subprocess.run([str(path.resolve())], cwd=str(cwd or path.parent), capture_output=True,
                          text=True, timeout=60)


def jobs_of(stderr: str) -> List[List[str]]:
    """The jobs ``-###`` (or ``-v``) printed, each split back into its argv."""
    out = []
    for line in stderr.splitlines():
        if not line.strip():
            continue
        out.append(shlex.split(line))
    return out


def job(jobs: List[List[str]], kind: str) -> List[str]:
    """The transpile, compile or link job among ``jobs``."""
    found = [j for j in jobs if job_kind(j) == kind]
    assert len(found) == 1, (kind, jobs)
    return found[0]


def job_kind(argv: List[str]) -> str:
    if "-S" in argv and any(os.path.basename(a).startswith("croktilec") for a in argv[:1]):
        return "transpile"
    if "-c" in argv:
        return "compile"
    return "link"


def leftovers(directory) -> List[str]:
    """Temporaries the driver may have left in a directory."""
    return sorted(p.name for p in Path(directory).iterdir() if p.name.startswith(".croktile-"))
