#!/usr/bin/env python3
"""Snapshots what the compiler generates, to prove a refactoring changed no output.

``transpile_snapshot.py save DIR`` transpiles (``-S``) every ``.co.cpp`` program of
``tests/`` and ``samples/`` for every target and writes, per program and target, the
generated files, the diagnostics and the exit status under DIR.  ``transpile_snapshot.py
compare OLD NEW`` lists every difference and exits 1 if there is one.  Run ``save``
before and after a change (from the repository root, with the package of that state
importable: ``python -m croktile_driver.frontend.parser --write-tables
croktile_driver/frontend`` makes a checkout so) and ``compare`` the two.  The compiler runs in this process, so the whole
corpus takes a minute or two, not one interpreter start per program.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
import sys
from pathlib import Path

TARGETS = ("cpu", "cuda", "opencl", "factor")
ROOT = Path(__file__).resolve().parent.parent
# One output folder per run, so that two runs at once do not meet; the generated files
# name only the output's base name ("out"), which is the same in every snapshot.
WORK = Path(tempfile.gettempdir()) / f"croktile-transpile-snapshot-{os.getpid()}" / "work"


def programs() -> list:
    """Every corpus program and sample, as paths relative to the repository root."""
    found = []
    for top in ("tests", "samples"):
        found += sorted(p.relative_to(ROOT) for p in (ROOT / top).rglob("*.co.cpp"))
    return found


def transpile(source: Path, target: str) -> dict:
    """One ``croktilec -t TARGET -S`` run: its status, messages and files."""
    sys.path.insert(0, str(ROOT))   # the checkout's package, not an installed one
    from croktile_driver.cli import main
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["-t", target, "-S", str(source), "-o", str(WORK / "out")])
    files = {p.name: p.read_text(errors="replace") for p in sorted(WORK.iterdir()) if p.is_file()}
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue(), "files": files}


def save(folder: Path) -> None:
    os.chdir(ROOT)
    folder.mkdir(parents=True, exist_ok=True)
    index = {}
    for source in programs():
        for target in TARGETS:
            result = transpile(source, target)
            text = json.dumps(result, sort_keys=True, indent=1)
            key = f"{source}@{target}"
            index[key] = hashlib.sha256(text.encode()).hexdigest()
            (folder / (key.replace("/", "__") + ".json")).write_text(text)
    (folder / "index.json").write_text(json.dumps(index, sort_keys=True, indent=1))
    shutil.rmtree(WORK.parent, ignore_errors=True)
    print(f"{len(index)} transpilations saved in {folder}")


def compare(old: Path, new: Path) -> int:
    before = json.loads((old / "index.json").read_text())
    after = json.loads((new / "index.json").read_text())
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(before.keys() & after.keys()) - len(differ)} of {len(before.keys() | after.keys())}"
          f" transpilations identical ({len(before)} before, {len(after)} after)")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "save":
        save(Path(sys.argv[2]).resolve())
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
