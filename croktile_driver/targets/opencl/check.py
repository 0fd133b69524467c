"""The opencl target's build-time check of the device program.

The OpenCL platform compiles the device program when it first runs; a mistake in
``__cok__`` code would only show then. So every build that compiles the host source,
and ``-S`` writing files (build systems compile what it writes themselves), also runs
an OpenCL C compiler over the generated ``.cl`` (the profile's ``device_cc``,
clang by default: PoCL is built on it) in syntax-only mode, with the standard the
runtime asks for (``-cl-std=CL1.2``, runtime/croktile_opencl.h). Its diagnostics name
the ``.co.cpp`` lines already (the program carries ``#line`` directives); they are
printed again against the user's source line, with the column of the user's token
where the line is generated code and with renamed reserved names shown as written.
"""
from __future__ import annotations

import bisect
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ...driver import interrupts
from ...codegen.cxx import line_directive

DEFAULT_CHECKER = "clang"
# As the runtime builds the program (croktile_opencl.h: clBuildProgram's options), with
# the declarations of OpenCL C's built-in functions that PoCL includes too. __cok__ code
# that declares the prelude's names itself (`typedef int s32;`, as it must for the cpu
# target) repeats a typedef, which C99-based OpenCL C only warns about, with a note in
# the prelude of a temporary file.
CHECK_FLAGS = ["-x", "cl", "-cl-std=CL1.2", "-fsyntax-only", "-Xclang", "-finclude-default-header",
               "-fno-color-diagnostics", "-fno-diagnostics-show-option", "-Wno-typedef-redefinition"]

PRELUDE_NAME = "<croktile OpenCL C prelude>"
_HEADER = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note|remark): "
                     r"(?P<msg>.*)$")
_SUMMARY = re.compile(r"^\d+ (?:errors?|warnings?)(?: and \d+ (?:errors?|warnings?))? generated\.$")
_LINE_DIRECTIVE = re.compile(r'^\s*#\s*line\s+(\d+)')
_COLUMN_COMMENT = re.compile(r"// column (\d+)\s*$")


def find_clang() -> Optional[str]:
    """`clang`, else the clang-NN of the highest version on PATH (Debian installs only those)."""
    found = shutil.which(DEFAULT_CHECKER)
    if found:
        return found
    best: Tuple[int, str] = (-1, "")
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(directory or ".")
        except OSError:
            continue
        for name in names:
            m = re.fullmatch(r"clang-(\d+)", name)
            full = os.path.join(directory, name)
            if m and int(m.group(1)) > best[0] and os.access(full, os.X_OK) and not os.path.isdir(full):
                best = (int(m.group(1)), full)
    return best[1] or None


def _words(command: str) -> List[str]:
    """A command's words as a shell splits them (as written where its quotes do not pair)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def checker_command(profile: Dict) -> Optional[List[str]]:
    """The profile's OpenCL C compiler command, or None where the profile turns the check
    off (`device_cc: ""`). A bare `clang` (the default) also finds a versioned clang-NN;
    where none is on PATH it stays `clang`."""
    words = _words(profile.get("device_cc", DEFAULT_CHECKER))
    if not words:
        return None
    if words[0] == DEFAULT_CHECKER:
        found = find_clang()
        if found is None:
            return [DEFAULT_CHECKER] + words[1:]
        words[0] = found
    return words


def locate(command: str) -> Optional[str]:
    """Where the program of a device_cc command is, for --print-toolchains."""
    words = _words(command)
    if not words:
        return None
    return find_clang() if words[0] == DEFAULT_CHECKER else shutil.which(words[0])


# ---------------------------------------------------------------------------------
# Running the check and showing its diagnostics against the .co.cpp
# ---------------------------------------------------------------------------------

@dataclass
class Diagnostic:
    file: str
    line: int
    col: int
    severity: str
    message: str
    snippet: List[str]          # what the compiler printed under the header (source line, caret, ...)


def parse_diagnostics(text: str) -> Tuple[List[Diagnostic], List[str]]:
    """clang's output: the diagnostics, and the lines that belong to none."""
    diags: List[Diagnostic] = []
    other: List[str] = []
    for raw in text.splitlines():
        m = _HEADER.match(raw)
        if m:
            diags.append(Diagnostic(m["file"], int(m["line"]), int(m["col"]), m["sev"], m["msg"], []))
        elif _SUMMARY.match(raw.strip()) or raw.startswith("In file included from"):
            continue
        elif diags:
            diags[-1].snippet.append(raw)
        elif raw.strip():
            other.append(raw)
    return diags, other


def statement_line(loc) -> str:
    """The #line before generated code, with the column of the tileflow statement it
    implements: an error there is shown at the user's token from that column on."""
    return f"{line_directive(loc)} // column {loc.col}"


def physical_lines(device_text: str) -> Dict[int, List[Tuple[str, Optional[int]]]]:
    """The lines of the device program that #line directives attribute to each line
    number, each with the column its tileflow statement starts at in the user's line
    (None: a copy of the user's __cok__ code)."""
    by_line: Dict[int, List[Tuple[str, Optional[int]]]] = {}
    presumed, column = None, None
    for text in device_text.split("\n"):
        m = _LINE_DIRECTIVE.match(text)
        if m:
            presumed = int(m.group(1))
            col = _COLUMN_COMMENT.search(text)
            column = int(col.group(1)) if col else None
            continue
        if presumed is not None:
            by_line.setdefault(presumed, []).append((text, column))
            presumed += 1
    return by_line


class Renderer:
    """Shows the checker's diagnostics against the user's source, gcc style."""

    def __init__(self, device_text: str, renamed_prefix: str, program: str = ""):
        self.by_line = physical_lines(device_text)
        self.prefix = renamed_prefix
        self.program = program   # the checked file: what no #line maps is its prelude
        self.sources: Dict[str, Optional[List[str]]] = {}

    def source_line(self, path: str, line: int) -> Optional[str]:
        if path not in self.sources:
            try:
                with open(path, encoding="utf-8", errors="replace", newline="") as fh:
                    self.sources[path] = fh.read().splitlines()
            except OSError:
                self.sources[path] = None
        lines = self.sources[path]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None

    def shown(self, text: str) -> str:
        """Renamed reserved names as the user wrote them."""
        return re.sub(rf"\b{self.prefix}(\w+)", r"\1", text)

    def column(self, d: Diagnostic, user: str) -> int:
        """The column in the user's line. The device program's copy of __cok__ code differs
        from it only by blanked and inserted words (extern "C", a copy's name and address
        spaces): the column of the same character. Code generated for a tileflow statement:
        where the user's statement has the token the error is at (a buffer `x` is `x__ptr`
        there, a device function `f` may be its copy `f__l`)."""
        generated, start = self.generated_line(d)
        if generated is None:
            return d.col
        at = _char_index(generated, d.col)
        if start is None:
            return _aligned(generated, user, at) + 1
        while at > 0 and (generated[at - 1].isalnum() or generated[at - 1] == "_"):
            at -= 1
        word = re.match(r"\w*", generated[at:]).group()
        base = self.shown(word).split("__")[0]
        if base:   # the same occurrence of it in the statement: f(x, x) is f(x__ptr, x__ptr + 4)
            nth = len(re.findall(rf"\b{re.escape(word)}\b", generated[:at]))
            found = [m.start() for m in re.finditer(rf"\b{re.escape(base)}\b", user)]
            after = [k for k in found if k >= start - 1]
            if after or found:
                return (after or found)[min(nth, len(after or found) - 1)] + 1
        return start

    def generated_line(self, d: Diagnostic) -> Tuple[Optional[str], Optional[int]]:
        """The device program's line the diagnostic is on (the one clang quoted), and the
        column its statement starts at."""
        candidates = self.by_line.get(d.line, [])
        quoted = d.snippet[0].rstrip() if d.snippet else None
        for text, start in candidates:
            if quoted is not None and text.expandtabs(8).rstrip() == quoted:
                return text, start
        return candidates[0] if candidates else (None, None)

    def is_rename_note(self, d: Diagnostic) -> bool:
        """The note that a renamed reserved name is a macro: the rename is ours, not the user's."""
        m = re.fullmatch(r"expanded from macro '(\w+)'", d.message)
        return (d.severity == "note" and m is not None and bool(d.snippet)
                and f"{m.group(1)} {self.prefix}{m.group(1)}" in d.snippet[0])

    def render(self, d: Diagnostic) -> Optional[str]:
        if self.is_rename_note(d):
            return None
        if d.file == self.program:   # no #line maps it: the prelude, in a temporary file
            return "\n".join([f"{PRELUDE_NAME}:{d.line}:{d.col}: {d.severity}: {self.shown(d.message)}"]
                             + d.snippet)
        user = self.source_line(d.file, d.line)
        if user is None:   # not the user's file (a header): as the compiler said it
            return "\n".join([f"{d.file}:{d.line}:{d.col}: {d.severity}: {self.shown(d.message)}"] + d.snippet)
        col = self.column(d, user)
        caret = "".join(c if c == "\t" else " " for c in user[:col - 1]) + "^"
        return f"{d.file}:{d.line}:{col}: {d.severity}: {self.shown(d.message)}\n{user}\n{caret}"


_TOKEN = re.compile(r"\w+|\S")
# tokens looked ahead for the next common run: in the device line (a macro's expansion,
# inserted qualifiers) and in the user's (blanked words)
_RESYNC_GENERATED = 64
_RESYNC_USER = 16


def _aligned(generated: str, user: str, at: int) -> int:
    """The index in `user` of the character at `at` in its edited copy `generated`; a
    character the copy inserted stands for the user's text that follows it.

    The copy differs by blanked, inserted and replaced words (and expanded macros): the
    two lines' tokens are matched in order, whitespace aside, and past a difference the
    next run of two equal tokens within a short window resumes the match. Linear in the
    line (difflib's character alignment was quadratic, or worse, on a long line)."""
    gen = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(generated)]
    usr = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(user)]
    match = _match_tokens([t for _, _, t in gen], [t for _, _, t in usr])
    k = next((k for k, (_, end, _) in enumerate(gen) if at < end), len(gen))
    if k < len(gen) and gen[k][0] <= at and match[k] is not None:   # inside a matched token
        start, end, _ = usr[match[k]]
        return min(start + at - gen[k][0], end - 1)
    if k > 0 and match[k - 1] is not None:   # in the blanks after a matched token
        q = match[k - 1]
        limit = usr[q + 1][0] if q + 1 < len(usr) else len(user)
        return min(usr[q][1] + at - gen[k - 1][1], limit)
    following = next((match[i] for i in range(k, len(gen)) if match[i] is not None), None)
    start = usr[following][0] if following is not None else len(user)
    return min(at, start) if k == 0 else start


def _match_tokens(gen: List[str], usr: List[str]) -> List[Optional[int]]:
    """For each token of `gen`, the index of the `usr` token it is, or None (inserted)."""
    match: List[Optional[int]] = [None] * len(gen)
    pairs: Dict[Tuple[str, Optional[str]], List[int]] = {}   # where each two tokens start in `usr`
    for b, tok in enumerate(usr):
        pairs.setdefault((tok, usr[b + 1] if b + 1 < len(usr) else None), []).append(b)
    i = j = 0
    while i < len(gen) and j < len(usr):
        if gen[i] == usr[j]:
            match[i] = j
            i, j = i + 1, j + 1
            continue
        best = None   # the nearest (i', j') from which two tokens (or the last) agree
        for a in range(min(_RESYNC_GENERATED, len(gen) - i)):
            found = pairs.get((gen[i + a], gen[i + a + 1] if i + a + 1 < len(gen) else None), ())
            k = bisect.bisect_left(found, j)
            if k < len(found) and found[k] - j <= _RESYNC_USER and (best is None or a + found[k] - j < sum(best)):
                best = (a, found[k] - j)
        a, b = best or (1, 1)
        _match_in_order(gen, usr, range(i, i + a), range(j, j + b), match)
        i, j = i + a, j + b
    return match


def _match_in_order(gen: List[str], usr: List[str], gap_gen: range, gap_usr: range,
                    match: List[Optional[int]]) -> None:
    """The lone equal tokens of two short gaps between runs: `void` in `extern "C" void f(`
    and `void f__g(__global`."""
    j = gap_usr.start
    for i in gap_gen:
        k = next((k for k in range(j, gap_usr.stop) if usr[k] == gen[i]), None)
        if k is not None:
            match[i], j = k, k + 1


def _char_index(text: str, byte_col: int) -> int:
    """The index in `text` of a 1-based byte column."""
    data = text.encode("utf-8", "surrogateescape")
    return len(data[:max(byte_col - 1, 0)].decode("utf-8", "ignore"))


def run_check(argv: List[str], env=None, renamed_prefix: str = "") -> int:
    """Runs the checker on the device program (the last argument) and prints its
    diagnostics against the .co.cpp; 1 when it found errors."""
    with tempfile.TemporaryFile(dir=(env or {}).get("TMPDIR")) as captured:
        rc = interrupts.run_child(argv, env=env, stderr=captured)
        captured.seek(0)
        output = captured.read().decode("utf-8", "replace")
    try:
        with open(argv[-1], encoding="utf-8", errors="replace") as fh:
            device_text = fh.read()
    except OSError:
        device_text = ""
    diags, other = parse_diagnostics(output)
    renderer = Renderer(device_text, renamed_prefix, argv[-1])
    # a function and its address-space copies can make the same error: shown once
    shown = list(dict.fromkeys(r for r in (renderer.render(d) for d in diags) if r is not None))
    report = "\n".join(other + shown)
    if report:
        sys.stderr.write(report + "\n")
        sys.stderr.flush()
    return rc
