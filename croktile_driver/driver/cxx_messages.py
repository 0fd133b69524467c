"""The C++ compiler's messages about a generated source, told against the user's file (#36).

The generated source names the user's ``.co.cpp`` in ``#line`` directives, so the
compiler's messages already give its lines, and every generated line is at the line of
the statement it was generated for (codegen/cxx.py: pin_lines). Their columns are the
generated text's, though: right where the line is the user's text copied (host C++,
``__cok__`` code), invented where it is generated code (gcc said 2:121 of a line of 47
characters and drew its caret there). Such a message keeps its line and loses its
column and the caret, with the user's line quoted instead; every other line of the
compiler's output is passed on as it was.
"""
from __future__ import annotations

import re
import sys
import tempfile
from typing import Callable, Dict, List, Optional, Set, Tuple

from . import interrupts
from ..cstrings import directive_lines

_WORD = re.compile(r"\w")
_LOCATED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):(?P<rest>.*)$")
# where a message's quoted source ends: the next message or context line of the output
_NEXT = re.compile(r"^(?:[^:\n\s][^:\n]*:\d+(?::\d+)?:|In file included from |\s+from |[^:\n\s][^:\n]*: In |"
                   r"\d+ (?:errors?|warnings?)\b|compilation terminated)")


def generated_lines(generated: str) -> Dict[Tuple[str, int], List[str]]:
    """(user's file, line) -> the lines of the generated source that the compiler puts there."""
    out: Dict[Tuple[str, int], List[str]] = {}
    presumed: Optional[List] = None
    for line, directive, _ in directive_lines(generated):
        if directive is not None:
            presumed = list(directive)
            continue
        if presumed is not None:
            out.setdefault((presumed[0], presumed[1]), []).append(line)
            presumed[1] += 1
    return out


class Remapper:
    """Rewrites the messages about one generated source."""

    def __init__(self, generated: str):
        self.at = generated_lines(generated)
        self.files: Set[str] = {file for file, _ in self.at}
        self.sources: Dict[str, Optional[List[str]]] = {}

    def user_line(self, file: str, line: int) -> Optional[str]:
        if file not in self.sources:
            try:
                with open(file, encoding="utf-8", errors="surrogateescape", newline="") as fh:
                    self.sources[file] = fh.read().splitlines()
            except OSError:
                self.sources[file] = None
        lines = self.sources[file]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None

    def column_is_real(self, file: str, line: int) -> bool:
        """Whether every line of code the compiler may mean at ``file:line`` is the user's
        line copied, up to a comment dropped at its end (then its columns are the user's). Lines without a word (a generated
        `}`, which pin_lines leaves where it falls) do not count."""
        user = self.user_line(file, line)
        if user is None:
            return False
        # the copy may have lost a trailing comment (the preprocessor's): its columns are still the user's
        return all(user.startswith(text.rstrip()) for text in self.at.get((file, line), []) if _WORD.search(text))

    def rewrite(self, output: str) -> str:
        out: List[str] = []
        skipping = False   # the source and caret the compiler quoted for a column it made up
        for text in output.split("\n"):
            m = _LOCATED.match(text)
            if skipping and (m or _NEXT.match(text)):
                skipping = False
            if skipping:
                continue
            if m and m.group("file") in self.files and not self.column_is_real(m.group("file"), int(m.group("line"))):
                file, line = m.group("file"), int(m.group("line"))
                out.append(f"{file}:{line}:{m.group('rest')}")
                quoted = self.user_line(file, line)
                if quoted is not None and quoted.strip():
                    out.append(quoted)
                skipping = True
                continue
            out.append(text)
        return "\n".join(out)


def remapper_for(generated_path: str) -> Callable[[str], str]:
    """Rewords a compiler's messages about ``generated_path`` (as remapping_runner shows them)."""
    def remap(output: str) -> str:
        try:
            with open(generated_path, encoding="utf-8", errors="surrogateescape") as fh:
                return Remapper(fh.read()).rewrite(output)
        except OSError:
            return output   # no generated source to read: the compiler's words as they were
    return remap


def remapping_runner(generated_path: str) -> Callable[..., int]:
    """A job runner (see jobs.Job.runner) for the compile of ``generated_path``: its
    error output is shown rewritten (Remapper)."""
    def run(argv: List[str], env=None) -> int:
        with tempfile.TemporaryFile(dir=(env or {}).get("TMPDIR")) as captured:
            rc = interrupts.run_child(argv, env=env, stderr=captured)
            captured.seek(0)
            output = captured.read().decode("utf-8", "replace")
        if output:
            output = remapper_for(generated_path)(output)
            sys.stderr.write(output if output.endswith("\n") else output + "\n")
            sys.stderr.flush()
        return rc
    return run
