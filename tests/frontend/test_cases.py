"""The data-driven frontend corpus: every file in ``cases/`` is one test.

See ``cases/README.md`` for the conventions. In short: a file runs through
``croktilec -fsyntax-only``; ``// expect-error: TEXT`` and ``// expect-warning: TEXT``
comments (optionally ``@+N`` / ``@-N`` for another line) list every diagnostic the
file must produce, at that line; anything else on stderr fails the test.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Tuple

import pytest

from .conftest import Diag, parse_diags

CASES_DIR = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES_DIR.glob("*.co.cpp"))

FLAGS_RE = re.compile(r"//\s*compile-flags:\s*(?P<flags>.*?)\s*$")
EXPECT_RE = re.compile(r"//\s*expect-(?P<kind>error|warning)(?:@(?P<rel>[+-]\d+))?\s*:\s*(?P<text>.*?)\s*$")


def read_expectations(lines: List[str]) -> List[Tuple[str, int, str]]:
    """(kind, line, substring) for every ``expect-`` comment; lines are 1-based."""
    out = []
    for number, text in enumerate(lines, start=1):
        m = EXPECT_RE.search(text)
        if not m:
            if "expect-error" in text or "expect-warning" in text:
                raise AssertionError(f"line {number}: malformed expect comment: {text.strip()}")
            continue
        target = number + int(m["rel"] or 0)
        assert 1 <= target <= len(lines), f"line {number}: expect comment points outside the file"
        assert m["text"], f"line {number}: expect comment without a message substring"
        out.append((m["kind"], target, m["text"]))
    return out


def check_source_and_caret(stderr_lines: List[str], d: Diag, source: List[str]) -> None:
    """A located diagnostic is followed by its source line and a caret under the column."""
    where = f"{d.kind} at {d.line}:{d.col} ({d.msg})"
    assert d.index + 2 < len(stderr_lines), f"{where}: no source line and caret after it"
    shown, caret = stderr_lines[d.index + 1], stderr_lines[d.index + 2]
    assert shown == source[d.line - 1], f"{where}: shows {shown!r}, not source line {d.line}"
    assert caret.strip() == "^", f"{where}: {caret!r} is not a caret line"
    assert caret.index("^") == d.col - 1, f"{where}: caret at column {caret.index('^') + 1}"
    assert 1 <= d.col <= len(source[d.line - 1]) + 1, f"{where}: column beyond the end of the line"


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.name for p in CASE_FILES])
def test_case(path: Path, croktilec):
    verify_case(path, croktilec)


def verify_case(path: Path, croktilec) -> None:
    """Runs one case file; raises AssertionError with the differences when it fails."""
    source = path.read_text(encoding="utf-8").split("\n")   # lines as the compiler counts them
    expected = read_expectations(source)
    expect_errors = [e for e in expected if e[0] == "error"]
    if path.name.startswith("err_"):
        assert expect_errors, "an err_* case must mark at least one '// expect-error:'"

    flags = [f for line in source for m in [FLAGS_RE.search(line)] if m for f in m["flags"].split()]
    result = croktilec("-fsyntax-only", *flags, str(path))
    err_lines = result.err.splitlines()
    assert "Traceback" not in result.err, result.err
    assert "internal compiler error" not in result.err, result.err
    assert result.out == "", f"-fsyntax-only printed to stdout:\n{result.out}"

    diags = parse_diags(result.err)
    # every stderr line is a diagnostic header or the source/caret lines after one
    explained = set()
    for d in diags:
        explained.update({d.index, d.index + 1, d.index + 2})
    stray = [line for i, line in enumerate(err_lines) if i not in explained]
    assert not stray, "unexpected output on stderr:\n" + "\n".join(stray) + "\n--- stderr ---\n" + result.err

    for d in diags:  # the file is named exactly as it was given on the command line
        assert d.file == str(path), f"diagnostic names another file: {d}"
        check_source_and_caret(err_lines, d, source)

    # match each expectation to a distinct diagnostic of its kind at its line
    reported = [d for d in diags if d.kind in ("error", "warning")]
    unmatched = list(reported)
    missing = []
    for kind, line, text in expected:
        hit = next((d for d in unmatched if d.kind == kind and d.line == line and text in d.msg), None)
        if hit is None:
            missing.append(f"  line {line}: {kind} containing {text!r}")
        else:
            unmatched.remove(hit)
    problems = []
    if missing:
        problems.append("expected but not reported:\n" + "\n".join(missing))
    if unmatched:
        problems.append("reported but not expected:\n" + "\n".join(
            f"  line {d.line}:{d.col}: {d.kind}: {d.msg}" for d in unmatched))
    assert not problems, "\n".join(problems) + "\n--- stderr ---\n" + result.err

    want_rc = 1 if expect_errors else 0
    assert result.rc == want_rc, f"exit status {result.rc}, expected {want_rc}\n{result.err}"


# -- the harness itself must reject what it is meant to catch ---------------------------
HARNESS_SELF_TESTS = {
    "unexpected_error": "__co__ void f() { int x = y; }\n",
    "missing_error": "__co__ void f() { int x = 1; } // expect-error: was not declared\n",
    "wrong_line": "__co__ void f() {\n  int x = y;\n} // expect-error: 'y' was not declared\n",
    "wrong_text": "__co__ void f() {\n  int x = y; // expect-error: 'z' was not declared\n}\n",
    "unexpected_warning": "__co__ void f(s32 [4] a) { parallel p by 1 { a.span; } }\n",
    "duplicate_needs_two": "__co__ void f() {\n  int x = y + y; // expect-error: 'y' was not declared\n}\n",
    "err_without_expectations": "__co__ void f() {}\n",
}


@pytest.mark.parametrize("name", sorted(HARNESS_SELF_TESTS))
def test_harness_rejects(name, tmp_path, croktilec):
    prefix = "err_" if name == "err_without_expectations" else "self_"
    path = tmp_path / f"{prefix}{name}.co.cpp"
    path.write_text(HARNESS_SELF_TESTS[name])
    with pytest.raises(AssertionError):
        verify_case(path, croktilec)


def test_harness_accepts_expect_at_offsets(tmp_path, croktilec):
    path = tmp_path / "offsets.co.cpp"
    path.write_text("__co__ void f(s32 [4] a) {\n"
                    "  // expect-error@+1: 'y' was not declared\n"
                    "  int x = y;\n"
                    "  // expect-warning@+2: statement has no effect\n"
                    "  parallel p by 1 {\n"
                    "    a.span;\n"
                    "  }\n"
                    "  int z = q; // expect-error: 'q' was not declared\n"
                    "} // expect-error@-3: never-matches-on-purpose\n")
    with pytest.raises(AssertionError, match="never-matches-on-purpose"):
        verify_case(path, croktilec)
    path.write_text(path.read_text().replace(" // expect-error@-3: never-matches-on-purpose", ""))
    verify_case(path, croktilec)
