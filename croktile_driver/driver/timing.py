"""`croktilec --time`: where a build's time goes (issue #39). Each job's wall time goes to
standard error as it ends, as `croktilec: time: JOB SECONDS s`; nvcc's jobs are run with
its own `-time` report, so its phases (cudafe++, cicc, ptxas, the host compiler) are listed
under it."""
from __future__ import annotations

import csv
import os
import sys
import time
from contextlib import contextmanager
from typing import Iterator, List, Optional, Tuple


def is_nvcc(argv: List[str]) -> bool:
    return bool(argv) and os.path.basename(argv[0]) == "nvcc"


def with_phase_report(argv: List[str], workdir: str) -> Tuple[List[str], Optional[str]]:
    """``argv`` with nvcc's `-time FILE` added (and FILE), or as it is for other tools."""
    if not is_nvcc(argv):
        return argv, None
    report = os.path.join(workdir, f"nvcc-time-{len(os.listdir(workdir))}.csv")
    return argv[:1] + ["-time", report] + argv[1:], report


@contextmanager
def timed(what: str, enabled: bool, phases: Optional[str] = None) -> Iterator[None]:
    """Reports the time of the block, then (``phases``: nvcc's -time file) its phases."""
    start = time.perf_counter()
    try:
        yield
    finally:
        if enabled:
            print(f"croktilec: time: {what} {time.perf_counter() - start:.2f} s", file=sys.stderr)
            for name, ms in _phases(phases):
                print(f"croktilec: time:   {name} {ms / 1000:.2f} s", file=sys.stderr)


def _phases(path: Optional[str]) -> List[Tuple[str, float]]:
    """(phase, milliseconds) from nvcc's -time CSV: `source file name, phase name, ..., metric, unit`."""
    if not path or not os.path.isfile(path):
        return []
    out = []
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if len(row) >= 3:
            try:
                out.append((row[1].strip(), float(row[-2])))
            except ValueError:
                continue
    return [(name, ms) for name, ms in out if name != "nvcc (driver)"]
