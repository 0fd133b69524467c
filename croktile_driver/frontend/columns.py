"""Where each character of a macro-expanded line stands in the user's line.

Macro expansion changes the length of a line, so a column of the preprocessed text is
not a column of the user's file. The preprocessor knows where every token it writes
came from; this module keeps that as it writes: a token the user wrote (or a macro
argument, which is the user's text moved) maps to its own column, a token of a macro's
body to the start of the invocation, as gcc points at the macro name. Recording costs
a constant per token and a lookup a bisection, so a long line of macros stays linear
(aligning the two lines after the fact, with difflib, was quadratic or worse).
"""
from __future__ import annotations

import bisect
import io
import os
import re
from typing import Dict, List, Tuple

from ..diagnostics import source_lines


class _Placed(str):
    """A written token's text carrying its column in the user's line (0-based), and whether
    its characters are the user's (``exact``) or an expansion's (all at that column)."""
    user_col = 0
    exact = True


class ExpansionTracker:
    """Marks the tokens of the main file's outermost macro expansions with their columns.

    ``pcpp`` lexes the file with trailing blanks stripped and trigraphs replaced; the
    offsets (``lexpos``) of its tokens index that text, which is rebuilt here to turn
    an offset into a column."""

    def __init__(self, text: str, filename: str):
        from pcpp.preprocessor import trigraph
        self._lexed = "\n".join(line.rstrip() for line in trigraph(text).splitlines())
        self._newlines = [m.start() for m in re.finditer("\n", self._lexed)]
        self._sources = {filename, os.path.abspath(filename)}

    def _column(self, lexpos: int) -> int:
        k = bisect.bisect_left(self._newlines, lexpos)
        return lexpos - (self._newlines[k - 1] + 1 if k else 0)

    def _is_users(self, tok, start: int, end: int) -> bool:
        """A copy of the user's text between ``start`` and ``end`` (a macro's argument)."""
        pos = getattr(tok, "lexpos", -1)
        return start <= pos < end and self._lexed.startswith(tok.value, pos)

    def mark(self, before: list, after: list) -> None:
        """``before`` is a line's tokens, ``after`` what the outermost expansion made of
        them: the user's tokens kept in place are the same objects, in order; each run of
        other tokens replaced the invocation that starts at the first token not yet kept."""
        index = {id(tok): k for k, tok in enumerate(before)}
        kept = 0            # the index in ``before`` after the last token kept
        run: List = []      # the expansion's tokens since then
        for tok in after:
            k = index.get(id(tok))
            if tok.expanded_from or k is None or k < kept:
                run.append(tok)
                continue
            if run:
                self._mark_run(run, before, kept, tok.lexpos)
                run = []
            if tok.source in self._sources:
                tok.user_place = (self._column(tok.lexpos), True)
            kept = k + 1
        if run:
            self._mark_run(run, before, kept, len(self._lexed))

    def _mark_run(self, run: list, before: list, first: int, end: int) -> None:
        if first >= len(before) or before[first].source not in self._sources:
            return
        start = before[first].lexpos
        at = (self._column(start), False)
        for tok in run:
            tok.user_place = (self._column(tok.lexpos), True) if self._is_users(tok, start, end) else at

    @staticmethod
    def placed(tok) -> None:
        """Before ``tok`` is written: its text carries the column that ``mark`` found."""
        place = getattr(tok, "user_place", None)
        if place is not None:
            value = _Placed(tok.value)
            value.user_col, value.exact = place
            tok.value = value


class RecordingWriter(io.StringIO):
    """The stream ``pcpp`` writes the preprocessed text to: notes where each placed
    token lands, as (line index, column) of the written text, both 0-based."""

    def __init__(self):
        super().__init__()
        self.pieces: List[Tuple[int, int, int, bool]] = []   # line, column, user's column, exact
        self._line = 0
        self._col = 0

    def write(self, s: str) -> int:
        if isinstance(s, _Placed):
            self.pieces.append((self._line, self._col, s.user_col, s.exact))
        newlines = s.count("\n")
        if newlines:
            self._line += newlines
            self._col = len(s) - s.rfind("\n") - 1
        else:
            self._col += len(s)
        return super().write(s)


class ColumnMap:
    """(file, line, column of the preprocessed text) -> the user's column; only lines
    whose columns moved are kept, any other column is its own."""

    def __init__(self, original: str, preprocessed: str, filename: str,
                 pieces: List[Tuple[int, int, int, bool]], first_line: int):
        """``pieces`` are a RecordingWriter's, whose text starts at line ``first_line``
        (0-based) of ``preprocessed``."""
        from .splitter import LineMap
        self.filename = filename
        orig_lines = source_lines(original)
        lines = LineMap(preprocessed, filename)
        by_line: Dict[int, list] = {}
        for line, col, user_col, exact in pieces:
            by_line.setdefault(line, []).append((col, user_col, exact))
        self._lines: Dict[int, tuple] = {}
        for idx, row in by_line.items():
            if all(exact and col == user_col for col, user_col, exact in row):
                continue
            idx += first_line
            if idx >= len(lines.origin):
                continue
            file, line = lines.origin[idx]
            if file != filename or not 1 <= line <= len(orig_lines) or line in self._lines:
                continue
            end = lines.starts[idx + 1] if idx + 1 < len(lines.starts) else len(preprocessed)
            length = len(preprocessed[lines.starts[idx]:end].rstrip("\r\n"))
            self._lines[line] = ([c for c, _, _ in row], row, length, len(orig_lines[line - 1]))

    def __bool__(self) -> bool:
        return bool(self._lines)

    def __call__(self, file: str, line: int, col: int) -> int:
        entry = self._lines.get(line) if file == self.filename else None
        if entry is None:
            return col
        starts, row, length, user_length = entry
        i = col - 1
        if i >= length:                 # past the line's end: past the user's
            return user_length + 1
        k = bisect.bisect_right(starts, i) - 1
        if k < 0:
            return col
        start, user_col, exact = row[k]
        return (user_col + (i - start) if exact else user_col) + 1
