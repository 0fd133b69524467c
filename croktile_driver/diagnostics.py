"""gcc-style diagnostics: ``file:line:col: error: msg`` plus the source line and a caret.

Every stage reports through one ``Diagnostics`` object so that errors are counted in one
place, printed in the order they were found, and a stage can keep going after an error.
"""
from __future__ import annotations

import os
import sys
import unicodedata
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, TextIO, Tuple


@dataclass(frozen=True)
class Loc:
    """A position in the user's source: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def source_lines(text: str) -> List[str]:
    """The lines of a source as the lexers count them: split at '\\n' only (str.splitlines
    also splits at form feeds, U+2028 and others, which would shift every later line). A
    UTF-8 byte order mark at the start is not part of line 1, as for gcc."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def shown(ch: str) -> str:
    """A character of quoted source as a diagnostic prints it, as clang does: a byte that is
    not UTF-8 (decoded with surrogateescape) as <FF>, a character that does not print
    (controls, format characters such as U+202E, line separators) as <U+2028>; tabs and
    printable characters as themselves."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"<{code - 0xDC00:02X}>"
    if ch == "\t" or ch.isprintable():
        return ch
    return f"<U+{code:04X}>"


def _width(ch: str, text: str) -> int:
    """Terminal columns that ``text`` (how ``ch`` is shown) takes."""
    if text != ch:
        return len(text)
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def quoted_line(line: str, col: int) -> List[str]:
    """The source line as shown under a diagnostic, and the caret line that puts '^' under
    column ``col`` (1-based, in characters of ``line``) however the characters before it
    are shown."""
    shown_line, pad = [], []
    for i, ch in enumerate(line):
        text = shown(ch)
        shown_line.append(text)
        if i < col - 1:
            pad.append("\t" if ch == "\t" else " " * _width(ch, text))
    return ["".join(shown_line), "".join(pad) + "^"]


def _edit_distance(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of two neighbours (`wiat`, `wait`)
    that turn ``a`` into ``b`` (the optimal string alignment distance)."""
    prev2: List[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _cutoff(goal: int, candidate: int) -> int:
    """The most edits a suggestion may be away (modelled on gcc's spellcheck): about a
    third of the longer word, at least one where the lengths are close, none for one letter."""
    longest, shortest = max(goal, candidate), min(goal, candidate)
    if longest <= 1:
        return 0
    if longest - shortest <= 1:
        return max(longest // 3, 1)
    return (longest + 2) // 3


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate ``word`` was most likely meant to be, or None where none is near (or
    ``word`` is one of them). Case does not count (`CUDA` is near `cuda`); among the
    nearest, the one sharing the most of ``word`` (difflib's ratio: `chunkt` is `chunkat`
    rather than `chunk`), then the first listed."""
    import difflib
    best, best_key = None, None
    for cand in dict.fromkeys(candidates):
        if cand == word:
            return None
        dist = _edit_distance(word.lower(), cand.lower())
        if dist > _cutoff(len(word), len(cand)):
            continue
        key = (dist, _edit_distance(word, cand), -difflib.SequenceMatcher(None, word, cand).ratio())
        if best_key is None or key < best_key:
            best, best_key = cand, key
    return best


def suggestion(word: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'parallel'?"`` for a message about ``word``, or "" where no
    candidate is near (gcc's and clang's wording)."""
    near = did_you_mean(word, candidates)
    return f"; did you mean '{near}'?" if near is not None else ""


class FatalError(Exception):
    """Stops the current compilation; the diagnostic has already been printed."""


class Diagnostics:
    """Collects and prints diagnostics; remembers source text to show the caret line."""

    def __init__(self, stream: Optional[TextIO] = None, werror: bool = False,
                 no_warnings: bool = False, max_errors: int = 50, optional: Iterable[str] = ()):
        self.stream = stream if stream is not None else sys.stderr
        self.werror = werror
        self.no_warnings = no_warnings
        self.optional = frozenset(optional)   # warnings that are off unless asked for (-Wimplicit-fill)
        self.max_errors = max_errors
        self.errors = 0
        self.warnings = 0
        self._sources: Dict[str, List[str]] = {}
        self.messages: List[str] = []
        self.records: List[Tuple[str, Optional[Loc], str]] = []   # (kind, loc, message), for pages (visualize)
        self._printed: set = set()

    def add_source(self, filename: str, text: str) -> None:
        self._sources[filename] = source_lines(text)

    def _line_text(self, loc: Loc) -> Optional[str]:
        lines = self._sources.get(loc.file)
        if lines is None and os.path.isfile(loc.file):
            try:
                with open(loc.file, encoding="utf-8", errors="surrogateescape") as fh:
                    lines = source_lines(fh.read())
            except OSError:
                lines = []
            self._sources[loc.file] = lines
        if lines and 1 <= loc.line <= len(lines):
            return lines[loc.line - 1]
        return None

    def _emit(self, kind: str, loc: Optional[Loc], msg: str) -> bool:
        """Prints a diagnostic; False (nothing printed) for one printed already: the code
        generators visit a statement once more in each instance of its function."""
        head = f"{loc}: {kind}: {msg}" if loc else f"croktilec: {kind}: {msg}"
        out = [head]
        if loc is not None:
            text = self._line_text(loc)
            if text is not None:
                out.extend(quoted_line(text, loc.col))
        message = "\n".join(out)
        if loc is not None and message in self._printed:
            return False
        self._printed.add(message)
        self.messages.append(message)
        self.records.append((kind, loc, msg))
        self._write(message + "\n")
        return True

    def _write(self, text: str) -> None:
        """Prints a diagnostic. A file name with bytes that are not UTF-8 (kept with
        surrogateescape) is written with those bytes, as gcc prints it, not as Python's
        '\\udcff' escapes."""
        buffer = getattr(self.stream, "buffer", None)
        if buffer is None or not any("\udc80" <= ch <= "\udcff" for ch in text):
            self.stream.write(text)
            return
        self.stream.flush()
        buffer.write(text.encode("utf-8", "surrogateescape"))
        buffer.flush()

    def error(self, loc: Optional[Loc], msg: str) -> None:
        if not self._emit("error", loc, msg):
            return
        self.errors += 1
        if self.errors >= self.max_errors:
            print("croktilec: fatal error: too many errors emitted, stopping now", file=self.stream)
            raise FatalError()

    def enabled(self, warning: str) -> bool:
        """Whether the optional warning ``-W<warning>`` is asked for (and warnings are shown)."""
        return warning in self.optional and not self.no_warnings

    def warning(self, loc: Optional[Loc], msg: str) -> None:
        if self.no_warnings:
            return
        if self.werror:
            self.error(loc, msg + " [-Werror]")
            return
        if self._emit("warning", loc, msg):
            self.warnings += 1

    def note(self, loc: Optional[Loc], msg: str) -> None:
        self._emit("note", loc, msg)

    def fatal_error(self, loc: Optional[Loc], msg: str) -> None:
        """gcc's ``fatal error:`` (a missing header): counted as an error; the stage that
        reports it stops the compilation of its file."""
        if self._emit("fatal error", loc, msg):
            self.errors += 1

    def fatal(self, loc: Optional[Loc], msg: str) -> "FatalError":
        self.errors += 1
        self._emit("error", loc, msg)
        return FatalError()
