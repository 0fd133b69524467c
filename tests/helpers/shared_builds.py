"""Programs that several test files build alike, built once per test session.

tests/samples runs the samples' cpu, opencl and factor builds (:func:`sample_build`), and
test_samples_cross.py takes their cpu builds as its x86-64 references; tests/targets/opencl and
tests/targets/factor compare with the cpu build of ``features.co.cpp``; the corpus's programs
(helpers/corpus.py) are built here, and tests/targets/factor/test_dma_slow_factor.py runs two
of them again. Each such build runs once, for whichever test asks first; the others take its
result: the exit status, the messages and the program.

The builds live in the session's base temporary directory, which the xdist workers of one
session share (each worker's own is a directory in it); a lock per build makes a second
asker wait for the build in progress, then read its record. A build's key is the driver's
command line (the output path aside), its environment and the content of every file argument,
so an edited source is another build, and a new session starts with none. The programs are
only run, never changed, by the tests that share them.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Optional, Tuple

from .croktilec import Result, croktilec_cmd, run_croktilec


def session_dir(tmp_path_factory) -> Path:
    """The directory of this session's shared builds (the same for every xdist worker)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = root / "shared-builds"
    path.mkdir(exist_ok=True)
    return path


def _key(args, name: str, env: Optional[dict]) -> str:
    digest = hashlib.sha256()
    environment = [f"{k}={v}" for k, v in sorted((env or {}).items())]
    for part in croktilec_cmd() + ["--"] + args + ["-o", name, "--env"] + environment:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        if os.path.isfile(part):
            digest.update(Path(part).read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def build(tmp_path_factory, *args, name: str, env: Optional[dict] = None,
          timeout: float = 300) -> Tuple[Result, Path]:
    """``croktilec ARGS -o NAME`` run once per session in a directory of its own (also its
    working directory): its Result and the path of NAME there (which exists when it succeeded)."""
    args = [str(a) for a in args]
    entry = session_dir(tmp_path_factory) / _key(args, name, env)
    with open(f"{entry}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # held until the with block closes the file
        record = entry / "result.json"
        if record.exists():
            saved = json.loads(record.read_text())
            proc = subprocess.CompletedProcess(saved["argv"], saved["rc"], saved["out"], saved["err"])
            return Result(proc, saved["argv"]), entry / name
        entry.mkdir(exist_ok=True)
        res = run_croktilec(*args, "-o", entry / name, cwd=entry, env=env, timeout=timeout)
        record.write_text(json.dumps({"argv": res.argv, "rc": res.rc, "out": res.out, "err": res.err}))
        return res, entry / name


def cpu_build(tmp_path_factory, src) -> Tuple[Result, Path]:
    """``src`` built for the cpu target with the default flags: the program whose output the
    other targets' builds of it are compared with."""
    src = Path(src).resolve()
    return build(tmp_path_factory, "-t", "cpu", src, name=src.name[: -len(".co.cpp")] + ".cpu")


# The samples whose device code holds function templates: on factor, where device functions
# have C linkage, they build with -kt (its extern "C" wrappers); every other sample builds
# there as it does on cpu and opencl (docs/targets/factor.md).
FACTOR_KT = {"matmul.co.cpp"}


def sample_build(tmp_path_factory, src, target: str) -> Tuple[Result, Path]:
    """A program of ``samples/`` built for ``target`` (cpu, opencl or factor) with the default
    flags (factor: -kt for FACTOR_KT): tests/samples runs each, compared with the cpu build."""
    src = Path(src).resolve()
    if target == "cpu":
        return cpu_build(tmp_path_factory, src)
    flags = ["-kt"] if target == "factor" and src.name in FACTOR_KT else []
    return build(tmp_path_factory, "-t", target, *flags, src, name=f"{src.name[: -len('.co.cpp')]}.{target}")
