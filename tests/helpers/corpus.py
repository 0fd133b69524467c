"""The ``.co.cpp`` corpus of tests/language: a case is a file, its comments say what to expect
(as LLVM lit's do). tests/language/README.md describes the markers; this module reads them,
checks a file's diagnostics, and builds its programs.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import shared_builds
from .inprocess import Diag, parse_diags
from .paths import TESTS
from .platforms import has_gpu

CORPUS = TESTS / "language"

# the portable targets a program runs on here, and every target a program is built for
PORTABLE = ["cpu", "factor", "opencl"]
TARGETS = PORTABLE + ["cuda"]
# Programs are built with these flags on every target: the cases check the language's results,
# which -O0 gives as -O2 does (the samples, tests/runtime and tests/targets build at the profiles'
# -O2, where the optimiser sees the generated code); -O0 compiles in about 10% less time than -O1
# (the corpus's cpu, factor and opencl builds: 227 s against 261 s of processor time, 2026-11-29),
# and the programs run in milliseconds either way.
BUILD_FLAGS = ["-O0"]
# the cuda builds' profile ($CROKTILE_CUDA_PROFILE) unless the file names its // cuda-arch:
CUDA_PROFILE = os.environ.get("CROKTILE_CUDA_PROFILE", "cuda-sm80")
# the tests of a case that a `// xfail-TEST: REASON` comment may name
TESTS_OF_A_CASE = ("diagnostics", "cpu", "factor", "opencl", "cuda", "cuda-quiet", "gpu")
# Folders whose files may be neither an error case nor a program: their accepted files are
# checked by -fsyntax-only alone (the specification's examples are fragments, most without a
# main). Everywhere else a file that is not an error case is a program (expect-output).
SYNTAX_ONLY_AREAS = {"spec"}
# Folders whose programs must name their // cuda-arch: (tensor cores: the instruction set matters).
CUDA_ARCH_AREAS = {"mma"}

_EXPECT_RE = re.compile(r"//\s*expect-(?P<kind>error|warning|note)(?:@(?P<rel>[+-]\d+))?\s*:\s*(?P<text>.*?)\s*$")
_FLAGS_RE = re.compile(r"//\s*compile-flags:\s*(?P<flags>.*?)\s*$")
_OUTPUT_RE = re.compile(r"//\s*expect-output:\s?(.*?)\s*$")
_SAME_RE = re.compile(r"//\s*expect-same-output:\s*(\d+)\s*$")
_TARGETS_RE = re.compile(r"//\s*targets:\s*(.*?)\s*$")
_ARCH_RE = re.compile(r"//\s*cuda-arch:\s*(\S+)(.*?)\s*$")
_NOT_ON_OPENCL_RE = re.compile(r"//\s*not-on-opencl:\s*(.*?)\s*$")
_XFAIL_RE = re.compile(r"//\s*xfail-([\w-]+):\s*(.*?)\s*$")


@dataclass
class Case:
    path: Path
    lines: List[str]                          # as the compiler counts them
    expected: List[Tuple[str, int, str]]      # (error|warning|note, line, text)
    flags: List[str] = field(default_factory=list)
    output: Optional[List[str]] = None        # the expect-output lines, or None
    same_output: Optional[int] = None         # expect-same-output: N
    targets: List[str] = field(default_factory=lambda: list(TARGETS))
    not_on_opencl: Optional[str] = None
    cuda_arch: Optional[str] = None           # sm_NN, or None for the profile's
    no_cuda: Optional[str] = None             # `// cuda-arch: none: WHY`
    xfail: Dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.path.relative_to(CORPUS).as_posix() if self.area else self.path.name

    @property
    def area(self) -> Optional[str]:
        """The corpus's folder the file is in (None for a file elsewhere: a test's own)."""
        return self.path.relative_to(CORPUS).parts[0] if CORPUS in self.path.parents else None

    @property
    def stem(self) -> str:
        return self.path.name[: -len(".co.cpp")]

    @property
    def is_error(self) -> bool:
        return any(kind == "error" for kind, _, _ in self.expected)

    @property
    def is_program(self) -> bool:
        return self.output is not None or self.same_output is not None

    def runs_on(self) -> List[str]:
        """The portable targets the program is built and run for."""
        return [t for t in PORTABLE if t in self.targets] if self.is_program else []

    def built_for_cuda(self) -> bool:
        return self.is_program and "cuda" in self.targets


def read_case(path: Path) -> Case:
    """A file's markers; raises AssertionError for one that is malformed."""
    lines = path.read_text(encoding="utf-8").split("\n")
    case = Case(path, lines, [])
    outputs: List[str] = []
    for number, text in enumerate(lines, start=1):
        where = f"{path.name}:{number}"
        m = _EXPECT_RE.search(text)
        if m:
            target = number + int(m["rel"] or 0)
            assert 1 <= target <= len(lines), f"{where}: expect comment points outside the file"
            assert m["text"], f"{where}: expect comment without a message substring"
            case.expected.append((m["kind"], target, m["text"]))
        elif re.search(r"expect-(error|warning|note)", text):
            raise AssertionError(f"{where}: malformed expect comment: {text.strip()}")
        if (m := _FLAGS_RE.search(text)):
            case.flags += m["flags"].split()
        if (m := _OUTPUT_RE.search(text)):
            outputs.append(m.group(1))
        if (m := _SAME_RE.search(text)):
            case.same_output = int(m.group(1))
        if (m := _TARGETS_RE.search(text)):
            case.targets = m.group(1).split()
            assert set(case.targets) <= set(TARGETS), f"{where}: targets are {' '.join(TARGETS)}"
        if (m := _ARCH_RE.search(text)):
            if m.group(1).startswith("none"):
                case.no_cuda = m.group(2).lstrip(": ") or "cuda-arch: none"
            else:
                case.cuda_arch = m.group(1)
        if (m := _NOT_ON_OPENCL_RE.search(text)):
            case.not_on_opencl = m.group(1)
        if (m := _XFAIL_RE.search(text)):
            assert m.group(1) in TESTS_OF_A_CASE, f"{where}: xfail-{m.group(1)}: the tests are {TESTS_OF_A_CASE}"
            case.xfail[m.group(1)] = m.group(2)
    if outputs:
        case.output = outputs
    return case


def all_cases() -> List[Case]:
    return [read_case(p) for p in sorted(CORPUS.rglob("*.co.cpp"))]


def check_file(case: Case) -> None:
    """The corpus's own rules, whatever a file's diagnostics."""
    if case.path.name.startswith("err_"):
        assert case.is_error, "an err_* case must mark at least one '// expect-error:'"
    if case.is_error:
        assert not case.is_program, "an error case is not a program: no expect-output"
    elif case.area is not None and case.area not in SYNTAX_ONLY_AREAS:
        assert case.is_program, f"a case of {case.area}/ that is no error case is a program: it needs " \
                                "'// expect-output:' lines (or '// expect-same-output: N')"
    if case.is_program and case.area in CUDA_ARCH_AREAS:
        assert case.cuda_arch or case.no_cuda, \
            f"a program of {case.area}/ names its '// cuda-arch:' (an sm_NN, or 'none: why')"
    assert not (case.output is not None and case.same_output is not None), \
        "expect-output and expect-same-output exclude each other"


def check_source_and_caret(stderr_lines: List[str], d: Diag, source: List[str]) -> None:
    """A located diagnostic is followed by its source line and a caret under the column."""
    where = f"{d.kind} at {d.line}:{d.col} ({d.msg})"
    assert d.index + 2 < len(stderr_lines), f"{where}: no source line and caret after it"
    shown, caret = stderr_lines[d.index + 1], stderr_lines[d.index + 2]
    assert shown == source[d.line - 1], f"{where}: shows {shown!r}, not source line {d.line}"
    assert caret.strip() == "^", f"{where}: {caret!r} is not a caret line"
    assert caret.index("^") == d.col - 1, f"{where}: caret at column {caret.index('^') + 1}"
    assert 1 <= d.col <= len(source[d.line - 1]) + 1, f"{where}: column beyond the end of the line"


def check_diagnostics(case: Case, croktilec) -> None:
    """``croktilec -fsyntax-only FLAGS FILE`` (in-process: the ``croktilec`` fixture) reports
    exactly the file's expected errors and warnings, each at its line, and its expected notes
    (other notes may come too); raises AssertionError with the differences."""
    check_file(case)
    path, source = case.path, case.lines
    result = croktilec("-fsyntax-only", *case.flags, str(path))
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

    # each expectation matches a distinct diagnostic of its kind at its line
    unmatched = list(diags)
    missing = []
    for kind, line, text in case.expected:
        hit = next((d for d in unmatched if d.kind == kind and d.line == line and text in d.msg), None)
        if hit is None:
            missing.append(f"  line {line}: {kind} containing {text!r}")
        else:
            unmatched.remove(hit)
    problems = []
    if missing:
        problems.append("expected but not reported:\n" + "\n".join(missing))
    extra = [d for d in unmatched if d.kind in ("error", "warning")]   # notes need no expectation
    if extra:
        problems.append("reported but not expected:\n" + "\n".join(
            f"  line {d.line}:{d.col}: {d.kind}: {d.msg}" for d in extra))
    assert not problems, "\n".join(problems) + "\n--- stderr ---\n" + result.err

    want_rc = 1 if case.is_error else 0
    assert result.rc == want_rc, f"exit status {result.rc}, expected {want_rc}\n{result.err}"


def unexpected_output(case: Case, stderr: str) -> List[str]:
    """The lines of a build's standard error that are not one of the file's expected warnings
    (with its source line and caret; test_diagnostics checks those): a target compiler's
    warnings, and anything else."""
    lines = stderr.splitlines()
    wanted = [(line, text) for kind, line, text in case.expected if kind == "warning"]
    explained = set()
    for d in parse_diags(stderr):
        if d.kind == "warning" and any(d.line == line and text in d.msg for line, text in wanted):
            explained.update({d.index, d.index + 1, d.index + 2})
    return [line for i, line in enumerate(lines) if i not in explained]


def build_args(case: Case, target: str) -> Tuple[List[str], str]:
    """croktilec's arguments (less -o) for the case's build on ``target``, and the output's name.
    A cuda build is linked only where a GPU can run it; elsewhere it is an object (-c)."""
    if target != "cuda":
        return ["-t", target, *BUILD_FLAGS, str(case.path)], f"{case.stem}.{target}"
    arch = [f"-arch={case.cuda_arch}"] if case.cuda_arch else []
    link = has_gpu() and case.output is not None
    return (["-t", "cuda", "--profile", CUDA_PROFILE, *arch, *BUILD_FLAGS, *([] if link else ["-c"]),
             str(case.path)], f"{case.stem}.cuda{'' if link else '.o'}")


def build(tmp_path_factory, case: Case, target: str):
    """The case's program for ``target``, built once per test session (shared_builds: every
    test file and xdist worker that asks for it takes the same build): (Result, output path)."""
    args, name = build_args(case, target)
    return shared_builds.build(tmp_path_factory, *args, name=name, timeout=600)
