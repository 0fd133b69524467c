"""Stage 2: find ``__co__`` functions and ``__cok__ { }`` blocks in the C++ text.

The scanner respects string, character and raw-string literals, comments,
preprocessor lines and nested braces; everything that is not tileflow code is
host or device C++ and is copied through unchanged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..cstrings import unescape
from ..diagnostics import Diagnostics, Loc

_LINE_MARKER = re.compile(r'[ \t]*#[ \t]*(?:line)?[ \t]*(\d+)(?:[ \t]+"((?:[^"\\]|\\.)*)")?')
_CLOSER = {"{": "}", "(": ")", "[": "]"}
_OPENER = {close: open_ for open_, close in _CLOSER.items()}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# what the scans stop at: brackets, ';', and what may start a literal, comment or directive
_LITERAL_START = re.compile(r"""[/#R"']""")   # where skip_literal_or_comment may skip
_LAST_NON_BLANK = re.compile(r"(\S)\s*\Z")
_LINE_LOOKAHEAD = 4096   # characters of a line read to choose the reading of a wrong closer
_BRACKET_EVENT = re.compile(r"""[{}()\[\];/"'R#]""")
# ... and in host code: braces, '__co__'/'__cok__', bytes that are not UTF-8
_HOST_EVENT = re.compile(r"""[{}/"'R#\udc80-\udcff]|(?<!\w)__cok?__(?!\w)""")
# conditional blocks the preprocessor passed through (unknown macros) may hold braces that
# only balance per branch
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else)\b", re.M)


@dataclass
class Segment:
    kind: str           # "host", "co", "co_decl", "cok"
    text: str           # for "cok": the block's inside, without the braces
    loc: Loc            # where `text` starts in the user's file
    end_loc: Loc        # where it ends
    name: Optional[str] = None  # the function name of "co" / "co_decl"
    brackets_match: bool = True  # False: a mismatched bracket was reported; not worth parsing


class LineMap:
    """Maps offsets of the preprocessed text to the user's file, line and column."""

    def __init__(self, text: str, filename: str):
        self.starts: List[int] = [0]
        self.origin: List[Tuple[str, int]] = []
        pos = 0
        for m in re.finditer(r"\n", text):
            self.starts.append(m.end())
        cur_file, cur_line = filename, 1
        for i, start in enumerate(self.starts):
            end = self.starts[i + 1] if i + 1 < len(self.starts) else len(text)
            line = text[start:end]
            self.origin.append((cur_file, cur_line))
            marker = _LINE_MARKER.match(line) if line.lstrip().startswith("#") else None
            if marker:
                cur_line = int(marker.group(1))
                if marker.group(2) is not None:
                    cur_file = unescape(marker.group(2))
            else:
                cur_line += 1
        del pos

    def loc(self, offset: int) -> Loc:
        import bisect
        i = bisect.bisect_right(self.starts, offset) - 1
        file, line = self.origin[i]
        return Loc(file, line, offset - self.starts[i] + 1)


class Scanner:
    """Walks C++ text, skipping literals, comments and preprocessor lines."""

    def __init__(self, text: str):
        self.text = text

    def skip_literal_or_comment(self, i: int) -> int:
        """If a literal/comment/directive starts at i, returns the offset after it, else i."""
        t = self.text
        c = t[i]
        if c == "/" and t.startswith("//", i):
            j = t.find("\n", i)
            return len(t) if j < 0 else j
        if c == "/" and t.startswith("/*", i):
            j = t.find("*/", i + 2)
            return len(t) if j < 0 else j + 2
        if c == "#" and self._first_on_line(i):
            j = i
            while True:
                j = t.find("\n", j)
                if j < 0:
                    return len(t)
                if t[j - 1] == "\\":
                    j += 1
                    continue
                return j
        if c == "R" and t.startswith('R"', i) and (i == 0 or not (t[i - 1].isalnum() or t[i - 1] == "_")):
            open_paren = t.find("(", i + 2)
            if open_paren >= 0 and open_paren - i - 2 <= 16:
                delim = t[i + 2:open_paren]
                end = t.find(")" + delim + '"', open_paren)
                return len(t) if end < 0 else end + len(delim) + 2
        if c in "\"'":
            if c == "'" and i > 0 and t[i - 1].isalnum() and i + 1 < len(t) and t[i + 1].isalnum():
                return i + 1  # digit separator, e.g. 1'000
            j = i + 1
            while j < len(t) and t[j] != c:
                if t[j] == "\\":
                    j += 1
                elif t[j] == "\n":
                    break
                j += 1
            return min(j + 1, len(t))
        return i

    def _first_on_line(self, i: int) -> bool:
        """Whether only blanks stand before offset i on its line (scanning back over the
        blanks alone: many '#' on one long line stay linear)."""
        t = self.text
        k = i - 1
        while k >= 0 and t[k] in " \t\r\f\v":
            k -= 1
        return k < 0 or t[k] == "\n"

    def find_matching_brace(self, open_pos: int, mismatches: Optional[List[Tuple[int, int]]] = None) -> int:
        """Offset of the `}` matching the `{` at open_pos, or -1.

        With a ``mismatches`` list, (), [] and {} are tracked as one stack: a closing
        bracket that does not match the innermost open one is recorded there as (offset
        of the token to report, offset of the opener it fails to match or None for a closer
        of a kind that nothing open needs), and the scan
        recovers (``_recover``) so that the end of the block is still found.
        """
        t = self.text
        track_all = mismatches is not None
        stack: List[List] = []   # [offset of an open bracket, offset of the first ';' in it or None]
        i = open_pos
        while i < len(t):
            event = _BRACKET_EVENT.search(t, i)  # jump over what cannot matter
            if event is None:
                break
            i = event.start()
            j = self.skip_literal_or_comment(i)
            if j != i:
                i = j
                continue
            c = t[i]
            if c == "{" or (track_all and c in "(["):
                stack.append([i, None])
            elif c == ";" and stack and stack[-1][1] is None:
                stack[-1][1] = i
            elif c == "}" or (track_all and c in ")]"):
                if t[stack[-1][0]] == _OPENER[c]:
                    stack.pop()
                elif track_all:
                    opener, depth = stack[-1][0], len(stack)
                    report = self._recover(stack, i)
                    if len(stack) == depth and not any(t[o] == _OPENER[c] for o, _ in stack):
                        opener = None  # ignored, and nothing open needs a closer of its kind
                    mismatches.append((report, opener))
                if not stack:
                    return i
            i += 1
        return -1

    def _recover(self, stack: List[List], close_pos: int) -> int:
        """Guesses what a closer that does not match the innermost opener meant, adjusts the
        stack to it and returns the offset to report (the closer, or the ';' before which
        the innermost bracket should have been closed). The reading that alone agrees
        with the closers and ';' after it on its line wins (`f({1, 2))`, `f(({1, 2);`,
        `f([1, 2});`); otherwise:

        * one closer too many, when the innermost closer follows on the same line, or the
          closer is mid-line and the innermost opener on an earlier line: ignored;
        * a typo for the innermost closer, when another closer like it follows on the line;
        * a '}' after '(' or '[' opened on its line with no ';' in them: a typo for their
          closers, which it replaces;
        * it closes an outer opener: the brackets inside it were left open;
        * otherwise a typo for the innermost closer, which it replaces.
        """
        t = self.text
        close = t[close_pos]
        top, semi = stack[-1]
        outer = [k for k in range(len(stack) - 1) if t[stack[k][0]] == _OPENER[close]]
        depth = self._only_fitting_reading(stack, close_pos, outer[-1:])
        if depth is not None:
            report = semi if semi is not None and outer and depth == outer[-1] else close_pos
            del stack[depth:]
            return report
        line_start = t.rfind("\n", 0, close_pos) + 1
        starts_line = t[line_start:close_pos].strip() == ""
        same_line = top >= line_start
        if not starts_line and (self._on_line(close_pos + 1, _CLOSER[t[top]])
                                or not (same_line or close == "}")):
            return close_pos
        if self._on_line(close_pos + 1, close):  # `({1, 2))`: the next one closes the outer
            stack.pop()
            return close_pos
        if close == "}":
            typos = self._typos_for_brace(stack, close_pos)
            if typos:
                del stack[-typos:]
                return close_pos
        if outer:
            del stack[outer[-1]:]
            return semi if semi is not None else close_pos
        stack.pop()
        return close_pos

    def _only_fitting_reading(self, stack: List[List], close_pos: int, outer: List[int]) -> Optional[int]:
        """The one reading of a mismatched closer that the rest of its line agrees with, as
        the stack depth it leaves, or None when several (or none) do. The readings: one
        too many (ignored), a typo for the innermost closer (replaces it), the closer of
        the outer opener of its kind at depth ``outer`` (the brackets inside it were left
        open), and for a '}' a typo for the closers of the brackets opened on its line."""
        t = self.text
        readings = {len(stack), len(stack) - 1, *outer}
        if t[close_pos] == "}":
            readings.add(len(stack) - self._typos_for_brace(stack, close_pos))
        fitting = [depth for depth in readings if self._line_fits(stack[:depth], close_pos + 1)]
        return fitting[0] if len(fitting) == 1 else None

    def _typos_for_brace(self, stack: List[List], close_pos: int) -> int:
        """How many '(' and '[' opened on the line of a '}' with no ';' in them it stands
        for (`f(a + b };`), when a brace is open around them; else 0."""
        t = self.text
        line_start = t.rfind("\n", 0, close_pos) + 1
        typos = 0
        while (typos < len(stack) - 1 and t[stack[-1 - typos][0]] in "(["
               and stack[-1 - typos][0] >= line_start and stack[-1 - typos][1] is None):
            typos += 1
        return typos if typos and t[stack[-1 - typos][0]] == "{" else 0

    def _line_fits(self, stack: List[List], i: int) -> bool:
        """Whether the closers from offset i to the end of the line match ``stack`` (and
        the brackets opened on the line), and a ';' on it ends a statement: no '(', '['
        or i-tuple literal '{' is open."""
        t = self.text
        opened = [o for o, _ in stack]
        end = min(len(t), i + _LINE_LOOKAHEAD)   # beyond it, no reading is preferred
        while i < end and t[i] != "\n":
            j = self.skip_literal_or_comment(i)
            if j != i:
                i = j
                continue
            c = t[i]
            if c in "([{":
                opened.append(i)
            elif c in ")]}":
                if not opened or t[opened[-1]] != _OPENER[c]:
                    return False
                opened.pop()
            elif c == ";" and opened and (t[opened[-1]] in "([" or self._is_literal_brace(opened[-1])):
                return False
            i += 1
        return True

    def _is_literal_brace(self, i: int) -> bool:
        """Whether the '{' at offset i opens an i-tuple literal (`= {`, `/ {`, `, {`), not a
        block (`) {`, `] {`, `by 2 {`, `foreach k {`)."""
        before = _LAST_NON_BLANK.search(self.text, max(0, i - 256), i)
        return before is not None and before.group(1) in "=,(+-*/%[<>?:|&^!{"

    def _on_line(self, i: int, char: str) -> bool:
        """Whether ``char`` appears in code between offset i and the end of its line
        (jumping from one candidate to the next: many closers on one line stay linear)."""
        t = self.text
        end = t.find("\n", i)
        end = len(t) if end < 0 else end
        while i < end:
            k = t.find(char, i, end)
            if k < 0:
                return False
            start = _LITERAL_START.search(t, i, k)
            if start is None:
                return True
            j = self.skip_literal_or_comment(start.start())
            i = j if j != start.start() else start.start() + 1
        return False

    def next_code_char(self, i: int, chars: str) -> int:
        """Offset of the first of `chars` at or after i in code, or -1."""
        t = self.text
        while i < len(t):
            j = self.skip_literal_or_comment(i)
            if j != i:
                i = j
                continue
            if t[i] in chars:
                return i
            i += 1
        return -1


_CO_LINE = re.compile(r"^[ \t]*(?P<co>__co__)\b", re.M)   # a __co__ definition starting a line
_BAD_BYTE = re.compile("[\udc80-\udcff]")   # a byte that is not UTF-8 (surrogateescape)
_CO_WORD = re.compile(r"(?<!\w)__cok?__(?!\w)")
_WORD = re.compile(r"\w+")


def split(text: str, filename: str, diag: Diagnostics, colmap=None) -> List[Segment]:
    """Cuts preprocessed text into host, ``__co__`` and ``__cok__`` segments.

    Segment locations are positions in ``text``; ``colmap`` (see preprocess.ColumnMap)
    turns a position into the user's column for messages.
    """
    lines = LineMap(text, filename)

    def user_loc(loc: Loc) -> Loc:
        return Loc(loc.file, loc.line, colmap(loc.file, loc.line, loc.col)) if colmap else loc
    scan = Scanner(text)
    segments: List[Segment] = []
    host_start = 0
    i = 0
    n = len(text)

    def flush_host(end: int) -> None:
        if end > host_start:
            segments.append(Segment("host", text[host_start:end], lines.loc(host_start), lines.loc(end)))

    # Host C++ is the target compiler's to check, but a '}' that closes nothing at file
    # scope is always wrong, and its usual cause is an extra '}' that ended a __co__
    # function early (the rest of its body then lands in host code).
    check_braces = not _CONDITIONAL.search(text)
    host_depth = 0

    def parameter_list(i: int) -> int:
        """The '(' of a __co__ function's parameters: the first one outside the return
        type's brackets (`s32 [a.span(0)] f(...)` is named 'f', not 'span')."""
        depth = 0
        while True:
            i = scan.next_code_char(i, "([]{;")
            if i < 0 or text[i] in "{;" or (text[i] == "(" and depth == 0):
                return i if i >= 0 and text[i] == "(" else -1
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            i += 1

    def head_end(start: int) -> Tuple[int, int, int]:
        """Where the head of the __co__ function from ``start`` ends: (the '{' of its body or
        the ';' of a prototype, or -1; the first ';' inside the head's brackets, or -1; the
        next `__co__` or `__cok__`, where the search stops, or -1).

        A ';' inside the parameters' '(' ... ')' (or a '[' ... ']') does not end the head:
        the head is malformed, and the parser reports it at that ';' (taking the function
        for a prototype there left its body to the host code)."""
        depth, inner_semi, i = 0, -1, start
        while True:
            i = scan.next_code_char(i, "()[]{;_")
            if i < 0:
                return -1, inner_semi, -1
            c = text[i]
            if c == "_":
                if _CO_WORD.match(text, i):
                    return -1, inner_semi, i
                i = _WORD.match(text, i).end()
                continue
            if c == "{" or (c == ";" and depth <= 0):
                return i, inner_semi, -1
            if c == ";" and inner_semi < 0:
                inner_semi = i
            depth += 1 if c in "([" else -1 if c in ")]" else 0
            i += 1

    def matching_brace(open_pos: int) -> int:
        """The end of a __co__ or __cok__ body.

        Where a '(' or '[' closed by a brace (or a brace by ')' or ']') moves the end that
        counting braces alone finds, the mismatched brackets are reported here (the body
        is then not parsed); otherwise they are the parser's (or the C++ compiler's) to
        report, at the token where a statement goes wrong."""
        if not check_braces:
            return scan.find_matching_brace(open_pos)
        mismatches: List[Tuple[int, Optional[int]]] = []
        close = scan.find_matching_brace(open_pos, mismatches)
        if not mismatches:
            return close   # every bracket matched: counting braces finds the same end
        by_braces = scan.find_matching_brace(open_pos)
        if close == by_braces or close < 0:
            return by_braces
        for closer, opener in mismatches:
            if opener is None:
                diag.error(user_loc(lines.loc(closer)), f"extraneous '{text[closer]}'")
                continue
            diag.error(user_loc(lines.loc(closer)), f"expected '{_CLOSER[text[opener]]}' before '{text[closer]}'")
            diag.note(user_loc(lines.loc(opener)), f"to match this '{text[opener]}'")
        return close

    def report_bad_byte(at: int) -> bool:
        """The first byte that is not UTF-8 in C++ code (host or ``__cok__``) is an error; the
        C++ compiler reports the rest."""
        diag.error(user_loc(lines.loc(at)), f"invalid UTF-8 in C++ code: byte 0x{ord(text[at]) - 0xDC00:02x}; "
                                            "only comments and string literals may hold such bytes")
        return True

    def bad_byte_in_code(start: int, end: int) -> int:
        """Offset of the first byte that is not UTF-8 outside comments and literals, or -1."""
        k = start if _BAD_BYTE.search(text, start, end) else end
        while k < end:
            j = scan.skip_literal_or_comment(k)
            if j != k:
                k = j
                continue
            if "\udc80" <= text[k] <= "\udcff":
                return k
            k += 1
        return -1

    last_co: Optional[Segment] = None
    reported_bytes = False

    while i < n:
        event = _HOST_EVENT.search(text, i)  # jump over what cannot matter
        if event is None:
            break
        i = event.start()
        j = scan.skip_literal_or_comment(i)
        if j != i:
            i = j
            continue
        c = text[i]
        if c != "_":
            if "\udc80" <= c <= "\udcff" and not reported_bytes:
                reported_bytes = report_bad_byte(i)
            if check_braces and c in "{}":
                host_depth += 1 if c == "{" else -1
                if host_depth < 0:
                    diag.error(user_loc(lines.loc(i)), "extraneous closing brace ('}')")
                    if last_co is not None:
                        diag.note(user_loc(last_co.end_loc), f"the __co__ function '{last_co.name}' ends here")
                    host_depth = 0
            i += 1
            continue
        m = event   # `__co__` or `__cok__`, a word of its own
        if m.group() == "__cok__":
            brace = scan.next_code_char(m.end(), "{;")
            if brace < 0 or text[brace] != "{" or text[m.end():brace].strip():
                diag.error(user_loc(lines.loc(i)), "expected '{' after '__cok__'")
                i = m.end()
                continue
            close = matching_brace(brace)
            if close < 0:
                diag.error(user_loc(lines.loc(brace)), "unterminated '__cok__' block: missing '}'")
                return segments
            flush_host(i)
            segments.append(Segment("cok", text[brace + 1:close], lines.loc(brace + 1), lines.loc(close)))
            bad = -1 if reported_bytes else bad_byte_in_code(brace + 1, close)
            if bad >= 0:
                reported_bytes = report_bad_byte(bad)
            i = host_start = close + 1
            continue
        # a __co__ function definition (or a prototype ending in ';')
        brace, inner_semi, stop = head_end(m.end())
        if brace < 0 and inner_semi >= 0:   # `__co__ void f(int n;`: the parser reports the ';'
            brace = inner_semi
        name_m = None
        paren = parameter_list(m.end())
        if paren >= 0:
            before = text[m.end():paren].rstrip()
            name_m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", before)
        name = name_m.group(1) if name_m else None
        if brace < 0:
            diag.error(user_loc(lines.loc(i)), "expected a function body after '__co__' declaration")
            if stop < 0:
                return segments
            flush_host(i)
            i = host_start = stop   # the functions after it are still checked
            continue
        if text[brace] == ";":
            flush_host(i)
            segments.append(Segment("co_decl", text[i:brace + 1], lines.loc(i), lines.loc(brace), name))
            i = host_start = brace + 1
            continue
        reported = diag.errors
        close = matching_brace(brace)
        if close < 0:
            following = _CO_LINE.search(text, brace + 1)
            if following is None:
                diag.error(user_loc(lines.loc(brace)), "unterminated '__co__' function: missing '}'")
                return segments
            # a __co__ function cannot hold another: this one lacks a '}' before it, and
            # the functions after it are still checked
            diag.error(user_loc(lines.loc(following.start("co"))), "expected '}' before '__co__'")
            diag.note(user_loc(lines.loc(brace)), f"to match this '{{' of the __co__ function '{name}'")
            flush_host(i)
            i = host_start = following.start("co")
            continue
        flush_host(i)
        segments.append(Segment("co", text[i:close + 1], lines.loc(i), lines.loc(close), name,
                                brackets_match=diag.errors == reported))
        last_co = segments[-1]
        i = host_start = close + 1
    flush_host(n)
    return segments
