"""``croktilec`` in this process (``croktile_driver.cli.main``), and its diagnostics parsed.

A run in-process costs no interpreter start-up and no imports; the ``croktilec`` fixture of
``tests/conftest.py`` captures its output. Use it for what stops before the target compiler
(``-fsyntax-only``, ``-S``, ``--dump-ir``); builds that run compilers take a subprocess
(``helpers.croktilec.run_croktilec``), which has a working directory and an environment of its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List

DIAG_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|warning|note): (?P<msg>.*)$")


@dataclass
class Diag:
    file: str
    line: int
    col: int
    kind: str
    msg: str
    index: int          # line number (0-based) of the header in the captured stderr


@dataclass
class Result:
    rc: int
    out: str
    err: str

    @property
    def diags(self) -> List[Diag]:
        return parse_diags(self.err)

    def errors(self) -> List[Diag]:
        return [d for d in self.diags if d.kind == "error"]


def parse_diags(text: str) -> List[Diag]:
    out = []
    for i, line in enumerate(text.splitlines()):
        m = DIAG_RE.match(line)
        if m:
            out.append(Diag(m["file"], int(m["line"]), int(m["col"]), m["kind"], m["msg"], i))
    return out


def runner(capsys):
    """``run(*args) -> Result``: ``cli.main`` in-process, its output captured by ``capsys``."""
    from croktile_driver.cli import main

    def run(*args) -> Result:
        capsys.readouterr()  # drop anything printed before
        rc = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(rc, captured.out, captured.err)
    return run
