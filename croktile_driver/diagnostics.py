"""gcc-style diagnostics: ``file:line:col: error: msg`` plus the source line and a caret.

Every stage reports through one ``Diagnostics`` object so that errors are counted in one
place, printed in the order they were found, and a stage can keep going after an error.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, TextIO


@dataclass(frozen=True)
class Loc:
    """A position in the user's source: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class FatalError(Exception):
    """Stops the current compilation; the diagnostic has already been printed."""


class Diagnostics:
    """Collects and prints diagnostics; remembers source text to show the caret line."""

    def __init__(self, stream: Optional[TextIO] = None, werror: bool = False,
                 no_warnings: bool = False, max_errors: int = 50):
        self.stream = stream if stream is not None else sys.stderr
        self.werror = werror
        self.no_warnings = no_warnings
        self.max_errors = max_errors
        self.errors = 0
        self.warnings = 0
        self._sources: Dict[str, List[str]] = {}
        self.messages: List[str] = []

    def add_source(self, filename: str, text: str) -> None:
        self._sources[filename] = text.splitlines()

    def _line_text(self, loc: Loc) -> Optional[str]:
        lines = self._sources.get(loc.file)
        if lines is None and os.path.isfile(loc.file):
            try:
                with open(loc.file, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                lines = []
            self._sources[loc.file] = lines
        if lines and 1 <= loc.line <= len(lines):
            return lines[loc.line - 1]
        return None

    def _emit(self, kind: str, loc: Optional[Loc], msg: str) -> None:
        head = f"{loc}: {kind}: {msg}" if loc else f"croktilec: {kind}: {msg}"
        out = [head]
        if loc is not None:
            text = self._line_text(loc)
            if text is not None:
                caret_pad = "".join("\t" if ch == "\t" else " " for ch in text[: max(loc.col - 1, 0)])
                out.append(text)
                out.append(caret_pad + "^")
        message = "\n".join(out)
        self.messages.append(message)
        print(message, file=self.stream)

    def error(self, loc: Optional[Loc], msg: str) -> None:
        self.errors += 1
        self._emit("error", loc, msg)
        if self.errors >= self.max_errors:
            print("croktilec: fatal error: too many errors emitted, stopping now", file=self.stream)
            raise FatalError()

    def warning(self, loc: Optional[Loc], msg: str) -> None:
        if self.no_warnings:
            return
        if self.werror:
            self.error(loc, msg + " [-Werror]")
            return
        self.warnings += 1
        self._emit("warning", loc, msg)

    def note(self, loc: Optional[Loc], msg: str) -> None:
        self._emit("note", loc, msg)

    def fatal(self, loc: Optional[Loc], msg: str) -> "FatalError":
        self.errors += 1
        self._emit("error", loc, msg)
        return FatalError()
